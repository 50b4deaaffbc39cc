"""One error shape everywhere: ``error[<code>]: <message>`` on stderr, exit 2 (bad input) or 1, no traceback.

Also the global options' precedence: command line, then environment, then the documented default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import SCOPE, Cli

from reverie import InvalidInputError, Memory

MISSING = "01a22b09-0000-7000-8000-000000000000"

BAD_INPUT = [
    # (args, exit code, error code)
    (["--scope", "bad scope!", "list"], 2, "invalid_scope"),
    (["remember", "x", "--scope", "-leading-dash"], 2, "invalid_scope"),
    (["show", "not-an-id"], 2, "invalid_input"),
    (["show", MISSING], 1, "not_found"),
    (["forget", MISSING], 1, "not_found"),
    (["revise", MISSING, "new text"], 1, "not_found"),
    (["remember", "x", "--meta", "{not json"], 2, "invalid_input"),
    (["remember", "x", "--meta", "[1, 2]"], 2, "invalid_input"),
    (["remember", "x", "--importance", "1.5"], 2, "invalid_input"),
    (["remember", "x", "--authority", "-0.1"], 2, "invalid_input"),
    (["remember", "x", "--source", "manual"], 2, "invalid_input"),
    (["remember", ""], 2, "invalid_input"),
    (["remember", "x", "--valid-from", "tomorrow"], 2, "invalid_input"),
    (["link", MISSING, MISSING.replace("0000", "1111"), "loves"], 2, "invalid_input"),
    (["list", "--sort", "-nonsense"], 2, "invalid_query"),
    (["list", "--meta", "no-equals-sign"], 2, "invalid_query"),
    (["list", "--meta", "bad path!=1"], 2, "invalid_query"),
    (["list", "--cursor", "garbage"], 2, "invalid_input"),
    (["list", "--limit", "0"], 2, "invalid_input"),
    (["list", "--min-importance", "x"], 2, "usage"),
    (["recall", "tea", "--k", "0"], 2, "invalid_input"),
    (["recall", "tea", "--as-of", "last tuesday"], 2, "invalid_input"),
    (["recall", "tea", "--mode", "psychic"], 2, "invalid_input"),  # Memory words it, as on every face
    (["recall", "tea", "--tier", "attic"], 2, "invalid_input"),
    (["remember"], 2, "usage"),
    (["remember", "x", "--no-such-option"], 2, "usage"),
    (["dismiss", MISSING], 1, "not_found"),
    (["dismiss", "nope"], 2, "invalid_input"),
    (["undismiss", "never dismissed"], 1, "not_found"),
    (["revise", "nope", "new text"], 2, "invalid_input"),
    (["revise", MISSING, "new text", "--expected-version", "zero"], 2, "usage"),
    (["context", "tea", "--budget", "0"], 2, "invalid_input"),
    (["context"], 2, "usage"),
    (["show", MISSING, "--as-of", "soon"], 2, "invalid_input"),
    (["summary", "--scope", "has space"], 2, "invalid_scope"),
    (["contradictions", "--limit", "0"], 2, "invalid_input"),
    (["resolve", MISSING, "--keep", MISSING], 1, "not_found"),
    (["resolve", "nope", "--keep", MISSING], 2, "invalid_input"),
    (["resolve", MISSING], 2, "usage"),
    (["pause", "--scope", "bad scope!"], 2, "invalid_scope"),
    (["resume", "--scope", "bad scope!"], 2, "invalid_scope"),
    (["export", "--scope", "bad scope!"], 2, "invalid_scope"),
    (["import", "no-such-file.jsonl"], 2, "usage"),
    (["scopes", "extra-argument"], 2, "usage"),
    (["doctor", "--no-such-option"], 2, "usage"),
    (["reindex", "--no-such-option"], 2, "usage"),
    (["serve", "--port", "0"], 2, "usage"),
    (["serve", "--dream-every", "often"], 2, "invalid_input"),
    (["serve", "--idempotency-window", "0s"], 2, "invalid_input"),
    (["mcp", "--port", "70000"], 2, "usage"),
    (["mcp", "--embedder", "word2vec"], 2, "usage"),
    (["no-such-command"], 2, "usage"),
]


@pytest.mark.parametrize(("args", "exit_code", "code"), BAD_INPUT, ids=[" ".join(a)[:40] for a, _, _ in BAD_INPUT])
def test_bad_input_gets_one_error_line_and_the_right_exit_code(
    run: Cli, args: list[str], exit_code: int, code: str
) -> None:
    run.remember("Alice likes tea")
    result = run.fails(exit_code, code, *args)
    assert result.stderr.startswith(f"error[{code}]: ")
    assert result.stdout == ""


def test_json_mode_also_prints_the_error_document_on_stdout(run: Cli) -> None:
    run.remember("Alice likes tea")
    result = run.fails(1, "not_found", "--json", "show", MISSING)
    assert json.loads(result.stdout) == {"code": "not_found", "error": f"no item {MISSING} in scope '{SCOPE}'"}
    result = run.fails(2, "invalid_input", "show", MISSING[:8], "--json")
    assert json.loads(result.stdout)["code"] == "invalid_input"


def test_a_scoped_command_without_a_scope_is_refused_before_touching_the_file(run: Cli) -> None:
    result = run.fails(2, "invalid_scope", "remember", "Alice likes tea", scope=None)
    assert "--scope" in result.stderr and "REVERIE_SCOPE" in result.stderr
    assert not run.db.exists()


def test_reads_never_create_a_store(run: Cli) -> None:
    result = run.fails(1, "not_found", "list")
    assert "no store at" in result.stderr
    run.fails(1, "not_found", "doctor", scope=None)
    assert not run.db.exists()


def test_storage_failure_on_a_file_that_is_not_a_store(run: Cli) -> None:
    run.db.write_text("not a database, just text " * 100)
    run.fails(1, "storage", "list")


def test_an_unwritable_export_target_is_an_io_error(run: Cli, tmp_path: Path) -> None:
    run.remember("Alice likes tea")
    run.fails(1, "io", "export", "--out", str(tmp_path / "no-such-dir" / "out.jsonl"))


def test_debug_shows_the_exception_instead(run: Cli) -> None:
    run.remember("Alice likes tea")
    result = run("--debug", "show", "not-an-id")
    assert result.exit_code == 1
    assert isinstance(result.exception, InvalidInputError)
    assert "error[" not in result.stderr


def test_an_unexpected_failure_is_reported_without_a_traceback(run: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    run.remember("Alice likes tea")

    def broken(self: Memory, *, scope: str) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(Memory, "summary", broken)
    result = run.fails(1, "internal", "summary")
    assert "RuntimeError: boom" in result.stderr and "--debug" in result.stderr


def test_db_option_beats_env_which_beats_the_default(run: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env_db, opt_db = tmp_path / "env.db", tmp_path / "opt.db"
    env = {"REVERIE_DB": str(env_db), "REVERIE_SCOPE": SCOPE, "REVERIE_EMBEDDER": "hash"}
    assert run.raw("--db", str(opt_db), "remember", "from the option", env=env).exit_code == 0
    assert run.raw("remember", "from the environment", env=env).exit_code == 0
    assert run.raw("--scope", SCOPE, "--embedder", "hash", "remember", "from the default").exit_code == 0

    def texts(db: Path) -> list[str]:
        out = run.raw("--db", str(db), "--json", "list", env=env).stdout
        return [i["text"] for i in json.loads(out)["items"]]

    assert texts(opt_db) == ["from the option"]
    assert texts(env_db) == ["from the environment"]
    assert texts(tmp_path / "reverie.db") == ["from the default"]  # ./reverie.db in the working directory


def test_scope_option_after_the_command_beats_the_global_one_and_the_env(run: Cli) -> None:
    env = {"REVERIE_SCOPE": "user:env"}
    head = ["--db", str(run.db), "--embedder", "hash"]
    assert run.raw(*head, "remember", "a", env=env).exit_code == 0
    assert run.raw(*head, "--scope", "user:global", "remember", "b", env=env).exit_code == 0
    assert run.raw(*head, "--scope", "user:global", "remember", "c", "--scope", "user:cmd", env=env).exit_code == 0
    assert run.json("scopes", scope=None)["scopes"] == ["user:cmd", "user:env", "user:global"]


def test_embedder_comes_from_the_environment(run: Cli) -> None:
    head = ["--db", str(run.db), "--scope", SCOPE]
    assert run.raw(*head, "remember", "Alice likes tea", env={"REVERIE_EMBEDDER": "hash"}).exit_code == 0
    assert run.raw(*head, "recall", "tea", env={"REVERIE_EMBEDDER": "hash"}).exit_code == 0
    result = run.raw(*head, "--embedder", "nonsense", "recall", "tea")
    assert result.exit_code == 2 and result.stderr.startswith("error[usage]: ")


def test_every_command_has_help(run: Cli) -> None:
    from reverie.cli import cli

    for name in sorted(cli.commands):
        result = run.raw(name, "--help")
        assert result.exit_code == 0, name
        assert "Usage:" in result.stdout


def test_embedder_mismatch_is_refused_and_reindex_fixes_it(run: Cli) -> None:
    run.remember("Alice likes green tea")  # vectors made by the hash embedder
    head = ["--db", str(run.db), "--scope", SCOPE, "--embedder", "minilm"]
    result = run.raw(*head, "recall", "tea")
    assert result.exit_code == 1 and result.stderr.startswith("error[embedder_mismatch]: ")
    assert "reverie reindex" in result.stderr
    assert run.raw(*head, "reindex").stdout.startswith("reindexed 1 items with minilm")
    assert run.raw(*head, "--json", "recall", "green tea").exit_code == 0


def test_an_unknown_tier_or_source_filter_is_refused_not_an_empty_list(run: Cli) -> None:
    run.remember("Alice likes tea")
    assert "unknown tier 'lukewarm'" in run.fails(2, "invalid_query", "list", "--tier", "lukewarm").stderr
    assert "unknown source 'user'" in run.fails(2, "invalid_query", "list", "--source", "user").stderr
