"""`reverie migrate` copies the idempotency keys: after a migration, the same import, or an HTTP write
retried with its ``Idempotency-Key``, adds nothing.

Regression (migrate did not copy the idempotency table): ``migrate`` replayed the event log and the
dream-run summaries, not the keys. Running ``reverie import`` with the same file on the destination
imported it again (every claim corroborated a second time, evidence counted twice), and a client
retrying a write after the move had it applied twice. Both directions, SQLite file ⇄ PostgreSQL.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cli_support import Cli, beliefs, build_rich_scope
from fastapi.testclient import TestClient

from reverie import ManualClock, Memory
from reverie.errors import IdempotencyInProgressError
from reverie.http import create_app

COPY = "user:copy"
S = "team/keys"


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    """An export holding every kind of event the replay handles (corroborations included)."""
    origin = Cli(tmp_path / "origin.db")
    build_rich_scope(origin)
    out = tmp_path / "alice.jsonl"
    origin.ok("export", "--out", str(out))
    return out


def _migrate(src: str, dst: str) -> dict[str, Any]:
    report: dict[str, Any] = Cli(src).json("migrate", src, dst, scope=None)
    assert report["doctor"]["ok"] is True, report
    return report


def _state(run: Cli, scope: str) -> tuple[object, str, dict[str, Any]]:
    """What a reader sees of ``scope``: beliefs (evidence counts included), the whole log, the counts."""
    return beliefs(run, scope), run.ok("export", scope=scope).stdout, run.json("summary", scope=scope)


Ends = Callable[[Path, str], tuple[str, str]]
DIRECTIONS: dict[str, Ends] = {
    "sqlite_to_postgres": lambda tmp, pg: (str(tmp / "src.db"), pg),
    "postgres_to_sqlite": lambda tmp, pg: (pg, str(tmp / "dst.db")),
}


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_an_import_run_again_after_migrate_adds_nothing(
    tmp_path: Path, pg_url: str, dump: Path, direction: str
) -> None:
    src, dst = DIRECTIONS[direction](tmp_path, pg_url)
    source = Cli(src)
    first = source.json("import", str(dump), scope=COPY)
    assert first["already_imported"] is None and first["items"]["corroborated"] > 0
    before = _state(source, COPY)

    report = _migrate(src, dst)
    assert report["idempotency_keys"] == 1

    dest = Cli(dst)
    assert _state(dest, COPY) == before
    again = dest.json("import", str(dump), scope=COPY)
    assert again["already_imported"] is not None, "the destination imported the file a second time"
    assert again["already_imported"]["key"] == first["key"]
    assert again["applied"] == {} and again["ids"] == {}
    assert again["items"] == {"created": 0, "corroborated": 0, "skipped": 0, "echoed": 0}
    human = dest.ok("import", str(dump), scope=COPY)
    assert "already imported into scope user:copy" in human.stdout and "nothing added" in human.stdout
    assert _state(dest, COPY) == before  # items, evidence counts, log and counts unchanged


def _request(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_an_http_write_retried_after_migrate_is_replayed_not_applied(
    tmp_path: Path, pg_url: str, direction: str
) -> None:
    src, dst = DIRECTIONS[direction](tmp_path, pg_url)
    path, body, headers = "/v1/scopes/team%2Fkeys/items", {"text": "The boiler is serviced every May"}, {}
    headers["Idempotency-Key"] = "req-1"
    with Memory(src, embedder="hash") as mem, TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        first = client.post(path, json=body, headers=headers)
        assert first.status_code == 201, first.text
        # the other states a row can be in: claimed with no response yet (its server stopped after
        # the commit), and erased by a purge in its scope (only the key kept)
        with mem.idempotency.claim("req-2", scope=S, request=_request("two")):
            mem.remember("The boiler is gas", scope=S)
        with mem.idempotency.claim("req-3", scope="team/other", request=_request("three")) as pending:
            gone = mem.remember("A secret to purge", scope="team/other")
        mem.idempotency.record(pending.claim, status=201, body='{"text": "A secret to purge"}')
        mem.remember("Something that stays", scope="team/other")
        mem.forget(gone.id, scope="team/other", purge=True)
        rows = {
            k: mem.idempotency.recorded(k, scope=s) for k, s in (("req-1", S), ("req-2", S), ("req-3", "team/other"))
        }
        written = len(mem.events(scope=S))
    assert rows["req-2"] is not None and rows["req-2"].status is None
    assert rows["req-3"] is not None and rows["req-3"].erased

    assert _migrate(src, dst)["idempotency_keys"] == 3

    with Memory(dst, embedder="hash") as mem, TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        assert {k: mem.idempotency.recorded(k, scope=r.scope) for k, r in rows.items() if r} == rows
        again = client.post(path, json=body, headers=headers)
        assert again.status_code == first.status_code and again.content == first.content
        assert again.headers.get("idempotent-replayed") == "true"
        with (
            pytest.raises(IdempotencyInProgressError),
            mem.idempotency.claim("req-2", scope=S, request=_request("two")),
        ):
            mem.remember("The boiler is gas", scope=S)
        assert len(mem.events(scope=S)) == written  # neither retry wrote


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_migrate_leaves_expired_keys_behind(tmp_path: Path, pg_url: str, direction: str) -> None:
    src, dst = DIRECTIONS[direction](tmp_path, pg_url)
    then = datetime.now(UTC) - timedelta(days=2)  # the keys were claimed two days before the migration
    with Memory(src, embedder="hash", clock=ManualClock(then)) as mem:
        for key, window in (("expired", timedelta(hours=1)), ("live", timedelta(days=7))):
            with mem.idempotency.claim(key, scope=S, request=_request(key), window=window) as pending:
                mem.remember(f"written under the {key} key", scope=S)
            mem.idempotency.record(pending.claim, status=201, body="{}")
        assert mem.idempotency.recorded("expired", scope=S) is not None  # live when recorded

    assert _migrate(src, dst)["idempotency_keys"] == 1

    with Memory(dst, embedder="hash", clock=ManualClock(then)) as mem:  # as of then, both would be live
        assert mem.idempotency.recorded("expired", scope=S) is None
        live = mem.idempotency.recorded("live", scope=S)
        assert live is not None and live.status == 201 and live.expires_at == then + timedelta(days=7)


def test_migrate_says_how_many_keys_it_copied(tmp_path: Path, pg_url: str, dump: Path) -> None:
    src = tmp_path / "src.db"
    Cli(src).ok("import", str(dump), scope=COPY)
    result = Cli(src).ok("migrate", str(src), pg_url, scope=None)
    assert "1 idempotency key" in result.stdout, result.stdout


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_keys_and_events_are_copied_in_one_transaction(
    tmp_path: Path, pg_url: str, direction: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure while the keys are written leaves the destination empty: no events without their keys."""
    from reverie.store.opening import open_store
    from reverie.store.postgres import PostgresStore
    from reverie.store.sqlite import SQLiteStore

    src, dst = DIRECTIONS[direction](tmp_path, pg_url)
    with Memory(src, embedder="hash") as mem, mem.idempotency.claim("req-1", scope=S, request=_request("one")):
        mem.remember("The boiler is serviced every May", scope=S)

    def fails(*_: object) -> int:
        raise RuntimeError("the disk is gone")

    monkeypatch.setattr(PostgresStore if dst == pg_url else SQLiteStore, "put_idempotency", fails)
    result = Cli(src)("migrate", src, dst, scope=None)
    assert result.exit_code != 0, result.output
    monkeypatch.undo()
    store = open_store(dst)
    try:
        assert store.events(S, limit=1) == [] and store.scopes() == []
    finally:
        store.close()
