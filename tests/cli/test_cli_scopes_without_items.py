"""A scope holding intents and a conversation but no item survives ``reverie migrate`` and a dump by
``reverie scopes`` + ``export`` / ``import``.

Regression (outside probe): ``scopes`` listed only the scopes holding items, and ``migrate`` copied
only those, so a store copied to another file or to PostgreSQL silently lost such a scope (its
intents, tasks and conversations), and an operator exporting "every scope" never saw it. The
PostgreSQL directions are in ``tests/postgres/test_pg_migrate.py``.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import Cli

from reverie import Memory

ITEMS = "team/items"
PLANS = "team/plans"


def fill(db: Path | str) -> None:
    """``ITEMS`` holds a claim; ``PLANS`` an intent, its task and an opened conversation, no item."""
    with Memory(db, embedder="hash") as mem:
        mem.remember("Alice is allergic to peanuts", scope=ITEMS)
        intent = mem.intents.create("Ship the billing report", scope=PLANS)
        mem.tasks.create("Draft the summary table", scope=PLANS, intent=intent)
        mem.conversation("support-42", scope=PLANS)


def contents(db: Path | str) -> tuple[list[str], list[tuple[str, str]], list[str], list[str]]:
    """The scopes, and ``PLANS``'s intents, tasks and conversations, by what they say (an import re-ids them)."""
    with Memory(db, embedder="hash") as mem:
        return (
            mem.scopes(),
            [(i.label, i.status) for i in mem.intents.list(scope=PLANS)],
            [t.action for t in mem.tasks.list(scope=PLANS)],
            [c.id for c in mem.conversations(scope=PLANS)],
        )


def logs(db: Path | str) -> dict[str, str]:
    """Each scope's whole log, as ``reverie export`` writes it."""
    run = Cli(db)
    return {s: run.ok("export", scope=s).stdout for s in (ITEMS, PLANS)}


def test_scopes_names_a_scope_holding_no_item(tmp_path: Path) -> None:
    db = tmp_path / "src.db"
    fill(db)
    assert Cli(db).json("scopes", scope=None) == {"scopes": [ITEMS, PLANS]}
    assert Cli(db).ok("scopes", scope=None).stdout.split() == [ITEMS, PLANS]


def test_migrate_copies_a_scope_holding_only_intents_and_a_conversation(tmp_path: Path) -> None:
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    fill(src)
    before, log = contents(src), logs(src)
    assert before[1:] == ([("Ship the billing report", "active")], ["Draft the summary table"], ["support-42"])
    report = Cli(src).json("migrate", str(src), str(dst), scope=None)
    assert report["scopes"] == 2 and report["doctor"]["ok"] is True, report
    assert contents(dst) == before
    assert logs(dst) == log  # the same events, ids and order: nothing of PLANS left behind


def test_exporting_every_listed_scope_and_importing_it_keeps_a_scope_holding_no_item(tmp_path: Path) -> None:
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    fill(src)
    source, dest = Cli(src), Cli(dst)
    for scope in source.json("scopes", scope=None)["scopes"]:
        dump = tmp_path / f"{scope.replace('/', '_')}.jsonl"
        source.ok("export", "--out", str(dump), scope=scope)
        dest.ok("import", str(dump), scope=scope)
    assert contents(dst) == contents(src)
