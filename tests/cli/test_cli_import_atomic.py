"""`reverie import` lands whole or not at all, and the same file imported twice adds nothing.

Regression (import was not atomic): each replayed event was its own transaction, so a process
killed part-way left the events before the kill committed. Running the import again then
replayed them a second time: claims already there were corroborated (evidence counted twice),
and events about them failed (a revision of a claim the first run had already revised). A
finished import run again did the same. Both backends, with a real SIGKILL of a real process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import Cli, beliefs, build_rich_scope

WORKER = str(Path(__file__).with_name("import_worker.py"))
SRC = str(Path(__file__).resolve().parents[2] / "src")
COPY = "user:copy"
#: A unit count no test file reaches: the worker runs the import to its end.
NEVER = 10**9


@pytest.fixture
def run(store_url: str) -> Cli:
    """The CLI on a SQLite file, then on a fresh PostgreSQL database."""
    return Cli(store_url)


@pytest.fixture
def dump(run: Cli, tmp_path: Path) -> Path:
    """An export holding every kind of event the replay handles."""
    build_rich_scope(run)
    out = tmp_path / "alice.jsonl"
    run.ok("export", "--out", str(out))
    return out


def _state(run: Cli, scope: str) -> tuple[object, str]:
    """What a reader sees of ``scope``: its beliefs and its whole event log, byte for byte."""
    return beliefs(run, scope), run.ok("export", scope=scope).stdout


def _import_killed_after(run: Cli, file: Path, units: int, scope: str) -> subprocess.CompletedProcess[str]:
    args = ["--db", str(run.db), "--embedder", "hash", "--scope", scope, "import", str(file)]
    env = {**os.environ, "PYTHONPATH": SRC, "OPENBLAS_NUM_THREADS": "1"}
    for name in ("REVERIE_DB", "REVERIE_SCOPE", "REVERIE_EMBEDDER"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, WORKER, str(units), *args], env=env, capture_output=True, text=True, timeout=120
    )


def _seed_target(run: Cli, scope: str) -> None:
    """The target already holds one claim the file also makes (an import corroborates it once)."""
    run.remember("Alice likes green tea", scope=scope)


@pytest.mark.parametrize("units", [1, 9, 20])
def test_an_import_killed_part_way_leaves_nothing_and_a_rerun_matches_a_clean_import(
    run: Cli, dump: Path, units: int
) -> None:
    _seed_target(run, COPY)
    before = _state(run, COPY)
    killed = _import_killed_after(run, dump, units, COPY)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stdout, killed.stderr)
    assert _state(run, COPY) == before  # nothing of the killed import is visible
    assert run.json("doctor", scope=None)["ok"] is True

    rerun = run.json("import", str(dump), scope=COPY)
    _seed_target(run, "user:clean")
    clean = run.json("import", str(dump), scope="user:clean")
    assert rerun["failed"] == [] and rerun["already_imported"] is None
    assert rerun["items"] == clean["items"] and rerun["applied"] == clean["applied"]
    assert beliefs(run, COPY) == beliefs(run, "user:clean")  # evidence counts included


def test_the_same_file_imported_twice_adds_nothing_and_says_so(run: Cli, dump: Path) -> None:
    first = run.json("import", str(dump), scope=COPY)
    assert first["already_imported"] is None and sum(first["applied"].values()) > 0
    after_first = _state(run, COPY)

    again = run.json("import", str(dump), scope=COPY)
    assert again["applied"] == {} and again["failed"] == [] and again["ids"] == {}
    assert again["items"] == {"created": 0, "corroborated": 0, "skipped": 0, "echoed": 0}
    assert again["events"] == first["events"]
    seen = again["already_imported"]
    assert seen["key"].startswith("import:sha256:") and seen["at"]
    assert seen["first"]["applied"] == sum(first["applied"].values())
    assert _state(run, COPY) == after_first  # not one event more, no evidence counted twice

    human = run.ok("import", "-", scope=COPY, input=dump.read_text())  # the same events from stdin
    assert "already imported into scope user:copy" in human.stdout and "nothing added" in human.stdout
    assert _state(run, COPY) == after_first


def test_the_same_file_into_another_scope_is_another_import(run: Cli, dump: Path) -> None:
    run.json("import", str(dump), scope=COPY)
    other = run.json("import", str(dump), scope="user:other")
    assert other["already_imported"] is None
    assert beliefs(run, "user:other") == beliefs(run, COPY)


def test_a_changed_file_is_a_new_import(run: Cli) -> None:
    run.remember("Alice likes tea")
    one = run.ok("export").stdout
    run.remember("Alice likes coffee")
    two = run.ok("export").stdout
    assert run.json("import", "-", scope=COPY, input=one)["items"]["created"] == 1
    report = run.json("import", "-", scope=COPY, input=two)  # one event more: a different file
    assert report["already_imported"] is None
    assert report["items"] == {"created": 1, "corroborated": 1, "skipped": 0, "echoed": 0}


def test_two_processes_importing_the_same_file_apply_it_once(run: Cli, dump: Path) -> None:
    args = ["--json", "--db", str(run.db), "--embedder", "hash", "--scope", COPY, "import", str(dump)]
    env = {**os.environ, "PYTHONPATH": SRC, "OPENBLAS_NUM_THREADS": "1"}
    procs = [
        subprocess.Popen(
            [sys.executable, WORKER, str(NEVER), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    reports = [json.loads(out) for out, _ in outs]
    assert sorted(r["already_imported"] is None for r in reports) == [False, True]
    run.json("import", str(dump), scope="user:clean")
    assert beliefs(run, COPY) == beliefs(run, "user:clean")


def test_a_failed_event_is_part_of_the_import_and_not_retried(run: Cli) -> None:
    """An event the replay refuses is reported with the import it belongs to; the import still
    lands whole, so running it again neither retries that event nor repeats the others."""
    first_item = run.remember("Alice is allergic to peanuts")
    run.remember("Alice avoids satay", f"--parent={first_item}")
    events = run.ok("export").stdout.splitlines()[1:]  # the parent's own event is missing
    dump = "\n".join(events) + "\n"
    failed = run("--json", "import", "-", scope=COPY, input=dump)
    assert failed.exit_code == 1 and json.loads(failed.stdout)["failed"]
    again = run.json("import", "-", scope=COPY, input=dump)
    assert again["already_imported"]["first"]["failed"] == 1 and again["applied"] == {}


def test_an_import_that_purges_is_still_recognised_when_run_again(run: Cli) -> None:
    """A purge erases every recorded summary of its scope (it may quote the purged text), the
    import's own included: the key stays, so the second run still adds nothing; it says when."""
    secret = run.remember("the wifi password is zq-cli-canary-5521")
    run.remember("the wifi is called home")
    run.ok("forget", secret, "--purge", "--reason", "leaked")
    dump = run.ok("export").stdout
    first = run.json("import", "-", scope=COPY, input=dump)
    assert first["applied"]["memory.purged"] == 1
    after_first = _state(run, COPY)
    again = run.json("import", "-", scope=COPY, input=dump)
    assert again["already_imported"]["first"] is None and again["applied"] == {}
    assert _state(run, COPY) == after_first
    assert run.json("doctor", scope=None)["ok"] is True  # the purge's scrub ran once the import committed
