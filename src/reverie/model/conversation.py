"""Conversations in the log: entries (messages, tool calls, summaries, recaps), their state, and purge.

Pure, like the rest of ``model/``: data shapes, commands, the projection changes they make and
the redaction of a purged message. The reducer rules live in ``model/conversation_rules.py``.

Why every entry is an event: a conversation is part of what the memory knows, so it must be
replayable (``rebuild``), scoped, and erasable (purge) exactly like a claim. Each event carries
the conversation's *whole* state after it (``conversation``), so projecting needs no reads and a
replay cannot drift from the live store.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from reverie.model import events as ev
from reverie.model.clock import from_iso, to_iso
from reverie.model.redact import REDACTED
from reverie.model.textform import CJK_RANGES, canonical, canonical_with_offsets

#: What an entry is. Only messages are searchable (the archive) and recallable.
ENTRY_KINDS = ("message", "tool_call", "summary", "recap")
ROLES = ("user", "assistant", "system")
#: The audience of a recap or summary no principal may see any more (only the store's owner, who
#: sees everything): one made for principals a message was then taken from, when none of them may
#: still see that message (``conversation.audience.narrowed_to``). No principal can hold this name
#: (``model.visibility.PRINCIPAL_RE`` refuses parentheses), and there is no "nobody" audience.
OWNER_ONLY: tuple[str, ...] = ("(owner)",)
EVENT_OF_KIND = {
    "message": ev.MESSAGE_ADDED,
    "tool_call": ev.TOOL_CALLED,
    "summary": ev.SUMMARIZED,
    "recap": ev.RELEASED,
}
ENTRY_EVENTS = frozenset(EVENT_OF_KIND.values())
#: Every event of a conversation: each names it (``conversation_of``).
CONVERSATION_EVENTS = ENTRY_EVENTS | {
    ev.CONVERSATION_OPENED,
    ev.MESSAGE_PURGED,
    ev.CONVERSATION_VISIBILITY_SET,
    ev.CONVERSATION_RENAMED,  # its ``conversation`` is the state under the new name
}


def _t(when: datetime | None) -> str | None:
    return to_iso(when) if when is not None else None


def _dt(text: object) -> datetime | None:
    return from_iso(str(text)) if text is not None else None


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing that happened in a conversation, in order (``position``, 1-based, per conversation).

    ``at`` is the conversation's own time (a message's ``at``); ``recorded_at`` is when reverie
    wrote it. ``turn`` numbers messages only (1-based), so message neighbours stay adjacent when
    tool calls sit between them. A summary or recap says which positions it covers in
    ``meta["from"]`` / ``meta["upto"]``.
    """

    id: str
    scope: str
    conversation: str
    kind: str
    text: str
    at: datetime
    position: int = 0
    recorded_at: datetime | None = None
    speaker: str | None = None
    role: str | None = None
    turn: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    #: Who may see it (sorted principals; ``()``: everyone in the scope). A message's is its
    #: conversation's unless it narrowed it; a recap's or summary's is the audience it was made for.
    visibility: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "scope": self.scope,
            "conversation": self.conversation,
            "kind": self.kind,
            "text": self.text,
            "at": to_iso(self.at),
            "position": self.position,
            "recorded_at": _t(self.recorded_at),
            "speaker": self.speaker,
            "role": self.role,
            "turn": self.turn,
            "meta": dict(self.meta),
        }
        # Only when restricted: an entry open to everyone keeps the shape it had before
        # message visibility existed (events, rows and slices written then read the same).
        return out | ({"visibility": list(self.visibility)} if self.visibility else {})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Entry:
        return cls(
            id=str(d["id"]),
            scope=str(d["scope"]),
            conversation=str(d["conversation"]),
            kind=str(d["kind"]),
            text=str(d["text"]),
            at=from_iso(str(d["at"])),
            position=int(d.get("position") or 0),
            recorded_at=_dt(d.get("recorded_at")),
            speaker=d.get("speaker"),
            role=d.get("role"),
            turn=d.get("turn"),
            meta=dict(d.get("meta") or {}),
            visibility=tuple(sorted(map(str, d.get("visibility") or ()))),
        )

    @property
    def covers(self) -> tuple[int, int] | None:
        """The positions a summary or recap stands for, inclusive."""
        if self.kind not in ("summary", "recap"):
            return None
        return int(self.meta.get("from", 1)), int(self.meta.get("upto", 0))


@dataclass(frozen=True, slots=True)
class ConversationState:
    """Where a conversation stands: the last position and turn, its session and when it was last active.

    A *session* is the stretch between two releases: an idle conversation is released (its
    history emptied, a recap written) and the next message opens session ``session``, whose
    first position is ``session_start``. ``last_at`` is the conversation time of the last
    message; ``active_at`` the clock time of the last write (idle is measured on both).
    """

    scope: str
    id: str
    opened_at: datetime
    position: int = 0
    turn: int = 0
    session: int = 1
    session_start: int = 1
    last_at: datetime | None = None
    active_at: datetime | None = None
    released: bool = False
    #: Who may see the conversation (``()``: everyone in the scope), set when it is opened; a
    #: message may narrow it, never widen it.
    visibility: tuple[str, ...] = ()
    #: How many times an entry already written changed (a purge, a new audience). A write built
    #: from the entries it read names the revision it read too (``RecordEntry``), so one that read
    #: a message before it was purged or narrowed is refused instead of quoting it: the position
    #: alone does not move when nothing is appended.
    revision: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = {
            "scope": self.scope,
            "id": self.id,
            "opened_at": to_iso(self.opened_at),
            "position": self.position,
            "turn": self.turn,
            "session": self.session,
            "session_start": self.session_start,
            "last_at": _t(self.last_at),
            "active_at": _t(self.active_at),
            "released": self.released,
        }
        # Both only when set: a state no purge or narrowing touched keeps the shape it had before.
        out |= {"visibility": list(self.visibility)} if self.visibility else {}
        return out | ({"revision": self.revision} if self.revision else {})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ConversationState:
        return cls(
            scope=str(d["scope"]),
            id=str(d["id"]),
            opened_at=from_iso(str(d["opened_at"])),
            position=int(d["position"]),
            turn=int(d["turn"]),
            session=int(d["session"]),
            session_start=int(d["session_start"]),
            last_at=_dt(d.get("last_at")),
            active_at=_dt(d.get("active_at")),
            released=bool(d.get("released")),
            visibility=tuple(sorted(map(str, d.get("visibility") or ()))),
            revision=int(d.get("revision") or 0),
        )

    def after(self, entry: Entry, now: datetime) -> ConversationState:
        """The state once ``entry`` (already numbered) is appended at clock time ``now``."""
        # A summary or recap is reverie's own upkeep, not activity: it does not reset the idle clock.
        state = replace(self, position=entry.position)
        if entry.kind in ("message", "tool_call"):
            state = replace(state, active_at=now)
        if entry.kind == "message":
            return replace(state, turn=entry.turn or self.turn, last_at=entry.at, released=False)
        if releases(entry):
            return replace(state, released=True, session=self.session + 1, session_start=entry.position + 1)
        return state


def time_shown(state: ConversationState, seen: Iterable[Entry]) -> ConversationState:
    """``state``'s ``last_at`` / ``active_at`` as the entries a reader may see (``seen``) tell them.

    Why: both are times of single entries — the latest message's conversation time, the clock
    time the last message or tool call was written — so a reader outside one message's audience
    was shown that message's time through the state (a message dated 2099 read ``last_at``
    2099). Computed as ``after`` and a purge set them: the latest unpurged message's ``at``
    (message times never go down), the ``recorded_at`` of the last message or tool call.
    Only what is *shown* changes: writes keep the whole conversation's bound, so messages stay
    in time order for every reader.
    """
    entries = sorted(seen, key=lambda e: e.position)
    times = [e.at for e in entries if e.kind == "message" and not e.meta.get("purged")]
    active = [e.recorded_at for e in entries if e.kind in ("message", "tool_call")]
    return replace(state, last_at=max(times, default=None), active_at=active[-1] if active else None)


def conversation_of(event: ev.Event) -> str | None:
    """The conversation a conversation event belongs to (None for any other event).

    Why: a principal outside a conversation's audience must not learn its name, when it was opened
    or who may see it, and every event of it carries them (``conversation.opened`` holds nothing
    else), so the log leaves out every event of such a conversation (``store.visible``).
    """
    if event.type not in CONVERSATION_EVENTS:
        return None
    named = event.payload.get("conversation")
    if isinstance(named, dict):
        named = named.get("id")
    return named if isinstance(named, str) else None


def releases(entry: Entry) -> bool:
    """Whether ``entry`` is the recap that released its session.

    A release writes one recap per audience among the session's messages: the ones for an
    audience narrower than the conversation's come first and are marked ``meta["variant"]``;
    only the last, the conversation audience's, ends the session.
    """
    return entry.kind == "recap" and not entry.meta.get("variant")


# -- commands ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpenConversation:
    """Open ``conversation`` in ``scope`` if it is new (idempotent: an open one is resumed)."""

    scope: str
    conversation: str
    visibility: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RecordEntry:
    """Append ``entry`` (its position, turn and recorded time are set by the reducer).

    ``expected_position``: the conversation's last position when the caller read it; another
    writer that appended since makes this a ``VersionConflictError`` (the caller built the
    recallable text from what it read, so it must read again). ``expected_revision``: likewise
    its ``revision``, moved by a purge or a new audience committed since (the text may quote
    what is gone or hidden now); None checks only the position (an import's replay, which
    reads and writes in one transaction of its own).
    """

    scope: str
    entry: Entry
    expected_position: int
    expected_revision: int | None = None


@dataclass(frozen=True, slots=True)
class PurgeMessage:
    """Erase message ``id`` of ``conversation`` and the summaries / recaps that may quote it (``covering``)."""

    scope: str
    conversation: str
    id: str
    covering: tuple[str, ...] = ()
    reason: str = ""
    #: The conversation's ``position`` and ``revision`` when the caller read the entries whose
    #: memories it re-writes (None: not checked, as in an import's replay): a message appended
    #: since quotes the purged one in a context this purge does not know of.
    expected_position: int | None = None
    expected_revision: int | None = None


@dataclass(frozen=True, slots=True)
class SetMessageVisibility:
    """Give message ``id`` of ``conversation`` the audience ``visibility`` (``()``: the conversation's),
    and the summaries / recaps in ``entries`` (id, audience) the audience they are narrowed to.

    The caller (``conversation.audience``) computes what narrows; the reducer checks the
    message exists and stays within its conversation's audience.
    """

    scope: str
    conversation: str
    id: str
    visibility: tuple[str, ...]
    entries: tuple[tuple[str, tuple[str, ...]], ...] = ()
    reason: str = ""
    #: As ``PurgeMessage``'s: what the caller read the later turns' contexts from.
    expected_position: int | None = None
    expected_revision: int | None = None


# -- projection changes ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PutConversation:
    state: ConversationState


@dataclass(frozen=True, slots=True)
class PutEntry:
    entry: Entry


@dataclass(frozen=True, slots=True)
class EraseEntries:
    """Redact entries ``ids`` of ``scope`` (rows, archive index) and the events before ``before_seq``
    that carry them."""

    scope: str
    ids: tuple[str, ...]
    before_seq: int


@dataclass(frozen=True, slots=True)
class SetEntryVisibility:
    """Set the audience of entries of ``scope``: (entry id, visibility) pairs."""

    scope: str
    audiences: tuple[tuple[str, tuple[str, ...]], ...]


def project_conversation(event: ev.Event) -> list[Any]:
    """The changes a conversation event makes (no reads: the event carries the state)."""
    p = event.payload
    if event.type == ev.CONVERSATION_OPENED:
        return [PutConversation(ConversationState.from_dict(p["conversation"]))]
    if event.type in ENTRY_EVENTS:
        return [PutEntry(Entry.from_dict(p["entry"])), PutConversation(ConversationState.from_dict(p["conversation"]))]
    if event.type == ev.MESSAGE_PURGED:
        erase = EraseEntries(event.scope, (str(p["id"]), *map(str, p.get("covering", []))), event.seq)
        # ``state``: the conversation after the purge (its revision moved on, the purged
        # message's time no longer bounding the next one). Older logs carry ``released_state``
        # only when the bound changed (issue #15), or nothing: their state stays as it was.
        after = p.get("state") or p.get("released_state")
        return [erase, PutConversation(ConversationState.from_dict(after))] if after else [erase]
    if event.type == ev.CONVERSATION_VISIBILITY_SET:
        pairs = [(str(i), tuple(sorted(map(str, v)))) for i, v in p.get("entries", [])]
        changes: list[Any] = [SetEntryVisibility(event.scope, tuple(pairs))]
        after = p.get("state")  # absent from logs before the revision: the state stays as it was
        return changes + ([PutConversation(ConversationState.from_dict(after))] if after else [])
    return []


#: Where an entry imported from a slice keeps the id it had where it was first recorded
#: (``reverie.slice.format.ORIGIN_META``; a model module cannot import the slice package).
ENTRY_ORIGIN_META = "slice_origin"


def redact_entry(entry: Entry) -> Entry:
    """``entry`` with its words erased (speaker, role, times and position stay, as a purged item's author does).

    An imported entry keeps its origin id (an id, no content), so a later slice bringing the same
    entry home is recognised and the purge stays a purge instead of the words coming back.
    """
    origin = entry.meta.get(ENTRY_ORIGIN_META)
    keep = {ENTRY_ORIGIN_META: origin} if isinstance(origin, str) else {}
    return replace(entry, text=REDACTED, meta={"purged": True, **keep})


def redact_events(events: Iterable[ev.Event], ids: Iterable[str]) -> list[ev.Event]:
    """The events among ``events`` that carry an entry in ``ids``, rewritten with it redacted."""
    wanted = frozenset(ids)
    out: list[ev.Event] = []
    for e in events:
        entry = e.payload.get("entry")
        if e.type not in ENTRY_EVENTS or not isinstance(entry, dict) or entry.get("id") not in wanted:
            continue
        if entry.get("text") == REDACTED:
            continue
        payload = {**e.payload, "entry": redact_entry(Entry.from_dict(entry)).to_dict()}
        out.append(ev.Event(id=e.id, type=e.type, scope=e.scope, at=e.at, cause=e.cause, payload=payload, seq=e.seq))
    return out


CONVERSATION_COMMANDS = (OpenConversation, RecordEntry, PurgeMessage, SetMessageVisibility)
ConversationChange = PutConversation | PutEntry | EraseEntries | SetEntryVisibility


_CJK = f"[{CJK_RANGES}]"
_NOT_CJK_WORD = f"[^\\W{CJK_RANGES}]"  # a word character of a script that spaces its words
_QUOTE_WORDS = re.compile(f"{_CJK}|{_NOT_CJK_WORD}+")


def quote_pattern(query: str) -> re.Pattern[str] | None:
    """The exact-quote matcher of an archive search: the query's words in order, any run of
    spaces or punctuation between them, case-insensitive. None when the query has no word.

    It matches the comparison form of a message (``textform.canonical``: "café" composed or
    decomposed is one word, an invisible format character is not there); ``quote_span`` maps
    the match back. A CJK character is a word of its own, and CJK words may touch (Japanese and
    Chinese are written without spaces), so "東京" is found inside "会議は東京です".
    """
    words = _QUOTE_WORDS.findall(canonical(query))
    if not words:
        return None
    body = re.escape(words[0])
    for before, word in itertools.pairwise(words):
        cjk = _is_cjk(before) or _is_cjk(word)
        body += (r"\W*" if cjk else r"\W+") + re.escape(word)
    head = "" if _is_cjk(words[0]) else f"(?<!{_NOT_CJK_WORD})"
    tail = "" if _is_cjk(words[-1]) else f"(?!{_NOT_CJK_WORD})"
    return re.compile(head + body + tail, re.IGNORECASE)


def _is_cjk(word: str) -> bool:
    return len(word) == 1 and re.fullmatch(_CJK, word) is not None


def quote_span(text: str, query: str) -> tuple[int, int] | None:
    """Where ``query`` first occurs in ``text`` as a quote (``quote_pattern``), as [start, end)
    offsets into ``text`` as it was written."""
    pattern = quote_pattern(query)
    if pattern is None:
        return None
    form, starts, ends = canonical_with_offsets(text)
    found = pattern.search(form)
    if found is None or found.end() == found.start():
        return None
    return (starts[found.start()], ends[found.end() - 1])
