"""``Memory.atomic``: a block of writes lands together or not at all, on every backend.

Why it exists: ``reverie import`` replays a file as thousands of calls, each its own transaction,
so a failure part-way left a prefix behind (``tests/cli/test_cli_import_atomic.py`` kills a real
import). Here the block itself: what a raise undoes, what a refused call inside it undoes (only
itself), what reads inside see, the idempotency key it carries, and a purge inside it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from reverie import DismissedValueError, Memory
from reverie.errors import ClosedError, ConflictError, IdempotencyInProgressError
from reverie.model.query import Q

S = "user:alice"


def _everything(mem: Memory) -> tuple[list[str], int]:
    items = mem.list(scope=S, where=Q.status("live") | Q.status("forgotten"), include_closed=True, limit=100).items
    return sorted(i.text for i in items), len(mem.events(scope=S))


class Boom(Exception):
    """Raised inside a block to end it."""


def test_a_block_that_raises_leaves_nothing_and_the_memory_goes_on(any_mem: Memory) -> None:
    any_mem.remember("Alice likes tea", scope=S)
    before = _everything(any_mem)
    with pytest.raises(Boom), any_mem.atomic(scope=S):
        tea = any_mem.remember("Alice likes tea", scope=S)  # a corroboration of what was there
        cat = any_mem.remember("Alice owns a cat", scope=S)
        any_mem.link(cat.id, tea.id, "about", scope=S)
        any_mem.forget(cat.id, scope=S)
        any_mem.remember_many([{"text": "Alice owns a dog"}, {"text": "Alice owns a hamster"}], scope=S)
        raise Boom
    assert _everything(any_mem) == before
    assert any_mem.get(tea.id, scope=S).evidence_count == 1
    any_mem.remember("Alice owns a cat", scope=S)  # the same memory writes afterwards
    assert _everything(any_mem)[0] == ["Alice likes tea", "Alice owns a cat"]


def test_a_refused_call_inside_the_block_undoes_only_itself(any_mem: Memory) -> None:
    dog = any_mem.remember("Alice owns a dog", scope=S)
    any_mem.dismiss(dog.id, scope=S)
    with any_mem.atomic(scope=S):
        any_mem.remember("Alice likes tea", scope=S)
        with pytest.raises(DismissedValueError):  # the second of the batch is refused: none of it lands
            any_mem.remember_many([{"text": "Alice owns a cat"}, {"text": "Alice owns a dog"}], scope=S)
        any_mem.remember("Alice likes coffee", scope=S)
    live = sorted(i.text for i in any_mem.list(scope=S).items)
    assert live == ["Alice likes coffee", "Alice likes tea"]


def test_reads_inside_the_block_see_its_writes(any_mem: Memory) -> None:
    with any_mem.atomic(scope=S):
        tea = any_mem.remember("Alice likes green tea", scope=S)
        assert any_mem.get(tea.id, scope=S).text == "Alice likes green tea"
        assert [h.item.id for h in any_mem.recall("green tea", scope=S, mode="lexical")] == [tea.id]
        revised = any_mem.revise(tea.id, "Alice likes black tea", scope=S)
        assert any_mem.get(revised.id, scope=S).text == "Alice likes black tea"
    assert [i.text for i in any_mem.list(scope=S).items] == ["Alice likes black tea"]


def test_the_block_writes_the_idempotency_key_it_is_claimed_with(any_mem: Memory) -> None:
    request = hashlib.sha256(b"import this file").hexdigest()
    with any_mem.idempotency.claim("import-1", scope=S, request=request) as pending, any_mem.atomic(scope=S):
        any_mem.remember("Alice likes tea", scope=S)
        any_mem.remember("Alice owns a cat", scope=S)  # the block's own writes do not take the key again
    assert pending.written
    assert any_mem.idempotency.recorded("import-1", scope=S) is not None
    before = _everything(any_mem)
    with (
        pytest.raises(IdempotencyInProgressError),
        any_mem.idempotency.claim("import-1", scope=S, request=request),
        any_mem.atomic(scope=S),
    ):
        any_mem.remember("Alice likes tea", scope=S)  # never reached: the key is the first statement
    assert _everything(any_mem) == before


def test_a_block_that_raises_writes_no_idempotency_key(any_mem: Memory) -> None:
    request = hashlib.sha256(b"import that file").hexdigest()
    with pytest.raises(Boom), any_mem.idempotency.claim("import-2", scope=S, request=request), any_mem.atomic(scope=S):
        any_mem.remember("Alice likes tea", scope=S)
        raise Boom
    assert any_mem.idempotency.recorded("import-2", scope=S) is None


def test_a_purge_inside_the_block_is_scrubbed_from_the_file_after_it_commits(mem: Memory, db_path: Path) -> None:
    canary = "Zq7CanaryAtomicX3"
    for i in range(50):
        mem.remember(f"note {i}: the box holds item {i * 7}", scope=S)
    secret = mem.remember(f"the vault code is {canary}", scope=S)
    with mem.atomic(scope=S):
        mem.remember("Alice likes tea", scope=S)
        mem.forget(secret.id, scope=S, purge=True, reason="leaked")
        assert mem.store.scrub_pending()  # type: ignore[attr-defined]  # committed with the block, not before
    assert not mem.store.scrub_pending()  # type: ignore[attr-defined]
    files = [p for p in db_path.parent.iterdir() if p.name.startswith(db_path.name) and p.is_file()]
    assert sum(p.read_bytes().count(canary.encode()) for p in files) == 0
    assert "Alice likes tea" in [i.text for i in mem.list(scope=S, limit=100).items]  # the block's other write


@pytest.mark.timeout(60)
def test_a_backup_inside_the_block_is_refused_at_once(mem: Memory, tmp_path: Path) -> None:
    """Probe finding 18: SQLite's backup API waited forever for the block's own open write (holding
    the file's write lock all the while). Refused at once; the block goes on and commits."""
    with mem.atomic(scope=S):
        mem.remember("Alice likes tea", scope=S)
        with pytest.raises(ConflictError, match=r"atomic block.*after the block") as refused:
            mem.backup(tmp_path / "copy.db")
        assert refused.value.code == "conflict"
        mem.remember("Alice owns a cat", scope=S)
    assert not (tmp_path / "copy.db").exists()
    assert _everything(mem)[0] == ["Alice likes tea", "Alice owns a cat"]
    mem.backup(tmp_path / "copy.db")  # after the block: the ordinary backup
    with Memory(tmp_path / "copy.db", embedder="hash") as copy:
        assert sorted(i.text for i in copy.list(scope=S).items) == ["Alice likes tea", "Alice owns a cat"]


def test_close_inside_the_block_is_refused_and_the_block_goes_on(any_mem: Memory) -> None:
    """Probe finding 20: close() inside the block closed the connection under it, so the block's end
    raised a raw ``sqlite3.ProgrammingError`` and its write was lost. Now close() is refused while
    the block is open: caught, the block commits as usual; uncaught, the block rolls back."""
    with any_mem.atomic(scope=S):
        any_mem.remember("Alice likes tea", scope=S)
        with pytest.raises(ConflictError, match=r"atomic block.*after the block"):
            any_mem.close()
        any_mem.remember("Alice owns a cat", scope=S)
    assert _everything(any_mem)[0] == ["Alice likes tea", "Alice owns a cat"]
    before = _everything(any_mem)
    with pytest.raises(ConflictError), any_mem.atomic(scope=S):
        any_mem.remember("Alice owns a dog", scope=S)
        any_mem.close()
    assert _everything(any_mem) == before  # the block rolled back whole; the memory is still open
    any_mem.close()
    with pytest.raises(ClosedError):
        any_mem.remember("Alice owns a dog", scope=S)
