"""Re-embedding every item without ever serving a mix of two embedders' vectors (issue #14.5, #14.6).

The old reindex rewrote ``vectors`` batch by batch under the new embedder's label: killed part-way
it left most rows the old model's with ``doctor`` saying ok (2,488 of 3,000 in the repro), and it
read once which items were current, so a ``forget`` or ``revise`` from another process between two
batches put a closed item's vector back into the current index.

Now the new vectors are built aside, in ``vectors_staging`` (one committed batch at a time, so
other processes keep writing and a killed run keeps its progress), and moved into ``vectors`` /
``vectors_history`` in **one** transaction that decides current-or-closed from the items *as they
are then*. Items written or changed meanwhile are caught: each batch picks items that have no
staged vector yet, a trigger drops a staged vector whose text changed (a purge), and the swap,
under the write lock, embeds whatever is still missing. Every vector row records its embedder
(``made_by``); reads refuse a scope whose rows disagree with the recorded embedder, and ``doctor``
reports them, so an interrupted run is visible and ``reindex`` again finishes it (staged rows of
the same embedder are reused).

Residual race (needs the protocol to pass the embedder's name with the vectors of a write): a
writer that checked the label just before ``set_embedder`` and commits just after the swap tags
its row with the new label though the old model made it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager

import numpy as np

from reverie.errors import EmbedderMismatchError, InvalidInputError
from reverie.store.protocol import Embed

Txn = Callable[[], AbstractContextManager[sqlite3.Connection]]
_UNSTAGED = (
    "SELECT i.n, i.text FROM items i WHERE NOT EXISTS (SELECT 1 FROM vectors_staging s WHERE s.n = i.n) "
    "ORDER BY i.n LIMIT ?"
)
# The text is compared again at the write: a purge between the read and this write changed it,
# and the trigger had no staged row to drop yet.
_STAGE = (
    "INSERT OR REPLACE INTO vectors_staging (n, made_by, vec) "
    "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM items WHERE n = ? AND text = ?)"
)


def label(c: sqlite3.Connection) -> str | None:
    row = c.execute("SELECT v FROM settings WHERE k = 'embedder'").fetchone()
    return None if row is None else str(row[0])


def run(
    read: Txn,
    write: Txn,
    embed: Embed,
    *,
    batch: int,
    progress: Callable[[int, int], None] | None,
) -> int:
    """Stage every item's vector under the recorded embedder, then swap them in; returns items done."""
    if batch < 1:
        raise InvalidInputError(f"reindex batch must be at least 1, got {batch}")
    with read() as c:
        name = label(c)
    if name is None:
        raise InvalidInputError("no embedder is recorded for this store: set one (Memory.reindex does) first")
    with write() as c:
        c.execute("DELETE FROM vectors_staging WHERE made_by IS NOT ?", (name,))  # another model's progress
    with read() as c:
        total = int(c.execute("SELECT count(*) FROM items").fetchone()[0])
        done = int(c.execute("SELECT count(*) FROM vectors_staging").fetchone()[0])
    for chunk in _batches(read, batch):
        vecs = embed([text for _, text in chunk])
        with write() as c:
            _same_label(c, name)
            _stage(c, name, chunk, vecs)
        done += len(chunk)
        if progress:
            progress(min(done, total), max(total, done))
    with write() as c:
        _same_label(c, name)
        while rest := c.execute(_UNSTAGED, (batch,)).fetchall():  # written since the last batch
            _stage(c, name, rest, embed([text for _, text in rest]))
        count = _swap(c)
    if progress:
        progress(count, count)
    return count


def _batches(read: Txn, batch: int) -> Iterator[list[tuple[int, str]]]:
    """Unstaged items, ``batch`` at a time, until a short batch (the swap catches the rest)."""
    while True:
        with read() as c:
            chunk = [(int(n), str(text)) for n, text in c.execute(_UNSTAGED, (batch,)).fetchall()]
        if not chunk:
            return
        yield chunk
        if len(chunk) < batch:
            return


def _stage(c: sqlite3.Connection, name: str, rows: Sequence[tuple[int, str]], vecs: np.ndarray) -> None:
    c.executemany(
        _STAGE,
        [
            (n, name, np.asarray(v, dtype=np.float32).tobytes(), n, text)
            for (n, text), v in zip(rows, vecs, strict=True)
        ],
    )


def _same_label(c: sqlite3.Connection, name: str) -> None:
    now = label(c)
    if now != name:
        raise EmbedderMismatchError(
            f"the store's embedder changed to {now!r} while reindexing with {name!r}; nothing was swapped in: "
            "run `reverie reindex` again with the embedder you mean to keep"
        )


def _swap(c: sqlite3.Connection) -> int:
    """Replace every vector row by its staged one, current or history by the item's state now."""
    c.execute("DELETE FROM vectors")
    c.execute("DELETE FROM vectors_history")
    for table, state in (("vectors", "IS NULL"), ("vectors_history", "IS NOT NULL")):
        c.execute(
            f"INSERT INTO {table} (n, scope, vec, made_by) SELECT s.n, i.scope, s.vec, s.made_by "  # nosec B608 # constants
            f"FROM vectors_staging s JOIN items i ON i.n = s.n WHERE i.closed_at {state} ORDER BY s.n"
        )
    count = int(c.execute("SELECT count(*) FROM vectors_staging").fetchone()[0])
    c.execute("DELETE FROM vectors_staging")
    c.execute("UPDATE scope_state SET vec_removals = vec_removals + 1")  # every cached matrix reloads
    return count


def check_served(c: sqlite3.Connection, table: str, scope: str, name: str) -> None:
    """Refuse to search ``scope``'s vectors in ``table`` if any was made by another embedder.

    Three index probes on ``(scope, made_by)``: the smallest and largest tag and any untagged row.
    """
    sql = (
        f"SELECT (SELECT min(made_by) FROM {table} WHERE scope = ?), "  # nosec B608 # table: vectors or vectors_history
        f"(SELECT max(made_by) FROM {table} WHERE scope = ?), "
        f"EXISTS (SELECT 1 FROM {table} WHERE scope = ? AND made_by IS NULL)"
    )
    lo, hi, untagged = c.execute(sql, (scope, scope, scope)).fetchone()
    if lo is None and not untagged:
        return
    if untagged or lo != name or hi != name:
        other = lo if lo != name else hi
        raise EmbedderMismatchError(
            f"scope {scope!r} holds vectors made by {other!r} but the store's embedder is {name!r}: a reindex "
            "did not finish (or is running in another process); run `reverie reindex` (Memory.reindex()) to "
            "finish it"
        )
