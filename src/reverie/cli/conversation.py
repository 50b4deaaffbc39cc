"""``reverie conversation …`` and ``reverie people`` / ``reverie person``: the conversation wing from the command line.

Each subcommand is one call on ``mem.conversation(...)``, ``mem.archive_search``, ``mem.recap``,
``mem.people`` or ``mem.person``; the CLI adds no rule of its own, so what the API refuses (a
message too large, a control character in a speaker, a time before the previous message, tool
arguments too big) the CLI refuses with the same code and message, and nothing is stored.

Reads (``history``, ``messages``, ``close``, ``tool-call``) open the conversation with
``create=False``: a mistyped id is ``not_found``, never a new empty conversation. Only ``add``
opens one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import click

from reverie.cli.parse import iso_time, meta_object
from reverie.cli.render import clean, fields, table, when
from reverie.cli.state import json_option, scoped, state
from reverie.limits import CLOCK_SKEW_HELP
from reverie.model.clock import to_iso
from reverie.model.conversation import Entry


def _plain(value: Any) -> Any:
    """A dataclass / datetime / tuple tree as JSON-ready values (items through their ``to_dict``)."""
    if isinstance(value, datetime):
        return to_iso(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _entries_table(entries: Sequence[Entry], empty: str) -> str:
    if not entries:
        return empty
    rows = [[e.position, e.kind, when(e.at), clean(e.speaker or e.role or "-"), clean(e.text)] for e in entries]
    return table(["POS", "KIND", "AT", "WHO", "TEXT"], rows)


def _open(conversation_id: str) -> Any:
    st = state()
    return st.memory().conversation(conversation_id, scope=st.require_scope(), create=False)


@click.group("conversation")
def conversation() -> None:
    """Conversations: add messages, read history, search the archive, recap, close, tool calls."""


@conversation.command("add")
@click.argument("conversation_id", metavar="CONVERSATION")
@click.argument("text")
@click.option("--speaker", help="Who said it (a plain name; also the memory's author).")
@click.option("--role", default="user", show_default=True, help="user, assistant or system.")
@click.option(
    "--at",
    "at_",
    metavar="TIME",
    help=f"When it was said (ISO 8601; default now; not before the last, not later than now plus {CLOCK_SKEW_HELP}).",
)
@click.option("--meta", help='A JSON object stored with the message, e.g. \'{"channel": "chat"}\'.')
@click.option(
    "--visible-to",
    "visible_to",
    multiple=True,
    metavar="PRINCIPAL",
    help="Only this principal may see the message (repeatable; default: the conversation's audience, "
    "which it may narrow, never widen).",
)
@click.option(
    "--conversation-visible-to",
    "conversation_visible_to",
    multiple=True,
    metavar="PRINCIPAL",
    help="Who may see the conversation, set when this message opens it (repeatable; default: everyone).",
)
@scoped
@json_option
def conversation_add(
    conversation_id: str,
    text: str,
    speaker: str | None,
    role: str,
    at_: str | None,
    meta: str | None,
    visible_to: tuple[str, ...],
    conversation_visible_to: tuple[str, ...],
) -> None:
    """Append a message to CONVERSATION (opened if new): archived word for word and remembered."""
    st = state()
    when_at, extra = iso_time(at_, "--at"), meta_object(meta)  # parsed before anything is opened
    conv = st.memory().conversation(
        conversation_id,
        scope=st.require_scope(),
        open_on_add=True,
        visibility=list(conversation_visible_to) or None,
    )
    msg = conv.add(text, speaker=speaker, role=role, at=when_at, meta=extra, visibility=list(visible_to) or None)
    doc = {"action": "added", "message": _plain(msg)}
    st.emit(doc, lambda: f"added message {msg.id} (turn {msg.turn}, position {msg.position}) to {clean(conv.id)}")


@conversation.command("set-visibility")
@click.argument("conversation_id", metavar="CONVERSATION")
@click.argument("message_id", metavar="MESSAGE")
@click.option(
    "--visible-to",
    "visible_to",
    multiple=True,
    metavar="PRINCIPAL",
    help="Only this principal may see the message (repeatable; none given: the conversation's audience).",
)
@click.option("--reason", default="", help="Why (kept in the log).")
@scoped
@json_option
def conversation_set_visibility(
    conversation_id: str, message_id: str, visible_to: tuple[str, ...], reason: str
) -> None:
    """Give MESSAGE of CONVERSATION a new audience; its memory, the next turns' context, recaps,
    summaries and the claims restating it follow in one transaction (the store's owner only)."""
    st = state()
    entry = _open(conversation_id).set_visibility(message_id, list(visible_to) or None, reason=reason)
    shown = ", ".join(entry.visibility) or "everyone"
    st.emit({"action": "visibility_set", "entry": entry.to_dict()}, lambda: f"message {entry.id} visible to {shown}")


@conversation.command("tool-call")
@click.argument("conversation_id", metavar="CONVERSATION")
@click.argument("name")
@click.option("--args", "args_json", help="The tool's arguments as a JSON object (bounded in size).")
@click.option("--status", default="ok", show_default=True, help="How it went: ok or error.")
@click.option("--detail", default="", help="A short note on the outcome (never the tool's output).")
@scoped
@json_option
def conversation_tool_call(conversation_id: str, name: str, args_json: str | None, status: str, detail: str) -> None:
    """Record that tool NAME ran in CONVERSATION, with its arguments and outcome."""
    st = state()
    args = meta_object(args_json)
    entry = _open(conversation_id).tool_call(name, args=args, status=status, detail=detail)
    st.emit({"action": "recorded", "entry": entry.to_dict()}, lambda: f"recorded tool call {entry.id} ({name})")


@conversation.command("history")
@click.argument("conversation_id", metavar="CONVERSATION")
@scoped
@json_option
def conversation_history(conversation_id: str) -> None:
    """What the model should see: the current session, older parts folded into a summary."""
    st = state()
    found = _open(conversation_id).history()
    st.emit({"entries": [e.to_dict() for e in found]}, lambda: _entries_table(found, "history is empty (released)"))


@conversation.command("messages")
@click.argument("conversation_id", metavar="CONVERSATION")
@click.option("--all", "everything", is_flag=True, help="Also tool calls, summaries and recaps.")
@scoped
@json_option
def conversation_messages(conversation_id: str, everything: bool) -> None:
    """Every message of CONVERSATION, all sessions, word for word."""
    st = state()
    conv = _open(conversation_id)
    found = conv.entries() if everything else conv.messages()
    st.emit({"entries": [e.to_dict() for e in found]}, lambda: _entries_table(found, "no messages"))


@conversation.command("list")
@scoped
@json_option
def conversation_list() -> None:
    """The scope's conversations, most recently active first."""
    st = state()
    found = st.memory().conversations(scope=st.require_scope())
    rows = [[c.id, c.turn, c.session, "yes" if c.released else "no", when(c.last_at)] for c in found]
    st.emit(
        {"conversations": [c.to_dict() for c in found]},
        lambda: table(["ID", "TURNS", "SESSION", "RELEASED", "LAST"], rows) if rows else "no conversations",
    )


@conversation.command("search")
@click.argument("query")
@click.option("--conversation", "conversation_id", metavar="CONVERSATION", help="Only this conversation.")
@click.option("--k", type=int, help="At most this many (default 10).")
@scoped
@json_option
def conversation_search(query: str, conversation_id: str | None, k: int | None) -> None:
    """Messages quoting QUERY word for word, newest first, with the matched span."""
    st = state()
    hits = st.memory().archive_search(
        query, scope=st.require_scope(), conversation=conversation_id, **({"k": k} if k is not None else {})
    )
    doc = {"hits": [{**_plain(h), "quote": h.quote} for h in hits]}

    def human() -> str:
        if not hits:
            return "no message quotes that"
        rows = [
            [h.conversation, when(h.at), clean(h.speaker or "-"), f"{h.span[0]}-{h.span[1]}", clean(h.quote)]
            for h in hits
        ]
        return table(["CONVERSATION", "AT", "SPEAKER", "SPAN", "QUOTE"], rows)

    st.emit(doc, human)


@conversation.command("recap")
@click.option("--conversation", "conversation_id", metavar="CONVERSATION", help="This conversation's recap.")
@scoped
@json_option
def conversation_recap(conversation_id: str | None) -> None:
    """The recap of the last released conversation (or of CONVERSATION)."""
    st = state()
    found = st.memory().recap(scope=st.require_scope(), conversation=conversation_id)
    st.emit(
        {"recap": _plain(found)},
        lambda: (
            "no recap yet: no conversation was released"
            if found is None
            else f"{clean(found.conversation)} session {found.session} ({found.messages} messages)"
            + ("" if found.written else "; not written: the store is read-only, the idle release would write it")
            + f"\n{clean(found.text)}"
        ),
    )


@conversation.command("close")
@click.argument("conversation_id", metavar="CONVERSATION")
@scoped
@json_option
def conversation_close(conversation_id: str) -> None:
    """Close CONVERSATION: write its recap and mine what people said into claims."""
    st = state()
    closed = _open(conversation_id).close()
    rep = closed.extraction
    doc = {"recap": closed.recap.to_dict() if closed.recap else None, "extraction": _plain(rep)}
    st.emit(
        doc,
        lambda: (
            f"closed {clean(conversation_id)}: {len(rep.claims)} claims, {len(rep.persons)} people, "
            f"{len(rep.skipped)} skipped" + (f" ({clean(rep.stopped)})" if rep.stopped else "")
        ),
    )


@click.command("people")
@scoped
@json_option
def people() -> None:
    """Every person of the scope, oldest first: names, aliases, how many relations and claims
    (``--json``: the relations themselves and ``claim_count``; ``reverie person`` gives the claims)."""
    st = state()
    found = st.memory().people(scope=st.require_scope())
    rows = [
        [p.id, clean(p.name), clean(", ".join(p.aliases) or "-"), str(len(p.relations)), str(p.claim_count)]
        for p in found
    ]
    st.emit(
        {"people": [_plain(p) for p in found]},
        lambda: (
            table(["ID", "NAME", "ALIASES", "RELATIONS", "CLAIMS"], rows)
            if rows
            else "nobody is known in this scope yet"
        ),
    )


@click.command("person")
@click.argument("name")
@scoped
@json_option
def person(name: str) -> None:
    """One person by name, alias or id: relations and the claims about them."""
    st = state()
    p = st.memory().person(name, scope=st.require_scope())

    def human() -> str:
        out = fields([("id", p.id), ("name", clean(p.name)), ("aliases", clean(", ".join(p.aliases) or "-"))])
        if p.relations:
            lines = [f"  {clean(r.person_name)} is {clean(r.of_name)}'s {clean(r.type)}" for r in p.relations]
            out += "\n\nrelations\n" + "\n".join(lines)
        if p.claims:
            out += "\n\nclaims\n" + table(["ID", "TEXT"], [[c.id, clean(c.text)] for c in p.claims])
        return out

    st.emit({"person": _plain(p)}, human)


COMMANDS = (conversation, people, person)
