"""Recall reads temporal patterns (h-patterns): the hook ``Retrieval.recall`` calls on its answer.

Two things, both after ranking, both bounded:

- a question about *when* ("when", "usually", "how often", "what day", ...) puts the scope's
  pattern items whose kind of event it names (``reverie.dream.patterns.template``: half its
  content words or more) at the head of the answer — the pattern *is* the answer to "when";
- a pattern in the answer brings its most recent members (``derived_from`` edges, at most
  ``SPREAD``) right after it: the events behind "usually on Mondays" are recalled with it.

Why here and not in ``reverie.recall``: the template lives with the pattern detector
(``reverie.dream``), which ``recall`` may not import. Skipped for history reads (``as_of``,
``include_history``) and filtered reads (``where``): a pattern is a current-truth product, and
its members might not pass the caller's filter. Added hits never count as use. Cost: nothing
for a question that is not about time and whose answer holds no pattern; otherwise one full-text
lookup of the scope's pattern items (``_MARK``) and one edge read per spread pattern.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from reverie.dream.patterns import event_time, template
from reverie.dream.salience import is_pattern
from reverie.model.item import Item
from reverie.recall.engine import Hit, RecallOptions
from reverie.recall.normalize import fts_query
from reverie.store.protocol import Store

TEMPORAL = re.compile(
    r"\b(when|usually|how often|often|what time|what day|which day|which days|typically|recurr\w*|pattern\w*|"
    r"every|weekday|schedule\w*|at what hour|frequen\w*)\b",
    re.IGNORECASE,
)
#: Members recalled after each pattern in the answer, most recent first.
SPREAD = 3
#: Patterns put at the head of a "when" answer, and patterns whose members are spread.
MAX_PATTERNS = 2
#: Pattern items read per recall (a scope's patterns are few: one per kind of event and rule).
_READ = 500
#: Every pattern item's text opens with "Recurring pattern:" (``Pattern.text``): the full-text
#: index finds a scope's patterns in milliseconds, where a read by kind scanned every current item
#: (items have no index on kind: 58 ms at 50k items, load 18, against 77 ms for the recall itself).
_MARK = fts_query("recurring pattern", mode="and") or '"recurring" AND "pattern"'
_QUESTION = frozenset(
    ["what", "when", "where", "who", "which", "why", "how", "does", "do", "did", "often", "usually", "time", "day"]
)


def with_patterns(store: Store, scope: str, query: str, hits: Sequence[Hit], opts: RecallOptions) -> list[Hit]:
    """``hits`` with matching patterns surfaced and their members spread (module docstring)."""
    out = list(hits)
    if opts.as_of is not None or opts.include_history or opts.where is not None or opts.k <= 0:
        return out
    temporal = TEMPORAL.search(query) is not None
    if not temporal and not any(is_pattern(h.item) for h in out):
        return out  # the common case reads nothing more: items have no index on kind
    if temporal:
        ids = [i for i, _ in store.lexical(scope, _MARK, limit=_READ)]
        found = store.get_many(scope, ids)
        patterns = [p for p in (found[i] for i in sorted(found)) if is_pattern(p) and p.tier in opts.tiers]
        out = _surface(out, _matching(query, patterns))
    return _spread(store, scope, out, opts)[: opts.k]


def _matching(query: str, patterns: list[Item]) -> list[Item]:
    words = template(query) - _QUESTION
    if not words:
        return []
    scored = []
    for p in patterns:
        kind = set(p.meta.get("pattern", {}).get("template", ()))
        overlap = len(words & kind) / len(words)
        if kind and overlap >= 0.5:
            scored.append((overlap, float(p.meta["pattern"].get("strength", 0.0)), p))
    scored.sort(key=lambda t: (-t[0], -t[1], t[2].id))
    return [p for _, _, p in scored[:MAX_PATTERNS]]


def _surface(hits: list[Hit], patterns: list[Item]) -> list[Hit]:
    if not patterns:
        return hits
    top = hits[0].score if hits else 1.0
    ids = {p.id for p in patterns}
    why = {
        "pattern": "a when / usually / how-often question names this pattern's kind of event",
        "counts_as_use": False,
    }
    head = [Hit(p, top, dict(why)) for p in patterns]
    return head + [h for h in hits if h.item.id not in ids]


def _spread(store: Store, scope: str, hits: list[Hit], opts: RecallOptions) -> list[Hit]:
    """A pattern's newest members follow it: fetched, or moved up if ranked further down.

    Why move them: another item (a dream gist, a near-duplicate) may rank between a pattern and
    members that recall found anyway; the answer reads as "usually on Mondays — these times".
    """
    by_id = {h.item.id: h for h in hits}
    out: list[Hit] = []
    placed: set[str] = set()
    spread = 0
    for h in hits:
        if h.item.id in placed:
            continue
        out.append(h)
        placed.add(h.item.id)
        if not is_pattern(h.item) or spread >= MAX_PATTERNS:
            continue
        spread += 1
        for m in _members(store, scope, h.item, opts, placed):
            prior = by_id.get(m.id)
            why = {**(prior.why if prior else {"counts_as_use": False}), "pattern_member_of": h.item.id}
            out.append(replace(prior, why=why) if prior else Hit(m, h.score, why))
            placed.add(m.id)
    return out


def _members(store: Store, scope: str, pattern: Item, opts: RecallOptions, present: set[str]) -> list[Item]:
    ids = [e.dst for e in store.edges(scope, pattern.id) if e.type == "derived_from" and e.src == pattern.id]
    found = store.get_many(scope, [i for i in ids if i not in present])
    tiers = member_tiers(opts.tiers)
    live = [m for m in found.values() if m.is_current and m.tier in tiers]
    live.sort(key=lambda m: (event_time(m.valid_from, m.recorded_at), m.id), reverse=True)
    return live[:SPREAD]


def member_tiers(tiers: Sequence[str]) -> frozenset[str]:
    """The tiers a pattern's members are recalled from: the caller's, and the subconscious one
    whenever the caller reads the active tier.

    Why: the pass that finds a pattern in a back-filled log (a dozen old failures recorded at
    once) also folds those look-alike events into a gist and demotes them to the subconscious
    tier, so "when does the deploy fail?" got "usually on Mondays" with none of the failures
    behind it. The pattern is their summary; they stay current, and come back only with it.
    """
    allowed = frozenset(tiers)
    return allowed | {"subconscious"} if "active" in allowed else allowed


__all__ = ["SPREAD", "TEMPORAL", "member_tiers", "with_patterns"]
