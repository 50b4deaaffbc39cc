"""Operator commands: doctor, reindex, export, import, dream; the servers (serve, mcp) are in ``servers``."""

from __future__ import annotations

import functools
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import click

from reverie import InvalidInputError, Memory, ReverieError
from reverie.cli.outfile import check_out, write_out
from reverie.cli.render import plural, snippet, table, when
from reverie.cli.state import EXIT_FAILED, Progress, creates_store, json_option, scoped, state
from reverie.cli.transfer import ImportReport, Replayer, export_events, read_events
from reverie.limits import CLOCK_SKEW_HELP
from reverie.model.validate import check_interval


@click.command()
@json_option
def doctor() -> None:
    """Check every index against the record store; exit 1 when they disagree (fix: `reverie reindex`)."""
    st = state()
    report = st.memory().doctor()
    doc = report.to_dict()

    def human() -> str:
        head = "ok" if report.ok else "NOT OK"
        problems = [f"  problem: {p}" for p in report.problems]
        counts = "  ".join(f"{k} {v}" for k, v in report.counts.items())
        return "\n".join([head, *problems, f"  counts: {counts or '-'}"])

    st.emit(doc, human)
    if not report.ok:
        click.get_current_context().exit(EXIT_FAILED)


@click.command()
@json_option
def reindex() -> None:
    """Re-embed every item with --embedder and record it (after changing embedder)."""
    st = state()
    mem = st.memory()
    bar = Progress.for_state(st, "reindexing")
    try:
        done = mem.reindex(progress=bar.update)
    finally:
        bar.close()
    name = mem.embedder.name
    st.emit({"reindexed": done, "embedder": name}, lambda: f"reindexed {done} items with {name}")


@click.command()
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write to FILE (atomically) instead of stdout.",
)
@scoped
@json_option
def export(out: Path | None) -> None:
    """The scope's event log as JSON lines (the portable form; `reverie import` replays it)."""
    st = state()
    scope = st.require_scope()
    check_out(st, out, "an export")  # before the store is opened: a refused call touches nothing
    mem = st.memory()
    if out is None:
        export_events(mem, scope, lambda line: click.echo(line, nl=False))
        return
    count = write_out(st, out, lambda fh: export_events(mem, scope, fh.write))
    doc = {"scope": scope, "events": count, "out": str(out)}
    st.emit(doc, lambda: f"exported {count} events of scope {scope} to {out}")


def _read_text(file: str) -> str:
    try:
        if file == "-":
            return sys.stdin.read()
        return Path(file).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{file} is not UTF-8 text; import reads what `reverie export` writes") from None


def _import_text(report: ImportReport) -> str:
    if report.already_imported is not None:
        return _already_text(report)
    ok = sum(report.applied.values())
    lines = [
        f"imported {report.events} events into scope {report.scope}: "
        f"{ok} applied, {sum(report.skipped.values())} skipped, {len(report.failed)} failed",
        f"ids re-assigned: {len(report.ids)} items, {len(report.edges)} edges, {len(report.entries)} conversation "
        f"entries, {len(report.intents)} intents, {len(report.tasks)} tasks (--json prints the old -> new maps)",
        "claims: {created} created, {corroborated} corroborated, {skipped} skipped{why}, {echoed} echoed "
        "(stored as source 'imported'; the file's source is kept in provenance)".format(
            **{k: report.items.get(k, 0) for k in ("created", "corroborated", "skipped", "echoed")},
            why=_kept_out_text(report),
        ),
    ]
    rows: list[list[object]] = [["applied", t, n] for t, n in sorted(report.applied.items())]
    rows += [["skipped", t, n] for t, n in sorted(report.skipped.items())]
    rows += [["note", t, n] for t, n in sorted(report.notes.items())]
    rows += [["failed", f"seq {f['seq']} {f['type']}", f"error[{f['code']}]: {f['error']}"] for f in report.failed]
    return "\n".join(lines) + ("\n" + table(["", "EVENT", "COUNT"], rows) if rows else "")


def _kept_out_text(report: ImportReport) -> str:
    """Why claims were skipped: " (1 purged here, 2 dismissed here)", or nothing when none was."""
    parts = [f"{n} {why} here" for why, n in report.to_dict()["kept_out"].items() if n]
    return f" ({', '.join(parts)})" if parts else ""


def _already_text(report: ImportReport) -> str:
    seen = report.already_imported or {}
    first = seen.get("first")
    did = (
        " (it applied {applied}, skipped {skipped}, failed {failed} of {events} events)".format(**first)
        if isinstance(first, dict) and {"applied", "skipped", "failed", "events"} <= set(first)
        else ""
    )
    return (
        f"already imported into scope {report.scope} at {seen.get('at')}{did}: nothing added\n"
        f"the same {report.events} events were imported before (key {report.key}); a changed file is a new import"
    )


@click.command("import")
@creates_store()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option(
    "--allow-future",
    is_flag=True,
    help=f"Replay conversation messages dated later than now plus {CLOCK_SKEW_HELP} as dated "
    "(default: the import is refused, nothing written; such a conversation takes new messages once the "
    "clock passes them or they are purged).",
)
@click.option(
    "--restore-purged",
    is_flag=True,
    help="Bring back the file's claims this scope purged (default: they stay purged, counted in kept_out; "
    "use it when the file is the backup you want restored).",
)
@scoped
@json_option
def import_(file: str, allow_future: bool, restore_purged: bool) -> None:
    """Replay an export FILE into the scope, whole or not at all, and once (see README). Exit 1 if an event failed."""
    st = state()
    scope = st.require_scope()
    events = read_events(_read_text(file).splitlines())
    mem = st.memory(replay=True)
    replayer = Replayer(mem, scope, allow_future=allow_future, restore_purged=restore_purged)
    bar = Progress.for_state(st, "importing")
    try:
        report = replayer.run(events, bar.update)
    finally:
        bar.close()
    st.emit(report.to_dict(), lambda: _import_text(report))
    if report.failed:
        click.get_current_context().exit(EXIT_FAILED)


@click.command()
@scoped
@json_option
@click.option("--dry-run", is_flag=True, help="Show the plan with reasons; change nothing.")
@click.option("--every", default=None, help="Repeat on a schedule (e.g. 30m, 1h; from 1s to 365d) until interrupted.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bars on stderr (default: only when stderr is a terminal and without --json).",
)
@click.option("--last", is_flag=True, help="Show the newest recorded passes (from any process); run nothing.")
@click.option("--limit", type=int, help="With --last: how many passes (default 20, or Limits.max_k if lower).")
def dream(dry_run: bool, every: str | None, progress: bool | None, last: bool, limit: int | None) -> None:
    """Run the consolidation (dream) pass on the scope: once, or on a schedule with --every."""
    st = state()
    scope = st.require_scope()
    if last or limit is not None:
        if not last:
            raise click.UsageError("--limit goes with --last (how many recorded passes to show)")
        if dry_run or every is not None:
            raise click.UsageError("--last shows recorded passes and runs none: use it without --dry-run / --every")
        mem = st.memory()
        runs = mem.dream_runs(scope=scope, limit=limit)
        st.emit({"scope": scope, "runs": runs}, functools.partial(_runs_text, scope, runs, ItemLabels(mem, scope)))
        return
    interval = parse_every(every)
    while True:
        bars = _DreamBars(st, progress)
        bars.reading(scope)
        try:
            report = st.memory().dream(scope=scope, dry_run=dry_run, progress=bars.update)
        finally:
            bars.close()
        doc = report.to_dict()
        st.emit(doc, functools.partial(_dream_text, doc, ItemLabels(st.memory(), scope)))
        if interval is None:
            return
        time.sleep(interval)


class _DreamBars:
    """One bar per phase of a pass ("planning" in steps, "applying" in actions), on stderr.

    ``--progress`` forces them on (e.g. in a log), ``--no-progress`` off; by default they follow
    ``Progress``: shown only on a terminal and never with ``--json``. Stdout stays the report.
    """

    LABELS: ClassVar[dict[str, str]] = {"plan": "dream: planning", "apply": "dream: applying"}

    def __init__(self, st: Any, forced: bool | None) -> None:
        self.st, self.forced = st, forced
        self.bars: dict[str, Progress] = {}

    def reading(self, scope: str) -> None:
        """Say the pass has started: reading a large scope takes seconds before the first bar."""
        probe = Progress.for_state(self.st, "") if self.forced is None else Progress("", self.forced)
        if probe.enabled:
            click.echo(f"dream: reading {scope}…", err=True)

    def update(self, phase: str, done: int, total: int) -> None:
        bar = self.bars.get(phase)
        if bar is None:
            for other in self.bars.values():
                other.close()  # the previous phase is over
            label = self.LABELS.get(phase, f"dream: {phase}")
            bar = Progress.for_state(self.st, label) if self.forced is None else Progress(label, self.forced)
            self.bars[phase] = bar
        bar.update(done, total)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


class ItemLabels:
    """Item id -> a snippet of its text, looked up once per id, for the human dream output.

    A closed item (merged, forgotten) still has its text; a purged one falls back to its id.
    """

    def __init__(self, mem: Memory | None, scope: str) -> None:
        self.mem, self.scope = mem, scope
        self._seen: dict[str, str] = {}

    def __call__(self, item_id: str) -> str:
        label = self._seen.get(item_id)
        if label is None:
            label = self._seen[item_id] = self._lookup(item_id)
        return label

    def _lookup(self, item_id: str) -> str:
        if self.mem is None:
            return item_id
        try:
            return snippet(self.mem.get(item_id, scope=self.scope).text)
        except ReverieError:  # purged since the pass, or never an item
            return item_id

    def cell(self, ids: list[str], total: int | None = None) -> str:
        """The first item's snippet, and how many more the action touches."""
        if not ids:
            return "-"
        more = (total if total is not None else len(ids)) - 1
        return self(ids[0]) + (f" (+{more} more)" if more > 0 else "")


def _dream_text(doc: dict[str, Any], labels: ItemLabels | None = None) -> str:
    """One line per planned action (step, operation, items, reason), then the totals."""
    labels = labels or ItemLabels(None, doc["scope"])
    head = f"dream pass over {doc['scope']} at {_when(doc['at'])}"
    head += " (dry run: nothing applied)" if doc["dry_run"] else ""
    if doc.get("skipped"):
        return f"{head}\n  skipped: {doc['skipped']}"
    if doc.get("interrupted"):
        head += f"\n  interrupted: {doc['interrupted']}"
    rows = [
        [a["step"], a["op"], labels.cell(a["item_ids"]), a.get("status", "planned"), a["reason"]]
        for a in doc["actions"]
    ]
    body = table(["step", "op", "items", "status", "reason"], rows) if rows else "  nothing to do"
    return f"{head}\n{body}\n  {plural(len(rows), 'action')}" + _spared_text(doc.get("spared") or [], labels)


#: Actions of each recorded pass listed by ``dream --last`` (the record keeps up to 10; --json has them).
RUN_ACTIONS_SHOWN = 3


def _runs_text(scope: str, runs: list[dict[str, Any]], labels: ItemLabels | None = None) -> str:
    """One paragraph per recorded pass, newest first: when, what it did by step and status, notes."""
    if not runs:
        return f"no dream pass recorded for scope {scope} (dry runs and skipped passes are not recorded)"
    labels = labels or ItemLabels(None, scope)
    return "\n\n".join(_run_text(scope, run, labels) for run in runs)


def _run_text(scope: str, run: dict[str, Any], labels: ItemLabels) -> str:
    counts = run.get("counts") or {}
    statuses = ", ".join(f"{n} {k}" for k, n in sorted((counts.get("by_status") or {}).items()))
    took = sum((run.get("timings") or {}).values())
    lines = [
        f"dream pass over {scope} at {_when(run['at'])}: {plural(counts.get('actions', 0), 'action')}"
        + (f" ({statuses})" if statuses else "")
        + (f" in {took:.{2 if took < 1 else 1}f} s" if took else "")
    ]
    if run.get("interrupted"):
        lines.append(f"  interrupted: {run['interrupted']}")
    for step, by in sorted((counts.get("by_step") or {}).items()):
        lines.append(f"  {step}: " + ", ".join(f"{n} {k}" for k, n in sorted(by.items())))
    first = run.get("first_actions") or []
    if first:
        shown = first[:RUN_ACTIONS_SHOWN]
        rows = [
            [a["step"], a["op"], labels.cell(a["item_ids"], a.get("items")), a["status"], a["reason"]] for a in shown
        ]
        lines.append("  first actions:")
        lines += ["    " + line for line in table(["step", "op", "items", "status", "reason"], rows).splitlines()]
        if counts.get("actions", 0) > len(shown):
            lines.append(f"    … and {counts['actions'] - len(shown)} more (--json shows the first {len(first)})")
    lines += [f"  note: {note}" for note in run.get("notes") or []]
    if run.get("spared_total"):
        spared = plural(run["spared_total"], "item")
        lines.append(f"  {spared} spared by a protection (--json lists the first {len(run.get('spared') or [])})")
    return "\n".join(lines)


def _when(at: str) -> str:
    """A pass's ISO time to the second, as the rest of the CLI shows times (--json keeps it whole)."""
    try:
        return when(datetime.fromisoformat(at))
    except (TypeError, ValueError):
        return str(at)


#: Spared items listed by the text output; ``--json`` has them all.
SPARED_SHOWN = 3


def _spared_text(spared: list[dict[str, Any]], labels: ItemLabels) -> str:
    """How many items a protection kept from being forgotten or demoted, and the first reasons.

    Why in the human output: a cold item that stays is otherwise invisible in a list of actions,
    and "why is this still here?" is the question the reason answers.
    """
    if not spared:
        return ""
    lines = [f"\n  {plural(len(spared), 'item')} spared by a protection:"]
    lines += [f"    {s['step']} {labels(str(s['id']))}: {s['reason']}" for s in spared[:SPARED_SHOWN]]
    if len(spared) > SPARED_SHOWN:
        lines.append(f"    … and {len(spared) - SPARED_SHOWN} more (--json lists them all)")
    return "\n".join(lines)


def parse_every(text: str | None, option: str = "--every") -> float | None:
    """'90' (seconds), '30s', '15m', '1h', '1d' → seconds, from 1s to 365d; None stays None.

    The bounds (``MIN_INTERVAL_SECONDS``, ``MAX_INTERVAL_SECONDS``) are checked here, before
    the first pass runs: ``inf`` used to run one pass and then crash in ``time.sleep``.
    """
    if text is None:
        return None
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    raw = text.strip().lower()
    scale = units.get(raw[-1:])
    number = raw[:-1] if scale else raw
    try:
        seconds = float(number) * (scale or 1)
    except ValueError:
        raise InvalidInputError(f"{option} {text[:40]!r} is malformed: use e.g. 90, 30m, 1h or 1d") from None
    return check_interval(seconds, f"{option} {text.strip()[:40]!r}")


from reverie.cli.servers import mcp, serve  # noqa: E402 - after parse_every, which servers imports

COMMANDS = (doctor, reindex, export, import_, dream, serve, mcp)
