"""Operator commands: doctor, reindex, export, import (the round trip), the not-yet-available stubs, progress."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import SCOPE, Cli, beliefs, build_rich_scope

from reverie import InvalidInputError, Memory
from reverie.cli.ops import parse_every
from reverie.cli.state import Progress, State

Seed = Callable[[], dict[str, str]]


def test_doctor_ok(run: Cli, seeded: Seed) -> None:
    seeded()
    assert run.ok("doctor", scope=None).stdout.startswith("ok\n")
    doc = run.json("doctor", scope=None)
    assert doc["ok"] is True and doc["problems"] == []


class _BadReport:
    def __init__(self) -> None:
        self.ok = False
        self.problems = ["fts has 1 stray row"]
        self.counts = {"items": 1}

    def to_dict(self) -> dict[str, Any]:
        return {"ok": False, "problems": self.problems, "counts": self.counts}


def test_doctor_not_ok_exits_1_and_lists_problems(run: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    run.remember("Alice likes tea")
    monkeypatch.setattr(Memory, "doctor", lambda self: _BadReport())
    result = run("doctor", scope=None)
    assert result.exit_code == 1
    assert "NOT OK" in result.stdout and "fts has 1 stray row" in result.stdout
    result = run("--json", "doctor", scope=None)
    assert result.exit_code == 1 and json.loads(result.stdout)["ok"] is False


def test_reindex_counts_every_item(run: Cli, seeded: Seed) -> None:
    seeded()
    assert run.json("reindex", scope=None) == {"reindexed": 3, "embedder": run.json("reindex")["embedder"]}
    assert run.ok("reindex", scope=None).stdout.startswith("reindexed 3 items with ")
    assert run.json("doctor", scope=None)["ok"] is True


def test_export_to_stdout_is_json_lines_of_events(run: Cli, seeded: Seed) -> None:
    seeded()
    lines = run.ok("export").stdout.splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["type"] for e in events] == ["memory.remembered"] * 3 + ["edge.linked"]
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert {e["scope"] for e in events} == {SCOPE}


def test_export_to_a_file(run: Cli, seeded: Seed, tmp_path: Path) -> None:
    seeded()
    out = tmp_path / "alice.jsonl"
    assert run.ok("export", "--out", str(out)).stdout.strip() == f"exported 4 events of scope {SCOPE} to {out}"
    assert len(out.read_text().splitlines()) == 4
    assert run.json("export", "--out", str(out)) == {"scope": SCOPE, "events": 4, "out": str(out)}
    assert not out.with_name("alice.jsonl.partial").exists()


def test_export_then_import_reproduces_the_scope(run: Cli, tmp_path: Path) -> None:
    build_rich_scope(run)
    dump = tmp_path / "alice.jsonl"
    run.ok("export", "--out", str(dump))
    report = run.json("import", str(dump), scope="user:alice-copy")
    assert report["failed"] == [] and report["notes"] == {}
    assert report["skipped"] == {
        "memory.promoted to manual (a person vouches here, not in a file)": 1,
        "scope.learning_paused (scope setting)": 1,
        "scope.learning_resumed (scope setting)": 1,
    }
    assert report["events"] == len(dump.read_text().splitlines())
    assert report["applied"]["memory.tiers_set"] == 1
    assert beliefs(run, "user:alice-copy", trust=False) == beliefs(run, SCOPE, trust=False)
    # Trust is not read from a file: every copy is 'imported', its original source kept in provenance,
    # and no copy carries more authority than an import starts with (the manual claim included).
    copies = run.json("list", "--include-closed", "--limit=1000", scope="user:alice-copy")["items"]
    assert {c["source"] for c in copies} == {"imported"}
    assert {c["provenance"]["source"] for c in copies} == {"user_stated", "observed", "inferred", "system"}
    assert all(c["scores"]["authority"] <= 0.5 for c in copies)
    office = next(c for c in copies if c["text"] == "The office opens at 9")  # promoted to manual in the source
    assert office["provenance"]["source"] == "user_stated" and office["scores"]["authority"] == 0.5
    assert set(report["ids"]).isdisjoint(report["ids"].values())  # ids are re-assigned
    # What the source refused, the copy refuses too: the dismissed text stayed tombstoned.
    run.fails(1, "dismissed_value", "remember", "Alice owns a dog", scope="user:alice-copy")


def test_import_of_an_export_taken_after_a_purge_keeps_the_item_erased(run: Cli) -> None:
    secret = {"id": run.remember("the wifi password is zq-cli-canary-5521")}
    run.remember("the wifi is called home")
    run.ok("forget", secret["id"], "--purge", "--reason", "leaked")
    dump = run.ok("export").stdout
    assert "zq-cli-canary-5521" not in dump
    report = run.json("import", "-", scope="user:copy", input=dump)
    assert report["failed"] == [] and report["applied"]["memory.purged"] == 1
    assert [i["text"] for i in run.json("list", scope="user:copy")["items"]] == ["the wifi is called home"]
    copy_id = report["ids"][secret["id"]]
    assert run.json("show", copy_id, scope="user:copy")["item"]["status"] == "forgotten"


def test_import_human_report_and_stdin(run: Cli, seeded: Seed) -> None:
    seeded()
    dump = run.ok("export").stdout
    out = run.ok("import", "-", scope="user:copy", input=dump).stdout
    assert out.startswith("imported 4 events into scope user:copy: 4 applied, 0 skipped, 0 failed")
    assert "memory.remembered" in out and "ids re-assigned: 3 items, 1 edges" in out
    assert len(run.json("list", scope="user:copy")["items"]) == 3


def test_import_of_a_malformed_file_writes_nothing(run: Cli, seeded: Seed, tmp_path: Path) -> None:
    seeded()
    lines = run.ok("export").stdout.splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    result = run.fails(2, "invalid_input", "import", str(bad), scope="user:copy")
    assert "line 2" in result.stderr
    assert run.json("scopes", scope=None)["scopes"] == [SCOPE]
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    run.fails(2, "invalid_input", "import", str(binary), scope="user:copy")
    run.fails(2, "usage", "import", str(tmp_path / "missing.jsonl"), scope="user:copy")


def test_import_reports_events_it_cannot_apply_and_goes_on(run: Cli, seeded: Seed) -> None:
    seeded()
    events = [json.loads(line) for line in run.ok("export").stdout.splitlines()]
    del events[0]  # the first item's own event: what derives from it or links to it cannot be replayed
    dump = "".join(json.dumps(e) + "\n" for e in events)
    result = run("--json", "import", "-", scope="user:copy", input=dump)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    failed = [(f["type"], f["code"]) for f in report["failed"]]
    assert failed == [("memory.remembered", "not_found"), ("edge.linked", "not_found")]
    assert report["applied"] == {"memory.remembered": 1}
    human = run("import", "-", scope="user:copy2", input=dump)
    assert human.exit_code == 1 and "failed" in human.stdout and "error[not_found]" in human.stdout


def test_an_edited_export_cannot_forge_a_persons_authority(run: Cli) -> None:
    """Regression (#13.8): an export edited to say ``source: manual`` came in as a person-vouched claim
    (authority 1.0, wins every conflict, never forgotten). A claim read from a file is ``imported``."""
    run.remember("The vault code is 1234", "--authority=0.55")
    event = json.loads(run.ok("export").stdout)
    event["payload"]["item"]["source"] = "manual"
    event["payload"]["item"]["scores"]["authority"] = 1.0
    report = run.json("import", "-", scope="user:copy", input=json.dumps(event) + "\n")
    assert report["failed"] == [] and report["notes"] == {}
    assert report["items"] == {"created": 1, "corroborated": 0, "skipped": 0, "echoed": 0}
    item = run.json("list", scope="user:copy")["items"][0]
    assert (item["source"], item["scores"]["authority"]) == ("imported", 0.5)
    assert item["provenance"]["source"] == "manual"  # what the file claimed, kept as a record only


def test_import_keeps_a_lower_authority_and_the_original_source(run: Cli) -> None:
    run.remember("Alice likes tea", "--authority=0.35", "--source=inferred")
    report = run.json("import", "-", scope="user:copy", input=run.ok("export").stdout)
    assert report["items"]["created"] == 1
    item = run.json("list", scope="user:copy")["items"][0]
    assert (item["source"], item["scores"]["authority"], item["provenance"]["source"]) == ("imported", 0.35, "inferred")


def test_importing_into_a_scope_that_forgot_the_claim_keeps_it_forgotten(run: Cli) -> None:
    """Regression (#13.8): re-importing an old export revived what the scope had forgotten since."""
    tea = run.remember("Alice likes tea")
    run.remember("Alice likes coffee")
    dump = run.ok("export").stdout
    run.ok("forget", tea, "--reason=she stopped")
    report = run.json("import", "-", input=dump)
    assert report["items"] == {"created": 0, "corroborated": 1, "skipped": 1, "echoed": 0}
    assert [i["text"] for i in run.json("list")["items"]] == ["Alice likes coffee"]


def test_import_report_counts_an_echo_of_a_corrected_claim_as_echoed(run: Cli) -> None:
    """Regression (outside tester): re-importing an export taken before a correction lands the old
    claim on its superseded copy (flag ``echoed``, a ``memory.echoed`` event) — and the report
    called that ``corroborated``, which says a current belief gained evidence."""
    paris = run.remember("Bob lives in Paris.", "--source=inferred", "--key=bob.city", "--value=Paris")
    old_export = run.ok("export").stdout
    run.ok("revise", paris, "Bob lives in Berlin.", "--value=Berlin", "--reason=we were wrong")
    report = run.json("import", "-", input=old_export)
    assert report["failed"] == []
    assert report["items"] == {"created": 0, "corroborated": 0, "skipped": 0, "echoed": 1}
    [echo] = [i for i in run.json("list", "--include-closed")["items"] if i["id"] == paris]
    assert (echo["status"], echo["flags"], echo["evidence_count"]) == ("superseded", ["echoed"], 2)
    assert [i["text"] for i in run.json("list")["items"]] == ["Bob lives in Berlin."]
    events = [json.loads(line)["type"] for line in run.ok("export").stdout.splitlines()]
    assert events[-1] == "memory.echoed"
    # The same file again is the same import: it adds nothing, and the echo is not counted twice.
    again = run.json("import", "-", input=old_export)
    assert again["already_imported"] is not None and again["items"]["echoed"] == 0
    # Said again once more, from another file: still an echo, never a corroboration of the current belief.
    run.remember("Bob lives in Paris.", "--source=inferred", "--key=bob.city", "--value=Paris", scope="user:bob")
    other = run.json("import", "-", input=run.ok("export", scope="user:bob").stdout)
    assert other["items"] == {"created": 0, "corroborated": 0, "skipped": 0, "echoed": 1}


def test_serve_refuses_a_public_bind_without_a_token(run: Cli) -> None:
    run.remember("Alice likes tea")
    result = run.fails(2, "invalid_input", "serve", "--host", "0.0.0.0")
    assert "token" in result.stderr


@pytest.mark.parametrize(("text", "seconds"), [("90", 90.0), ("30s", 30.0), ("15m", 900.0), ("1h", 3600.0)])
def test_dream_interval_parses(text: str, seconds: float) -> None:
    assert parse_every(text) == seconds


@pytest.mark.parametrize("text", ["soon", "-5m", "0", "h"])
def test_dream_interval_refuses_nonsense(text: str) -> None:
    with pytest.raises(InvalidInputError):
        parse_every(text)


def test_serve_answers_http_on_loopback(tmp_path: Path) -> None:
    db = tmp_path / "served.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember("Alice likes tea", scope="user:alice")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = Path(sys.executable).with_name("reverie")
    proc = subprocess.Popen(
        [str(exe), "--db", str(db), "--embedder", "hash", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        body = None
        deadline = time.monotonic() + 60  # a loaded 2-core machine can take >10 s to import the server
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/scopes/user:alice/summary", timeout=2) as r:
                    body = json.loads(r.read())
                break
            except OSError:
                time.sleep(0.1)
        assert body is not None and body["current"] == 1
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_dream_dry_run_plans_and_changes_nothing_then_applies(run: Cli) -> None:
    for i in range(3):
        run.remember(f"Alice likes green tea {'very much' if i else ''}".strip())
    before = run.json("list")
    plan = run.json("dream", "--dry-run")
    assert plan["dry_run"] is True and plan["scope"] == SCOPE
    assert all(a["status"] == "planned" for a in plan["actions"])
    assert run.json("list") == before
    human = run.ok("dream", "--dry-run").stdout
    assert "dry run: nothing applied" in human
    done = run.json("dream")
    assert done["dry_run"] is False


def test_dream_last_shows_recorded_passes_and_runs_none(run: Cli) -> None:
    for i in range(3):
        run.remember(f"Alice likes green tea {'very much' if i else ''}".strip())
    assert run.json("dream", "--last") == {"scope": SCOPE, "runs": []}
    assert "no dream pass recorded" in run.ok("dream", "--last").stdout
    run.json("dream", "--dry-run")  # not recorded
    done = run.json("dream")  # its own invocation, as from cron: a process of its own
    doc = run.json("dream", "--last")
    assert [r["at"] for r in doc["runs"]] == [done["at"]]
    assert doc["runs"][0]["counts"]["actions"] == len(done["actions"]) and "actions" not in doc["runs"][0]
    human = run.ok("dream", "--last").stdout
    assert human.startswith(f"dream pass over {SCOPE} at {done['at'][:10]} {done['at'][11:19]}Z: ")
    again = run.json("dream")
    assert [r["at"] for r in run.json("dream", "--last", "--limit", "1")["runs"]] == [again["at"]]
    assert len(run.json("dream", "--last")["runs"]) == 2  # --last ran nothing
    run.fails(2, "usage", "dream", "--last", "--dry-run")
    run.fails(2, "usage", "dream", "--limit", "3")
    run.fails(2, "invalid_input", "dream", "--last", "--limit", "0")


def test_progress_is_silent_unless_stderr_is_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert Progress.for_state(State(), "x", io.StringIO()).enabled is False
    assert Progress.for_state(State(json=True), "x", Tty()).enabled is False
    assert Progress.for_state(State(), "x", Tty()).enabled is True
    silent = Progress("x", enabled=False)
    silent.update(1, 2)
    silent.close()
