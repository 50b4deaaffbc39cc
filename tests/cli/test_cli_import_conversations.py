"""`reverie export` → `reverie import` carries conversations, intents and tasks, not only claims.

Regression (outside probe, finding 16): the import skipped every ``conversation.*``, ``intent.*``
and ``task.*`` event ("no public API to replay it") and exited 0, so the copy held the messages'
memories and the claims mined from them — naming message ids that did not exist there — but no
conversation, no archive, no intent and no task. Now each is replayed with the commands the live
wing runs, its ids re-assigned, and everything that names them (a message's memory, a mined
claim's ``message_id`` / ``locator``, an intent's ``memory_ids``, a task's inputs / outputs, a
claim written inside a task) names the copy's. An event nothing can replay fails the import,
named (exit 1). Both backends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import SCOPE, Cli

from reverie import Memory, Q
from reverie.model.redact import REDACTED

WORKER = str(Path(__file__).with_name("import_worker.py"))
SRC = str(Path(__file__).resolve().parents[2] / "src")
COPY = "user:copy"
TALK = "trip"


@pytest.fixture
def run(store_url: str) -> Cli:
    """The CLI on a SQLite file, then on a fresh PostgreSQL database."""
    return Cli(store_url)


def _open(run: Cli) -> Memory:
    return Memory(run.db, embedder="hash")


def build_conversation_and_agenda(run: Cli, scope: str = SCOPE) -> None:
    """A closed conversation (messages, a tool call, a summary, a recap, mined claims and persons)
    and an agenda naming its claims (a sub-intent, a task that failed, was retried and completed
    with a claim written inside it, intent moves with reasons)."""
    with _open(run) as mem:
        conv = mem.conversation(TALK, scope=scope, history_chars=100)
        conv.add("My sister Dana lives in Lisbon.", speaker="Alice", role="user")
        conv.tool_call("search", args={"q": "Lisbon flights"}, detail="3 hits")
        conv.add("Lisbon is lovely in May, I will look for flights.", speaker="bot", role="assistant")
        conv.add("I am allergic to peanuts, so no peanuts on the plane please.", speaker="Alice")
        conv.history()  # more than 100 characters: the oldest entries are folded into a summary
        conv.close()  # the recap, then the messages mined into claims and persons
        mined = mem.list(scope=scope, where=Q.meta_has("message_id"), limit=100).items
        assert mined, "the rules mined nothing: the test needs a claim that names its message"
        goal = mem.intents.create(
            "Visit Dana", scope=scope, owner="alice", priority=0.8, memory_ids=[mined[0].id], reason="family"
        )
        sub = mem.intents.create("Book flights", scope=scope, parent=goal)
        task = mem.tasks.create("search flights", scope=scope, intent=sub, agent="planner", inputs=[mined[0].id])
        mem.tasks.start(task, scope=scope)
        mem.tasks.fail(task, "the airline site was down", scope=scope)
        with mem.tasks.running(task, scope=scope) as attempt:  # a retry; completes with what it wrote
            attempt.remember("Flight TP123 to Lisbon leaves at 9")
        mem.intents.complete(sub, scope=scope, reason="booked")
        mem.intents.pause(goal, scope=scope, reason="waiting for dates")


def _entries(mem: Memory, scope: str, name: str = TALK) -> list[dict[str, Any]]:
    """A conversation's entries with ids left out (positions, turns, texts, spans are compared)."""
    out = []
    for e in mem.conversation(name, scope=scope, create=False).entries():
        d = e.to_dict()
        for volatile in ("id", "scope", "conversation", "recorded_at"):
            d.pop(volatile)
        d["meta"].pop("slice_origin", None)
        out.append(d)
    return out


def _agenda(mem: Memory, scope: str) -> dict[str, Any]:
    """Intents and tasks with every id replaced by what it names (a label, an action, a claim's text)."""
    items = mem.list(scope=scope, include_closed=True, limit=1000).items
    text = {i.id: i.text for i in items}
    intents = mem.intents.list(scope=scope)
    label = {i.id: i.label for i in intents}
    tasks = mem.tasks.list(scope=scope)
    return {
        "intents": sorted(
            (
                i.label,
                i.status,
                i.owner,
                i.priority,
                label.get(i.parent or ""),
                i.reason,
                i.version,
                tuple(text[m] for m in i.memory_ids),
            )
            for i in intents
        ),
        "tasks": sorted(
            (
                t.action,
                t.status,
                t.agent,
                label.get(t.intent or ""),
                t.attempts,
                t.version,
                tuple(f.reason for f in t.failures),
                tuple(text[m] for m in t.inputs),
                tuple(text[m] for m in t.outputs),
            )
            for t in tasks
        ),
        "task_claims": sorted(
            (i.text, {t.id: t.action for t in tasks}[i.meta["task_id"]], label[i.meta["intent_id"]])
            for i in items
            if "task_id" in i.meta
        ),
    }


def _export(run: Cli, tmp_path: Path, scope: str = SCOPE) -> Path:
    out = tmp_path / f"{scope.replace(':', '_')}.jsonl"
    run.ok("export", "--out", str(out), scope=scope)
    return out


def test_export_import_replays_conversations_intents_and_tasks(run: Cli, tmp_path: Path) -> None:
    build_conversation_and_agenda(run)
    dump = _export(run, tmp_path)
    kinds = {json.loads(line)["type"] for line in dump.read_text().splitlines()}
    assert {"conversation.opened", "conversation.message_added", "conversation.tool_called"} <= kinds
    assert {"conversation.summarized", "conversation.released", "intent.created", "task.retried"} <= kinds

    report = run.json("import", str(dump), scope=COPY)
    assert report["failed"] == [] and report["skipped"] == {}, report
    assert report["applied"]["conversation.message_added"] == 3 and report["applied"]["task.completed"] == 1
    assert report["conversations"] == {TALK: TALK}
    with _open(run) as mem:
        assert _entries(mem, COPY) == _entries(mem, SCOPE)
        assert _agenda(mem, COPY) == _agenda(mem, SCOPE)
        assert [h.speaker for h in mem.archive_search("Dana lives in Lisbon", scope=COPY)] == ["Alice"]
        here = {e.id: e for e in mem.conversation(TALK, scope=COPY, create=False).entries()}
        assert set(report["entries"].values()) == set(here)
        # Every memory and claim that names a message names the copy's message, with its words.
        source = {e.id: e for e in mem.conversation(TALK, scope=SCOPE, create=False).entries()}
        copies = mem.list(scope=COPY, where=Q.meta_has("message"), limit=100).items
        assert len(copies) == 3
        for item in copies:
            assert here[item.meta["message"]].text in item.text
        for item in mem.list(scope=COPY, where=Q.meta_has("message_id"), limit=100).items:
            assert item.meta["message_id"] in here and item.provenance.locator == item.meta["message_id"]
        assert all(m in source for m in report["entries"])  # the map is old id -> new id
        assert {i.id for i in mem.intents.list(scope=COPY)} == set(report["intents"].values())
        assert {t.id for t in mem.tasks.list(scope=COPY)} == set(report["tasks"].values())


def test_an_imported_conversation_is_not_mined_again_and_purging_it_reaches_its_claims(
    run: Cli, tmp_path: Path
) -> None:
    """The copy's claims came from the file (trust does not travel): closing or mining the imported
    conversation adds nothing; purging an imported message erases the claims mined from it."""
    build_conversation_and_agenda(run)
    run.json("import", str(_export(run, tmp_path)), scope=COPY)
    with _open(run) as mem:
        before = {i.id: i.evidence_count for i in mem.list(scope=COPY, include_closed=True, limit=1000).items}
        conv = mem.conversation(TALK, scope=COPY, create=False)
        conv.extract()
        after = {i.id: i.evidence_count for i in mem.list(scope=COPY, include_closed=True, limit=1000).items}
        assert after == before
        [dana] = [e for e in conv.messages() if "Dana" in e.text]
        conv.purge(dana.id, reason="asked to forget")
        assert mem.archive_search("Dana lives in Lisbon", scope=COPY) == []
        left = [i.text for i in mem.list(scope=COPY, include_closed=True, limit=1000).items if "Lisbon." in i.text]
        assert left == []
    assert "Dana lives" not in run.ok("export", scope=COPY).stdout


def test_a_purged_message_stays_purged_in_the_copy(run: Cli, tmp_path: Path) -> None:
    with _open(run) as mem:
        conv = mem.conversation(TALK, scope=SCOPE)
        secret = conv.add("the door code is 7731-canary", speaker="Alice")
        conv.add("Noted, thanks.", speaker="bot", role="assistant")
        conv.purge(secret.id, reason="leaked")
    report = run.json("import", str(_export(run, tmp_path)), scope=COPY)
    assert report["failed"] == [] and report["applied"]["conversation.message_purged"] == 1
    with _open(run) as mem:
        texts = [e.text for e in mem.conversation(TALK, scope=COPY, create=False).entries()]
        assert texts == [REDACTED, "Noted, thanks."]
    assert "7731-canary" not in run.ok("export", scope=COPY).stdout


def test_a_conversation_whose_name_is_taken_is_imported_under_a_new_name(run: Cli, tmp_path: Path) -> None:
    """Appending the file's conversation to another one of the same name would interleave two chats
    (and a message older than the target's last is refused): it arrives as ``<name>~2``, and the
    claims and persons that name it name ``<name>~2``."""
    build_conversation_and_agenda(run)
    dump = _export(run, tmp_path)
    with _open(run) as mem:
        mem.conversation(TALK, scope=COPY).add("Another chat with the same name.", speaker="Carol")
    report = run.json("import", str(dump), scope=COPY)
    assert report["failed"] == [] and report["conversations"] == {TALK: f"{TALK}~2"}
    with _open(run) as mem:
        assert _entries(mem, COPY, f"{TALK}~2") == _entries(mem, SCOPE)
        assert [m.text for m in mem.conversation(TALK, scope=COPY, create=False).messages()] == [
            "Another chat with the same name."
        ]
        named = mem.list(scope=COPY, where=Q.meta_has("conversation"), limit=1000).items
        assert {i.meta["conversation"] for i in named if i.author != "Carol"} == {f"{TALK}~2"}
        refs = {i.provenance.ref for i in named if i.provenance.origin == "conversation"}
        assert refs == {f"{TALK}~2"}


@pytest.mark.parametrize("units", [2, 5, 12])
def test_an_import_of_conversations_killed_part_way_leaves_nothing(run: Cli, tmp_path: Path, units: int) -> None:
    """Whole or not at all, and once, with conversation and agenda events too (a real SIGKILL)."""
    build_conversation_and_agenda(run)
    dump = _export(run, tmp_path)
    before = run.ok("export", scope=COPY).stdout
    args = ["--db", str(run.db), "--embedder", "hash", "--scope", COPY, "import", str(dump)]
    env = {**os.environ, "PYTHONPATH": SRC, "OPENBLAS_NUM_THREADS": "1"}
    for name in ("REVERIE_DB", "REVERIE_SCOPE", "REVERIE_EMBEDDER"):
        env.pop(name, None)
    killed = subprocess.run(
        [sys.executable, WORKER, str(units), *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stdout, killed.stderr)
    assert run.ok("export", scope=COPY).stdout == before
    with _open(run) as mem:
        assert mem.conversations(scope=COPY) == [] and mem.intents.list(scope=COPY) == []
    first = run.json("import", str(dump), scope=COPY)
    assert first["failed"] == [] and first["already_imported"] is None
    again = run.json("import", str(dump), scope=COPY)
    assert again["already_imported"] is not None and again["applied"] == {}
    with _open(run) as mem:
        assert _entries(mem, COPY) == _entries(mem, SCOPE)
        assert _agenda(mem, COPY) == _agenda(mem, SCOPE)
        assert len(mem.conversations(scope=COPY)) == 1


def test_an_event_nothing_can_replay_fails_the_import_by_name(run: Cli) -> None:
    """Regression: an event type the replay does not know was *skipped* and the import exited 0."""
    run.remember("Alice likes tea")
    event = json.loads(run.ok("export").stdout)
    future = {**event, "type": "memory.teleported", "seq": 2}
    dump = json.dumps(event) + "\n" + json.dumps(future) + "\n"
    result = run("--json", "import", "-", scope=COPY, input=dump)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    report = json.loads(result.stdout)
    assert report["applied"] == {"memory.remembered": 1} and report["skipped"] == {}
    [failed] = report["failed"]
    assert (failed["seq"], failed["type"], failed["code"]) == (2, "memory.teleported", "not_replayable")
    assert "memory.teleported" in failed["error"]
    human = run("import", "-", scope="user:other", input=dump)
    assert human.exit_code == 1 and "memory.teleported" in human.stdout and "not_replayable" in human.stdout


def test_a_bias_alert_dismissal_fails_the_import_by_name(run: Cli) -> None:
    """A dismissal names the source's alert by a digest of the source's item ids: nothing here has
    that id, so it cannot be replayed; it used to be skipped with exit 0."""
    run.remember("Alice likes tea")
    event = json.loads(run.ok("export").stdout)
    payload = {"id": "alerts.dismissed", "alert": "al_0123456789abcdef", "kind": "never_tested", "evidence": "x"}
    dismissal = {**event, "type": "alert.dismissed", "seq": 2, "payload": {**payload, "reason": ""}}
    dump = json.dumps(event) + "\n" + json.dumps(dismissal) + "\n"
    result = run("--json", "import", "-", scope=COPY, input=dump)
    assert result.exit_code == 1
    [failed] = json.loads(result.stdout)["failed"]
    assert failed["code"] == "not_replayable" and "dismiss the alert again" in failed["error"]


def test_a_revision_into_another_claims_words_supersedes_the_copy_too(run: Cli) -> None:
    """Regression: a revision that says what another current claim says corroborates it and
    supersedes the revised claim (a ``memory.superseded`` with no link); the import skipped that
    event, so the copy kept the revised claim current beside the one it became."""
    tea = run.remember("Alice likes green tea")
    run.remember("Bob drinks coffee every morning")
    run.ok("revise", tea, "Bob drinks coffee every morning", "--reason=wrong person")
    report = run.json("import", "-", scope=COPY, input=run.ok("export").stdout)
    assert report["failed"] == [] and report["skipped"] == {}
    items = run.json("list", "--include-closed", scope=COPY)["items"]
    shown = sorted((i["text"], i["status"], i["evidence_count"]) for i in items)
    assert shown == [("Alice likes green tea", "superseded", 1), ("Bob drinks coffee every morning", "live", 2)]


def test_conversation_and_message_audiences_and_their_changes_are_replayed(run: Cli, tmp_path: Path) -> None:
    """A conversation opened for some principals, a message narrowed when added and another narrowed
    later (``conversation.visibility_set``, with the recap that quoted it): the copy holds the same
    audiences, and a principal outside one reads in the copy exactly what it read in the source."""
    with _open(run) as mem:
        conv = mem.conversation(TALK, scope=SCOPE, visibility=["agent:a", "agent:b"])
        conv.add("The launch is on Friday.", speaker="Alice")
        conv.add("The budget is 40k euros.", speaker="Alice", visibility=["agent:a"])
        lunch = conv.add("Lunch is at noon in the atrium.", speaker="Bob")
        conv.close()
        conv.set_visibility(lunch.id, ["agent:b"], reason="only b")
    report = run.json("import", str(_export(run, tmp_path)), scope=COPY)
    assert report["failed"] == [] and report["applied"]["conversation.visibility_set"] == 1, report
    with _open(run) as mem:
        assert _entries(mem, COPY) == _entries(mem, SCOPE)
        [state] = mem.conversations(scope=COPY)
        assert state.visibility == ("agent:a", "agent:b")
        for who in ("agent:a", "agent:b", "agent:c"):
            seen = {
                scope: sorted(i.text for i in mem.as_principal(who).list(scope=scope, limit=1000).items)
                for scope in (SCOPE, COPY)
            }
            assert seen[COPY] == seen[SCOPE], who
            hits = {s: [h.text for h in mem.as_principal(who).archive_search("budget", scope=s)] for s in (SCOPE, COPY)}
            assert hits[COPY] == hits[SCOPE], who
