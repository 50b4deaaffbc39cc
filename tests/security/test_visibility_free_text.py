"""A principal's free text that quotes a hidden claim's id answers exactly as one quoting an unknown id.

Found by the lead (session 30): every string a principal wrote — an intent's label, a reason, a
claim's ``meta``, tags or author, a recall query, a conversation message — was scanned for ids
and refused with ``no item <id>`` when one named a claim hidden from it, while the same text
quoting an id that never existed was stored. A principal holding a guessed or remembered id could
test whether the claim exists (and a recall or a message mentioning it simply failed).

The rule now (README, guarantee 7): only the fields that *name* something the write acts on
(``id``, ``parents``, link ends, ``memory_ids`` …) are checked; a principal's free text is its
own words and is stored as written, hidden id or not. An agenda record keeps, out of every
principal's sight, which ids its principal-written text quoted without being able to see them
(``unseen``): those are shown as written, to every reader, as an unknown id is; an id its writer
could see (the owner's, reverie's own words) is still cut out for readers who may not see it.

Every comparison is hidden vs unknown, byte for byte after the quoted id is masked: the answer
(accepted, or error code and message) and the stored state as the principal then reads it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from reverie import Memory, ReverieError
from reverie.http import create_app
from reverie.mcp import build_server

from .kit import dump

sys.path.insert(0, str(Path(__file__).parents[1] / "mcp"))

from mcp_support import call

SCOPE = "team:ops"
OPS, BOB, EVE = "agent:ops", "agent:bob", "agent:eve"
UNKNOWN = "019b8d62-7a80-7fff-bfff-c1a0c2094caf"  # well-formed, exists nowhere
OPERATOR = "operator-token-0123456789"
AGENT = "agent-bob-token-0123456789"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\d[tT][0-9:.+zZ-]+")
_SEQ = re.compile(r'"seq": \d+')


def _seed(mem: Memory) -> dict[str, str]:
    hidden = mem.remember("zqhid launch code 7731", scope=SCOPE, visibility=[OPS]).id
    bob = mem.as_principal(BOB)
    return {
        "hidden": hidden,
        "mine": bob.remember("bob note one", scope=SCOPE).id,
        "other": bob.remember("bob note two", scope=SCOPE).id,
        "goal": mem.intents.create("goal", scope=SCOPE).id,
    }


def _masked(value: Any, quoted: str, keep: tuple[str, ...] = ()) -> str:
    """``value`` as JSON with ``quoted`` read ``<Q>`` and every other fresh id and time masked."""
    text = dump(value).replace(quoted, "<Q>")
    text = _UUID.sub(lambda m: m.group(0) if m.group(0) in keep else "<id>", text)
    return _SEQ.sub('"seq": <n>', _TIME.sub("<t>", text))


def _answer(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "accepted", call()
    except ReverieError as e:
        return f"{e.code}: {e}", None


def _free_text_writes(bob: Memory, ids: dict[str, str]) -> dict[str, Callable[[str], Any]]:
    """Each write quotes the id it is given in a field that names nothing; returns what to read back."""

    def fail_task(i: str) -> Any:
        task = bob.tasks.create("to fail", scope=SCOPE, intent=ids["goal"])
        bob.tasks.start(task, scope=SCOPE)
        return bob.tasks.fail(task, scope=SCOPE, reason=f"blocked on {i}")

    def paused(i: str) -> Any:
        bob.pause_learning(SCOPE, reason=f"audit of {i}")
        bob.resume_learning(SCOPE, reason=f"done with {i}")

    return {
        "intent label": lambda i: bob.intents.create(f"look at {i}", scope=SCOPE),
        "intent label that is the id": lambda i: bob.intents.create(i, scope=SCOPE),
        "intent reason": lambda i: bob.intents.create("l", scope=SCOPE, reason=f"because {i}"),
        "intent owner": lambda i: bob.intents.create("l", scope=SCOPE, owner=i),
        "intent move reason": lambda i: bob.intents.pause(
            bob.intents.create("p", scope=SCOPE), scope=SCOPE, reason=f"wait for {i}"
        ),
        "suggestion-shaped label": lambda i: bob.intents.create(
            f"Confirm or correct the uncertain fact {i}", scope=SCOPE
        ),
        "task action": lambda i: bob.tasks.create(f"do {i}", scope=SCOPE),
        "task agent": lambda i: bob.tasks.create("a", scope=SCOPE, agent=i),
        "task failure reason": fail_task,
        "forget reason": lambda i: bob.forget(bob.remember(f"fz {i}", scope=SCOPE).id, scope=SCOPE, reason=i),
        "revise reason": lambda i: bob.revise(
            bob.remember(f"rv {i}", scope=SCOPE).id, f"rv2 {i}", scope=SCOPE, reason=f"see {i}"
        ),
        "claim text": lambda i: bob.remember(f"the ticket {i} is open", scope=SCOPE),
        "claim meta sentence": lambda i: bob.remember(f"m1 {i}", scope=SCOPE, meta={"see": f"about {i}"}),
        "claim tags": lambda i: bob.remember(f"m2 {i}", scope=SCOPE, tags=[i]),
        "claim author": lambda i: bob.remember(f"m3 {i}", scope=SCOPE, author=i),
        "link meta": lambda i: bob.link(
            bob.remember(f"la {i}", scope=SCOPE).id,
            bob.remember(f"lb {i}", scope=SCOPE).id,
            type="supports",
            scope=SCOPE,
            meta={"via": f"via {i}"},
        ),
        "learning pause reason": paused,
        "recall query": lambda i: bob.recall(f"what about {i}", scope=SCOPE),
        # A principal opens conversations under its own name (``model.conversation_names``).
        "conversation message": lambda i: bob.conversation(f"{BOB}+c-{i}", scope=SCOPE).add(
            f"hello {i}", speaker="bob"
        ),
    }


def test_a_principals_free_text_quoting_a_hidden_id_is_stored_as_for_an_unknown_one(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    for name, write in _free_text_writes(bob, ids).items():
        hidden, _ = _answer(lambda w=write: w(ids["hidden"]))  # type: ignore[misc]
        unknown, _ = _answer(lambda w=write: w(UNKNOWN))  # type: ignore[misc]
        assert hidden == unknown == "accepted", (name, hidden, unknown)


def test_a_principals_own_events_quoting_a_hidden_id_read_back_as_for_an_unknown_id(any_mem: Memory) -> None:
    """Its claims' history and the log: the events of its write, hidden id or unknown, read alike."""
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    writes = {k: v for k, v in _free_text_writes(bob, ids).items() if not k.startswith(("intent", "task", "sugg"))}
    for name, write in writes.items():
        seen = {}
        for quoted in (ids["hidden"], UNKNOWN):
            mark = max(e.seq for e in any_mem.events(scope=SCOPE, limit=100_000))
            write(quoted)
            events = [e.to_dict() for e in bob.events(scope=SCOPE, after_seq=mark, limit=10_000)]
            if name == "recall query":  # the hits' scores follow the query's words
                events = [[e["type"], e["payload"].get("query")] for e in events]
            seen[quoted] = _masked(events, quoted, keep=(ids["mine"], ids["other"]))
        assert seen[ids["hidden"]] == seen[UNKNOWN], (name, seen[ids["hidden"]], seen[UNKNOWN])
        assert "<Q>" in seen[UNKNOWN], name
        assert "unseen" not in seen[UNKNOWN] + seen[ids["hidden"]], name


def _agenda_as_read(bob: Memory, record: Any) -> list[Any]:
    """Everything ``bob`` reads of one intent or task: the record, its history, the list."""
    if hasattr(record, "label"):
        shown = bob.intents.get(record.id, scope=SCOPE)
        listed = [i for i in bob.intents.list(scope=SCOPE, limit=1000) if i.id == record.id]
        history = bob.intents.history(record.id, scope=SCOPE)
    else:
        shown = bob.tasks.get(record.id, scope=SCOPE)
        listed = [t for t in bob.tasks.list(scope=SCOPE, limit=1000) if t.id == record.id]
        history = bob.tasks.history(record.id, scope=SCOPE)
    in_log = [e.to_dict() for e in bob.events(scope=SCOPE, limit=10_000) if e.id in {h.id for h in history}]
    return [record.to_dict(), shown.to_dict(), [x.to_dict() for x in listed], [e.to_dict() for e in history], in_log]


def test_an_agenda_record_quoting_a_hidden_id_reads_back_as_one_quoting_an_unknown_id(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    agenda = {k: v for k, v in _free_text_writes(bob, ids).items() if k.startswith(("intent", "task", "sugg"))}
    for name, write in agenda.items():
        seen = {}
        for quoted in (ids["hidden"], UNKNOWN):
            record = write(quoted)
            seen[quoted] = _masked(_agenda_as_read(bob, record), quoted, keep=(ids["goal"],))
        assert seen[ids["hidden"]] == seen[UNKNOWN], (name, seen[ids["hidden"]], seen[UNKNOWN])
        assert "<Q>" in seen[UNKNOWN], name


def test_a_blind_quote_reads_as_written_for_every_principal_and_unseen_is_never_shown(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    made = bob.intents.create(f"look at {ids['hidden']}", scope=SCOPE)
    for reader in (bob, any_mem.as_principal(EVE), any_mem.as_principal(OPS)):
        shown = reader.intents.get(made.id, scope=SCOPE)
        assert shown.label == f"look at {ids['hidden']}"
        assert "unseen" not in dump(shown.to_dict())
        assert "unseen" not in dump([e.to_dict() for e in reader.events(scope=SCOPE, limit=10_000)])
    assert "unseen" not in dump(made.to_dict())  # what bob's own write returned


def test_the_owners_quote_of_a_hidden_id_is_still_cut_for_a_principal(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    made = any_mem.intents.create(f"look at {ids['hidden']}", scope=SCOPE)
    bob = any_mem.as_principal(BOB)
    assert bob.intents.get(made.id, scope=SCOPE).label == "look at"
    assert ids["hidden"] not in dump([e.to_dict() for e in bob.events(scope=SCOPE, limit=10_000)])
    # An id bob could see when he wrote it, restricted away from eve, is cut for eve too.
    mine = any_mem.as_principal(BOB).intents.create(f"see {ids['mine']}", scope=SCOPE)
    any_mem.set_visibility(ids["mine"], scope=SCOPE, visibility=[BOB])
    assert any_mem.as_principal(EVE).intents.get(mine.id, scope=SCOPE).label == "see"
    assert bob.intents.get(mine.id, scope=SCOPE).label == f"see {ids['mine']}"


def test_references_to_a_hidden_claim_still_answer_as_an_unknown_id(any_mem: Memory) -> None:
    ids = _seed(any_mem)
    bob = any_mem.as_principal(BOB)
    refs: dict[str, Callable[[str], Any]] = {
        "revise": lambda i: bob.revise(i, "zz", scope=SCOPE),
        "forget": lambda i: bob.forget(i, scope=SCOPE),
        "dismiss": lambda i: bob.dismiss(i, scope=SCOPE),
        "link end": lambda i: bob.link(ids["mine"], i, scope=SCOPE, type="supports"),
        "parent": lambda i: bob.remember("child", scope=SCOPE, parents=[i]),
        "set_scores": lambda i: bob.set_scores(i, scope=SCOPE, importance=0.3),
        "promote": lambda i: bob.promote(i, scope=SCOPE),
        "set_visibility": lambda i: bob.set_visibility(i, scope=SCOPE, visibility=[BOB]),
    }
    for name, write in refs.items():
        hidden, _ = _answer(lambda w=write: w(ids["hidden"]))  # type: ignore[misc]
        unknown, _ = _answer(lambda w=write: w(UNKNOWN))  # type: ignore[misc]
        assert hidden.replace(ids["hidden"], "<Q>") == unknown.replace(UNKNOWN, "<Q>"), name
        assert hidden.startswith("not_found"), (name, hidden)
    assert any_mem.get(ids["hidden"], scope=SCOPE).text == "zqhid launch code 7731"


def test_http_free_text_quoting_a_hidden_id_answers_as_for_an_unknown_id(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with Memory(db, embedder="hash") as owner:
        ids = _seed(owner)
    base = f"/v1/scopes/{SCOPE}"
    agent = {"Authorization": f"Bearer {AGENT}"}
    with Memory(db, embedder="hash") as mem:
        app = create_app(mem, token=OPERATOR, principals={AGENT: BOB})
        with TestClient(app, base_url="http://127.0.0.1") as http:
            # Recall first (before any claim quotes either id): the same answer, hits and all. Scores
            # follow the query's words, so the hits are compared by id.
            hits = {}
            for quoted in (ids["hidden"], UNKNOWN):
                r = http.post(f"{base}/recall", json={"query": f"what about {quoted}"}, headers=agent)
                hits[quoted] = (r.status_code, sorted(h["item"]["id"] for h in r.json()["hits"]))
            assert hits[ids["hidden"]] == hits[UNKNOWN] and hits[UNKNOWN][0] == 200, hits
            posts: list[tuple[str, Callable[[str], str], Callable[[str], dict[str, Any]]]] = [
                (f"{base}/intents", lambda i: f"{base}/intents", lambda i: {"label": f"look at {i}", "reason": i}),
                (f"{base}/tasks", lambda i: f"{base}/tasks", lambda i: {"action": f"do {i}"}),
                (f"{base}/items", lambda i: f"{base}/items", lambda i: {"text": f"h1 {i}", "meta": {"see": f"on {i}"}}),
            ]
            for name, path, body in posts:
                got = {}
                for quoted in (ids["hidden"], UNKNOWN):
                    r = http.post(path(quoted), json=body(quoted), headers=agent)
                    read = r.text
                    if r.status_code == 201 and name.endswith(("intents", "tasks")):
                        record = r.json()
                        again = http.get(f"{path(quoted)}/{record['id']}", headers=agent)
                        read = json.dumps([record, again.status_code, again.json()], sort_keys=True)
                    got[quoted] = (r.status_code, _masked(json.loads(read), quoted))
                assert got[ids["hidden"]] == got[UNKNOWN], name
                assert got[UNKNOWN][0] in (200, 201), got[UNKNOWN]
            # A reason on a move of bob's own claim, and the claim's history read back.
            for quoted in (ids["hidden"], UNKNOWN):
                made = http.post(f"{base}/items", json={"text": f"fz {quoted}"}, headers=agent).json()
                gone = http.post(f"{base}/items/{made['id']}/forget", json={"reason": quoted}, headers=agent)
                got[quoted] = (gone.status_code, _masked(gone.json(), quoted))
            assert got[ids["hidden"]] == got[UNKNOWN]
            assert got[UNKNOWN][0] == 200


@pytest.mark.anyio
async def test_mcp_free_text_quoting_a_hidden_id_answers_as_for_an_unknown_id(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db, embedder="hash") as owner:
        ids = _seed(owner)
    with Memory(db, embedder="hash", principal=BOB) as bob:
        async with Client(build_server(bob), mode="legacy", raise_exceptions=True) as client:
            got = {}
            for quoted in (ids["hidden"], UNKNOWN):
                made = await call(client, "intent_create", label=f"look at {quoted}", scope=SCOPE, reason=quoted)
                got[quoted] = _masked(made, quoted)
            assert got[ids["hidden"]] == got[UNKNOWN]
            assert "look at <Q>" in got[UNKNOWN]


def test_an_events_item_words_read_as_the_item_does_and_the_owners_reasons_still_hide(any_mem: Memory) -> None:
    """A claim (or message) whose words quote a hidden id is shown whole by its own read, so its events
    are shown too, whoever wrote it; a reason the owner gave quoting a hidden id still leaves its event out."""
    ids = _seed(any_mem)
    quoting = any_mem.remember(f"the owner notes {ids['hidden']}", scope=SCOPE)
    message = any_mem.conversation("talk", scope=SCOPE).add(f"owner says {ids['hidden']}", speaker="owner")
    bob = any_mem.as_principal(BOB)
    assert bob.get(quoting.id, scope=SCOPE).text == quoting.text
    assert [e.type for e in bob.history(quoting.id, scope=SCOPE).events] == ["memory.remembered"]
    assert [m.text for m in bob.conversation("talk", scope=SCOPE).messages()] == [message.text]
    logged = [e for e in bob.events(scope=SCOPE, limit=10_000) if e.payload.get("entry", {}).get("id") == message.id]
    assert len(logged) == 1
    any_mem.forget(ids["other"], scope=SCOPE, reason=f"duplicate of {ids['hidden']}")
    assert "memory.forgotten" not in [e.type for e in bob.history(ids["other"], scope=SCOPE).events]
    assert "memory.forgotten" in [e.type for e in any_mem.history(ids["other"], scope=SCOPE).events]
