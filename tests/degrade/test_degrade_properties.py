"""Property: whatever the embedder does between writes, both backends agree on which claims are
pending, ``doctor`` stays clean, every current claim without a vector is flagged, recall always
answers in hybrid mode, and a reindex with the embedder back leaves nothing pending."""

from __future__ import annotations

import tempfile
from pathlib import Path

from degrade_embedders import SwitchableEmbedder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import Memory, Q
from reverie.store.reference import ReferenceStore
from reverie.testing import EPOCH, ManualClock

WORDS = ("tea", "coffee", "alice", "bob", "morning", "deploy", "friday", "green")
TEXT = st.lists(st.sampled_from(WORDS), min_size=2, max_size=4).map(" ".join)
OP = st.one_of(
    st.tuples(st.just("remember"), TEXT),
    st.tuples(st.just("toggle"), st.just("")),
    st.tuples(st.just("forget"), st.just("")),
    st.tuples(st.just("recall"), TEXT),
)


def _step(mem: Memory, emb: SwitchableEmbedder, op: str, arg: str) -> None:
    if op == "toggle":
        emb.down = not emb.down
    elif op == "remember":
        mem.remember(arg, scope="s")
    elif op == "forget":
        live = mem.list(scope="s", limit=1)
        if live.items:
            mem.forget(live.items[0].id, scope="s")
    else:
        hits = mem.recall(arg, scope="s", record_use=False)
        assert all(h.why.get("dense", "").startswith("unavailable: ") == emb.down for h in hits)


def _pending(mem: Memory) -> list[str]:
    return sorted(i.text for i in mem.list(scope="s", where=Q.flag("vector_pending"), limit=500).items)


def _unvectored(mem: Memory) -> set[str]:
    vectored, _ = mem.store.vectors("s")
    return {i.id for i in mem.list(scope="s", limit=500).items} - set(vectored)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OP, min_size=1, max_size=12))
def test_pending_vectors_agree_across_backends_and_reindex_clears_them(ops: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        embs = (SwitchableEmbedder(), SwitchableEmbedder())
        lite = Memory(Path(tmp) / "m.db", embedder=embs[0], clock=ManualClock(EPOCH), seed=7)
        ref = Memory(store=ReferenceStore(), embedder=embs[1], clock=ManualClock(EPOCH), seed=7)
        with lite, ref:
            for op, arg in ops:
                for mem, emb in ((lite, embs[0]), (ref, embs[1])):
                    _step(mem, emb, op, arg)
                    assert mem.doctor().ok, mem.doctor().problems
                    flagged = {i.id for i in mem.list(scope="s", where=Q.flag("vector_pending"), limit=500).items}
                    if mem.store.embedder() is not None:
                        assert _unvectored(mem) <= flagged
                assert _pending(lite) == _pending(ref)
            for mem, emb in ((lite, embs[0]), (ref, embs[1])):
                emb.down = False
                mem.reindex()
                assert mem.summary(scope="s")["vectors_pending"] == 0
                assert not _unvectored(mem)
                assert mem.doctor().ok
