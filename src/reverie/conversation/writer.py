"""Every write of the wing: a message (with its recallable memory), a tool call, a release, a summary, a purge.

Each is one ``host.run`` call, so one transaction: a message and its memory are stored together
or not at all. Every entry names the position and revision the writer read
(``expected_position``, ``expected_revision``; a purge the same), so a concurrent writer (an
append, a purge, a new audience) turns into a ``VersionConflictError`` rather than a context built
from stale turns; the handle (``handle.Conversation``) then reads again and retries under the write lock
(``serial.serialised``), so callers never see that refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from reverie.conversation.audience import audiences, quotable
from reverie.conversation.borrowed import borrowers
from reverie.conversation.forget_people import people_commands
from reverie.conversation.host import ConversationHost, conversation_store
from reverie.conversation.learn import Learner, Proposer, safely
from reverie.conversation.rewindow import context_window, rewrite_memory
from reverie.conversation.summary import extractive_summary
from reverie.conversation.window import WINDOW_BEFORE, date_text, window_text
from reverie.errors import InvalidInputError, NotFoundError
from reverie.model import commands as cmd
from reverie.model.conversation import ConversationState, Entry, OpenConversation, PurgeMessage, RecordEntry
from reverie.model.item import STATUSES
from reverie.model.query import Q, parse_sort
from reverie.model.redact import REDACTED

#: The kind of a message's recallable memory. ``observation`` (decay halves monthly), the kind
#: bench/locomo.py measured: ``episodic`` halves weekly, so a month-old chat would sink below
#: any fresh note, and it graduates to ``semantic`` on use, which a turn of dialogue is not.
MESSAGE_KIND = "observation"
#: How far back ``add`` reads for the previous turns (positions; tool calls may sit between).
_LOOKBACK = 4 * WINDOW_BEFORE
RECAP_CHARS = 1_500


class Summariser(Protocol):
    """A summariser (e.g. ``llm.ChatSummariser``): a summary within the budget, or None to keep the extractive one."""

    name: str

    def summarise(self, entries: Sequence[Entry], budget_chars: int) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Message:
    """A stored message: the archive entry, and ``item_id``, its recallable memory."""

    id: str
    conversation: str
    position: int
    turn: int
    speaker: str | None
    role: str
    text: str
    at: datetime
    meta: dict[str, Any]
    item_id: str | None
    #: Who may see it (``()``: everyone in the scope): its conversation's audience or a narrower one.
    visibility: tuple[str, ...] = ()


def is_idle(state: ConversationState, now: datetime, idle: timedelta, at: datetime | None = None) -> bool:
    """Has the current session gone quiet for ``idle``: on the clock since the last write, or in
    the conversation's own time before a message arriving at ``at``? Never for an empty session."""
    if state.released or state.position < state.session_start:
        return False
    if state.active_at is not None and now - state.active_at >= idle:
        return True
    return at is not None and state.last_at is not None and at - state.last_at >= idle


class Writer:
    """The commands of the conversation wing, over one ``ConversationHost``."""

    def __init__(
        self,
        host: ConversationHost,
        learner: Learner | None = None,
        extra: Sequence[Proposer] = (),
        summariser: Summariser | None = None,
    ) -> None:
        self._host = host
        self.summariser = summariser
        #: Extraction into long-term memory on each release (``conversation.learn``); None: off.
        self.learner = learner
        self.extra = tuple(extra)

    def state(self, scope: str, conversation: str) -> ConversationState:
        state = conversation_store(self._host).conversation_state(scope, conversation)
        if state is None:
            raise NotFoundError(
                f"no conversation {conversation!r} in scope {scope!r}; open it with mem.conversation(id, scope=...)"
            )
        return state

    def open(self, scope: str, conversation: str, visibility: tuple[str, ...] = ()) -> ConversationState:
        self._host.run([OpenConversation(scope, conversation, visibility)])
        return self.state(scope, conversation)

    def add_message(
        self,
        state: ConversationState,
        text: str,
        *,
        speaker: str | None,
        role: str,
        at: datetime,
        meta: dict[str, Any],
        visibility: tuple[str, ...] | None = None,
    ) -> Message:
        """``visibility``: the message's audience, already checked to narrow the conversation's
        (None: the conversation's). Its context quotes only turns that whole audience may see."""
        host, scope = self._host, state.scope
        audience = state.visibility if visibility is None else visibility
        lookback = max(state.session_start - 1, state.position - _LOOKBACK)
        before = conversation_store(host).conversation_entries(
            scope, state.id, after_position=lookback, kinds=("message",)
        )
        entry = Entry(
            id=host.new_id(),
            scope=scope,
            conversation=state.id,
            kind="message",
            text=text,
            at=at,
            speaker=speaker,
            role=role,
            meta=meta,
            visibility=audience,
        )
        seen = quotable(audience, before)
        window = window_text(text, speaker=speaker, role=role, at=at, before=seen, limit=host.limits.max_text_chars)
        item_meta = {**meta, "conversation": state.id, "message": entry.id, "turn": state.turn + 1}
        item_meta |= {"session": state.session, "role": role} | ({"speaker": speaker} if speaker else {})
        remember = cmd.Remember(
            scope=scope,
            text=window,
            kind=MESSAGE_KIND,
            source="observed",
            author=speaker,
            meta=item_meta,
            valid_from=at,
            corroborate=False,
            visibility=audience,
        )
        out = host.run([RecordEntry(scope, entry, state.position, state.revision), remember], [window])
        stored = Entry.from_dict(out[0].events[0].payload["entry"])
        return _message(stored, out[1].item_id)

    @property
    def host(self) -> ConversationHost:
        """What this writer writes through (``conversation.restrict`` runs its own transaction on it)."""
        return self._host

    @property
    def read_only(self) -> bool:
        """The store is open for inspection: reads show what they would write, and write nothing."""
        return bool(self._host.read_only)

    def add_entry(
        self,
        state: ConversationState,
        kind: str,
        text: str,
        at: datetime,
        meta: dict[str, Any],
        visibility: tuple[str, ...] | None = None,
    ) -> Entry:
        """A tool call, summary or recap: an entry with no recallable memory, shown to ``visibility``
        (None: the conversation's audience)."""
        host = self._host
        audience = state.visibility if visibility is None else visibility
        entry = Entry(
            id=host.new_id(),
            scope=state.scope,
            conversation=state.id,
            kind=kind,
            text=text,
            at=at,
            meta=meta,
            visibility=audience,
        )
        out = host.run([RecordEntry(state.scope, entry, state.position, state.revision)])
        return Entry.from_dict(out[0].events[0].payload["entry"])

    def add_entries(self, state: ConversationState, drafts: Sequence[Entry]) -> list[Entry]:
        """Summaries or recaps (``drafts``, ids empty) appended in one transaction, in order."""
        commands = [
            RecordEntry(state.scope, replace(d, id=self._host.new_id()), state.position + n, state.revision)
            for n, d in enumerate(drafts)
        ]
        return [Entry.from_dict(o.events[0].payload["entry"]) for o in self._host.run(commands)]

    def summarise(self, entries: Sequence[Entry], budget: int) -> tuple[str, dict[str, str]]:
        """A summary of ``entries`` and how it was made (``meta``): the summariser's if one is set
        and its summary passes its checks, else the extractive one (with the reason)."""
        if self.summariser is not None:
            text = self.summariser.summarise(entries, budget)
            if text:
                return text, {"summariser": self.summariser.name}
            why = getattr(self.summariser, "skipped", None) or "no summary"
            return extractive_summary(entries, budget), {"summariser": "extractive", "fallback": str(why)[:300]}
        return extractive_summary(entries, budget), {}

    def recaps_of(self, state: ConversationState) -> tuple[list[Entry], list[Entry]] | None:
        """The session's entries and the recaps its release would write (not stored: ``id`` empty,
        no position), one per audience (``conversation.audience``): each quotes only the messages
        its whole audience may see; the conversation audience's comes last and releases the
        session, the narrower ones before it are ``meta["variant"]``. None for an empty session.
        ``release_session`` writes them; a read-only store shows the reader's (``wing.Conversations.recap``)."""
        entries = conversation_store(self._host).conversation_entries(
            state.scope, state.id, after_position=state.session_start - 1
        )
        said = [e for e in entries if e.kind in ("message", "tool_call")]
        if not said:
            return None
        drafts = []
        for audience in audiences(state, said):
            draft = self._recap_for(state, quotable(audience, said), audience)
            if audience != state.visibility:
                draft = replace(draft, meta={**draft.meta, "variant": True})
            drafts.append(draft)
        return entries, drafts

    def _recap_for(self, state: ConversationState, said: list[Entry], audience: tuple[str, ...]) -> Entry:
        messages = [e for e in said if e.kind == "message"]
        head = f"Conversation {state.id}, session {state.session}: {len(messages)} message(s)"
        if messages:
            head += f", {date_text(messages[0].at)} to {date_text(messages[-1].at)}"
        body, how = self.summarise(said, RECAP_CHARS) if said else ("", {})
        at = state.last_at or self._host.clock.now()
        meta = {
            "from": state.session_start,
            "upto": state.position,
            "messages": len(messages),
            "session": state.session,
            **how,
        }
        text = f"{head}.\n{body}" if body else f"{head}."
        return Entry(
            id="",
            scope=state.scope,
            conversation=state.id,
            kind="recap",
            text=text,
            at=at,
            meta=meta,
            visibility=audience,
        )

    def release_session(self, state: ConversationState) -> tuple[Entry, list[Entry]] | None:
        """Write the session's recaps (one per audience, in one transaction) and release its history
        (the next message opens a new session); return the conversation audience's recap and the
        released session's entries (None for an empty session).

        The mining of those entries is a separate call (``learn``), made by the caller once its
        writes are done: a release inside a locked retry (``serial``) must not run an extractor
        (possibly an LLM) while it holds the write lock.
        """
        found = self.recaps_of(state)
        if found is None:
            return None
        entries, drafts = found
        return self.add_entries(state, drafts)[-1], entries

    def learn(self, state: ConversationState, entries: list[Entry]) -> None:
        """Mine a released session's ``entries`` into claims (with a learner); a failure is logged
        and never raised (``learn.safely``): the release it follows has committed."""
        learner = self.learner
        if learner is not None:
            safely(lambda: learner.extract(state.scope, state.id, [entries], extra=self.extra), state.id)

    def purge_message(self, state: ConversationState, message_id: str, reason: str) -> None:
        """Erase a message everywhere: its archive row and events, the summaries and recaps that
        may quote it, its memory, the claims mined from it or borrowing a name from it, and the
        memories of the turns whose context quoted it (those are purged and remembered again with
        the message left out of their context)."""
        host, scope = self._host, state.scope
        store = conversation_store(host)
        target = store.conversation_entry(scope, message_id)
        if target is None or target.conversation != state.id or target.kind != "message":
            raise NotFoundError(f"no message {message_id} in conversation {state.id!r} of scope {scope!r}")
        entries = store.conversation_entries(scope, state.id)
        covering = tuple(
            e.id for e in entries if e.covers is not None and e.covers[0] <= target.position <= e.covers[1]
        )
        # Checked against what was read: a turn appended since (its context quoting the message)
        # or another purge would make ``covering`` and the re-written contexts below stale.
        purge = PurgeMessage(scope, state.id, message_id, covering, reason, state.position, state.revision)
        commands: list[cmd.Command] = [purge]
        # Its memory, the claims mined from it, which quote it too (``learn``: ``meta.message_id``),
        # and the later claims that borrowed a name from it (``borrowed``: "She …" → "Zorvina …").
        erased = [*self._items_of(scope, message_id), *self._claims_of(scope, message_id)]
        erased += [c.id for c in borrowers(host.store, scope, entries, target) if c.id not in erased]
        commands += [cmd.Purge(scope, i, reason) for i in erased]
        # The people only it spoke for: their names would outlive it (``forget_people``).
        commands += people_commands(host.store, scope, target, erased, entries, reason)
        texts = [REDACTED]
        for later in _quoting(entries, target):
            for item_id in self._items_of(scope, later.id):
                item = host.store.get(scope, item_id)
                if item is None or not item.is_current:
                    continue
                earlier = [e for e in entries if e.kind == "message" and e.position < later.position]
                earlier = [replace(e, text=REDACTED) if e.id == message_id else e for e in earlier]
                session = [e for e in earlier if _same_session(entries, e, later)]
                window = context_window(later, session, host.limits.max_text_chars)
                if window == item.text:  # its context never quoted the message
                    continue
                # The rewritten memory keeps its audience: without it, purging one message
                # re-wrote a later restricted message's memory visible to everyone.
                commands += rewrite_memory(scope, item, window, item.audience, reason)
                texts.append(window)
        host.run(commands, texts)

    def _claims_of(self, scope: str, message_id: str) -> list[str]:
        """The claims mined from the message, in any status: a forgotten or superseded one still
        quotes it (one already purged is skipped)."""
        where = Q.meta("message_id", message_id) & Q.status(*STATUSES)
        found = self._host.store.query(scope, where, parse_sort(None), limit=1000)
        return [i.id for i in found if i.text != REDACTED]

    def _items_of(self, scope: str, message_id: str) -> list[str]:
        found = self._host.store.query(scope, Q.meta("message", message_id), parse_sort(None), limit=100)
        return [i.id for i in found]


def _quoting(entries: list[Entry], target: Entry) -> list[Entry]:
    """The messages whose recallable text may quote ``target`` in its context: the later ones of its
    session (a context skips the turns its audience may not see, so it may reach past the next two;
    ``purge_message`` re-writes only the texts that change)."""
    later = [e for e in entries if e.kind == "message" and e.position > target.position]
    return [e for e in later if _same_session(entries, target, e)]


def _same_session(entries: list[Entry], a: Entry, b: Entry) -> bool:
    """No recap (a release) lies between ``a`` and ``b``."""
    lo, hi = sorted((a.position, b.position))
    return not any(e.kind == "recap" and lo < e.position < hi for e in entries)


def _message(entry: Entry, item_id: str | None) -> Message:
    if entry.turn is None or entry.role is None:  # pragma: no cover - the reducer numbers every message
        raise InvalidInputError("a stored message lacks its turn or role")
    return Message(
        visibility=entry.visibility,
        id=entry.id,
        conversation=entry.conversation,
        position=entry.position,
        turn=entry.turn,
        speaker=entry.speaker,
        role=entry.role,
        text=entry.text,
        at=entry.at,
        meta=entry.meta,
        item_id=item_id,
    )
