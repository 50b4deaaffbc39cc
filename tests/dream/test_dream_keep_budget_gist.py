"""Keep-budget over a cluster the same pass consolidates (outside probe 6, finding 1).

A gist restates its members, so the members are redundant with it: consolidating them must not
shield them from the budget (they used to be held as "consolidated in this pass", and the whole
cut fell on the few unclustered claims, a person's importance-0.95 claim among them). A
person's stated importance counts as salience, and the forget reason's count is the number
actually forgotten.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig
from reverie.dream.salience import keep_score, salience
from reverie.testing import make_memory

from .kit import S

CRITICAL = "Alice's passport number ends in 1234"


def _chatter(mem: Memory, n: int) -> list[str]:
    return [
        mem.remember(f"Random chatter number {i} about lunch option {i * 7}", scope=S, source="inferred").id
        for i in range(n)
    ]


def _current(mem: Memory) -> list[str]:
    return [it.id for it in mem.list(scope=S, limit=1000).items]


def test_consolidated_duplicates_take_the_cut_not_a_stated_critical_claim(mem: Memory, clock: ManualClock) -> None:
    critical = mem.remember(CRITICAL, scope=S, source="user_stated", importance=0.95).id
    noise = _chatter(mem, 30)
    clock.advance(days=120)
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=5))
    assert mem.get(critical, scope=S).status == "live"
    gists = [a for a in report.to_dict()["actions"] if a["op"] == "remember_gist"]
    assert len(gists) == 1  # the cluster is still consolidated
    live = _current(mem)
    assert len(live) <= 5, f"{len(live)} current items for a budget of 5"
    gist_ids = [o.created for o in report.outcomes if o.created]
    assert gist_ids and all(g in live for g in gist_ids)  # the gist stays
    forgotten = [n for n in noise if mem.get(n, scope=S).status != "live"]
    assert len(forgotten) == len(report.ids("keep_budget", "applied")) >= 25
    # the originals keep their words and scores: only validity was closed
    gone = mem.get(forgotten[0], scope=S)
    assert gone.text.startswith("Random chatter number") and gone.scores.importance == 0.5


def test_stated_importance_counts_as_salience(mem: Memory) -> None:
    stated = mem.remember(CRITICAL, scope=S, source="user_stated", importance=0.95)
    inferred = mem.remember("Bob's passport number ends in 9876", scope=S, source="inferred", importance=0.95)
    assert salience(stated) >= 0.95
    assert salience(inferred) < 0.75  # the system's own guess of importance is not a person's word
    mem.set_scores(inferred.id, scope=S, importance=0.9)  # a person sets it: now stated
    assert salience(mem.get(inferred.id, scope=S)) >= 0.9


def test_forget_reason_counts_what_was_forgotten(mem: Memory, clock: ManualClock) -> None:
    for i in range(4):
        mem.remember_manual(f"Manual fact {i} about the {['red', 'blue', 'green', 'tall'][i]} house", scope=S)
    low = [
        mem.remember(t, scope=S, source="inferred", kind="remark").id
        for t in ("Weather seemed mild on Tuesday", "Somebody mentioned pizza")
    ]
    clock.advance(days=90)
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=1))
    assert report.ids("keep_budget", "applied") == set(low)
    for a in report.to_dict()["actions"]:
        if a["step"] == "keep_budget":
            assert "among the 2 lowest unprotected" in a["reason"], a["reason"]
            assert "5 over budget" in a["reason"], a["reason"]
    assert any("unmet by 3" in n for n in report.notes)


_TEXTS = [
    "The deploy key rotates on Fridays",
    "Carol owns the billing service",
    "The office wifi password changed in March",
    "Dana prefers window seats",
    "The staging database lives in Dublin",
    "Erin's birthday is in July",
]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    stated=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=5),
    duplicates=st.integers(0, 8),
    inferred=st.lists(st.floats(0.0, 1.0), min_size=0, max_size=4),
    budget=st.integers(0, 8),
)
def test_budget_is_met_or_explained_and_never_forgets_stated_over_lower_inferred(
    stated: list[float], duplicates: int, inferred: list[float], budget: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        mem, clock = make_memory(path=str(Path(tmp) / "p.db"))
        try:
            ids_stated = [
                mem.remember(_TEXTS[i], scope=S, source="user_stated", importance=imp).id
                for i, imp in enumerate(stated)
            ]
            ids_inferred = _chatter(mem, duplicates) + [
                mem.remember(
                    f"Guess {i}: the {w} team meets at {i + 2} pm", scope=S, source="inferred", importance=imp
                ).id
                for i, (w, imp) in enumerate(zip(("alpha", "beta", "gamma", "delta"), inferred, strict=False))
            ]
            clock.advance(days=60)
            cfg = DreamConfig(keep_budget=budget)
            score = {i: keep_score(mem.get(i, scope=S), clock.now(), cfg) for i in ids_stated + ids_inferred}
            report = mem.dream(scope=S, config=cfg)
            live = set(_current(mem))
            if len(live) > budget:
                assert any(f"keep budget {budget} unmet" in n for n in report.notes), (len(live), report.notes)
            held = {r["id"] for r in report.to_dict()["spared"]} | {
                x for e in mem.edges(scope=S) if e.type == "contradicts" for x in (e.src, e.dst)
            }
            for u in ids_stated:
                if u in live:
                    continue
                for i in ids_inferred:
                    if i in live and i not in held:
                        assert score[i] >= score[u], (u, i, score[u], score[i])
        finally:
            mem.close()
