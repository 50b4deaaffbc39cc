"""A message purge scrubs the SQLite file as an item purge does, whatever else the batch holds.

The file scrub (``secure_delete``, FTS ``'optimize'``, ``VACUUM``, WAL ``TRUNCATE``; see
``store/sqlite/purge.py``) used to run only for a batch holding an item ``Purge``. A message purge
always brought one along (the message's memory), except when nothing but the message was left to
erase: its memory purged before (``forget(purge=True)``) and no later turn quoting it. Then the
``PurgeMessage`` went down the ordinary write path, and the message's words stayed in the database
file (the cells the archive and log rewrites freed, the old full-text segments) and in the WAL.

Each case writes a canary among enough other messages that the archive index spans several pages,
purges it, and scans the raw bytes of every file beside the database (as UTF-8 and lowercased:
full-text tokens are case-folded) while the store is still open, then the full-text shadow table,
then the files again after closing.
"""

from __future__ import annotations

import itertools
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from reverie import InvalidInputError, Memory
from reverie.model.commands import Purge
from reverie.model.conversation import PurgeMessage
from reverie.model.redact import REDACTED
from reverie.store.protocol import Batch
from reverie.store.sqlite import SQLiteStore

SCOPE = "user:alice"
#: Letters and digits only (one full-text token), mixed case so the lowercase is a second needle.
CANARY = "Vq8JtCanaryM3pR"
#: A name only the canary message says, so the purge erases the person record too (``forget_people``).
NAME = "Quorvendyl"
NEEDLES = tuple(w.encode() for w in (CANARY, CANARY.lower(), NAME, NAME.lower()))


def _files(db: Path) -> list[Path]:
    return sorted(p for p in db.parent.iterdir() if p.name.startswith(db.name) and p.is_file())


def _found(db: Path) -> dict[str, int]:
    """Occurrences of each needle in each file beside the database (``-wal``, ``-shm`` included)."""
    out: dict[str, int] = {}
    for path in _files(db):
        data = path.read_bytes()
        for needle in NEEDLES:
            if data.count(needle):
                out[f"{path.name}:{needle.decode()}"] = data.count(needle)
    return out


def _in_archive_index(db: Path) -> int:
    """Blocks of the archive's full-text shadow table holding a needle (read through a second connection)."""
    c = sqlite3.connect(db)
    try:
        blocks = [bytes(r[0]) for r in c.execute("SELECT block FROM conv_fts_data") if r[0] is not None]
    finally:
        c.close()
    return sum(1 for b in blocks for n in NEEDLES if n.lower() in b)


def _chat(mem: Memory, *, later_turns: int) -> Any:
    """200 messages of another conversation (the archive index spans several pages), then in
    conversation ``c`` one message, the canary and ``later_turns`` replies."""
    notes = mem.conversation("notes", scope=SCOPE)
    for i in range(200):
        notes.add(f"note {i}: the {['red', 'green', 'blue'][i % 3]} box went to shelf {i * 7}", speaker="Alice")
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice")
    secret = conv.add(f"My cousin {NAME} keeps the vault code {CANARY} in a drawer.", speaker="Alice")
    for i in range(later_turns):
        conv.add(f"noted, reply {i}", speaker="Bot", role="assistant")
    return conv, secret


def _purge_memory_alone(mem: Memory, item_id: str) -> None:
    """The memory's item purge alone, the message left in the archive: what ``forget(purge=True)``
    of a message's memory wrote before it became the message's purge (a store may still hold it;
    ``test_purge_message_memory.py``). Run as that ``forget`` ran it: one ``Purge`` command."""
    ids = itertools.count()
    mem.store.execute(
        [Purge(SCOPE, item_id)],
        now=mem.clock.now(),
        new_id=lambda: str(uuid.UUID(int=next(ids) + 1)),
        vectors={REDACTED: mem.embedder.embed([REDACTED])[0]},
    )


def _batches(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Record the command types of each batch the store executes (to show which path a case takes)."""
    seen: list[list[str]] = []
    original = SQLiteStore.execute

    def spy(self: SQLiteStore, commands: Any, **kw: Any) -> Any:
        seen.append([type(c).__name__ for c in commands])
        return original(self, commands, **kw)

    monkeypatch.setattr(SQLiteStore, "execute", spy)
    return seen


@pytest.mark.parametrize(
    ("memory_first", "later_turns", "close"),
    [
        pytest.param(True, 0, False, id="only-the-message-left"),  # the batch is one PurgeMessage (the defect)
        pytest.param(False, 0, False, id="with-its-memory"),
        pytest.param(False, 3, True, id="with-quoting-turns-claims-and-person"),
        pytest.param(True, 0, True, id="memory-first-then-claims-and-person"),
    ],
)
def test_a_message_purge_leaves_no_canary_in_the_file_wal_or_archive_index(
    mem: Memory, db_path: Path, monkeypatch: pytest.MonkeyPatch, memory_first: bool, later_turns: int, close: bool
) -> None:
    conv, secret = _chat(mem, later_turns=later_turns)
    if close:  # mines the session: claims about the cousin, and NAME enrolled as a person record
        conv.close()
        assert NAME in {p.name for p in mem.people(scope=SCOPE)}
    if memory_first:
        _purge_memory_alone(mem, secret.item_id)
    assert any(k.startswith(db_path.name) and CANARY in k for k in _found(db_path))  # the scan can fail
    batches = _batches(monkeypatch)
    conv.purge(secret.id, reason="user asked")
    assert batches and batches[-1][0] == "PurgeMessage"
    assert [m.text for m in conv.messages()][1] == REDACTED
    assert mem.archive_search(CANARY, scope=SCOPE) == []
    assert _found(db_path) == {}, "the purged words are still in the open store's files"
    assert _in_archive_index(db_path) == 0
    assert not mem.store.scrub_pending()  # type: ignore[attr-defined]
    assert NAME not in {p.name for p in mem.people(scope=SCOPE)}
    mem.close()
    assert _found(db_path) == {}, "the purged words are in the files after closing"
    with Memory(db_path, embedder="hash") as again:
        assert again.doctor().ok
        assert [m.text for m in again.conversation("c", scope=SCOPE).messages()][1] == REDACTED


def test_a_shared_batch_refuses_a_message_purge_as_it_refuses_an_item_purge(mem: Memory) -> None:
    """``execute_steps`` cannot scrub after its commit, so a ``PurgeMessage`` inside it is refused."""
    conv = mem.conversation("c", scope=SCOPE)
    said = conv.add(f"the code is {CANARY}", speaker="Alice")
    store: Any = mem.store

    def step(batch: Batch) -> None:
        batch.run([PurgeMessage(SCOPE, "c", said.id)])

    out = store.execute_steps([step], now=mem.clock.now(), new_id=lambda: "x", vectors={})
    assert isinstance(out[0], InvalidInputError) and "execute_steps" in str(out[0])
    assert [m.text for m in conv.messages()] == [f"the code is {CANARY}"]  # nothing was erased
