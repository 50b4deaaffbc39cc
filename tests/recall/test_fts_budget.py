"""The full-text budget: a query whose words are in most documents is split, and the split answer
scores its candidates exactly as the unsplit bm25 would (``store/sqlite/fts_budget.py``)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from reverie import ManualClock, Memory
from reverie.recall.normalize import fts_query, tokenize
from reverie.store.sqlite import SQLiteStore, fts_budget
from reverie.store.sqlite.lexical import ranked_split as _lexical_split

S = "user:fts"
WORDS = [f"w{i}" for i in range(300)]


def sentence(rng: random.Random, i: int) -> str:
    words = rng.choices(WORDS, k=rng.randint(4, 12))
    if i % 5:  # "common" in 80 % of the documents, sometimes twice
        words += ["common"] * rng.randint(1, 2)
    if i % 10 == 0:
        words.append("medium")
    if i % 97 == 0:
        words.append("rare")
    rng.shuffle(words)
    return " ".join(words)


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    path = tmp_path_factory.mktemp("fts") / "fts.db"
    rng = random.Random(11)
    clock = ManualClock(datetime(2025, 1, 1, tzinfo=UTC))
    with Memory(path, embedder="hash", clock=clock, seed=2, detect_conflicts=False, durability="fast") as m:
        batch = [
            {"text": sentence(rng, i), "kind": "observation", "key": "topic" if i % 7 == 0 else None}
            for i in range(2_000)
        ]
        m.remember_many(batch, scope=S)
        m.remember("an unrelated note about rare common things", scope="user:elsewhere")
        yield m


def conn(mem: Memory) -> sqlite3.Connection:
    store = mem.store
    assert isinstance(store, SQLiteStore)
    return store._conn


def full_bm25(mem: Memory, match: str, ids: list[str]) -> dict[str, float]:
    c = conn(mem)
    marks = ", ".join("?" * len(ids))
    rows = c.execute(
        f"SELECT i.id, bm25(fts, 1.0, 0.5) FROM fts JOIN items i ON i.n = fts.rowid "
        f"WHERE fts MATCH ? AND i.id IN ({marks})",
        (match, *ids),
    ).fetchall()
    return {r[0]: -r[1] for r in rows}


def test_small_or_cheap_queries_are_left_alone(mem: Memory) -> None:
    match = fts_query("rare w1")
    assert match is not None
    assert fts_budget.plan(conn(mem), match) is None  # ~40 matches: within the budget


def test_a_split_query_scores_its_candidates_exactly_as_bm25_over_every_term(mem: Memory) -> None:
    match = fts_query("rare medium common w7")
    assert match is not None
    plan = fts_budget.plan(conn(mem), match, budget=300)
    assert plan is not None and set(plan.rescore) == {"common", "medium"}
    split = _lexical_split(conn(mem), plan, S, 50)
    assert split
    want = full_bm25(mem, match, [i for i, _ in split])
    for item_id, score in split:
        assert score == pytest.approx(want[item_id], rel=1e-9, abs=1e-12)
    assert [s for _, s in split] == sorted((s for _, s in split), reverse=True)


def test_the_rarest_term_always_stays_and_phrases_are_never_moved(mem: Memory) -> None:
    match = '"common" OR "w1 w2" OR "medium"'
    plan = fts_budget.plan(conn(mem), match, budget=10)
    assert plan is not None
    assert '"w1 w2"' in plan.match and "w1 w2" not in plan.rescore
    only_common = fts_budget.plan(conn(mem), '"common" OR "medium"', budget=10)
    assert only_common is not None and only_common.match == '"medium"'


def test_the_split_answer_never_leaves_the_scope(mem: Memory) -> None:
    plan = fts_budget.plan(conn(mem), '"rare" OR "common"', budget=10)
    assert plan is not None
    ids = {i for i, _ in _lexical_split(conn(mem), plan, "user:elsewhere", 10)}
    (other,) = mem.list(scope="user:elsewhere").items
    assert ids == {other.id}


def test_row_count_and_mean_length_come_from_the_fts_averages_record(mem: Memory) -> None:
    c = conn(mem)
    stats = fts_budget.averages(c)
    assert stats is not None
    rows, avgdl = stats
    assert rows == c.execute("SELECT count(*) FROM fts").fetchone()[0]
    texts = [r[0] + " " + r[1] for r in c.execute("SELECT text, extra FROM fts")]
    assert avgdl == pytest.approx(sum(len(tokenize(t)) for t in texts) / rows)


@pytest.mark.parametrize("seed", range(5))
def test_ascii_tokens_match_the_fts5_mirror(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "abcXYZ019 +#_-'.,:/\\\"()\t\n@$%&*"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert fts_budget._tokens(text) == tokenize(text)


def test_varint_decoding() -> None:
    assert fts_budget._varint(bytes([0x05]), 0) == (5, 1)
    assert fts_budget._varint(bytes([0x81, 0x00]), 0) == (128, 2)
    assert fts_budget._varint(bytes([0xFF] * 8 + [0x01]), 0) == ((1 << 64) - 255, 9)


@pytest.mark.parametrize(("rows", "df"), [(100, 10), (100, 100), (100, 101), (100, 5000), (1, 0)])
def test_bm25_idf_never_raises_when_term_counts_run_ahead_of_the_row_count(rows: int, df: int) -> None:
    """The row count and the term counts are two reads; a writer between them can make n > N.

    Found by ``scripts/soak``: a math domain error escaped ``remember_many`` after its commit.
    """
    idf = fts_budget.bm25_idf(rows, df)
    assert idf >= 1e-6
    if df < rows / 2:
        assert idf > 1e-6
