"""`reverie import` of an export whose messages are dated past this clock's skew bound.

Regression: the replay recorded each message with the time the file gives it, unchecked, while a
live ``conv.add`` refuses one more than ``Limits.max_clock_skew_seconds`` after the clock's now: an
export from a machine whose clock ran ahead left a conversation that refused every live message
until this clock caught up. Now the import refuses before writing anything (exit 2,
``error[invalid_input]`` naming the message and the way on), and ``--allow-future`` imports the
messages as dated. A message the file itself purges is no obstacle: its purge releases the bound.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cli_support import SCOPE, Cli

from reverie import ManualClock, Memory

COPY = "user:copy"
AHEAD = datetime(2099, 1, 1, tzinfo=UTC)  # past any clock this test runs under, plus its skew bound


def _export_from_2099(run: Cli, tmp_path: Path, *, purge_first: bool = False) -> Path:
    mem = Memory(run.db, embedder="hash", clock=ManualClock(AHEAD))
    try:
        conv = mem.conversation("boiler", scope=SCOPE)
        first = conv.add("The boiler was serviced today.", speaker="Alice")
        if purge_first:
            conv.purge(first.id)
        else:
            conv.add("It needs a new valve.", speaker="Bob")
    finally:
        mem.close()
    dump = tmp_path / "ahead.jsonl"
    run.ok("export", "--out", str(dump))
    return dump


def test_regression_an_import_of_future_messages_is_refused_and_writes_nothing(run: Cli, tmp_path: Path) -> None:
    dump = _export_from_2099(run, tmp_path)
    refused = run.fails(2, "invalid_input", "import", str(dump), scope=COPY)
    assert "'boiler'" in refused.stderr and "2099-01-01" in refused.stderr and "--allow-future" in refused.stderr
    assert run.ok("export", scope=COPY).stdout == ""


def test_allow_future_imports_them_as_dated(run: Cli, tmp_path: Path) -> None:
    dump = _export_from_2099(run, tmp_path)
    report = run.json("import", str(dump), "--allow-future", scope=COPY)
    assert report["failed"] == [] and report["conversations"] == {"boiler": "boiler"}
    assert len(report["entries"]) == 2


def test_a_future_message_the_file_purges_does_not_hold_the_import(run: Cli, tmp_path: Path) -> None:
    dump = _export_from_2099(run, tmp_path, purge_first=True)
    report = run.json("import", str(dump), scope=COPY)
    assert report["failed"] == []
