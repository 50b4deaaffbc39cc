"""Bad input and faults on PostgreSQL: a clear ``ReverieError`` with its code, and nothing half-written."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from reverie import InvalidInputError, Memory, StorageError


def test_server_gone_mid_write_fails_clearly_and_leaves_nothing(memories, pg_url: str, pg) -> None:  # type: ignore[no-untyped-def]
    mem: Memory = memories.open(pg_url)
    kept = mem.remember("Alice is allergic to peanuts", scope="s")
    pid = mem.store._conn.info.backend_pid  # type: ignore[attr-defined]
    seen: list[str] = []

    def kill_after_the_event(sql: str) -> None:
        seen.append(sql)
        if sql.startswith("INSERT INTO items"):  # the event is written, its projection not yet
            with pg.admin() as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))

    mem.store._statement_hook = kill_after_the_event  # type: ignore[attr-defined]
    with pytest.raises(StorageError) as info:
        mem.remember("Bob keeps bees", scope="s")
    assert info.value.code == "storage"
    assert "went away" in info.value.message and "nothing of it was written" in info.value.message
    assert any("INSERT INTO events" in s for s in seen)  # the counter and the event: one statement
    mem.store._statement_hook = None  # type: ignore[attr-defined]
    with Memory(pg_url, embedder="hash") as again:
        assert [i.id for i in again.list(scope="s").items] == [kept.id]
        assert len(again.events(scope="s")) == 1
        assert again.doctor().ok
    # the same Memory reconnects on its next call (a server restart does not kill a long-lived process)
    assert mem.remember("Bob keeps bees", scope="s").text == "Bob keeps bees"


def test_wrong_password_is_refused_clearly(pg, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    with pg.admin() as admin:
        admin.execute("CREATE ROLE reverie_pw LOGIN PASSWORD 'right'")
        hba = Path(admin.execute("SHOW hba_file").fetchone()[0])
        text = hba.read_text()
        if "reverie_pw" not in text:  # this role only: the server's other logins stay as they are
            hba.write_text("local all reverie_pw scram-sha-256\n" + text)
        admin.execute("SELECT pg_reload_conf()")
    bad = pg_url.replace("postgresql://postgres:@", "postgresql://reverie_pw:wrong@", 1)
    with pytest.raises(StorageError) as info:
        Memory(bad, embedder="hash")
    assert info.value.code == "storage" and "password" in info.value.message
    assert "wrong" not in info.value.message  # the password is never echoed


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://user:p@ss@host:notaport/db",
        "postgresql://host:99999999999/db",
        "postgresql://host/db\x00",
        "postgresql://host/db?sslmode=sideways",
    ],
)
def test_malformed_url_is_refused_before_connecting(url: str) -> None:
    with pytest.raises((InvalidInputError, StorageError)) as info:
        Memory(url, embedder="hash")
    assert info.value.code in ("invalid_input", "storage")
    assert "p@ss" not in info.value.message and "ss@host" not in info.value.message


def test_percent_encoded_odd_characters_in_the_url_work(pg, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    with pg.admin() as admin:
        admin.execute("CREATE ROLE \"reverie_odd@:/\" LOGIN PASSWORD 'p@ss:/w?rd#'")
        db = pg_url.split("/")[3].split("?")[0]
        admin.execute(f'GRANT ALL ON DATABASE "{db}" TO "reverie_odd@:/"')
    url = pg_url.replace("postgresql://postgres:@", "postgresql://reverie_odd%40%3A%2F:p%40ss%3A%2Fw%3Frd%23@", 1)
    with psycopg.connect(url) as conn:  # the driver itself reads the encoded user
        assert conn.execute("SELECT current_user").fetchone() == ("reverie_odd@:/",)
    from reverie.store.postgres.connect import redact

    assert "p%40ss" not in redact(url) and "***" in redact(url)


def test_a_rolled_back_write_leaves_no_gap_in_event_seq(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    """Regression (found by the state machine): a PostgreSQL sequence keeps the values a rolled-back
    write took, so the log's ``seq`` had gaps that SQLite's and the reference store's do not."""
    mem: Memory = memories.open(pg_url)
    mem.remember("one", scope="s")

    def refuse_after_the_event(sql: str) -> None:
        if sql.startswith("INSERT INTO items"):
            raise InvalidInputError("refused after the event was appended")

    mem.store._statement_hook = refuse_after_the_event  # type: ignore[attr-defined]
    with pytest.raises(InvalidInputError):
        mem.remember("two", scope="s")
    mem.store._statement_hook = None  # type: ignore[attr-defined]
    mem.remember("three", scope="s")
    assert [e.seq for e in mem.events(scope="s")] == [1, 2]
