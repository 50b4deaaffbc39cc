"""A conversation opened under a principal's name *before* own names were the rule, and hidden from
that principal (leftover of outside probe 4, finding 4).

Since session 31 a conversation under ``agent:b``'s name always includes ``agent:b``; a store written
before may hold ``agent:b+old`` for ``agent:a`` only. ``agent:b`` opening its own name then resumed the
hidden conversation instead of refusing it: an ``add`` failed with another message than any hidden
name gives, and a slice import quoted the hidden conversation's audience (``['agent:a']``) in its
refusal, after trying to write into it. Every path ``agent:b`` may take into one a store still holds
(open, the faces' ``add``, HTTP, MCP, slice import) is the one ``not_found`` any name it may not see
gets, and nothing is written (the first four tests: a store where it was never renamed).

That still told it apart from a *free* own name, which opens. Now the first writable open of an older
store renames it out of ``agent:b``'s name (``model.legacy_names``): ``agent:b`` opens ``agent:b+old`` as
any free own name, ``agent:a`` keeps the conversation, its messages and what was made from them under
``agent:a+agent:b+old``, the log records the move, a rebuild gives the same state, and an owner's slice
or export import and ``reverie migrate`` of an older store place it the same way. Real SQLite files and
PostgreSQL databases, a real HTTP server, the MCP server in process, the CLI in process.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from mcp import Client

from reverie import Memory
from reverie.errors import NotFoundError, ReverieError
from reverie.http import create_app
from reverie.mcp import build_server
from reverie.model.events import Event
from reverie.store.migrate import migrate

from .http_sec_helpers import serving

SCOPE = "user:alice"
OPERATOR = "operator-token-0123456789"
AGENT = "agent-b-token-0123456789"
LEGACY = "agent:b+old"


def _legacy_store(path: Path | str) -> Memory:
    """A store whose log holds ``agent:b+old`` opened for ``agent:a`` only, as the log of a version
    before own names held it (no check refused it then): its opening event, then a rebuild."""
    mem = Memory(path, embedder="hash")
    mem.conversation("template", scope=SCOPE, visibility=["agent:a"]).add("the list", speaker="HR")
    (opened,) = [e for e in mem.events(scope=SCOPE) if e.type == "conversation.opened"]
    d = opened.to_dict()
    d["id"] = d["id"][:-4] + "beef"
    d["at"] = mem.events(scope=SCOPE)[-1].to_dict()["at"]  # the log's times never go back
    d["payload"]["conversation"]["id"] = LEGACY
    with mem.store.atomic(SCOPE):  # PostgreSQL appends inside a transaction only
        mem.store.append_event(Event.from_dict(d))
    mem.rebuild()
    assert {c.id: c.visibility for c in mem.conversations(scope=SCOPE)}[LEGACY] == ("agent:a",)
    return mem


def _refused(view: Memory, name: str, **kwargs: Any) -> str:
    with pytest.raises(NotFoundError) as caught:
        view.conversation(name, scope=SCOPE, **kwargs).add("probe", speaker="b")
    return str(caught.value).replace(name, "<name>")


def _untouched(mem: Memory) -> None:
    owner = mem.conversation(LEGACY, scope=SCOPE, create=False)
    assert owner.messages() == []
    assert {c.id: c.visibility for c in mem.conversations(scope=SCOPE)}[LEGACY] == ("agent:a",)


def test_a_hidden_legacy_own_name_is_refused_as_any_hidden_name(tmp_path: Path) -> None:
    mem = _legacy_store(tmp_path / "l.db")
    mem.conversation("layoffs", scope=SCOPE, visibility=["agent:a"])
    b = mem.as_principal("agent:b")
    hidden_other = _refused(b, "layoffs")
    assert _refused(b, LEGACY) == hidden_other
    assert _refused(b, LEGACY, open_on_add=True) == hidden_other
    with pytest.raises(NotFoundError):
        b.conversation(LEGACY, scope=SCOPE, create=False)
    _untouched(mem)
    mem.close()


def test_a_principals_slice_import_never_writes_into_nor_describes_a_hidden_legacy_own_name(
    tmp_path: Path,
) -> None:
    mem = _legacy_store(tmp_path / "s.db")
    mem.conversation("talk", scope=SCOPE).add("hello there", speaker="Alice", role="user")
    b = mem.as_principal("agent:b")
    d = json.loads(b.export_slice(scope=SCOPE, include_conversations=True).to_json())
    d["sections"]["conversations"] = [c for c in d["sections"]["conversations"] if c["id"] == "talk"]
    d["sections"]["conversations"][0]["id"] = "old"  # lands under agent:b's own name: agent:b+old
    with pytest.raises(NotFoundError) as caught:
        b.import_slice(json.dumps(d), scope=SCOPE)
    assert "agent:a" not in str(caught.value)
    _untouched(mem)
    mem.close()


def test_http_and_mcp_refuse_a_hidden_legacy_own_name_as_any_hidden_name(tmp_path: Path) -> None:
    mem = _legacy_store(tmp_path / "h.db")
    mem.conversation("layoffs", scope=SCOPE, visibility=["agent:a"])
    app = create_app(mem, token=OPERATOR, principals={AGENT: "agent:b"})
    with serving(app) as port:
        base = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}/conversations"
        bob = {"Authorization": f"Bearer {AGENT}"}
        answers = []
        for name in (LEGACY, "layoffs"):
            r = httpx.post(f"{base}/{name}/messages", headers=bob, json={"text": "probe"})
            answers.append((r.status_code, r.text.replace(name, "<name>")))
    assert answers[0] == answers[1] and answers[0][0] == 404
    _untouched(mem)
    mem.close()


async def _mcp_add(client: Client, name: str) -> tuple[bool, str]:
    result = await client.call_tool("conversation_add", {"scope": SCOPE, "conversation": name, "text": "x"})
    return bool(result.is_error), result.content[0].text.replace(name, "<name>")


@pytest.mark.anyio
async def test_mcp_refuses_a_hidden_legacy_own_name_as_any_hidden_name(tmp_path: Path) -> None:
    mem = _legacy_store(tmp_path / "m.db")
    mem.conversation("layoffs", scope=SCOPE, visibility=["agent:a"])
    async with Client(build_server(mem.as_principal("agent:b")), mode="legacy", raise_exceptions=True) as client:
        answers = [await _mcp_add(client, name) for name in (LEGACY, "layoffs")]
    assert answers[0] == answers[1] and answers[0][0]
    _untouched(mem)
    mem.close()


def _old_store(where: Path | str) -> str:
    """``_legacy_store`` as a store of the version before the rename, closed: its conversation
    tables at version 1 (SQLite) or schema 9 (PostgreSQL), so the next writable open upgrades it.
    Its conversation holds messages, a recap, the claims mined from them and the persons named."""
    mem = _legacy_store(where)
    legacy = mem.conversation(LEGACY, scope=SCOPE, create=False)
    legacy.add("the layoff list is final", speaker="HR")
    legacy.add("dates go out on Friday", speaker="HR")
    legacy.add("My sister Dana lives in Lisbon.", speaker="Alice", role="user")
    legacy.close()  # mined: the claims and the persons name it in their provenance
    mem.close()
    if str(where).startswith("postgresql://"):
        with psycopg.connect(str(where), autocommit=True) as pg:
            pg.execute("UPDATE settings SET v = '9' WHERE k = 'schema_version'")
    else:
        with sqlite3.connect(where) as c:
            c.execute("UPDATE settings SET v = '1' WHERE k = 'conversation_schema'")
        c.close()
    return str(where)


def test_a_hidden_legacy_own_name_answers_as_a_free_own_name(tmp_path: Path) -> None:
    mem = Memory(_old_store(tmp_path / "x.db"), embedder="hash")
    b = mem.as_principal("agent:b")
    b.conversation("agent:b+new", scope=SCOPE).add("mine", speaker="b")
    b.conversation(LEGACY, scope=SCOPE).add("mine", speaker="b")  # the hidden one gave the name up
    assert [m.text for m in b.conversation(LEGACY, scope=SCOPE, create=False).messages()] == ["mine"]
    mem.close()


RENAMED = "agent:a+agent:b+old"  # under the first principal of its audience: agent:a's own name


def _state(mem: Memory) -> dict[str, Any]:
    """What a rebuild must give again: the conversations, their entries, the items naming them."""
    convs = {c.id: c.to_dict() for c in mem.conversations(scope=SCOPE)}
    entries = {
        name: [e.to_dict() for e in mem.conversation(name, scope=SCOPE, create=False).history()] for name in convs
    }
    items = {i.id: (i.meta, i.provenance.to_dict()) for i in mem.list(scope=SCOPE, limit=1000).items}
    return {"conversations": convs, "entries": entries, "items": items}


def _renamed(mem: Memory) -> list[Event]:
    return [e for e in mem.events(scope=SCOPE) if e.type == "conversation.renamed"]


def test_the_renamed_conversation_stays_its_audiences_whole(store_url: str) -> None:
    mem = Memory(_old_store(store_url), embedder="hash")
    a, b = mem.as_principal("agent:a"), mem.as_principal("agent:b")
    said = ["the layoff list is final", "dates go out on Friday", "My sister Dana lives in Lisbon."]
    assert RENAMED in {c.id for c in a.conversations(scope=SCOPE)}
    assert [m.text for m in a.conversation(RENAMED, scope=SCOPE, create=False).messages()] == said
    memories = [h.item for h in a.recall("layoff list", scope=SCOPE, k=5) if "layoff" in h.item.text]
    assert memories and {m.meta["conversation"] for m in memories} == {RENAMED}
    # Every memory and claim made from it names it by its new name, in meta and in provenance.
    items = mem.list(scope=SCOPE, limit=1000).items
    named = [(i.meta.get("conversation"), i.provenance.ref) for i in items if i.provenance.origin == "conversation"]
    assert (RENAMED, RENAMED) in named
    assert not [i for i in items if LEGACY in (i.meta.get("conversation"), i.provenance.ref)]
    # Nothing of it reaches agent:b: not the conversation, not one event, not the rename.
    assert RENAMED not in {c.id for c in b.conversations(scope=SCOPE)}
    assert not [
        e for e in b.events(scope=SCOPE) if "layoff" in json.dumps(e.payload) or LEGACY in json.dumps(e.payload)
    ]
    with pytest.raises(NotFoundError):
        b.conversation(RENAMED, scope=SCOPE, create=False)
    # The owner still purges a message with its memory: the memory names the conversation's new name.
    first = mem.conversation(RENAMED, scope=SCOPE, create=False).messages()[0]
    mem.conversation(RENAMED, scope=SCOPE, create=False).purge(first.id)
    assert not [h for h in a.recall("layoff list", scope=SCOPE, k=5) if h.item.meta.get("message") == first.id]
    mem.close()


def test_the_rename_is_one_event_in_the_log_and_happens_once(store_url: str) -> None:
    path = _old_store(store_url)
    mem = Memory(path, embedder="hash")
    (renamed,) = _renamed(mem)
    assert (renamed.payload["from"], renamed.payload["to"]) == (LEGACY, RENAMED)
    assert "agent:b" in renamed.payload["reason"] and renamed.payload["conversation"]["visibility"] == ["agent:a"]
    assert [e.id for e in mem.as_principal("agent:a").events(scope=SCOPE) if e.type == "conversation.renamed"] == [
        renamed.id
    ]
    before, log = _state(mem), [e.to_dict() for e in mem.events(scope=SCOPE)]
    assert mem.doctor().ok
    mem.close()
    again = Memory(path, embedder="hash")
    assert _state(again) == before and [e.to_dict() for e in again.events(scope=SCOPE)] == log
    again.close()


def test_a_rebuild_from_the_log_gives_the_renamed_state(store_url: str) -> None:
    mem = Memory(_old_store(store_url), embedder="hash")
    mem.as_principal("agent:b").conversation(LEGACY, scope=SCOPE).add("mine now", speaker="b")
    before = _state(mem)
    assert set(before["conversations"]) >= {LEGACY, RENAMED}
    mem.rebuild()
    assert _state(mem) == before
    mem.close()


def test_an_owners_slice_import_renames_a_legacy_own_name_as_it_lands(tmp_path: Path) -> None:
    old = _legacy_store(tmp_path / "o.db")  # not renamed: as a slice an older reverie exported
    old.conversation(LEGACY, scope=SCOPE, create=False).add("the layoff list is final", speaker="HR")
    sliced = old.export_slice(scope=SCOPE, include_conversations=True).to_json()
    assert LEGACY in sliced
    old.close()
    mem = Memory(tmp_path / "n.db", embedder="hash")
    report = mem.import_slice(sliced, scope=SCOPE)
    assert report.conversations[LEGACY] == RENAMED
    assert {c.id: c.visibility for c in mem.conversations(scope=SCOPE)}[RENAMED] == ("agent:a",)
    a = mem.as_principal("agent:a")
    assert [m.text for m in a.conversation(RENAMED, scope=SCOPE, create=False).messages()] == [
        "the layoff list is final"
    ]
    hits = [h.item for h in a.recall("layoff list", scope=SCOPE, k=5) if "layoff" in h.item.text]
    assert hits and {m.meta["conversation"] for m in hits} == {RENAMED}
    mem.as_principal("agent:b").conversation(LEGACY, scope=SCOPE).add("mine", speaker="b")
    mem.close()


def test_an_owners_import_of_an_older_export_renames_a_legacy_own_name_as_it_lands(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))
    from cli_support import Cli

    old = _legacy_store(tmp_path / "o.db")  # not renamed: as an older reverie exported it
    old.conversation(LEGACY, scope=SCOPE, create=False).add("the layoff list is final", speaker="HR")
    old.close()
    exported = Cli(tmp_path / "o.db").ok("export").stdout
    assert LEGACY in exported
    report = Cli(tmp_path / "n.db").json("import", "-", input=exported)
    assert report["failed"] == []
    mem = Memory(tmp_path / "n.db", embedder="hash")
    assert {c.id: c.visibility for c in mem.conversations(scope=SCOPE)}[RENAMED] == ("agent:a",)
    assert LEGACY not in {c.id for c in mem.conversations(scope=SCOPE)}
    a = mem.as_principal("agent:a")
    assert [m.text for m in a.conversation(RENAMED, scope=SCOPE, create=False).messages()] == [
        "the layoff list is final"
    ]
    mem.as_principal("agent:b").conversation(LEGACY, scope=SCOPE).add("mine", speaker="b")
    mem.close()


def test_an_export_of_a_renamed_store_imports_whole(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))
    from cli_support import Cli

    Memory(_old_store(tmp_path / "o.db"), embedder="hash").close()  # renamed as it opens
    exported = Cli(tmp_path / "o.db").ok("export").stdout
    assert "conversation.renamed" in exported
    report = Cli(tmp_path / "n.db").json("import", "-", input=exported)
    assert report["failed"] == [] and report["conversations"][RENAMED] == RENAMED
    assert sum(n for why, n in report["skipped"].items() if why.startswith("conversation.renamed")) == 1
    with Memory(tmp_path / "n.db", embedder="hash") as mem:
        a = mem.as_principal("agent:a")
        assert len(a.conversation(RENAMED, scope=SCOPE, create=False).messages()) == 3


def test_a_copy_of_an_older_store_to_another_backend_lands_renamed(tmp_path: Path, store_url: str) -> None:
    """``reverie migrate`` opens its source read-only (never renamed there): the copy renames it."""
    old = _old_store(tmp_path / "o.db")
    assert migrate(old, store_url).doctor_ok
    with Memory(store_url, embedder="hash") as mem:
        assert {c.id for c in mem.conversations(scope=SCOPE)} == {"template", RENAMED}
        ((moved,),) = [[e.payload["to"] for e in _renamed(mem)]]
        assert moved == RENAMED
        assert len(mem.as_principal("agent:a").conversation(RENAMED, scope=SCOPE, create=False).messages()) == 3
        mem.as_principal("agent:b").conversation(LEGACY, scope=SCOPE).add("mine", speaker="b")
        before = _state(mem)
        mem.rebuild()
        assert _state(mem) == before


def test_a_read_only_open_of_an_older_store_answers_its_legacy_own_name_as_a_free_one(tmp_path: Path) -> None:
    """Read-only, the store is never renamed: a write under a free own name is refused as read-only,
    and so is one under the hidden legacy name (not ``not_found``, which told it apart)."""
    with Memory(_old_store(tmp_path / "ro.db"), embedder="hash", read_only=True) as mem:
        b = mem.as_principal("agent:b")
        answers = []
        for name in (LEGACY, "agent:b+free"):
            with pytest.raises(ReverieError) as caught:
                b.conversation(name, scope=SCOPE).add("probe", speaker="b")
            answers.append((caught.value.code, str(caught.value).replace(name, "<name>")))
            with pytest.raises(NotFoundError) as resumed:
                b.conversation(name, scope=SCOPE, create=False)
            answers.append((resumed.value.code, str(resumed.value).replace(name, "<name>")))
        assert answers[:2] == answers[2:] and answers[0][0] == "read_only"
    with Memory(tmp_path / "ro.db", embedder="hash") as mem:  # nothing was written; a writer renames it
        messages = mem.conversation(RENAMED, scope=SCOPE, create=False).messages()
        assert _renamed(mem) and len(messages) == 3
