"""`reverie import` of a log with ``count_once`` statements: the copy counts each source once too.

A ``memory.restated`` event (a source already counted stated a claim again) changes nothing, so it
replays as nothing; a corroboration that names its source (``source_ref``) replays naming it, so
the copy knows the source already counted and a later restatement of it there counts nothing.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import SCOPE, Cli

from reverie import Memory

COPY = "user:copy"
TEXT = "The deploy runs on Fridays."


def _say(mem: Memory, scope: str, ref: str) -> str:
    prov = {"origin": "document", "ref": ref}
    return mem.remember(TEXT, scope=scope, provenance=prov, count_once=True).id


def test_an_import_replays_counted_sources_and_skips_restatements(run: Cli, tmp_path: Path) -> None:
    mem = Memory(run.db, embedder="hash")
    try:
        first = _say(mem, SCOPE, "a.md")
        for _ in range(3):
            _say(mem, SCOPE, "b.md")
        assert mem.get(first, scope=SCOPE).evidence_count == 2
    finally:
        mem.close()
    dump = tmp_path / "log.jsonl"
    run.ok("export", "--out", str(dump))
    report = run.json("import", str(dump), scope=COPY)
    assert report["failed"] == []
    assert report["skipped"] == {"memory.restated (a source already counted said it again: nothing changes)": 2}
    mem = Memory(run.db, embedder="hash")
    try:
        copy = report["ids"][first]
        assert mem.get(copy, scope=COPY).evidence_count == 2
        assert _say(mem, COPY, "b.md") == copy and _say(mem, COPY, "a.md") == copy
        assert mem.get(copy, scope=COPY).evidence_count == 2
    finally:
        mem.close()
