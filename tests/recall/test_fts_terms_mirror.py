"""The scoped lexical path counts terms in ``fts_terms`` with the store's own tokenizer; it must be
the tokens FTS5 indexes. Regression (found by ``test_input_fuzz``): the store folded non-ASCII text
with NFKD, so "a⻳" (U+2EF3, a CJK radical FTS5 treats as a separator, which NFKD turns into the
letter 龟) was counted as the term "a龟" while FTS5 indexed "a": a lexical recall of the very text
stored found nothing, because the term the query asked for had no count.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from reverie import Memory
from reverie.recall.normalize import fts_query

# Non-ASCII texts whose NFKD or Python word characters differ from FTS5's Unicode 6.1 tables:
# a compatibility radical, a ligature, full-width letters, a superscript, a circled digit, an
# emoji added after 2012 (a token character to FTS5), Latin diacritics, Greek with tonos.
TEXTS = [
    "a⻳",
    "⻳0 kettle",
    "ﬁsh ﬂour",
    "ＡＢＣ token",
    "x² squared",
    "① first",
    "robot 🤖 arm",
    "über café",
    "καλημέρα ά",
]


def _indexed_terms(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, fts, 'row')")
        return {row[0] for row in conn.execute("SELECT term FROM temp.v")}
    finally:
        conn.close()


def _counted_terms(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {row[0] for row in conn.execute("SELECT term FROM fts_terms WHERE tbl = 0")}
    finally:
        conn.close()


def test_counted_terms_are_the_indexed_terms(tmp_path: Path) -> None:
    path = tmp_path / "terms.db"
    with Memory(str(path), embedder="hash") as mem:
        for i, text in enumerate(TEXTS):
            mem.remember(text, scope=f"s{i}")
    assert _counted_terms(path) == _indexed_terms(path)


@pytest.mark.parametrize("text", TEXTS)
def test_lexical_recall_finds_the_text_it_stored(tmp_path: Path, text: str) -> None:
    with Memory(str(tmp_path / "find.db"), embedder="hash") as mem:
        # Another scope in the table: the scope's own counts (``fts_terms``) rank, not FTS5's.
        mem.remember("an unrelated note about the weather", scope="other")
        item = mem.remember(text, scope="s")
        assert fts_query(text) is not None
        hits = mem.recall(text, scope="s", mode="lexical", record_use=False)
        assert item.id in [h.item.id for h in hits]


def test_a_file_counted_by_the_old_approximation_is_recounted_on_open(tmp_path: Path) -> None:
    """A store written before the fix holds the approximate count ("a龟", no "a"); opening it with
    this version recounts once, and the stored text is found again."""
    path = tmp_path / "old.db"
    with Memory(str(path), embedder="hash") as mem:
        mem.remember("an unrelated note about the weather", scope="other")
        item = mem.remember("a⻳", scope="s")
    conn = sqlite3.connect(path)
    with conn:  # what the old tokenizer left behind
        conn.execute("DELETE FROM fts_terms WHERE scope = 's' AND term = 'a'")
        conn.execute("INSERT INTO fts_terms (scope, tbl, term, docs) VALUES ('s', 0, 'a龟', 1)")
        conn.execute("DELETE FROM settings WHERE k = 'fts_terms_counted_by'")
    conn.close()
    with Memory(str(path), embedder="hash") as mem:
        hits = mem.recall("a⻳", scope="s", mode="lexical", record_use=False)
        assert [h.item.id for h in hits] == [item.id]
    assert _counted_terms(path) == _indexed_terms(path)
