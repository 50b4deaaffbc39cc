"""The conversation capability of the facade: open a conversation, search the archive, read a recap.

``Memory`` builds one ``Conversations`` from its ``Core`` (which satisfies ``ConversationHost``)
and delegates ``conversation``, ``archive_search`` and ``recap`` to it.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from reverie.conversation import checks
from reverie.conversation.audience import best_for
from reverie.conversation.handle import Conversation
from reverie.conversation.history import DEFAULT_HISTORY_CHARS
from reverie.conversation.host import ConversationHost, conversation_store
from reverie.conversation.learn import Learner, Proposer
from reverie.conversation.people.asker import Recall
from reverie.conversation.serial import serialised
from reverie.conversation.writer import Summariser, Writer, is_idle
from reverie.errors import InvalidInputError, LimitExceededError
from reverie.model.conversation import ConversationState, Entry, quote_pattern, quote_span
from reverie.model.validate import check_count, check_text
from reverie.model.visibility import check_visibility
from reverie.store.visible import principal_of

#: A conversation idle this long is released and recapped.
DEFAULT_IDLE = timedelta(minutes=30)


@dataclass(frozen=True, slots=True)
class ArchiveHit:
    """One message quoting the query: who said it, when, and where in its text (``span``: [start, end))."""

    message_id: str
    conversation: str
    speaker: str | None
    role: str | None
    at: datetime
    text: str
    span: tuple[int, int]

    @property
    def quote(self) -> str:
        """The matched words as the message wrote them."""
        return self.text[self.span[0] : self.span[1]]


@dataclass(frozen=True, slots=True)
class Recap:
    """The recap written when a conversation's session was released.

    ``written`` is False for a recap computed, not stored: on a read-only store an idle session
    cannot be released, so ``recap`` shows what its release would write (the same text), and a
    writable open writes it on the next call that notices the idle time.
    """

    conversation: str
    session: int
    text: str
    at: datetime
    messages: int
    written: bool = True


class Conversations:
    """``conversation``, ``archive_search`` and ``recap`` over one ``ConversationHost``."""

    def __init__(self, host: ConversationHost, *, learner: Learner | None = None, recall: Recall | None = None) -> None:
        self._host = host
        self._learner = learner
        self._recall = recall
        self._writer = Writer(host, learner)

    def conversation(
        self,
        conversation_id: str,
        *,
        scope: str,
        idle_after: timedelta = DEFAULT_IDLE,
        history_chars: int = DEFAULT_HISTORY_CHARS,
        extractor: Proposer | None = None,
        summariser: Summariser | None = None,
        create: bool = True,
        open_on_add: bool = False,
        visibility: Sequence[str] | None = None,
    ) -> Conversation:
        """Open (or resume) conversation ``conversation_id`` in ``scope`` and return its handle.

        ``idle_after`` (default 30 minutes): a session quiet this long, on the clock or in the
        messages' own times, is released and recapped. ``history_chars`` (default 60,000): how
        much verbatim text ``history()`` keeps before folding older entries into a summary.
        ``extractor``: proposals on top of the rules when the conversation is closed (e.g. an
        ``llm.ChatExtractor``); the rules still decide what is written. ``summariser``: writes the
        history summaries and recaps of this handle (e.g. ``llm.ChatSummariser``) when its summary
        passes its checks; else the extractive summary is kept. ``create=False``: resume only,
        ``NotFoundError`` if the scope has no such conversation (the faces' reads use it, so a
        typo in an id is an error, not a new empty conversation). ``open_on_add=True``: open a new
        conversation only with its first accepted message, so a refused first message leaves
        nothing behind (the faces' ``add``); until then the handle's reads are ``NotFoundError``.
        ``visibility``: who may see the conversation (None: everyone in the scope), set when it is
        opened; each message may narrow it (``Conversation.add(visibility=...)``). Given for an
        existing conversation it must be the audience it was opened with (``InvalidInputError``).
        """
        s = self._host.scope(scope)
        cid = checks.check_name(conversation_id, "conversation id")
        if not isinstance(idle_after, timedelta) or idle_after <= timedelta(0):
            raise InvalidInputError(f"idle_after must be a positive timedelta, got {idle_after!r}")
        if isinstance(history_chars, bool) or not isinstance(history_chars, int) or history_chars < 100:
            raise InvalidInputError(f"history_chars must be an int of at least 100, got {history_chars!r}")
        audience = check_visibility(visibility)
        existing = conversation_store(self._host).conversation_state(s, cid)
        if existing is not None and visibility is not None and existing.visibility != audience:
            raise InvalidInputError(
                f"conversation {cid!r} was opened for {list(existing.visibility) or 'everyone'}, not "
                f"{list(audience)}; a conversation's audience is set when it is opened: leave visibility out, "
                "or narrow single messages with add(visibility=...) / set_visibility(message_id, ...)"
            )
        if open_on_add:
            pass  # Conversation.add opens it once the message passed its checks
        elif create and existing is None:
            # Only a new conversation is written: resuming one records nothing, so it must not need
            # a writable store (finding 15: a read-only Memory could not read any conversation).
            self._writer.open(s, cid, audience)
        else:
            self._writer.state(s, cid)
        if extractor is not None and not callable(getattr(extractor, "propose", None)):
            raise InvalidInputError("extractor must have a propose(messages) method (e.g. llm.ChatExtractor)")
        if summariser is not None and not callable(getattr(summariser, "summarise", None)):
            raise InvalidInputError(
                "summariser must have a summarise(entries, budget) method (e.g. llm.ChatSummariser)"
            )
        return Conversation(
            self._host,
            s,
            cid,
            idle_after=idle_after,
            history_chars=history_chars,
            learner=self._learner,
            extractor=extractor,
            recall=self._recall,
            summariser=summariser,
            open_on_add=open_on_add,
            visibility=audience,
        )

    def conversations(self, *, scope: str) -> builtins.list[ConversationState]:
        """Every conversation of ``scope`` and where it stands, as the store lists them (for the
        faces' listings; nothing is released by listing)."""
        return conversation_store(self._host).conversations(self._host.scope(scope))

    def purge_message_memory(self, scope: str, item_id: str, reason: str) -> bool:
        """If ``item_id`` is a message's memory, purge that message (``Conversation.purge``): True.

        Why: the memory's text is the message, with the turns before it as context. Purging only the
        item (``forget(purge=True)`` on what ``recall`` returned for the message) left the words in
        the archive, the log and the memories of the later turns quoting it (probe 3, finding 1).
        A principal is refused as for ``conv.purge`` (``not_permitted``).
        """
        entry = self.message_of(scope, item_id)
        if entry is None:
            return False
        cid, message = entry.conversation, entry.id

        def attempt() -> None:
            self._writer.purge_message(self._writer.state(scope, cid), message, reason)

        serialised(self._host, scope, attempt)
        return True

    def message_id_of(self, scope: str, item_id: str) -> str | None:
        """The id of the archived message ``item_id`` is the memory of, or None (``message_of``)."""
        entry = self.message_of(scope, item_id)
        return entry.id if entry is not None else None

    def message_of(self, scope: str, item_id: str) -> Entry | None:
        """The archived message ``item_id`` is the memory of, or None (see ``purge_message_memory``).

        A claim that merely names a message in its meta is not its memory: the conversation, the
        turn and the speaker must be the archived message's too. A message the caller (a principal)
        may not see is not looked for: None, as for an item that is no message's memory.
        """
        host = self._host
        item = host.store.get(scope, item_id)
        meta = item.meta if item is not None else {}
        message, cid = meta.get("message"), meta.get("conversation")
        if not isinstance(message, str) or not isinstance(cid, str):
            return None
        entry = conversation_store(host).conversation_entry(scope, message)
        if (
            entry is None
            or entry.kind != "message"
            or (entry.conversation, entry.turn, entry.speaker) != (cid, meta.get("turn"), meta.get("speaker"))
        ):
            return None
        return entry

    def archive_search(
        self, query: str, *, scope: str, conversation: str | None = None, k: int = 10
    ) -> builtins.list[ArchiveHit]:
        """Messages that quote ``query`` word for word (case and punctuation between words aside),
        newest first, each with its conversation, speaker, time and the matched ``span``.

        Unlike ``recall`` this is exact: it answers "where did someone say this?". ``conversation``
        narrows it to one (``NotFoundError`` if the scope has no such conversation).
        """
        host = self._host
        s = host.scope(scope)
        text = check_text(query, host.limits, "query")
        if len(text) > host.limits.max_query_chars:
            raise LimitExceededError(f"query is longer than Limits.max_query_chars ({host.limits.max_query_chars})")
        if quote_pattern(text) is None:
            raise InvalidInputError("query has no words to search for; give the words of the quote")
        n = check_count(k, "k", default=10, limits=host.limits)
        if conversation is not None:
            self._writer.state(s, checks.check_name(conversation, "conversation"))
        found = conversation_store(host).archive_search(s, text, conversation=conversation, limit=2 * n)
        hits = [_hit(e, span) for e in found if (span := quote_span(e.text, text)) is not None]
        return hits[:n]

    def recap(
        self, *, scope: str, conversation: str | None = None, idle_after: timedelta = DEFAULT_IDLE
    ) -> Recap | None:
        """The recap of the last released conversation of ``scope`` (or of ``conversation``), so a
        new conversation can start with it; None if none was released yet.

        Conversations idle for ``idle_after`` are released first, so an agent starting a new chat
        gets the recap of the one that just went quiet. On a read-only store nothing is released:
        an idle session's recap is computed as its release would write it and returned with
        ``written=False`` (the newest, as the written one would be); never a ``ReadOnlyError``.
        """
        host = self._host
        s = host.scope(scope)
        store = conversation_store(host)
        now = host.clock.now()
        states = (
            [self._writer.state(s, checks.check_name(conversation, "conversation"))]
            if conversation is not None
            else store.conversations(s)
        )
        principal = principal_of(host.store)
        drafts: dict[str, Entry] = {}
        for st in states:
            if not is_idle(st, now, idle_after):
                continue
            if host.read_only:
                found = self._writer.recaps_of(st)
                mine = best_for(principal, found[1]) if found is not None else None
                if mine is not None:
                    drafts[st.id] = replace(mine, recorded_at=now)
            else:
                self._release_idle(st, idle_after)
        latest: Entry | None = None
        for st in states:
            last = drafts.get(st.id) or _last_recap(principal, store.conversation_entries(s, st.id, kinds=("recap",)))
            if last is not None and (latest is None or (last.recorded_at or now) > (latest.recorded_at or now)):
                latest = last
        if latest is None:
            return None
        return Recap(
            conversation=latest.conversation,
            session=int(latest.meta.get("session", 1)),
            text=latest.text,
            at=latest.at,
            messages=int(latest.meta.get("messages", 0)),
            written=bool(latest.id),
        )

    def _release_idle(self, seen: ConversationState, idle_after: timedelta) -> None:
        """Release a session seen idle, unless another call or process released it (or added to
        it) since: the state is read again, under the write lock if a racer moved it on
        (``serial``); the released session is mined afterwards, outside the lock."""
        writer, host = self._writer, self._host

        def attempt() -> tuple[ConversationState, builtins.list[Entry]] | None:
            st = writer.state(seen.scope, seen.id)
            if not is_idle(st, host.clock.now(), idle_after):
                return None
            done = writer.release_session(st)
            return (st, done[1]) if done is not None else None

        released = serialised(host, seen.scope, attempt)
        if released is not None:
            writer.learn(*released)


def _last_recap(principal: str | None, recaps: builtins.list[Entry]) -> Entry | None:
    """The reader's recap of the last session that has one it may see (one is written per audience)."""
    if not recaps:
        return None
    session = max(int(e.meta.get("session", 1)) for e in recaps)
    return best_for(principal, [e for e in recaps if int(e.meta.get("session", 1)) == session])


def _hit(e: Entry, span: tuple[int, int]) -> ArchiveHit:
    return ArchiveHit(
        message_id=e.id, conversation=e.conversation, speaker=e.speaker, role=e.role, at=e.at, text=e.text, span=span
    )
