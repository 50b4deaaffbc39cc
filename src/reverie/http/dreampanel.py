"""The scope page's dream panel, and the page that previews a pass before running it.

The panel used to dump the recorded summary (raw dicts for counts, stats, attention, timings;
actions naming item ids). A person wants one sentence — when it ran and what it changed — then
the reasons on request, with the text of the memories they are about. So: a summary line, a
few plain counts, and ``<details>`` (folded, works without script) for the actions, the items a
protection spared and the numbers.

The panel reads the newest pass over *this* scope from the store (``Memory.dream_runs``), not
from this ``Memory``: a pass run by ``reverie dream`` from cron, by another process sharing the
file, or before a restart shows here too, and a pass over another scope never does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from reverie.http import charts
from reverie.http import humane as h
from reverie.http import render as r
from reverie.memory import Memory
from reverie.model.clock import from_iso
from reverie.model.query import Q

#: Spared items listed; the JSON report (``reverie dream --json``) has them all.
SPARED_SHOWN = 5
#: What a pass's stats mean to a person, in the order the summary says them.
HEADLINE = (
    ("demoted", "{n} stale memor{ies} moved to the subconscious"),
    ("clusters_consolidated", "{n} group{s} of near-duplicates consolidated"),
    ("gists", "{n} summar{ies} written"),
    ("contradiction_pairs", "{n} contradiction{s} found"),
)
STEP_WORDS = {
    "consolidate": "consolidate",
    "contradiction": "contradiction",
    "recheck": "re-check",
    "hub": "hub",
    "provenance": "provenance",
    "keep_budget": "keep budget",
    "tier": "tier",
    "settle": "settle",
}


def panel(mem: Memory, scope: str, csrf: str, now: datetime) -> r.Safe:
    """The last pass in words, the runs chart, and the forms to preview or run a pass."""
    runs = mem.dream_runs(scope=scope, limit=min(charts.RUNS_SHOWN, mem.limits.max_k))
    run_form = r.fmt(
        '<div class="dream-actions"><a class="button" href="{preview}">preview a dream pass (dry run)</a> {run}</div>',
        preview=r.url("/dream", scope=scope),
        run=r.action_form("dream", "run a dream pass now", csrf, scope=scope),
    )
    if not runs:
        return r.fmt(
            '<section class="dream"><h3>Dreaming</h3><p class="empty">No dream pass has run over this scope yet. '
            "A pass consolidates near-duplicates, finds contradictions and moves stale memories out of "
            "the way.</p>{form}</section>",
            form=run_form,
        )
    run = runs[0]
    texts = _texts(mem, scope, run)
    return r.fmt(
        '<section class="dream"><h3>Last dream pass</h3><div class="dream-body"><div class="dream-text">{summary}'
        "{actions}{spared}{attention}{numbers}</div>{chart}</div>{form}</section>",
        summary=summary(run, now),
        chart=charts.runs_chart(runs) if len(runs) > 1 else r.EMPTY,
        actions=_actions(
            run.get("first_actions") or [], int((run.get("counts") or {}).get("actions", 0)), texts, scope
        ),
        spared=_spared(run.get("spared") or [], int(run.get("spared_total", 0)), texts, scope),
        attention=_attention(run.get("attention") or [], scope),
        numbers=_numbers(run),
        form=run_form,
    )


def summary(run: Mapping[str, Any], now: datetime) -> r.Safe:
    """``Ran 3 hours ago and made 12 changes: …`` plus its notes, each a sentence."""
    at = _at(run.get("at"))
    counts = run.get("counts") or {}
    by_status: dict[str, int] = counts.get("by_status") or {}
    total = int(counts.get("actions", 0))
    stats = run.get("stats") or {}
    said = [_plural(tpl, int(stats.get(key, 0) or 0)) for key, tpl in HEADLINE if stats.get(key)]
    state = ""
    if run.get("dry_run"):
        state = " (a dry run: nothing was changed)"
    elif run.get("interrupted"):
        state = " (interrupted before it finished)"
    statuses = h.words(f"{n} {s}" for s, n in sorted(by_status.items()))
    notes = r.join(r.fmt("<li>{n}</li>", n=n) for n in run.get("notes") or [])
    return r.fmt(
        '<p class="dream-summary">{verb} {when}{state}: {total} change{s} ({statuses}).</p>'
        '<ul class="dream-headline">{said}</ul>{notes}',
        verb="Planned" if run.get("dry_run") else "Ran",
        when=h.time(at, now) if at else "at an unknown time",
        state=state,
        total=total,
        s="" if total == 1 else "s",
        statuses=statuses,
        said=r.join(r.fmt("<li>{t}</li>", t=t) for t in said) or r.Safe("<li>nothing needed changing</li>"),
        notes=r.fmt('<ul class="notes">{n}</ul>', n=notes) if notes else r.EMPTY,
    )


def _plural(template: str, n: int) -> str:
    return template.format(n=n, s="" if n == 1 else "s", ies="y" if n == 1 else "ies")


def _at(value: object) -> datetime | None:
    try:
        return from_iso(str(value)) if value else None
    except ValueError:
        return None


def _texts(mem: Memory, scope: str, run: Mapping[str, Any]) -> dict[str, str]:
    """The text of every item the shown actions and spared entries name (closed ones too)."""
    ids = {str(i) for a in run.get("first_actions") or [] for i in a.get("item_ids") or []}
    ids |= {str(s.get("id")) for s in (run.get("spared") or [])[:SPARED_SHOWN] if s.get("id")}
    if not ids:
        return {}
    found = mem.list(scope=scope, where=Q.ids(*sorted(ids)), include_closed=True, limit=min(len(ids), mem.limits.max_k))
    return {i.id: i.text for i in found.items}


def _item_links(ids: Iterable[str], texts: Mapping[str, str], scope: str) -> r.Safe:
    return r.join(
        r.fmt(
            '<a class="chip" href="{href}" title="{full}">{t}</a> ',
            href=r.url(f"/items/{i}", scope=scope),
            full=texts.get(i, i),
            t=h.truncate(texts.get(i, f"memory {i[:8]}"), 60),
        )
        for i in ids
    )


def _actions(
    actions: list[dict[str, Any]], total: int, texts: Mapping[str, str], scope: str, *, unfolded: bool = False
) -> r.Safe:
    """The first actions with the memories they touched and why (every reason is in the log)."""
    rows = [
        r.fmt(
            '<li><span class="step">{step}</span> <span class="status-{status}">{status}</span>: {reason}'
            '<div class="about">{items}{more}</div></li>',
            step=STEP_WORDS.get(str(a.get("step")), a.get("step")),
            status=a.get("status"),
            reason=a.get("reason"),
            items=_item_links([str(i) for i in a.get("item_ids") or []], texts, scope),
            more=_more(int(a.get("items", 0) or 0) - len(a.get("item_ids") or [])),
        )
        for a in actions
    ]
    note = " (each in the event log with its reason)"
    return _folded("actions", f"Actions ({total})", rows, total, note, unfolded=unfolded)


def _spared(spared: list[dict[str, Any]], total: int, texts: Mapping[str, str], scope: str) -> r.Safe:
    """Items a protection kept from being forgotten or demoted: the answer to "why is this cold
    item still here?", which the list of actions cannot give."""
    rows = [
        r.fmt(
            '<li>{item}: {reason} <small class="step">({step})</small></li>',
            item=_item_links([str(s.get("id"))], texts, scope),
            reason=s.get("reason"),
            step=STEP_WORDS.get(str(s.get("step")), s.get("step")),
        )
        for s in spared[:SPARED_SHOWN]
    ]
    return _folded("spared", f"Spared by a protection ({max(total, len(spared))})", rows, max(total, len(spared)), "")


def _attention(entries: list[dict[str, Any]], scope: str) -> r.Safe:
    """The items the pass found most worth a person's check (important but not well trusted)."""
    rows = [
        r.fmt(
            "<li>{item} <small>importance {i}, trust {a}</small></li>",
            item=_item_links([str(e.get("id"))], {str(e.get("id")): str(e.get("text") or "")}, scope),
            i=f"{float(e.get('importance') or 0):.2f}",
            a=f"{float(e.get('authority') or 0):.2f}",
        )
        for e in entries
        if isinstance(e, Mapping)
    ]
    return _folded("attention", f"Worth a check ({len(rows)})", rows, len(rows), "")


def _more(n: int) -> r.Safe:
    return r.fmt('<span class="hint">and {n} more</span>', n=n) if n > 0 else r.EMPTY


def _folded(css: str, title: str, rows: list[r.Safe], total: int, more_note: str, *, unfolded: bool = False) -> r.Safe:
    """A folded list of the first ``rows`` of ``total``, ending with how many more there are."""
    if not rows:
        return r.EMPTY
    more = total - len(rows)
    tail = r.fmt("<li>… and {n} more{note}</li>", n=more, note=more_note) if more > 0 else r.EMPTY
    return r.fmt(
        '<details class="{css}"{open}><summary>{title}</summary><ul>{rows}{tail}</ul></details>',
        css=css,
        open=r.Safe(" open" if unfolded else ""),
        title=title,
        rows=r.join(rows),
        tail=tail,
    )


def _numbers(run: Mapping[str, Any]) -> r.Safe:
    """Stats, changes by step and timings as small tables, folded away."""
    counts = run.get("counts") or {}
    by_step = {
        STEP_WORDS.get(step, step): h.words(f"{n} {s}" for s, n in sorted(v.items()))
        for step, v in sorted((counts.get("by_step") or {}).items())
    }
    timings = {k: f"{float(v):.2f} s" for k, v in sorted((run.get("timings") or {}).items()) if _number(v)}
    tables = [
        r.counts("what it looked at", {_words(k): plain(v) for k, v in sorted((run.get("stats") or {}).items())}),
        r.counts("changes by step", by_step),
        r.counts("time taken", timings),
    ]
    return r.fmt(
        '<details class="numbers"><summary>The numbers</summary><div class="summary">{t}</div></details>',
        t=r.join(tables),
    )


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _words(key: str) -> str:
    return key.replace("_", " ")


def plain(value: object) -> str:
    """Any recorded value in words: numbers rounded, lists and mappings spelt out, never a repr."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, Mapping):
        return h.words(f"{_words(str(k))} {plain(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return h.words(plain(v) for v in value)
    return "—" if value is None else str(value)


#: Planned actions the preview lists (the plan can hold thousands).
PREVIEW_ACTIONS = 25


def preview(mem: Memory, scope: str, plan: Mapping[str, Any], csrf: str, now: datetime) -> r.Safe:
    """A dry run's plan (``DreamReport.to_dict``) in the panel's words, and the button to run it."""
    actions = plan.get("actions") or []
    by_step: dict[str, dict[str, int]] = {}
    for a in actions:
        step = by_step.setdefault(str(a.get("step")), {})
        step["planned"] = step.get("planned", 0) + 1
    run = {
        **plan,
        "counts": {
            "actions": len(actions),
            "by_status": {"planned": len(actions)} if actions else {},
            "by_step": by_step,
        },
        "first_actions": [
            {
                "step": a.get("step"),
                "status": "planned",
                "items": len(a.get("item_ids") or []),
                "item_ids": list(a.get("item_ids") or [])[:5],
                "reason": a.get("reason"),
            }
            for a in actions[:PREVIEW_ACTIONS]
        ],
        "spared_total": len(plan.get("spared") or []),
    }
    texts = _texts(mem, scope, run)
    skipped = plan.get("skipped")
    note = r.fmt('<p class="flash">{s}</p>', s=f"A pass would not run now: {skipped}") if skipped else r.EMPTY
    return r.fmt(
        "{note}{summary}{actions}{spared}{attention}{numbers}{form}",
        note=note,
        summary=summary(run, now),
        actions=_actions(run["first_actions"], len(actions), texts, scope, unfolded=True),
        spared=_spared(run.get("spared") or [], int(run["spared_total"]), texts, scope),
        attention=_attention(plan.get("attention") or [], scope),
        numbers=_numbers(run),
        form=r.action_form("dream", "run this pass now", csrf, scope=scope),
    )
