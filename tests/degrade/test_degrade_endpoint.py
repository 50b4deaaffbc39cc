"""Graceful degradation against a real OpenAI-compatible embedding server on 127.0.0.1 that is
stopped mid-run (issue #13.7): writes keep being stored, recall keeps answering from full text,
and once an endpoint answers again the pending vectors are backfilled."""

from __future__ import annotations

from pathlib import Path

from embed_fake_server import FakeServer

from reverie import Memory
from reverie.embed import OpenAICompatibleEmbedder
from reverie.testing import EPOCH, ManualClock


def _memory(path: Path, server: FakeServer, seed: int) -> Memory:
    embedder = OpenAICompatibleEmbedder(server.url(), "toy-model", dim=4, timeout=5)
    return Memory(path, embedder=embedder, clock=ManualClock(EPOCH), seed=seed, detect_conflicts=False)


def test_stopped_endpoint_degrades_writes_and_recall_then_backfills(tmp_path: Path, embed_server: FakeServer) -> None:
    path = tmp_path / "m.db"
    with _memory(path, embed_server, 3) as mem:
        mem.remember("the deploy runs on fridays", scope="s")
        assert mem.summary(scope="s")["vectors_pending"] == 0
        embed_server.stop()  # the endpoint goes away mid-run
        late = mem.remember("alice prefers green tea", scope="s")
        assert "vector_pending" in late.flags
        hits = mem.recall("green tea", scope="s", record_use=False)
        assert hits[0].item.id == late.id
        assert hits[0].why["dense"].startswith("unavailable: ")
        assert "127.0.0.1" in hits[0].why["dense"]  # names the endpoint that failed
        assert "alice prefers green tea" in mem.context("green tea", scope="s")
        report = mem.doctor()
        assert report.ok, report.problems
        assert report.counts["vectors_pending"] == 1

    back = FakeServer()  # the endpoint is back (on another port: same model, same vector space)
    back.start()
    try:
        with _memory(path, back, 4) as mem:  # another seed: a new process's ids
            mem.remember("bob drinks black coffee", scope="s")  # a write that embeds: backfills
            assert mem.summary(scope="s")["vectors_pending"] == 0
            dense = mem.recall("alice prefers green tea", scope="s", mode="dense", record_use=False)
            assert late.id in [h.item.id for h in dense]
            assert all("dense" not in h.why for h in dense)
            assert mem.doctor().ok
    finally:
        back.stop()


def test_damaged_local_model_file_degrades_instead_of_failing(tmp_path: Path) -> None:
    """The local MiniLM with its model file damaged (a real load failure, not a patched one)."""
    from reverie.embed.minilm import MiniLMEmbedder

    model = tmp_path / "model.onnx"
    model.write_bytes(b"not an onnx file")
    embedder = MiniLMEmbedder(model_path=model, threads=1)
    with Memory(tmp_path / "m.db", embedder=embedder, clock=ManualClock(EPOCH), seed=5) as mem:
        item = mem.remember("alice prefers green tea", scope="s")
        assert "vector_pending" in item.flags
        hits = mem.recall("green tea", scope="s", record_use=False)
        assert hits[0].item.id == item.id
        assert hits[0].why["dense"].startswith("unavailable: could not load MiniLM")
        assert mem.doctor().ok
