"""Steps 2 and 7: near-duplicate clusters become a gist; originals stay as they were."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from reverie import Limits, ManualClock, Memory, NotFoundError
from reverie.dream import DreamConfig
from reverie.dream.text import GIST_MARK

from .kit import TEA, S, ids, seed


@pytest.fixture
def mem(store_mem: Memory) -> Memory:
    """This module's tests run on SQLite and on PostgreSQL (the conformance suite)."""
    return store_mem


def _gist_id(report: object) -> str:
    created = [o.created for o in report.outcomes if o.created]  # type: ignore[attr-defined]
    assert len(created) == 1
    return str(created[0])


def test_near_duplicates_get_a_gist_linked_to_unchanged_originals(mem: Memory, clock: ManualClock) -> None:
    sc = seed(mem, clock)
    before_items = {i: mem.get(i, scope=S) for i in sc.tea}
    before = clock.now()
    clock.advance(minutes=1)
    report = mem.dream(scope=S)
    gist = mem.get(_gist_id(report), scope=S)
    assert gist.source == "system" and gist.kind == "semantic"
    assert sorted(gist.parents) == sorted(sc.tea)
    assert gist.text in {t + GIST_MARK for t in TEA}  # its most salient member's words, marked (#13.3)
    assert gist.evidence_count == 1 and gist.id not in sc.tea
    derived = {e.dst for e in mem.edges(gist.id, scope=S) if e.type == "derived_from" and e.src == gist.id}
    assert derived == set(sc.tea)
    for i in sc.tea:  # originals keep their content; stale ones may leave the active tier (#13.6)
        after, was = mem.get(i, scope=S), before_items[i]
        assert (after.text, after.kind, after.scores, after.parents, after.evidence_count, after.is_current) == (
            was.text,
            was.kind,
            was.scores,
            was.parents,
            was.evidence_count,
            True,
        )
    hits = mem.recall("green tea morning", scope=S, k=5, record_use=False)
    assert gist.id in ids(hits)
    # what we believed before the pass had no gist, and still has the originals
    old = mem.recall("green tea morning", scope=S, k=5, as_of=before, record_use=False)
    assert gist.id not in ids(old) and set(sc.tea) <= set(ids(old))
    with pytest.raises(NotFoundError):
        mem.get(gist.id, scope=S, as_of=before)


def test_gist_authority_is_the_lowest_of_its_inputs(mem: Memory) -> None:
    low = mem.remember(TEA[0], scope=S, source="inferred").id
    for t in TEA[1:]:
        mem.remember(t, scope=S, source="user_stated")
    report = mem.dream(scope=S)
    gist = mem.get(_gist_id(report), scope=S)
    assert gist.scores.authority == pytest.approx(mem.get(low, scope=S).scores.authority) == pytest.approx(0.4)


def test_sparse_topic_keeps_raw_episodes_until_the_cluster_grows(mem: Memory, clock: ManualClock) -> None:
    for t in TEA[:2]:
        mem.remember(t, scope=S, kind="episodic")
    first = mem.dream(scope=S, config=DreamConfig(cluster_min_size=3))
    assert first.count("consolidate") == 0 and first.stats["clusters_sparse"] == 1
    clock.advance(hours=1)
    mem.remember(TEA[2], scope=S, kind="episodic")
    second = mem.dream(scope=S, config=DreamConfig(cluster_min_size=3))
    assert second.count("consolidate", "applied") == 1
    assert second.stats["clusters_consolidated"] == 1


def test_a_grown_cluster_links_new_members_to_its_gist_and_lowers_its_authority(
    mem: Memory, clock: ManualClock
) -> None:
    for t in TEA:
        mem.remember(t, scope=S, source="user_stated")
    gist = _gist_id(mem.dream(scope=S))
    clock.advance(days=1)
    late = mem.remember("Alice prefers green tea in the morning hours", scope=S, source="inferred").id
    report = mem.dream(scope=S)
    assert report.count("consolidate", "remember_gist") == 0  # no second gist for one topic
    linked = {e.dst for e in mem.edges(gist, scope=S) if e.type == "derived_from"}
    assert late in linked
    assert mem.get(gist, scope=S).scores.authority == pytest.approx(0.4)
    assert mem.get(late, scope=S).version == 1  # the new member is linked, never modified


def test_a_gist_whose_edges_were_never_written_is_repaired(mem: Memory) -> None:
    originals = [mem.remember(t, scope=S).id for t in ("Alpha beta gamma delta", "Epsilon zeta eta theta")]
    gist = mem.remember_system(
        "≈ Alpha beta gamma delta", scope=S, parents=originals, kind="semantic", meta={"dream": "gist"}
    )
    report = mem.dream(scope=S)
    assert report.ids("consolidate", "applied") == {gist.id, *originals}
    assert {e.dst for e in mem.edges(gist.id, scope=S) if e.type == "derived_from"} == set(originals)
    assert mem.dream(scope=S, dry_run=True).count("consolidate") == 0


def test_gists_are_not_consolidated_again(mem: Memory, clock: ManualClock) -> None:
    for t in TEA:
        mem.remember(t, scope=S)
    mem.dream(scope=S)
    clock.advance(timedelta(hours=1))
    again = mem.dream(scope=S, dry_run=True)
    assert again.count("consolidate") == 0 and again.stats["gists"] == 1


def test_a_contested_item_never_seeds_a_gist(mem: Memory) -> None:
    tea = [mem.remember(t, scope=S).id for t in TEA]
    rival = mem.remember("Alice hates green tea", scope=S).id
    mem.link(rival, tea[0], "contradicts", scope=S)
    report = mem.dream(scope=S, dry_run=True)
    assert report.stats["cluster_members_contested"] == 1
    assert report.count("consolidate") == 0  # two uncontested members: below cluster_min_size


def test_a_cluster_larger_than_max_parents_lists_the_most_salient_and_links_all(
    open_db: Callable[..., Memory],
) -> None:
    mem = open_db("small-limits", limits=Limits(max_parents=2))
    tea = [mem.remember(t, scope=S).id for t in TEA]
    report = mem.dream(scope=S)
    gist = mem.get(_gist_id(report), scope=S)
    assert len(gist.parents) == 2 and set(gist.parents) <= set(tea)
    assert {e.dst for e in mem.edges(gist.id, scope=S) if e.type == "derived_from"} == set(tea)
    assert mem.dream(scope=S, dry_run=True).count("consolidate") == 0  # covered: nothing left to do


def test_a_gist_never_twins_a_current_claim(mem: Memory, clock: ManualClock) -> None:
    """Regression (#13.3): the gist quoted its representative verbatim, so two current items
    said exactly the same thing (two identical rows on the review page)."""
    seed(mem, clock)
    clock.advance(minutes=1)
    _gist_id(mem.dream(scope=S))
    texts = [" ".join(it.text.casefold().split()) for it in mem.list(scope=S, limit=100).items]
    assert len(texts) == len(set(texts)), sorted(texts)


def test_a_gist_still_conflicts_like_the_claim_it_quotes(mem: Memory, clock: ManualClock) -> None:
    """The mark is not part of the claim: a later contradiction of the gist's words is found."""
    for text in (
        "Bob lives in Paris with his cat",
        "With his cat Bob lives in Paris",
        "Bob lives in Paris, with his cat",
    ):
        mem.remember(text, scope=S, kind="episodic")
    clock.advance(minutes=1)
    gist = mem.get(_gist_id(mem.dream(scope=S, config=DreamConfig(cluster_min_size=3))), scope=S)
    berlin = mem.remember("Bob lives in Berlin with his cat", scope=S)
    rivals = {e.src if e.dst == berlin.id else e.dst for e in mem.edges(berlin.id, scope=S) if e.type == "contradicts"}
    assert gist.id in rivals
