"""Step 3: near-duplicates that disagree are never merged; they become contradiction candidates."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import Item, ManualClock, Memory
from reverie.dream import DreamConfig
from reverie.dream.neighbours import Pair, clusters, near_duplicates, token_ranks
from reverie.dream.text import disagreement, frame, jaccard

from .kit import FLAG_OFF, FLAG_ON, START, S, ids


def _item(text: str) -> Item:
    return Item(id="x", scope=S, text=text, kind="assertion", source="observed", recorded_at=START, updated_at=START)


@pytest.mark.parametrize(
    ("a", "b", "axis"),
    [
        (FLAG_ON, FLAG_OFF, "polarity"),
        ("Alice is allergic to peanuts", "Alice is not allergic to peanuts", "polarity"),
        ("Alice isn't vegan", "Alice is vegan", "polarity"),
        ("The rate limit is 100 requests per minute", "The rate limit is 250 requests per minute", "numeric"),
        ("Dark mode is enabled", "Dark mode is disabled", "polarity"),
    ],
)
def test_a_toggle_shares_its_frame_and_the_guard_names_the_disagreement(a: str, b: str, axis: str) -> None:
    assert frame(a) == frame(b)  # the same claim frame: they meet as near-duplicate candidates
    found = disagreement(_item(a), _item(b))
    assert found is not None and found.startswith(axis + ":")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Alice prefers green tea in the morning", "In the morning Alice prefers green tea!"),
        ("Alice isn't vegan", "Alice is not vegan"),
        ("The limit is 1,000", "The limit is 1000"),
    ],
)
def test_the_guard_lets_agreeing_paraphrases_through(a: str, b: str) -> None:
    assert disagreement(_item(a), _item(b)) is None


def test_frames_drop_stop_words_settings_and_numbers_but_keep_codes() -> None:
    assert frame("The flag isn't on, it's 1,000 in us-east-1 (A320)") == {"flag", "us-east-1", "a320"}


def test_toggle_pair_is_linked_contradicts_and_never_merged(open_db: Callable[..., Memory], clock: ManualClock) -> None:
    mem = open_db("guard", detect_conflicts=False)  # no write-time detection: the pass must find it
    variants = (FLAG_ON, "Feature flag dark_mode: on", "The dark_mode feature flag is on")
    on = [mem.remember(t, scope=S).id for t in variants]
    off = mem.remember(FLAG_OFF, scope=S, source="inferred").id
    before = clock.now()
    clock.advance(minutes=1)
    report = mem.dream(scope=S)
    for gist in (o.created for o in report.outcomes if o.created):
        assert off not in mem.get(str(gist), scope=S).parents  # the disagreeing side is never merged
    assert report.stats["cluster_members_contested"] >= 1  # nor is a contested "on" claim restated
    contradicts = {frozenset((e.src, e.dst)) for e in mem.edges(off, scope=S) if e.type == "contradicts"}
    assert contradicts and contradicts <= {frozenset((off, o)) for o in on}
    assert all("polarity" in a.reason for a in report.actions if a.step == "contradiction")
    # current truth: "filter" keeps only the better-supported side
    hits = mem.recall("feature flag dark_mode", scope=S, k=10, contradictions="filter", record_use=False)
    assert off not in ids(hits)
    surfaced = mem.recall("feature flag dark_mode", scope=S, k=10, record_use=False)
    assert {h.item.id for h in surfaced if h.contradicted_by} >= {off}
    # the items themselves are unchanged: what we believed before still reads the same
    assert mem.get(off, scope=S, as_of=before).text == FLAG_OFF


def test_differing_numbers_are_a_contradiction_candidate(open_db: Callable[..., Memory]) -> None:
    mem = open_db("numbers", detect_conflicts=False)
    a = mem.remember("The rate limit is 100 requests per minute", scope=S).id
    b = mem.remember("The rate limit is 250 requests per minute", scope=S).id
    report = mem.dream(scope=S, dry_run=True)
    (action,) = [x for x in report.actions if x.step == "contradiction"]
    assert set(action.item_ids) == {a, b}
    assert "numeric" in action.reason and "'100 requests per minute' vs '250 requests per minute'" in action.reason


def test_existing_contradiction_is_not_linked_twice(mem: Memory) -> None:
    on = mem.remember(FLAG_ON, scope=S).id
    off = mem.remember(FLAG_OFF, scope=S).id  # write-time detection links the pair already
    assert any(e.type == "contradicts" for e in mem.edges(off, scope=S))
    report = mem.dream(scope=S, dry_run=True)
    assert report.count("contradiction") == 0 and report.stats["contradiction_pairs"] == 1
    mem.dream(scope=S)
    assert len([e for e in mem.edges(off, scope=S) if e.type == "contradicts"]) == 1
    assert on in {x for e in mem.edges(off, scope=S) for x in (e.src, e.dst)}


def test_clusters_never_join_a_disagreeing_pair_through_a_bridge() -> None:
    # 0 ~ 1 ~ 2 but 0 and 2 disagree: the bridge may join only one side
    pairs = [Pair(0, 1, 0.99, 1.0, None), Pair(1, 2, 0.98, 1.0, None), Pair(0, 2, 0.97, 1.0, "polarity")]
    groups = clusters(3, pairs)
    assert groups == [[0, 1]]


_WORDS = ["tea", "coffee", "green", "morning", "alice", "bob", "flag", "mode", "dark", "limit", "rate", "on", "off"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6), min_size=2, max_size=25))
def test_prefix_join_finds_exactly_the_pairs_brute_force_finds(sentences: list[list[str]]) -> None:
    texts = [" ".join(s) for s in sentences]
    frames = [frame(t) for t in texts]
    same = np.ones((len(texts), 8), dtype=np.float32) / np.sqrt(8)  # every cosine is 1: test the lexical join
    cfg = DreamConfig(dup_dense=0.0, dup_lexical=0.6)
    found, _ = near_duplicates(frames, token_ranks(frames), same, np.ones(len(texts), bool), cfg, lambda a, b: None)
    brute = {
        (i, j): jaccard(frames[i], frames[j])
        for i, j in itertools.combinations(range(len(texts)), 2)
        if jaccard(frames[i], frames[j]) >= 0.6 - 1e-9
    }
    assert {(p.a, p.b): p.overlap for p in found} == pytest.approx(brute)
