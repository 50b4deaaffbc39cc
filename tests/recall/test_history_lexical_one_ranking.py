"""History and ``as_of`` recall rank a scope's current and closed rows as one collection (SQLite).

Regression: the lexical leg ranked ``fts`` (current rows) and ``fts_history`` (closed rows) each
on its own table's statistics and merged the two lists by score, so the scores were not
comparable: a word in every current row had an idf of ~0 there and a normal one among the closed
rows, every current row ranked below every closed row, and the lexical floor dropped the current
ones — ``recall("note", as_of=T)`` missed items believed at T. The oracle here is a second file
holding the same texts, all current: one table, so FTS5's own bm25 over the whole collection.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from reverie import ManualClock, Memory
from strategies import START

S = "u"
TEXTS = [
    "The deploy note says tuesday",
    "The budget note says berlin",
    "The printer note says green and green",
    "The office note says seven",
    "A long note about the deploy window, the printer queue and the office plants in berlin",
    "Nothing to see here",
]
MATCHES = ['"note"', '"note" OR "berlin"', '"green" OR "note" OR "printer"', '"deploy note"', '"note" AND "berlin"']


def _by_text(mem: Memory, match: str) -> list[tuple[str, float]]:
    hits = mem.store.lexical(S, match, limit=100, current_only=False)
    texts = {i.id: i.text for i in mem.list(scope=S, include_closed=True, limit=100).items}
    return [(texts[i], s) for i, s in hits]


def test_closed_and_current_rows_share_one_bm25(tmp_path: Path) -> None:
    clock = ManualClock(START)
    with Memory(tmp_path / "mixed.db", embedder="hash", clock=clock, seed=0) as mem:
        made = [mem.remember(t, scope=S) for t in TEXTS[:4]]
        clock.advance(hours=1)
        t = clock.now()
        clock.advance(hours=1)
        mem.revise(made[0].id, TEXTS[4], scope=S)  # made[0] moves to the history table
        mem.forget(made[1].id, scope=S)  # so does made[1]
        mem.remember(TEXTS[5], scope=S)
        mixed = {m: _by_text(mem, m) for m in MATCHES}
        # A word every current row holds: the closed rows do not outrank the current ones.
        then = mem.recall("note", scope=S, k=10, as_of=t, mode="lexical", record_use=False)
        assert {h.item.id for h in then} == {i.id for i in made}
    with Memory(tmp_path / "one.db", embedder="hash", clock=ManualClock(START + timedelta(days=1)), seed=0) as one:
        for text in TEXTS:
            one.remember(text, scope=S)
        for m in MATCHES:
            want = _by_text(one, m)
            got = mixed[m]
            assert [x for x, _ in got] == [x for x, _ in want], m
            assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12), m
