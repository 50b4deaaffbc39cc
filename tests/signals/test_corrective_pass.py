"""The corrective pass runs on a weak answer (low confidence, not only an empty one), runs at most
once, and replaces the answer only when it is strictly more confident (``reverie.recall.signals``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory, Q
from reverie.recall.engine import RecallOptions
from reverie.recall.signals import confidence

S = "user:alice"
UNRELATED = [
    "The deploy pipeline runs on Jenkins",
    "Alice prefers green tea in the morning",
    "Backups run every night at 2am",
    "The team lunch is on Fridays",
]
ANSWER = "The spare office key hangs behind the reception desk"
QUERY = "where is the spare office key"


def _scope_with_a_subconscious_answer(mem: Memory) -> str:
    for text in UNRELATED:
        mem.remember(text, scope=S)
    answer = mem.remember(ANSWER, scope=S).id
    mem.set_tier(answer, "subconscious", scope=S, reason="demoted by an earlier pass: stale and unused")
    return answer


def test_only_a_subconscious_item_answers_and_the_corrective_pass_finds_it(mem: Memory) -> None:
    """Regression: the corrective pass fired only on an empty answer, which hybrid search almost
    never gives, so weak unrelated hits were returned and the subconscious answer stayed hidden."""
    answer = _scope_with_a_subconscious_answer(mem)
    hits = mem.recall(QUERY, scope=S, k=5)
    assert hits[0].item.id == answer
    assert (hits[0].why["passes"], hits[0].why["answer_from"]) == (2, "corrective")
    assert mem.get(answer, scope=S).tier == "active"  # recalled and used: promoted back, as before


def test_the_first_pass_alone_returns_only_weak_unrelated_hits(mem: Memory) -> None:
    """The setting above, without the corrective pass: the visible hits are weak and not used."""
    answer = _scope_with_a_subconscious_answer(mem)
    first = mem.recall(QUERY, scope=S, options=RecallOptions(k=5, self_correct=False), record_use=False)
    assert first and answer not in [h.item.id for h in first]
    assert confidence([h.why for h in first]) < RecallOptions().weak_strength
    assert not any(h.why["counts_as_use"] for h in first)
    assert mem.get(answer, scope=S).tier == "subconscious"


def test_a_confident_answer_runs_one_pass(mem: Memory) -> None:
    answer = _scope_with_a_subconscious_answer(mem)
    mem.remember("The spare office key is kept in the reception desk drawer", scope=S)
    hits = mem.recall(QUERY, scope=S, k=5, record_use=False)
    assert hits[0].why["passes"] == 1 and hits[0].why["answer_from"] == "first"
    assert answer not in [h.item.id for h in hits]


def test_a_weak_answer_the_corrective_pass_cannot_beat_is_kept(mem: Memory) -> None:
    """The best candidate is hidden by ``where``, which the corrective pass never relaxes: the
    answer is weak, the corrective pass runs, finds nothing more confident, and the first
    answer stands, unchanged."""
    for text in UNRELATED:
        mem.remember(text, scope=S, tags=["ops"])
    mem.remember(ANSWER, scope=S, tags=["facilities"])
    where = Q.tag("ops")
    first = mem.recall(QUERY, scope=S, options=RecallOptions(k=5, where=where, self_correct=False), record_use=False)
    hits = mem.recall(QUERY, scope=S, k=5, where=where, record_use=False)
    assert confidence([h.why for h in first]) < RecallOptions().weak_strength
    assert hits[0].why["passes"] == 2 and hits[0].why["answer_from"] == "first"
    assert [(h.item.id, h.score) for h in hits] == [(h.item.id, h.score) for h in first]


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), True])
def test_a_bad_weak_strength_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="weak_strength"):
        RecallOptions(weak_strength=bad)


def test_weak_strength_zero_turns_the_confidence_trigger_off(mem: Memory) -> None:
    answer = _scope_with_a_subconscious_answer(mem)
    hits = mem.recall(QUERY, scope=S, options=RecallOptions(k=5, weak_strength=0.0), record_use=False)
    assert hits[0].why["passes"] == 1 and answer not in [h.item.id for h in hits]


WORDS = ["key", "desk", "tea", "printer", "floor", "backup", "night", "office", "lunch", "deploy"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    docs=st.lists(
        st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), st.booleans()), min_size=1, max_size=8
    ),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
)
def test_the_corrective_pass_is_bounded_and_never_lowers_confidence(
    tmp_path_factory: object, docs: list[tuple[list[str], bool]], query: list[str]
) -> None:
    path = tmp_path_factory.mktemp("prop") / "p.db"  # type: ignore[attr-defined]
    with Memory(path, embedder="hash", clock=ManualClock(), seed=0, detect_conflicts=False) as m:
        for i, (words, hidden) in enumerate(docs):
            item = m.remember(f"note {i}: " + " ".join(words), scope=S)
            if hidden:
                m.set_tier(item.id, "subconscious", scope=S)
        q = " ".join(query)
        first = m.recall(q, scope=S, options=RecallOptions(k=5, self_correct=False), record_use=False)
        final = m.recall(q, scope=S, k=5, record_use=False)
        assert all(h.why["passes"] in (1, 2) for h in final)
        assert confidence([h.why for h in final]) >= confidence([h.why for h in first])
        if final and final[0].why["answer_from"] == "corrective":
            assert confidence([h.why for h in final]) > confidence([h.why for h in first])
        else:
            assert [h.item.id for h in final] == [h.item.id for h in first]
