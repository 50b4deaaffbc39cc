"""One source counts at most once as evidence for a claim (``count_once``; outside probe, vault finding).

Reproduced on main: note b corroborated note a's claim; every re-read of b (unchanged) corroborated
it again, so ``evidence_count`` counted reads, not sources. Now a ``count_once`` statement whose
source (provenance origin + ref) already made or corroborated the claim is recorded as
``memory.restated`` and leaves the evidence as it was; the record is in the log, so a rebuild
replays the same counts.
"""

from __future__ import annotations

import pytest

from reverie import ManualClock, Memory
from reverie.errors import InvalidInputError

S = "team:docs"
TEXT = "The deploy runs on Fridays."


def _say(mem: Memory, ref: str, text: str = TEXT, **kw: object) -> str:
    return mem.remember(text, scope=S, provenance={"origin": "document", "ref": ref}, count_once=True, **kw).id


def test_a_source_that_corroborated_a_claim_counts_once_on_every_backend(any_mem: Memory) -> None:
    first = _say(any_mem, "a.md")
    for _ in range(3):
        assert _say(any_mem, "b.md") == first
        assert _say(any_mem, "a.md") == first
    assert any_mem.get(first, scope=S).evidence_count == 2
    types = [e.type for e in any_mem.history(first, scope=S).events]
    assert types.count("memory.corroborated") == 1 and types.count("memory.restated") == 5
    assert _say(any_mem, "c.md") == first
    assert any_mem.get(first, scope=S).evidence_count == 3


def test_statements_without_count_once_count_as_before(any_mem: Memory) -> None:
    first = _say(any_mem, "a.md")
    for _ in range(2):
        any_mem.remember(TEXT, scope=S, provenance={"origin": "document", "ref": "b.md"})
        any_mem.remember(TEXT, scope=S)
    assert any_mem.get(first, scope=S).evidence_count == 5


def test_count_once_in_one_batch_counts_the_second_statement_of_a_source_once(any_mem: Memory) -> None:
    prov = {"origin": "document", "ref": "b.md"}
    out = any_mem.remember_many(
        [
            {"text": TEXT},
            {"text": TEXT, "provenance": prov, "count_once": True},
            {"text": TEXT, "provenance": prov, "count_once": True},
        ],
        scope=S,
    )
    assert len({i.id for i in out}) == 1
    assert any_mem.get(out[0].id, scope=S).evidence_count == 2


def test_a_rebuild_replays_the_same_counts(mem: Memory) -> None:
    first = _say(mem, "a.md")
    for _ in range(3):
        _say(mem, "b.md")
    mem.rebuild()
    assert mem.get(first, scope=S).evidence_count == 2
    assert mem.doctor().ok
    _say(mem, "b.md")
    assert mem.get(first, scope=S).evidence_count == 2


def test_an_echo_from_a_source_counts_once(any_mem: Memory, clock: ManualClock) -> None:
    old = _say(any_mem, "a.md", "Bob lives in Paris.", source="inferred")
    clock.advance(days=1)
    any_mem.revise(old, "Bob lives in Berlin.", scope=S)
    for _ in range(3):
        assert _say(any_mem, "b.md", "Bob lives in Paris.", source="inferred") == old
    echoed = any_mem.get(old, scope=S)
    assert echoed.evidence_count == 2 and "echoed" in echoed.flags


@pytest.mark.parametrize("prov", [None, {"origin": "document"}])
def test_count_once_without_a_source_ref_is_refused(mem: Memory, prov: object) -> None:
    with pytest.raises(InvalidInputError, match="count_once needs provenance with a ref"):
        mem.remember(TEXT, scope=S, provenance=prov, count_once=True)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="count_once must be True or False"):
        mem.remember(TEXT, scope=S, count_once="yes")  # type: ignore[arg-type]
    assert mem.list(scope=S).items == []
