"""A statement made now is current, even when the same words held over a period that ended.

Outside probe, finding 2. Reproduced on main: ``remember("Alice works at Acme")`` today, with
"Alice works at Acme" stored as valid 2020-2021, corroborated that ended claim (same id,
``valid_to`` still 2021), so ``list()`` and ``recall()`` answered nothing; and after Carol moved
from Acme to Globex (``revise(..., valid_from=...)``) and back, "Carol works at Acme" said today
landed on the ended Acme version. A statement without ``valid_from`` starts now: a claim that
ended before now is another period, not the same claim.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reverie import ManualClock, Memory

S = "user:a"
Y2020, Y2021 = datetime(2020, 1, 1, tzinfo=UTC), datetime(2021, 1, 1, tzinfo=UTC)


def _current(mem: Memory) -> list[str]:
    return sorted(i.text for i in mem.list(scope=S).items)


def test_a_statement_made_now_does_not_vanish_into_an_ended_claim(any_mem: Memory) -> None:
    old = any_mem.remember("Alice works at Acme", scope=S, valid_from=Y2020, valid_to=Y2021)
    now = any_mem.remember("Alice works at Acme", scope=S)
    assert now.id != old.id and now.is_current and now.valid_to is None
    assert _current(any_mem) == ["Alice works at Acme"]
    assert [h.item.id for h in any_mem.recall("where does Alice work", scope=S, record_use=False)] == [now.id]
    ended = any_mem.get(old.id, scope=S)
    assert ended.evidence_count == 1 and ended.valid_to == Y2021  # the past period is untouched


def test_a_second_statement_now_corroborates_the_current_claim_not_the_ended_one(any_mem: Memory) -> None:
    old = any_mem.remember("Alice works at Acme", scope=S, valid_from=Y2020, valid_to=Y2021)
    now = any_mem.remember("Alice works at Acme", scope=S)
    again = any_mem.remember("alice works at acme.", scope=S)
    assert again.id == now.id and again.evidence_count == 2
    assert any_mem.get(old.id, scope=S).evidence_count == 1
    # a statement of the ended period still corroborates that period
    then = any_mem.remember("Alice works at Acme", scope=S, valid_from=Y2020 + timedelta(days=30))
    assert then.id == old.id and then.evidence_count == 2


def test_moving_back_after_a_change_in_the_world_reaches_current_truth(any_mem: Memory, clock: ManualClock) -> None:
    job = any_mem.remember("Carol works at Acme", scope=S, valid_from=datetime(2024, 1, 1, tzinfo=UTC))
    moved = clock.now() - timedelta(days=1)
    globex = any_mem.revise(job.id, "Carol works at Globex", scope=S, valid_from=moved)
    back = any_mem.remember("Carol works at Acme", scope=S)
    assert back.id != job.id and back.is_current
    assert "Carol works at Acme" in _current(any_mem)
    # the move back is a change in the world: said as one, Globex ends and Acme alone is current
    any_mem.forget(back.id, scope=S)
    again = any_mem.revise(globex.id, "Carol works at Acme", scope=S, valid_from=clock.now())
    assert again.is_current and _current(any_mem) == ["Carol works at Acme"]
