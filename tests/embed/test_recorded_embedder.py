"""Opening a store without naming an embedder uses the one its vectors record.

Regression: ``Memory(path)`` and ``python -m reverie.mcp --db PATH`` defaulted to minilm, so a
store made with the hash embedder was refused ("vectors were made by 'hash-…'") unless every
face was told ``--embedder hash`` again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import EmbedderMismatchError, Memory
from reverie.mcp.__main__ import parser


def test_memory_without_an_embedder_reads_a_hash_store_with_hash(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember("Alice prefers green tea", scope="s")
    with Memory(db) as mem:
        assert mem.recall("green tea", scope="s")[0].item.text == "Alice prefers green tea"
        assert mem.doctor().ok


def test_naming_another_embedder_is_still_refused(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember("Alice prefers green tea", scope="s")
    with Memory(db, embedder="minilm") as mem, pytest.raises(EmbedderMismatchError):
        mem.recall("green tea", scope="s")


def test_the_mcp_entry_point_names_no_embedder_by_default() -> None:
    assert parser().parse_args(["--db", "x.db"]).embedder is None
