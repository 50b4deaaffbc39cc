"""Query-side helpers (``recall.expand``) and the recall options they feed: author boost,
explicit authors, neighbour spread; plus the bounded scoring that must not change any answer."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from reverie import ManualClock, Memory
from reverie.recall import engine
from reverie.recall.engine import Neighbours, RecallOptions, Weights
from reverie.recall.expand import AuthorSplit, split_authors

S = "conv"
PEOPLE = ("Caroline", "Melanie")


@pytest.fixture
def mem() -> Memory:
    m = Memory(":memory:", embedder="hash", clock=ManualClock(datetime(2025, 1, 1, tzinfo=UTC)), seed=1)
    turns = [
        ("Caroline", "I have been researching adoption agencies lately"),
        ("Melanie", "Caroline, what did your research on adoption agencies turn up?"),
        ("Melanie", "What genre is your new screenplay?"),
        ("Caroline", "A mix of drama and romance!"),
        ("Melanie", "I painted a lake sunrise last year"),
        ("Caroline", "Thanks Melanie, that painting is lovely"),
    ]
    m.remember_many(
        [{"text": text, "author": who, "meta": {"session": 1, "turn": i + 1}} for i, (who, text) in enumerate(turns)],
        scope=S,
    )
    return m


def texts(hits: list[engine.Hit]) -> list[str]:
    return [h.item.text for h in hits]


# -- split_authors ------------------------------------------------------------------------


def test_split_authors_takes_names_and_possessives_out_of_the_query() -> None:
    assert split_authors("What did Caroline research?", PEOPLE) == AuthorSplit("What did research?", ("Caroline",))
    assert split_authors("What do melanie’s kids like?", PEOPLE) == AuthorSplit("What do kids like?", ("Melanie",))


def test_split_authors_reports_every_named_author_in_the_given_order() -> None:
    split = split_authors("How do Melanie and Caroline both relax?", PEOPLE)
    assert split == AuthorSplit("How do and both relax?", ("Caroline", "Melanie"))


def test_split_authors_matches_whole_words_and_multi_word_names() -> None:
    assert split_authors("Where did Carolines go?", PEOPLE) == AuthorSplit("Where did Carolines go?", ())
    assert split_authors("Where did Mary  Ann go hiking?", ["Mary Ann"]) == AuthorSplit(
        "Where did go hiking?", ("Mary Ann",)
    )


def test_split_authors_keeps_the_query_when_only_stopwords_would_remain() -> None:
    assert split_authors("What did Caroline do?", PEOPLE) == AuthorSplit("What did Caroline do?", ("Caroline",))
    assert split_authors("Caroline?", PEOPLE) == AuthorSplit("Caroline?", ("Caroline",))


def test_split_authors_ignores_blank_or_punctuation_only_author_names() -> None:
    assert split_authors("what happened?", ["", "  ", "--"]) == AuthorSplit("what happened?", ())


# -- author boost -------------------------------------------------------------------------


def test_author_boost_prefers_what_the_named_author_said_over_what_was_said_to_them(mem: Memory) -> None:
    plain = mem.recall("Caroline research adoption agencies", scope=S, k=2, record_use=False)
    boosted = mem.recall(
        "Caroline research adoption agencies",
        scope=S,
        record_use=False,
        options=RecallOptions(k=2, author_boost=3.0),
    )
    assert plain[0].item.author == "Melanie"  # the question *to* Caroline matches more words
    assert boosted[0].item.author == "Caroline"
    assert boosted[0].why["author_named"] is True
    assert "author_named" not in plain[0].why


def test_explicit_authors_replace_detection_from_the_query_text(mem: Memory) -> None:
    split = split_authors("What did Caroline research on adoption agencies?", PEOPLE)
    hits = mem.recall(
        split.query,
        scope=S,
        record_use=False,
        options=RecallOptions(k=3, author_boost=3.0, authors=split.authors),
    )
    assert hits[0].item.author == "Caroline"
    nobody = mem.recall(
        "Caroline research adoption agencies",
        scope=S,
        record_use=False,
        options=RecallOptions(k=3, author_boost=3.0, authors=()),
    )
    assert not any(h.why.get("author_named") for h in nobody)


# -- neighbours ---------------------------------------------------------------------------


def test_neighbour_spread_lifts_the_answer_that_follows_a_matching_question(mem: Memory) -> None:
    answer = "A mix of drama and romance!"

    def rank_and_hit(opts: RecallOptions) -> tuple[int, engine.Hit]:
        hits = mem.recall("screenplay genre", scope=S, record_use=False, options=opts)
        i = texts(hits).index(answer)
        return i, hits[i]

    rank_off, off = rank_and_hit(RecallOptions(k=6))
    rank_on, on = rank_and_hit(RecallOptions(k=6, neighbours=Neighbours(before=1.0, after=0.0)))
    assert rank_on < rank_off
    assert on.why["neighbour_bonus"] > 0
    assert "neighbour_bonus" not in off.why


def test_neighbour_spread_ignores_items_without_sequence_meta() -> None:
    m = Memory(":memory:", embedder="hash", clock=ManualClock(datetime(2025, 1, 1, tzinfo=UTC)), seed=1)
    m.remember_many([{"text": "screenplay genre question"}, {"text": "drama and romance"}], scope=S)
    off = m.recall("screenplay", scope=S, record_use=False, options=RecallOptions())
    on = m.recall("screenplay", scope=S, record_use=False, options=RecallOptions(neighbours=Neighbours(before=1.0)))
    assert [(h.item.id, h.score) for h in on] == [(h.item.id, h.score) for h in off]
    assert not any("neighbour_bonus" in h.why for h in on)


@pytest.mark.parametrize(
    "make",
    [
        lambda: RecallOptions(author_boost=-1.0),
        lambda: RecallOptions(author_boost=float("inf")),
        lambda: Neighbours(after=-0.1),
        lambda: Neighbours(before=float("nan")),
    ],
)
def test_negative_or_non_finite_boost_and_spread_weights_are_refused(make: object) -> None:
    with pytest.raises(ValueError, match="finite number >= 0"):
        make()  # type: ignore[operator]


# -- bounded scoring ----------------------------------------------------------------------


def test_bounded_scoring_returns_exactly_what_scoring_every_candidate_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    words = [f"w{i}" for i in range(60)]
    clock = ManualClock(datetime(2024, 1, 1, tzinfo=UTC))
    m = Memory(":memory:", embedder="hash", clock=clock, seed=2, detect_conflicts=False)
    for _ in range(6):
        batch = [
            {
                "text": " ".join(rng.choices(words, k=rng.randint(3, 9))),
                "importance": rng.random(),
                "authority": rng.random(),
                "author": rng.choice(["ann", "bob", None]),
            }
            for _ in range(40)
        ]
        m.remember_many(batch, scope=S)
        clock.advance(days=rng.randint(1, 60))
    queries = [" ".join(rng.choices(words, k=3)) for _ in range(25)]
    variants = [
        RecallOptions(k=3),
        RecallOptions(k=10, author_boost=2.0),
        RecallOptions(k=5, weights=Weights(trust=-0.5, sharpness=2.0)),
        RecallOptions(k=5, weights=Weights(sharpness=0.0)),
    ]

    def answers() -> list[list[tuple[str, float]]]:
        out = []
        for opts in variants:
            for q in queries:
                hits = m.recall(q, scope=S, record_use=False, options=opts)
                out.append([(h.item.id, h.score) for h in hits])
        return out

    bounded = answers()
    monkeypatch.setattr(engine, "_prunable", lambda opts: False)
    assert answers() == bounded
