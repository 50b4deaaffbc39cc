"""``reverie conversation …``, ``reverie people`` and ``reverie person``: the conversation wing from the shell.

Real SQLite files in tmp_path through click's runner; every refusal is the one error shape
(``error[<code>]`` on stderr, exit 2 for bad input, 1 for not found) and leaves the archive as it was.
"""

from __future__ import annotations

import json

import pytest
from cli_support import Cli

from reverie import Memory


@pytest.fixture(autouse=True)
def _store(run: Cli) -> None:
    """An empty store at ``--db``: ``conversation add`` creates none (``test_cli_store_creation.py``)."""
    Memory(run.db, embedder="hash").close()


def _talk(run: Cli, conversation: str = "c1") -> list[dict[str, object]]:
    turns = [("Alice", "My sister Dana lives in Lisbon.", "2026-03-01T10:00:00+00:00")]
    turns.append(("Alice", "Omar is my manager.", "2026-03-01T10:01:00+00:00"))
    out = []
    for speaker, text, at in turns:
        out.append(run.json("conversation", "add", conversation, text, "--speaker", speaker, "--at", at)["message"])
    return out


def _messages(run: Cli, conversation: str = "c1") -> list[dict[str, object]]:
    entries: list[dict[str, object]] = run.json("conversation", "messages", conversation)["entries"]
    return entries


def _assert_refused(run: Cli, code: str, exit_code: int, *args: str) -> None:
    result = run("--json", *args)
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    err = json.loads(result.stdout)
    assert err["code"] == code and result.stderr.startswith(f"error[{code}]: "), err
    assert "Traceback" not in result.output and "mem." not in err["error"], err


def test_add_stores_a_message_with_speaker_role_time_and_meta(run: Cli) -> None:
    msg = run.json(
        "conversation",
        "add",
        "c1",
        "I moved to Porto.",
        "--speaker",
        "Alice",
        "--role",
        "user",
        "--at",
        "2026-03-01T10:00:00+00:00",
        "--meta",
        '{"channel": "chat"}',
    )["message"]
    assert (msg["speaker"], msg["role"], msg["turn"], msg["text"]) == ("Alice", "user", 1, "I moved to Porto.")
    assert msg["at"].startswith("2026-03-01T10:00:00") and msg["meta"]["channel"] == "chat" and msg["item_id"]
    [stored] = _messages(run)
    assert stored["id"] == msg["id"] and stored["speaker"] == "Alice"


def test_human_output_of_messages_history_and_list(run: Cli) -> None:
    _talk(run)
    assert "Omar is my manager." in run.ok("conversation", "messages", "c1").stdout
    assert "My sister Dana" in run.ok("conversation", "history", "c1").stdout
    assert "c1" in run.ok("conversation", "list").stdout


def test_search_returns_the_matched_span_of_the_quote(run: Cli) -> None:
    _talk(run)
    [hit] = run.json("conversation", "search", "dana lives")["hits"]
    assert hit["quote"] == "Dana lives" and hit["text"][hit["span"][0] : hit["span"][1]] == "Dana lives"
    assert hit["speaker"] == "Alice" and hit["conversation"] == "c1"
    assert "Dana lives" in run.ok("conversation", "search", "dana lives").stdout


def test_close_writes_a_recap_and_people_then_person_shows_relations(run: Cli) -> None:
    _talk(run)
    closed = run.json("conversation", "close", "c1")
    assert closed["recap"]["kind"] == "recap" and closed["extraction"]["claims"]
    recap = run.json("conversation", "recap")["recap"]
    assert recap["conversation"] == "c1" and recap["messages"] == 2
    names = {p["name"] for p in run.json("people")["people"]}
    assert {"Alice", "Dana", "Omar"} <= names
    alice = run.json("person", "Alice")["person"]
    rels = {(r["person_name"], r["type"], r["of_name"]) for r in alice["relations"]}
    assert ("Dana", "sister", "Alice") in rels
    assert "Dana is Alice's sister" in run.ok("person", "Alice").stdout


def test_regression_people_lists_relations_and_claim_counts_not_empty_claims(run: Cli) -> None:
    """Outside probe, finding 7: ``people`` said every person had ``relations: []`` and ``claims: []``."""
    _talk(run)
    run.json("conversation", "close", "c1")
    listed = {p["name"]: p for p in run.json("people")["people"]}
    dana = run.json("person", "Dana")["person"]
    assert "claims" not in listed["Dana"] and listed["Dana"]["claim_count"] == len(dana["claims"]) > 0
    assert listed["Dana"]["relations"] == dana["relations"] != []
    header, *rows = run.ok("people").stdout.splitlines()
    assert header.split() == ["ID", "NAME", "ALIASES", "RELATIONS", "CLAIMS"]
    [dana_row] = [r for r in rows if " Dana " in r]
    assert dana_row.split()[-2:] == ["1", str(len(dana["claims"]))]


def test_tool_call_is_recorded_with_args_and_status(run: Cli) -> None:
    _talk(run)
    entry = run.json("conversation", "tool-call", "c1", "weather", "--args", '{"city": "Lisbon"}')["entry"]
    assert entry["kind"] == "tool_call" and entry["meta"]["args"] == {"city": "Lisbon"}
    kinds = [e["kind"] for e in run.json("conversation", "messages", "c1", "--all")["entries"]]
    assert kinds == ["message", "message", "tool_call"]


def test_recap_before_any_release_says_none(run: Cli) -> None:
    _talk(run)
    assert run.json("conversation", "recap")["recap"] is None
    assert "no recap yet" in run.ok("conversation", "recap").stdout


@pytest.mark.parametrize("command", ["history", "messages", "close"])
def test_an_unknown_conversation_is_not_found_and_not_created(run: Cli, command: str) -> None:
    _talk(run)
    _assert_refused(run, "not_found", 1, "conversation", command, "nope")
    assert [c["id"] for c in run.json("conversation", "list")["conversations"]] == ["c1"]


def test_tool_call_on_an_unknown_conversation_is_not_found(run: Cli) -> None:
    _talk(run)
    _assert_refused(run, "not_found", 1, "conversation", "tool-call", "nope", "weather")


def test_a_message_too_large_is_refused_and_nothing_is_stored(run: Cli) -> None:
    _talk(run)
    _assert_refused(run, "limit_exceeded", 2, "conversation", "add", "c1", "x" * 200_000)
    assert len(_messages(run)) == 2


def test_a_control_character_speaker_is_refused(run: Cli) -> None:
    _talk(run)
    _assert_refused(run, "invalid_input", 2, "conversation", "add", "c1", "hello", "--speaker", "Al\x1bice")
    assert len(_messages(run)) == 2


def test_a_time_before_the_previous_message_is_refused(run: Cli) -> None:
    _talk(run)
    _assert_refused(run, "invalid_input", 2, "conversation", "add", "c1", "late", "--at", "2026-01-01T00:00:00+00:00")
    assert len(_messages(run)) == 2


def test_a_huge_tool_call_args_blob_is_refused(run: Cli) -> None:
    _talk(run)
    blob = json.dumps({"data": "x" * 100_000})
    result = run("--json", "conversation", "tool-call", "c1", "upload", "--args", blob)
    assert result.exit_code == 2 and "Traceback" not in result.output
    kinds = [e["kind"] for e in run.json("conversation", "messages", "c1", "--all")["entries"]]
    assert "tool_call" not in kinds


def test_an_unknown_person_is_not_found(run: Cli) -> None:
    _talk(run)
    run.ok("conversation", "close", "c1")
    _assert_refused(run, "not_found", 1, "person", "Zed")


def test_a_refused_first_message_does_not_open_the_conversation(run: Cli) -> None:
    """Regression: ``add`` opened the conversation before the message was checked, so a refused
    first message left an empty conversation behind."""
    run.remember("a claim so the store exists")
    _assert_refused(run, "invalid_input", 2, "conversation", "add", "new", "hello", "--speaker", "Al\x1bice")
    assert run.json("conversation", "list")["conversations"] == []


def test_a_message_dated_far_in_the_future_is_refused_and_the_conversation_goes_on(run: Cli) -> None:
    """Regression #15: a message at 2099 was accepted and every later message was then "before the
    previous message". Refused at the boundary, naming the limit; the next real message appends."""
    _talk(run)
    result = run("--json", "conversation", "add", "c1", "hi from 2099", "--at", "2099-01-01T00:00:00+00:00")
    assert result.exit_code == 2 and result.stderr.startswith("error[invalid_input]: "), result.stderr
    err = json.loads(result.stdout)["error"]
    assert "2099-01-01T00:00:00+00:00" in err and "Limits.max_clock_skew_seconds" in err, err
    run.json("conversation", "add", "c1", "back in the present")
    assert [m["text"] for m in _messages(run)][-1] == "back in the present" and len(_messages(run)) == 3


def test_a_conversation_id_with_a_slash_round_trips(run: Cli) -> None:
    """Issue #17: ``support/2026-12`` is a valid id on every face."""
    said = _talk(run, "support/2026-12")
    assert {m["conversation"] for m in said} == {"support/2026-12"}
    assert [m["id"] for m in _messages(run, "support/2026-12")] == [m["id"] for m in said]
    run.ok("conversation", "tool-call", "support/2026-12", "lookup")
    assert "support/2026-12" in [c["id"] for c in run.json("conversation", "list")["conversations"]]
    assert run.json("conversation", "close", "support/2026-12")["recap"]["conversation"] == "support/2026-12"


def test_regression_person_and_people_show_a_revised_relation_by_its_current_words(run: Cli) -> None:
    """Session 31: after ``revise`` of "Dana is Alice's sister." to "… cousin." the faces still said sister."""
    _talk(run)
    run.json("conversation", "close", "c1")
    [rel] = [r for r in run.json("person", "Dana")["person"]["relations"] if r["type"] == "sister"]
    run.json("revise", rel["claim"], "Dana is Alice's cousin.")
    alice = run.json("person", "Alice")["person"]
    assert ("Dana", "cousin", "Alice") in {(r["person_name"], r["type"], r["of_name"]) for r in alice["relations"]}
    assert "sister" not in {r["type"] for r in alice["relations"]}
    listed = {p["name"]: p for p in run.json("people")["people"]}
    assert [r["type"] for r in listed["Dana"]["relations"]] == ["cousin"]
    shown = run.ok("person", "Dana").stdout
    assert "Dana is Alice's cousin" in shown and "Dana is Alice's sister" not in shown
