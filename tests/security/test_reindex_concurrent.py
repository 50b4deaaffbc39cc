"""#14.6: a reindex must stay correct while another process writes between its batches.

It read once which items were current, so a ``forget`` or ``revise`` committed by another process
between two batches put the closed item's vector back into the current index (``doctor``: "rows in
the vector index have no matching item"). Two real processes on one file; the reindexer pauses
after its first batch until the writer (the test's own process) has forgotten, revised, purged and remembered.
"""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
from pathlib import Path

from reverie import Memory
from reverie.embed import HashEmbedder

from .reindex_workers import SCOPE, new_embedder, reindex_pausing_after_first_batch, write_between_batches
from .support import made_by, vector_rows

ITEMS = 600


def test_reindex_beside_a_writer_keeps_closed_items_out_of_the_current_index(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with Memory(db, embedder=HashEmbedder(), durability="fast") as mem:
        items = mem.remember_many([{"text": f"note {i} on subject {i % 13}"} for i in range(ITEMS)], scope=SCOPE)
    # All three from the last batch: the reindexer has not reached them when the writer runs.
    ids = {"forget": items[-1].id, "revise": items[-2].id, "purge": items[-3].id}
    purged_text = items[-3].text

    ctx = mp.get_context("spawn")
    paused, resume = ctx.Event(), ctx.Event()
    reindexer = ctx.Process(target=reindex_pausing_after_first_batch, args=(str(db), paused, resume))
    reindexer.start()
    try:
        write_between_batches(str(db), paused, resume, ids)  # this process is the other writer
    finally:
        resume.set()
        reindexer.join(120)
    assert reindexer.exitcode == 0

    with Memory(db, embedder=new_embedder()) as mem:
        report = mem.doctor()
        assert report.ok, report.problems
        current_ids, _ = mem.store.vectors(SCOPE)
        assert ids["forget"] not in current_ids and ids["revise"] not in current_ids
        assert ids["purge"] not in current_ids
        revised = [i for i in mem.list(scope=SCOPE, limit=1000).items if i.text.startswith("the revised wording")]
        assert len(revised) == 1 and revised[0].id in current_ids
    current, history = vector_rows(db), vector_rows(db, "vectors_history")
    assert len(current) == ITEMS - 3 + 2 and len(history) == 3
    # Every vector, current or closed, is the new model's vector of the item's text as it is now.
    assert made_by(new_embedder(), current) == set(current)
    assert made_by(new_embedder(), history) == set(history)
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT count(*) FROM vectors_staging").fetchone() == (0,)
        assert purged_text not in {text for text, _ in history.values()}
    finally:
        con.close()


def test_reindex_swaps_nothing_when_the_embedder_changes_under_it(tmp_path: Path) -> None:
    """Another writer records a different embedder between two batches: the staged vectors are of
    a model the store no longer names, so the reindex refuses the swap and changes no vector."""
    import pytest

    from reverie import EmbedderMismatchError

    db = tmp_path / "store.db"
    with Memory(db, embedder=HashEmbedder(), durability="fast") as mem:
        mem.remember_many([{"text": f"note {i}"} for i in range(300)], scope=SCOPE)
    before = vector_rows(db)
    with Memory(db, embedder=new_embedder()) as mem:

        def progress(done: int, total: int) -> None:
            other = sqlite3.connect(db)  # a second connection: another writer of the file
            with other:
                other.execute("UPDATE settings SET v = 'someone-else/1' WHERE k = 'embedder'")
            other.close()

        with pytest.raises(EmbedderMismatchError, match="changed to 'someone-else/1'"):
            mem.reindex(progress=progress)
    assert vector_rows(db) == before
