"""``Conversation``: one open conversation, the object ``mem.conversation(id, scope=...)`` returns.

It holds only its scope, id and settings; every call reads the conversation's state from the
store, so two handles (or two processes) on one conversation stay consistent, and an idle
conversation is released by whichever call notices first. Every write is a read-check-write run
through ``serial.serialised``: if another handle or process wrote in between, it runs again
under the store's write lock, so concurrent calls all land, in commit order, never as a
``version_conflict``. A session released on the way is mined only after that, outside the lock.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from reverie.conversation import checks
from reverie.conversation.audience import message_audience
from reverie.conversation.history import history as build_history
from reverie.conversation.host import ConversationHost, conversation_store
from reverie.conversation.learn import ExtractionReport, Learner, Proposer, sessions_of
from reverie.conversation.people.asked_in import AskedIn
from reverie.conversation.people.asker import Recall, first_person_query
from reverie.conversation.restrict import restrict_message
from reverie.conversation.serial import serialised
from reverie.conversation.writer import Message, Summariser, Writer, is_idle
from reverie.errors import InvalidInputError
from reverie.model.conversation import ConversationState, Entry
from reverie.model.validate import check_id, check_reason
from reverie.store.visible import principal_of, shown_conversation_state

#: Sessions released by a call (the state released and its entries), to mine once the call's
#: writes are done: the release commits first, the mining follows outside any lock.
Released = list[tuple[ConversationState, list[Entry]]]


@dataclass(frozen=True, slots=True)
class Closed:
    """What ``close()`` did: the recap it wrote (None if the session was released already) and
    what the extraction into long-term memory wrote and skipped."""

    recap: Entry | None
    extraction: ExtractionReport


class Conversation:
    """Append messages and tool-call records; read the history the model should see, or the whole archive."""

    def __init__(
        self,
        host: ConversationHost,
        scope: str,
        conversation: str,
        *,
        idle_after: timedelta,
        history_chars: int,
        learner: Learner | None = None,
        extractor: Proposer | None = None,
        recall: Recall | None = None,
        summariser: Summariser | None = None,
        open_on_add: bool = False,
        visibility: tuple[str, ...] = (),
    ) -> None:
        self._host = host
        self._visibility = visibility
        self._open_on_add = open_on_add
        self._writer = Writer(host, learner, (extractor,) if extractor is not None else (), summariser)
        self._recall = recall
        self.scope = scope
        self.id = conversation
        self.idle_after = idle_after
        self.history_chars = history_chars

    def __repr__(self) -> str:
        return f"Conversation({self.id!r}, scope={self.scope!r})"

    def state(self) -> ConversationState:
        """Where the conversation stands (position, turn, session, released), releasing it first if idle
        (on a read-only store nothing is written: an idle one is shown released)."""
        return shown_conversation_state(self._host.store, self._current())

    def add(
        self,
        text: str,
        *,
        speaker: str | None = None,
        role: str = "user",
        at: datetime | None = None,
        meta: Mapping[str, Any] | None = None,
        visibility: Sequence[str] | None = None,
    ) -> Message:
        """Append a message and return it (``id``, ``position``, ``turn``, ``item_id`` of its memory).

        The message is kept word for word in the archive and also remembered as a recallable
        memory (its date, words and the previous turns of the session as context; ``author`` =
        ``speaker``; ``meta`` = your ``meta`` plus ``conversation``, ``message``, ``turn``,
        ``session``, ``role``, ``speaker``), in one transaction. ``at`` (default: now) may not be
        before the previous message, nor more than ``Limits.max_clock_skew_seconds`` (300 s by default)
        after the clock's now (``InvalidInputError``: a future time would hold the time order
        there; see ``purge`` for one stored before). A message arriving after an idle gap first releases the
        session (a recap is written) and opens the next one. ``visibility``: who may see the
        message (None: the conversation's audience); it may narrow the conversation's audience,
        never widen it (``InvalidInputError``). Its memory, the claims extracted from it, and every
        context, recap and summary quoting it are shown only to whom may see it.

        Appends from several processes at once all land, each once, numbered in the order they
        commit; each memory quotes the turns committed before it (``serial``).
        """
        limits = self._host.limits
        body = checks.check_message_text(text, limits)
        who = checks.check_name(speaker, "speaker") if speaker is not None else None
        role_ = checks.check_role(role)
        extra = checks.check_message_meta(meta, limits)
        given = checks.check_at(at, self._host.clock.now(), limits) if at is not None else None
        released: Released = []

        def attempt() -> Message:
            state, audience = self._state_for_add(visibility, self._host.clock.now())
            # "now" is read after the state: under the lock (a retry) no message committed since
            # can carry a later time than a default ``at``.
            now = self._host.clock.now()
            when = now if given is None else given
            if state.last_at is not None and when < state.last_at:
                raise InvalidInputError(self._out_of_order(state, when, now))
            state = self._release_if_idle(state, now, released, when)
            return self._writer.add_message(
                state, body, speaker=who, role=role_, at=when, meta=extra, visibility=audience
            )

        try:
            return serialised(self._host, self.scope, attempt)
        finally:
            self._learn(released)

    def _out_of_order(self, state: ConversationState, when: datetime, now: datetime) -> str:
        """Why a message at ``when`` is refused: it is before the conversation's latest message.

        The bound is the whole conversation's, for every reader: a message a principal may not see
        still orders the ones after it (a later message placed before it would put positions and
        times at odds for everyone who sees both, and its recaps and idle gaps with them). But a
        principal is told only the date of a message it may see: when the one in the way is not
        among them, the refusal says so and names no date (its time is part of the message).
        """
        shown = shown_conversation_state(self._host.store, state)
        hint = self._future_hint(state, now)
        if shown.last_at is not None and when < shown.last_at:
            return (
                f"message time {when.isoformat()} is before the previous message of conversation {self.id!r} "
                f"({shown.last_at.isoformat()}); messages are appended in time order{hint}"
            )
        return (
            f"message time {when.isoformat()} is before a later message of conversation {self.id!r} that you "
            f"may not see; messages are appended in time order for every reader{hint or self._ask_owner}"
        )

    _ask_owner = ": add it at a later time, or ask the store's owner"

    def _future_hint(self, state: ConversationState, now: datetime) -> str:
        """How to get unstuck when the previous message is dated beyond the clock (stored before
        ``checks.check_at`` refused such times, or under a clock that was wrong): purge it.

        The ids are read through the host's store, so a principal (``store.visible``) is shown
        only the messages it may see; and as no principal may purge, it is told who can."""
        skew = timedelta(seconds=self._host.limits.max_clock_skew_seconds)
        if state.last_at is None or state.last_at <= now + skew:
            return ""
        found = conversation_store(self._host).conversation_entries(self.scope, self.id, kinds=("message",))
        ahead = ", ".join(e.id for e in found if e.at > now + skew and not e.meta.get("purged"))
        wrong = f"; the clock's now is {now.isoformat()}, so that time is wrong: "
        again = "the conversation takes messages at real times again"
        if principal_of(self._host.store) is None:
            return f"{wrong}purge the message(s) dated after it ({ahead}) with Conversation.purge and {again}"
        among = f" (among them {ahead})" if ahead else ""
        return (
            f"{wrong}ask the store's owner to purge the message(s) dated after it{among}, as a principal may not; "
            f"then {again}"
        )

    def _state_for_add(
        self, visibility: Sequence[str] | None, now: datetime
    ) -> tuple[ConversationState, tuple[str, ...]]:
        """The state to append to and the message's audience; with ``open_on_add``, the
        conversation is opened here, after the message passed its checks (so a refused first
        message, a widening audience included, leaves no empty conversation)."""
        if self._open_on_add and conversation_store(self._host).conversation_state(self.scope, self.id) is None:
            unopened = ConversationState(self.scope, self.id, opened_at=now, visibility=self._visibility)
            audience = message_audience(visibility, unopened)
            return self._writer.open(self.scope, self.id, self._visibility), audience
        state = self._writer.state(self.scope, self.id)
        return state, message_audience(visibility, state)

    def set_visibility(self, message_id: str, visibility: Sequence[str] | None, *, reason: str = "") -> Entry:
        """Give one message a new audience (None: the conversation's) and return it.

        It may narrow the conversation's audience, never widen it (``InvalidInputError``). In one
        transaction, with one ``conversation.visibility_set`` event, everything quoting the message
        follows: its memory, the next turns' memories (re-written with it left out of their
        context where their audience may not see it), the recaps and history summaries made for
        an audience that no longer may (narrowed), and the claims extracted from it or borrowing
        a name from it (narrowed to whom may see it, or purged when no one of theirs may). Only the
        store's owner may do it (a principal: ``NotPermittedError``). Like ``purge`` it moves the
        conversation's revision, so an ``add`` racing it never quotes the message to whom it was
        taken from (``serial``).
        """
        message, why = check_id(message_id, "message id"), check_reason(reason)

        def attempt() -> Entry:
            state = self._writer.state(self.scope, self.id)
            return restrict_message(self._writer, state, message, message_audience(visibility, state), why)

        return serialised(self._host, self.scope, attempt)

    def tool_call(
        self, name: str, *, args: Mapping[str, Any] | None = None, status: str = "ok", detail: str = ""
    ) -> Entry:
        """Record that tool ``name`` ran with ``args`` and how it went (``status``, a short ``detail``).

        Never what it returned: a record is evidence that something was done, and a tool's output
        is data from outside that belongs in the memory only as claims someone chose to keep.
        ``args`` are bounded (``checks.MAX_TOOL_ARGS_BYTES``).
        """
        limits = self._host.limits
        tool = checks.check_name(name, "tool name")
        meta = {"args": checks.check_tool_args(args, limits), "status": checks.check_status(status)}
        meta["detail"] = checks.check_detail(detail)
        released: Released = []

        def attempt() -> Entry:
            state = self._writer.state(self.scope, self.id)
            now = self._host.clock.now()
            state = self._release_if_idle(state, now, released)
            return self._writer.add_entry(state, "tool_call", tool, now, meta)

        try:
            return serialised(self._host, self.scope, attempt)
        finally:
            self._learn(released)

    def history(self) -> builtins.list[Entry]:
        """What the model should see: the current session's messages and tool calls, oldest first,
        with everything beyond the newest ``history_chars`` characters folded into one summary
        entry (``kind="summary"``) at the front. Empty once the conversation is released. On a
        read-only store a summary that is due is shown, not written (its ``id`` is empty)."""
        released: Released = []

        def attempt() -> builtins.list[Entry]:  # a summary written here is appended like any entry
            state = self._current_state(released)
            entries = conversation_store(self._host).conversation_entries(
                self.scope, self.id, after_position=state.session_start - 1
            )
            return build_history(self._writer, state, entries, self.history_chars)

        try:
            return serialised(self._host, self.scope, attempt)
        finally:
            self._learn(released)

    def messages(self) -> builtins.list[Entry]:
        """Every message of the conversation, all sessions, word for word from the archive."""
        return conversation_store(self._host).conversation_entries(self.scope, self.id, kinds=("message",))

    def entries(self) -> builtins.list[Entry]:
        """Everything recorded: messages, tool calls, summaries and recaps, in order."""
        return conversation_store(self._host).conversation_entries(self.scope, self.id)

    def release(self) -> Entry | None:
        """Release the current session now (as the idle timeout would): write its recap and return it
        (None if it was released already, by this call's racer too)."""
        released: Released = []
        try:
            return serialised(self._host, self.scope, lambda: self._release_now(released))
        finally:
            self._learn(released)

    def _release_now(self, released: Released) -> Entry | None:
        state = self._writer.state(self.scope, self.id)
        done = self._writer.release_session(state) if not state.released else None
        if done is None:
            return None
        released.append((state, done[1]))
        return done[0]

    def close(self) -> Closed:
        """Close the conversation now: release the session (recap) and mine it into long-term memory.

        The things people said (user messages; never tool output or the assistant's words)
        become claims through ``remember``, each linked to its message and to the people it is
        about (``conversation.learn``). Idempotent: closing again, or after the idle timeout
        already released the session, writes nothing twice. A later message reopens the
        conversation in a new session, as after an idle release.

        Closes racing each other (other processes, or an idle release) write one recap: the
        first to commit returns it, the others ``recap=None``; every message is mined by exactly
        one of them (``learn``: each session's claims are written under the store's write lock,
        after checking which messages are mined), the others count it ``messages_already_mined``.
        """
        recap = serialised(self._host, self.scope, lambda: self._release_now([]))
        return Closed(recap, self.extract())

    def extract(self) -> ExtractionReport:
        """Mine every session of the conversation (messages not mined yet) into claims; see ``close``."""
        learner = self._writer.learner
        if learner is None:
            report = ExtractionReport(self.id)
            report.stopped = "no extractor is configured for this conversation host"
            return report
        sessions = sessions_of(conversation_store(self._host).conversation_entries(self.scope, self.id))
        return learner.extract(self.scope, self.id, sessions, extra=self._writer.extra)

    def recall(self, query: str, *, speaker: str | None = None, **options: Any) -> builtins.list[Any]:
        """``mem.recall`` as asked by someone in this conversation: "my" / "I" / "me" in ``query``
        are ``speaker`` (default: the speaker of the latest user message), so "where does my
        sister live?" asked by Alice finds the claims about Alice's sister. A name several people
        share ("where does Dana work?" with two Danas known) prefers the one this conversation or
        its speaker spoke of (``people.asked_in``). Other ``options`` are ``mem.recall``'s."""
        if self._recall is None:
            raise InvalidInputError("this conversation host has no recall; use Memory.conversation")
        who = checks.check_name(speaker, "speaker") if speaker is not None else self._asker()
        text = first_person_query(query, who) if who else query
        return self._recall(text, scope=self.scope, asked_in=AskedIn(self.id, who), **options)

    def _asker(self) -> str | None:
        for e in reversed(self.messages()):
            if e.role == "user" and e.speaker:
                return e.speaker
        return None

    def purge(self, message_id: str, *, reason: str = "") -> None:
        """Erase one message everywhere it is stored (archive, log, summaries and recaps quoting it,
        its memory and the context of the turns after it); the file is then scrubbed as by a purge.

        Its time goes with it: the next message need only follow the latest message left, so
        purging a message dated in the future (a wrong clock) lets the conversation go on.

        An ``add`` racing it (another handle or process) either committed first, and its memory is
        re-written here, or commits after, quoting the turns as the purge left them: the purge
        moves the conversation's revision, so an add that read before it reads again."""
        message, why = check_id(message_id, "message id"), check_reason(reason)

        def attempt() -> None:
            self._writer.purge_message(self._writer.state(self.scope, self.id), message, why)

        serialised(self._host, self.scope, attempt)

    def _current(self) -> ConversationState:
        released: Released = []
        try:
            return serialised(self._host, self.scope, lambda: self._current_state(released))
        finally:
            self._learn(released)

    def _current_state(self, released: Released) -> ConversationState:
        state = self._writer.state(self.scope, self.id)
        return self._release_if_idle(state, self._host.clock.now(), released)

    def _release_if_idle(
        self, state: ConversationState, now: datetime, released: Released, at: datetime | None = None
    ) -> ConversationState:
        """The state to write after, releasing the session first if it went idle (the released
        session joins ``released``, to be mined by ``_learn`` once the call's writes are done)."""
        if is_idle(state, now, self.idle_after, at):
            if self._writer.read_only:  # nothing is written: the state is shown as the release would leave it
                return replace(state, released=True)
            done = self._writer.release_session(state)
            if done is not None:
                released.append((state, done[1]))
            return self._writer.state(self.scope, self.id)
        return state

    def _learn(self, released: Released) -> None:
        for state, entries in released:
            self._writer.learn(state, entries)
