"""``reverie migrate SRC DST``: copy a store with its full event log between SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import click

from reverie import NotFoundError
from reverie.cli.state import EXIT_FAILED, json_option, state


def _is_url(location: str) -> bool:
    return location.lower().startswith(("postgresql://", "postgres://"))


@click.command()
@click.argument("src")
@click.argument("dst")
@json_option
def migrate(src: str, dst: str) -> None:
    """Copy the store at SRC into the empty store at DST (a file or a postgresql:// URL); exit 1 if DST fails doctor."""
    from reverie.store.migrate import migrate as run

    if not _is_url(src) and not Path(src).is_file():
        raise NotFoundError(f"no store at {src}: pass an existing file or a postgresql:// URL as SRC")
    st = state()
    report = run(src, dst)
    doc = report.to_dict()

    def human() -> str:
        verdict = "doctor ok" if report.doctor_ok else "doctor NOT OK: " + "; ".join(report.problems)
        return (
            f"migrated {report.events} events ({report.items} items, {report.scopes} scopes, "
            f"{report.dream_runs} dream runs, {report.idempotency_keys} idempotency "
            f"key{'' if report.idempotency_keys == 1 else 's'}); {verdict}"
        )

    st.emit(doc, human)
    if not report.doctor_ok:
        click.get_current_context().exit(EXIT_FAILED)


COMMANDS = (migrate,)
