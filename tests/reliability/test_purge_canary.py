"""Promise: after ``forget(purge=True)`` the purged content is gone from the bytes on disk.

A canary token is written into a claim's text, key/value, tags and meta (plus a link quoting
it) in a real SQLite file among a few hundred other claims (so FTS segments merge, pages fill
and free), recalled (usage events quote it), and revised once (two versions in history).
Before the purge a raw byte scan of the database file, its ``-wal`` and ``-shm`` and any other
file the store keeps beside it finds the canary — so the scan can fail — and after it finds it
0 times, as UTF-8 and lowercased (full-text tokens and fingerprints are case-folded), while
the store is still open and after reopening. The bystander claims keep their content, doctor
is clean and a rebuild from the redacted log equals the live projections.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from reverie import ManualClock, Memory, StorageError
from reverie.model.redact import REDACTED
from reverie.store.sqlite import SQLiteStore
from strategies import START, state_of

SCOPE = "user:alice"
#: Letters and digits only, so it is one full-text token; mixed case so lowercase is a second needle.
CANARY = "Kq9ZxCanaryW4vT"
NEEDLES = (CANARY.encode("utf-8"), CANARY.lower().encode("utf-8"))


def store_files(db: Path) -> list[Path]:
    """The database and every sidecar beside it (``-wal``, ``-shm``, ``-journal``, ``.ann/`` …)."""
    beside = [p for p in db.parent.iterdir() if p.name.startswith(db.name)]
    return sorted(f for p in beside for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file())


def scan(db: Path, needles: tuple[bytes, ...] = NEEDLES) -> dict[str, int]:
    """Occurrences of each needle in each store file, as ``{"file:needle": count}``."""
    found: dict[str, int] = {}
    for path in store_files(db):
        data = path.read_bytes()
        for n, needle in enumerate(needles):
            found[f"{path.relative_to(db.parent)}:{n}"] = data.count(needle)
    return found


def total(found: dict[str, int], needle: int) -> int:
    return sum(count for key, count in found.items() if key.endswith(f":{needle}"))


def seed(mem: Memory, clock: ManualClock) -> tuple[str, str, list[str]]:
    """Fill the file, write the canary claim, use it and revise it; returns (first, current, bystanders)."""
    bystanders = [
        mem.remember(f"note {i}: the {['red', 'green', 'blue'][i % 3]} box holds item {i * 7}", scope=SCOPE).id
        for i in range(300)
    ]
    for i in range(0, 300, 10):  # free pages and FTS delete markers from ordinary history
        bystanders[i] = mem.revise(bystanders[i], f"note {i}: moved to shelf {i}", scope=SCOPE).id
    secret = mem.remember(
        f"Alice's vault code is {CANARY}",
        scope=SCOPE,
        key="alice.vault",
        value=CANARY,
        tags=[CANARY],
        meta={"secret": CANARY, "nested": [{"again": CANARY}]},
    )
    mem.link(secret.id, bystanders[1], "about", scope=SCOPE, meta={"quote": CANARY})
    clock.advance(seconds=1)
    assert secret.id in [h.item.id for h in mem.recall(f"vault code {CANARY}", scope=SCOPE)]
    clock.advance(seconds=1)
    current = mem.revise(secret.id, f"Alice's vault code is {CANARY} (rotated)", scope=SCOPE, reason=CANARY)
    for i in range(300, 340):  # written after the canary: its pages are not the file's last
        bystanders.append(mem.remember(f"note {i}: written after the secret", scope=SCOPE).id)
    return secret.id, current.id, bystanders


@pytest.mark.parametrize("secure_delete", ["build-default", "off"])
def test_purge_leaves_no_canary_in_the_database_wal_or_shm(
    open_mem: Callable[..., Memory], tmp_path: Path, clock: ManualClock, secure_delete: str
) -> None:
    """``off``: writes before the purge leave deleted content in free space, as on SQLite builds
    without ``SQLITE_SECURE_DELETE`` (this machine's has it on): only ``VACUUM`` removes that."""
    db = tmp_path / "reverie.db"
    mem = open_mem(db)
    store = mem.store
    assert isinstance(store, SQLiteStore)
    if secure_delete == "off":
        store._conn.execute("PRAGMA secure_delete = OFF")
    setting = store._conn.execute("PRAGMA secure_delete").fetchone()[0]
    first, current, bystanders = seed(mem, clock)
    # the embeddings of both versions' texts, as the float32 bytes the vector tables store
    vecs = mem.embedder.embed([mem.get(first, scope=SCOPE).text, mem.get(current, scope=SCOPE).text])
    needles = (*NEEDLES, *(np.asarray(v, dtype=np.float32).tobytes() for v in vecs))
    before = scan(db, needles)
    assert {f"{db.name}-wal", f"{db.name}-shm"} <= {p.name for p in store_files(db)}
    for n in range(len(needles)):  # the scan sees each needle before the purge, so it can fail
        assert total(before, n) > 0, (n, before)
    texts_before = {i: mem.get(i, scope=SCOPE).text for i in bystanders}

    purged = mem.forget(current, scope=SCOPE, reason="leaked secret", purge=True)

    assert purged.text == REDACTED
    assert store._conn.execute("PRAGMA secure_delete").fetchone()[0] == setting  # restored after the purge
    after = scan(db, needles)
    assert set(after.values()) == {0}, after
    assert (tmp_path / f"{db.name}-wal").stat().st_size == 0  # truncated, not just checkpointed
    assert {i: mem.get(i, scope=SCOPE).text for i in bystanders} == texts_before
    assert mem.get(first, scope=SCOPE).text == REDACTED
    assert mem.doctor().ok
    live = state_of(mem)
    mem.rebuild()
    assert state_of(mem) == live
    assert mem.remember("still writable after the purge", scope=SCOPE).is_current
    final = state_of(mem)
    mem.close()
    assert set(scan(db).values()) == {0}
    with Memory(db, embedder="hash", clock=clock) as again:
        assert state_of(again) == final
        assert again.doctor().ok
    assert set(scan(db).values()) == {0}


def test_a_reader_holding_a_snapshot_makes_the_scrub_fail_loudly_and_a_retry_finishes_it(
    tmp_path: Path, memories: object
) -> None:
    """The purge commits first; if the WAL cannot be emptied the caller is told, and may retry."""
    db = tmp_path / "held.db"
    clock = ManualClock(START)
    mem = Memory(store=SQLiteStore(db, busy_timeout_ms=200), embedder="hash", clock=clock, seed=1)
    try:
        item = mem.remember(f"code {CANARY}", scope=SCOPE, tags=[CANARY])
        reader = sqlite3.connect(db)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM items").fetchone()  # holds a read snapshot
            with pytest.raises(StorageError, match="purge is committed"):
                mem.forget(item.id, scope=SCOPE, purge=True)
            assert mem.get(item.id, scope=SCOPE).text == REDACTED  # every read is already clean
        finally:
            reader.close()
        mem.forget(item.id, scope=SCOPE, purge=True)
        assert set(scan(db).values()) == {0}
        assert mem.doctor().ok
    finally:
        mem.close()
