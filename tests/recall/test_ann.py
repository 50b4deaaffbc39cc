"""The ANN (IVF) path of dense recall: agrees with exact search, never returns what current truth
hides, stays inside its scope, catches up with other writers and rebuilds from the file.

Real SQLite files in ``tmp_path``; the threshold is lowered so a few thousand items take the ANN
path. The embedder is a small deterministic one whose texts cluster by topic, as sentence
embeddings do (the hash embedder's vectors do not cluster: see bench/README.md for its figures).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from reverie import ManualClock, Memory
from reverie.recall.engine import RecallOptions, _top_dense
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.ann import AnnConfig

S, OTHER = "user:ann", "user:other"
THRESHOLD = 400
TOPICS = 40


class TopicEmbedder:
    """``"t<j> ..."`` lands near topic j's centre; the rest of the text picks a seeded offset."""

    name = "topic-32/1"
    dim = 32

    def __init__(self) -> None:
        self._centres = np.random.default_rng(7).normal(size=(TOPICS, self.dim))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            topic = int(text.split()[0][1:]) % TOPICS
            noise = np.random.default_rng(zlib.crc32(text.encode())).normal(size=self.dim)
            v = self._centres[topic] + 0.6 * noise
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows, dtype=np.float32)


def open_mem(path: Path, *, threshold: int = THRESHOLD, persist: bool = True, seed: int = 3) -> Memory:
    store = SQLiteStore(path, durability="fast", ann=AnnConfig(threshold=threshold, persist=persist))
    clock = ManualClock(datetime(2025, 1, 1, tzinfo=UTC))
    return Memory(store=store, embedder=TopicEmbedder(), clock=clock, seed=seed, detect_conflicts=False)


def fill(mem: Memory, scope: str, count: int, start: int = 0) -> list[str]:
    ids: list[str] = []
    for lo in range(start, start + count, 500):
        upto = min(lo + 500, start + count)
        batch = [{"text": f"t{i % TOPICS} note {i}", "kind": "observation"} for i in range(lo, upto)]
        ids += [item.id for item in mem.remember_many(batch, scope=scope)]
    return ids


QUERIES = [f"t{j % TOPICS} question {j}" for j in range(60)]


def ann(mem: Memory, query: str, limit: int = 10, scope: str = S) -> list[str]:
    store = mem.store
    assert isinstance(store, SQLiteStore)
    got = store.nearest(scope, TopicEmbedder().embed([query])[0], limit=limit)
    assert got is not None, "the scope is above the threshold: the ANN path must answer"
    return got


def exact(mem: Memory, query: str, limit: int = 10, scope: str = S) -> list[str]:
    ids, mat = mem.store.vectors(scope)
    return _top_dense(ids, mat, TopicEmbedder().embed([query])[0], limit)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with open_mem(tmp_path / "ann.db") as m:
        fill(m, S, 2_000)
        yield m


def test_ann_agrees_with_exact_search(mem: Memory) -> None:
    recall_at_10 = np.mean([len(set(ann(mem, q)) & set(exact(mem, q))) / 10 for q in QUERIES])
    assert recall_at_10 >= 0.95


def test_small_scopes_stay_exact(tmp_path: Path) -> None:
    with open_mem(tmp_path / "small.db") as m:
        fill(m, S, THRESHOLD - 1)
        assert m.store.nearest(S, TopicEmbedder().embed(["t1 x"])[0], limit=10) is None  # type: ignore[attr-defined]
        fill(m, S, 1, start=THRESHOLD - 1)
        assert ann(m, "t1 x")


def test_forgotten_and_dismissed_items_never_come_back_through_ann(mem: Memory) -> None:
    query = QUERIES[0]
    top = ann(mem, query, limit=20)
    for item_id in top[:5]:
        mem.forget(item_id, scope=S)
    for item_id in top[5:10]:
        mem.dismiss(item_id, scope=S)
    hidden = set(top[:10])
    assert not hidden & set(ann(mem, query, limit=100))
    for mode in ("dense", "hybrid"):
        hits = mem.recall(query, scope=S, k=50, mode=mode, record_use=False)
        assert hits and not hidden & {h.item.id for h in hits}


def test_forgetting_through_another_connection_is_seen_before_the_next_answer(mem: Memory, tmp_path: Path) -> None:
    query = QUERIES[1]
    top = ann(mem, query)  # the first Memory builds its index here
    with open_mem(tmp_path / "ann.db", seed=4) as other:
        for item_id in top[:3]:
            other.forget(item_id, scope=S)
        revised = other.revise(top[3], "t1 rewritten note", scope=S)
    answer = ann(mem, query, limit=100)
    assert not set(top[:4]) & set(answer)
    assert revised.id in ann(mem, "t1 rewritten note")


def test_appends_from_another_memory_are_caught_up_incrementally(mem: Memory, tmp_path: Path) -> None:
    ann(mem, QUERIES[2])
    store = mem.store
    assert isinstance(store, SQLiteStore)
    index_before = store._ann._indexes[S].index
    with open_mem(tmp_path / "ann.db", seed=4) as other:
        new = fill(other, S, 30, start=50_000)
    found = set(ann(mem, "t10 note 50010", limit=30))
    assert store._ann._indexes[S].index is index_before  # caught up, not rebuilt
    assert set(new) & found
    assert set(new) <= set(mem.store.vectors(S)[0])


def test_scope_a_never_returns_scope_b(mem: Memory) -> None:
    other_ids = set(fill(mem, OTHER, 1_000))
    mine = set(mem.store.vectors(S)[0])
    for q in QUERIES[:20]:
        got = ann(mem, q, limit=100)
        assert set(got) <= mine
        assert not set(got) & other_ids
        assert set(ann(mem, q, limit=100, scope=OTHER)) <= other_ids


def test_sidecar_is_reused_and_rebuilt_when_deleted_or_stale(tmp_path: Path) -> None:
    path = tmp_path / "side.db"
    with open_mem(path) as m:
        fill(m, S, 1_500)
        before = [ann(m, q) for q in QUERIES[:10]]
    sidecars = list(Path(str(path) + ".ann").glob("*.ivf"))
    assert len(sidecars) == 1
    stale = sidecars[0].read_bytes()
    with open_mem(path) as m:  # loaded from the sidecar: the same answers
        assert [ann(m, q) for q in QUERIES[:10]] == before
        forgotten = before[0][:2]
        for item_id in forgotten:
            m.forget(item_id, scope=S)
        added = fill(m, S, 20, start=90_000)
    sidecars[0].write_bytes(stale)  # the sidecar now lags the file by 20 appends and 2 removals
    with open_mem(path) as m:
        report = m.doctor()
        assert report.ok and report.counts["ann_lagging"] == 1
        assert not set(forgotten) & set(ann(m, QUERIES[0], limit=100))
        assert set(added) & set(ann(m, "t0 note 90000", limit=40))
        caught_up = [ann(m, q) for q in QUERIES[:10]]
    sidecars[0].unlink()
    with open_mem(path) as m:  # rebuilt from the file alone
        assert [ann(m, q) for q in QUERIES[:10]] == caught_up
    assert sidecars[0].is_file()


def test_a_damaged_sidecar_is_reported_and_never_trusted(tmp_path: Path) -> None:
    path = tmp_path / "bad.db"
    with open_mem(path) as m:
        fill(m, S, 1_000)
        want = ann(m, QUERIES[3])
    sidecar = next(Path(str(path) + ".ann").glob("*.ivf"))
    sidecar.write_bytes(b"not an index")
    with open_mem(path) as m:
        assert any("unreadable" in p for p in m.doctor().problems)
        assert ann(m, QUERIES[3]) == want
    assert open_mem(path).doctor().ok  # the rebuilt index replaced it


def test_same_inputs_give_the_same_hits(tmp_path: Path) -> None:
    answers = []
    for name in ("a.db", "b.db"):
        with open_mem(tmp_path / name, persist=False) as m:
            fill(m, S, 1_500)
            hits = [[h.item.id for h in m.recall(q, scope=S, k=10, record_use=False)] for q in QUERIES[:10]]
            answers.append(([ann(m, q) for q in QUERIES[:10]], hits))
    assert answers[0] == answers[1]


def test_history_and_as_of_recall_stay_exact(mem: Memory) -> None:
    query = QUERIES[4]
    gone = ann(mem, query)[0]
    mem.forget(gone, scope=S)
    opts = RecallOptions(k=10, mode="dense", include_history=True)
    hits = mem.recall(query, scope=S, record_use=False, options=opts)
    assert gone in {h.item.id for h in hits}
