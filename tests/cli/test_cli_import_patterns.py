"""An exported scope's temporal patterns still answer "when" after ``reverie import``.

Regression (outside probe 2, finding 15): import stores every claim as source ``imported`` (the
file's source kept in ``provenance.source``), and a pattern was recognised by source ``system``
alone, so the imported copy's patterns were plain items: "when does the deploy fail?" no longer
got the pattern first, nor its events after it, and an imported gist counted as one more event.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cli_support import Cli

from reverie import ManualClock, Memory
from reverie.dream.salience import is_gist, is_pattern

S = "ops:x"


def _seed(path: Path) -> None:
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # a Monday
    clock = ManualClock(start)
    with Memory(str(path), embedder="hash", clock=clock) as mem:
        for w in range(12):
            at = start + timedelta(weeks=w)
            clock.set(at)
            mem.remember(
                f"The deploy failed at 09:0{w % 10}, build {4400 + w}", scope=S, kind="observation", valid_from=at
            )
        clock.set(start + timedelta(weeks=11, days=1))
        mem.dream(scope=S)


def test_imported_patterns_answer_when_with_their_events(tmp_path: Path) -> None:
    _seed(tmp_path / "a.db")
    dump = tmp_path / "x.jsonl"
    Cli(tmp_path / "a.db").ok("export", "--out", str(dump), scope=S)
    Cli(tmp_path / "b.db").ok("import", str(dump), scope=S)
    with Memory(str(tmp_path / "b.db"), embedder="hash") as mem:
        items = mem.list(scope=S, limit=100).items
        patterns = [i for i in items if i.kind == "pattern"]
        assert patterns and all(i.source == "imported" and is_pattern(i) for i in patterns)
        assert all(is_gist(i) for i in items if i.meta.get("dream") == "gist")
        hits = mem.recall("when does the deploy fail?", scope=S, k=5)
        assert hits[0].item.kind == "pattern", [(h.item.kind, h.item.text) for h in hits]
        assert any(h.why.get("pattern_member_of") == hits[0].item.id for h in hits)


def test_a_remembered_item_claiming_to_be_a_pattern_is_not_one(tmp_path: Path) -> None:
    """Only the dream pass's products (or imported copies of them) count: a caller's meta does not."""
    with Memory(str(tmp_path / "c.db"), embedder="hash") as mem:
        fake = mem.remember("Recurring pattern: on Mondays", scope=S, kind="pattern", meta={"dream": "pattern"})
        assert not is_pattern(fake)
