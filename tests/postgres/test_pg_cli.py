"""The CLI opens a PostgreSQL store from ``--db`` and from ``REVERIE_DB``, with its recorded embedder."""

from __future__ import annotations

from click.testing import CliRunner

from reverie.cli import cli


def test_db_option_and_environment_open_the_postgres_store(pg_url: str) -> None:
    runner = CliRunner()
    made = runner.invoke(
        cli, ["--db", pg_url, "--embedder", "hash", "--scope", "s", "remember", "Alice is allergic to peanuts"]
    )
    assert made.exit_code == 0, made.output
    found = runner.invoke(cli, ["--scope", "s", "recall", "peanuts"], env={"REVERIE_DB": pg_url})
    assert found.exit_code == 0, found.output  # the hash embedder is read back from the store
    assert "Alice is allergic to peanuts" in found.output
    doctor = runner.invoke(cli, ["--db", pg_url, "doctor"])
    assert doctor.exit_code == 0 and doctor.output.startswith("ok")
