"""Issue #14.14 and #16.3, the CLI side: the CLI tells the truth about the store and the write.

Regressions, each of them seen on the code before the fix:
- ``remember`` through the CLI stored ``provenance.origin`` ``api``, as if from Python;
- errors named Python calls ("call resume_learning('u')", "call undismiss(...)",
  "remember_manual / remember_system", "Memory.reindex()") nobody at a shell can make;
- the CLI opened every store with MiniLM unless told ``--embedder``, so a store made with the
  hash embedder answered ``recall`` with ``embedder_mismatch``;
- ``remember`` / ``revise`` said nothing when the new claim contradicted another one;
- nothing opened a store for inspection only (``--read-only``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))  # the CLI suite's runner (tests/ has no packages)

from cli_support import SCOPE, Cli

from reverie import Memory

#: A Python call inside a message: ``name(`` after a word boundary, or ``Memory.`` / ``mem.``.
PYTHON = re.compile(r"\b[a-z_]+[a-z]\(|\bMemory\.|\bmem\.|remember_manual|remember_system")


@pytest.fixture
def run(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "reverie.db")


def shell_message(result_stderr: str) -> str:
    line = next(x for x in result_stderr.splitlines() if x.startswith("error["))
    assert not PYTHON.search(line), f"a Python call leaked into a CLI error: {line!r}"
    return line


def test_remember_through_the_cli_records_origin_cli(run: Cli) -> None:
    doc = run.json("remember", "Alice likes green tea")
    assert doc["item"]["provenance"]["origin"] == "cli"
    with Memory(run.db, embedder="hash") as mem:
        assert mem.get(doc["item"]["id"], scope=SCOPE).provenance.origin == "cli"


def test_learning_paused_names_the_resume_command_which_works(run: Cli) -> None:
    run.remember("Alice likes tea", scope="team/alpha")
    run.ok("pause", scope="team/alpha")
    line = shell_message(run.fails(1, "learning_paused", "remember", "Alice likes jazz", scope="team/alpha").stderr)
    assert "reverie resume --scope team/alpha" in line
    run.ok("resume", scope="team/alpha")
    run.ok("remember", "Alice likes jazz", scope="team/alpha")


def test_dismissed_value_names_the_undismiss_command_which_works(run: Cli) -> None:
    jazz = run.remember("Alice likes jazz")
    run.ok("dismiss", jazz)
    line = shell_message(run.fails(1, "dismissed_value", "remember", "Alice likes jazz").stderr)
    assert f"reverie undismiss --scope {SCOPE} TEXT" in line
    run.ok("undismiss", "Alice likes jazz")
    run.ok("remember", "Alice likes jazz")


def test_a_manual_source_is_refused_without_naming_python_calls(run: Cli) -> None:
    line = shell_message(run.fails(2, "invalid_input", "remember", "Alice is 30", "--source", "manual").stderr)
    assert "--source" in line


def test_an_embedder_mismatch_names_the_reindex_command_only(run: Cli) -> None:
    run.remember("Alice likes tea")
    result = run.raw("--db", str(run.db), "--embedder", "minilm", "--scope", SCOPE, "recall", "tea")
    assert result.exit_code == 1, result.output
    line = shell_message(result.stderr)
    assert "error[embedder_mismatch]" in line and "`reverie reindex`" in line


def test_the_cli_opens_a_store_with_the_embedder_it_records(run: Cli) -> None:
    """No ``--embedder``: the store made with ``hash`` is read with ``hash``, not refused."""
    tea = run.remember("Alice likes green tea")
    result = run.raw("--db", str(run.db), "--scope", SCOPE, "--json", "recall", "green tea")
    assert result.exit_code == 0, result.output
    assert [h["item"]["id"] for h in json.loads(result.stdout)["hits"]] == [tea]
    # and a write without --embedder keeps the store's vectors of one model
    result = run.raw("--db", str(run.db), "--scope", SCOPE, "remember", "Alice likes jazz")
    assert result.exit_code == 0, result.output
    with Memory(run.db, embedder="hash") as mem:
        assert mem.store.embedder() == ("hash-384/1", 384)
        assert mem.doctor().ok


def test_an_explicit_embedder_still_wins_over_the_recorded_one(run: Cli) -> None:
    run.remember("Alice likes tea")
    env = {"REVERIE_EMBEDDER": "minilm"}
    result = run.raw("--db", str(run.db), "--scope", SCOPE, "recall", "tea", env=env)
    assert result.exit_code == 1 and "error[embedder_mismatch]" in result.stderr


def contradicting_pair(run: Cli) -> tuple[str, dict[str, object]]:
    paris = run.remember("Alice lives in Paris", "--key=alice.city", "--value=Paris")
    return paris, run.json("remember", "Alice lives in Lyon", "--key=alice.city", "--value=Lyon")


def test_remember_json_names_the_contradiction_it_created(run: Cli) -> None:
    paris, doc = contradicting_pair(run)
    assert doc["conflicts_checked"] is True
    [conflict] = doc["conflicts"]  # type: ignore[misc]
    assert conflict["other_id"] == paris and conflict["axis"] and conflict["reason"]
    with Memory(run.db, embedder="hash") as mem:
        [alert] = mem.contradictions(scope=SCOPE)
    assert conflict["edge_id"] == alert.edge_id and conflict["axis"] == alert.axis


def test_remember_text_prints_a_contradicts_line(run: Cli) -> None:
    paris = run.remember("Alice lives in Paris", "--key=alice.city", "--value=Paris")
    out = run.ok("remember", "Alice lives in Lyon", "--key=alice.city", "--value=Lyon").stdout.splitlines()
    assert out[0].startswith("remembered ")
    assert re.fullmatch(rf"  contradicts {paris} \([a-z_]+\): .+", out[1]), out


def test_remember_without_a_contradiction_prints_one_line_and_an_empty_list(run: Cli) -> None:
    assert run.ok("remember", "Alice likes green tea").stdout.count("\n") == 1
    assert run.json("remember", "Bob likes chess")["conflicts"] == []


def test_revise_names_the_contradiction_its_new_version_created(run: Cli) -> None:
    paris = run.remember("Alice lives in Paris", "--key=alice.city", "--value=Paris")
    tea = run.remember("Bob lives in Oslo")
    doc = run.json("revise", tea, "Alice lives in Lyon", "--key=alice.city", "--value=Lyon")
    assert [c["other_id"] for c in doc["conflicts"]] == [paris]
    text = run.ok("revise", doc["item"]["id"], "Alice lives in Rome", "--key=alice.city", "--value=Rome").stdout
    assert f"contradicts {paris} (" in text


# -- read-only -------------------------------------------------------------------------------


def test_read_only_reads_and_refuses_every_write_with_error_read_only(run: Cli) -> None:
    tea = run.remember("Alice likes green tea")
    size = run.db.stat().st_size
    ro = ("--db", str(run.db), "--read-only", "--scope", SCOPE)
    listed = run.raw(*ro, "--json", "list")
    assert listed.exit_code == 0 and json.loads(listed.stdout)["items"][0]["id"] == tea
    assert run.raw(*ro, "recall", "green tea").exit_code == 0
    assert run.raw(*ro, "show", tea).exit_code == 0
    for args in (("remember", "x"), ("forget", tea), ("pause",), ("revise", tea, "y"), ("dream",), ("reindex",)):
        result = run.raw(*ro, *args)
        assert result.exit_code == 1, (args, result.output)
        assert "error[read_only]: " in result.stderr and "--read-only" in result.stderr, result.stderr
    assert run.db.stat().st_size == size
    with Memory(run.db, embedder="hash") as mem:
        item = mem.get(tea, scope=SCOPE)
        assert (item.use_count, item.is_current) == (0, True)  # recall recorded no use


def test_read_only_never_creates_a_store(run: Cli) -> None:
    result = run.raw("--db", str(run.db), "--read-only", "--scope", SCOPE, "remember", "x")
    assert result.exit_code == 1 and "error[not_found]: " in result.stderr
    assert not run.db.exists()


def test_a_store_the_user_cannot_write_suggests_read_only(run: Cli, tmp_path: Path) -> None:
    """The CLI turns the storage error of an unwritable store into a hint at ``--read-only``."""
    from reverie.cli.messages import for_cli

    message = (
        "the store file or its -wal / -shm companions cannot be opened for writing (attempt to write a readonly "
        "database, SQLITE_READONLY); nothing was changed; check that the path is a file in an existing, writable "
        "directory (not a read-only mount)"
    )
    assert for_cli("storage", message, None).endswith("; to only read it, pass --read-only")


def test_serve_read_only_refuses_a_dream_schedule_before_serving(run: Cli) -> None:
    run.remember("Alice likes tea")
    line = run.fails(2, "invalid_input", "serve", "--read-only", "--dream-every", "1h").stderr
    assert "--read-only" in line and "--dream-every" in line


def test_an_unknown_alert_and_a_slice_conflict_name_commands_not_python_calls(run: Cli, tmp_path: Path) -> None:
    """Outside probe 2, finding 6: ``alerts --dismiss`` said "list them with alerts(scope=...)" and a
    slice conflict "Pass on_conflict='skip'", where the CLI has ``reverie alerts`` and ``--on-conflict``."""
    run.ok("remember", "The deploy runs on Fridays")
    line = shell_message(run.fails(1, "not_found", "alerts", "--dismiss", "al_0000000000000000").stderr)
    assert "`reverie alerts`" in line
    out = tmp_path / "s.json"
    run.ok("slice", "export", "--out", str(out))
    doc = json.loads(out.read_text())
    doc["items"][0]["text"] = "other words"
    out.write_text(json.dumps(doc))
    result = run("slice", "import", str(out))
    assert result.exit_code != 0, result.stdout
    line = next(x for x in result.stderr.splitlines() if x.startswith("error[slice_conflict]"))
    assert "--on-conflict skip" in line and "--on-conflict reid" in line and "on_conflict=" not in line
    run.ok("slice", "import", str(out), "--on-conflict", "skip")
