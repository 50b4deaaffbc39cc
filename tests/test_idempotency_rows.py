"""``Store.idempotency_rows`` / ``put_idempotency``: a scope's keys read and written as they are, on
every backend (what ``reverie migrate`` copies; ``tests/cli/test_cli_migrate_keys.py`` copies them).

Each row keeps its expiry, status (None: no response yet), body and erased flag; expired rows are
not listed; rows come by key in byte order on every backend; a row of another scope is refused
before anything is written; inside ``atomic`` the rows go with the block.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from reverie import InvalidInputError, Memory
from reverie.store.idempotency import Recorded
from strategies import START

S = "team/rows"


def _row(
    key: str,
    *,
    hours: float = 24,
    request: str = "f" * 64,
    status: int | None = 201,
    body: str | None = '{"ok": true}',
    erased: bool = False,
) -> Recorded:
    return Recorded(S, key, request, START, START + timedelta(hours=hours), status, body, erased)


ROWS = [
    _row("b-answered"),
    _row("Z-in-flight", status=None, body=None),  # upper case sorts first in byte order
    _row("a-erased", request="", body=None, erased=True),
    _row("c-import", hours=24 * 365 * 100, status=0, body='{"applied": 3}'),
]


def test_rows_put_are_listed_as_they_are_by_key(any_mem: Memory) -> None:
    store = any_mem.store
    assert store.put_idempotency(S, ROWS) == 4
    assert store.idempotency_rows(S, now=START) == sorted(ROWS, key=lambda r: r.key.encode())
    assert store.idempotency_rows("team/elsewhere", now=START) == []
    assert store.idempotency(S, "a-erased", now=START) == ROWS[2]


def test_expired_rows_are_not_listed(any_mem: Memory) -> None:
    any_mem.store.put_idempotency(S, [_row("short", hours=1), _row("long", hours=48)])
    later = START + timedelta(hours=2)
    assert [r.key for r in any_mem.store.idempotency_rows(S, now=later)] == ["long"]


def test_a_put_replaces_the_row_of_its_key(any_mem: Memory) -> None:
    any_mem.store.put_idempotency(S, [_row("k", status=None, body=None)])
    any_mem.store.put_idempotency(S, [_row("k", status=409, body="{}", erased=True)])
    assert any_mem.store.idempotency_rows(S, now=START) == [_row("k", status=409, body="{}", erased=True)]


def test_a_row_of_another_scope_is_refused_and_nothing_written(any_mem: Memory) -> None:
    stray = Recorded("team/other", "x", "f" * 64, START, START + timedelta(days=1), None, None)
    with pytest.raises(InvalidInputError, match="team/other"):
        any_mem.store.put_idempotency(S, [_row("first"), stray])
    assert any_mem.store.idempotency_rows(S, now=START) == []


def test_rows_put_inside_a_block_that_raises_are_not_written(any_mem: Memory) -> None:
    with pytest.raises(RuntimeError), any_mem.atomic(scope=S):
        any_mem.remember("Alice likes tea", scope=S)
        any_mem.store.put_idempotency(S, ROWS)
        raise RuntimeError("end the block")
    assert any_mem.store.idempotency_rows(S, now=START) == []
