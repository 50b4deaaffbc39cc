"""``VisibleStore``: a store as one principal may see it (issue #14.8, "visibility is never relaxed").

Why a wrapper around the whole ``Store`` rather than a ``principal=`` argument on every read:
every capability (recall and its corrective pass, list, get, history, context, contradictions,
the dream pass, conversations, and the wings other engineers add) reads through ``core.store``.
Filtering at this one seam means a read path cannot forget the filter, and a store method this
class does not define is simply absent — a new read added to a backend fails loudly for a
restricted principal (``AttributeError``) instead of leaking. This is the one marked point where
visibility is enforced; ``model.visibility`` holds the rules.

What a principal may not see is *hidden*: an item whose visibility is non-empty and omits the
principal. Hidden items are found through ``Restricted`` (a SQLite partial index), so the cost
of each read is proportional to the restricted items of the scope, not to the scope. Then:

- items (``get``, ``get_many``, ``query``, ``count``): hidden ones are absent; ``query`` and
  ``count`` push ``VisibleTo`` into the backend, so pages stay exact.
- a visible item that refers to a hidden one (a hidden parent, a hidden id in its ``meta`` or
  ``provenance``) is returned with the reference omitted, and filters on parents or ``meta`` are
  rewritten to agree (``model.conceal`` says exactly what is shown, and why omit, not mark).
  This covers every item a principal's read returns, here or through ``Batch.item``.
- ``lexical`` / ``nearest`` ask the backend for ``limit + hidden`` candidates and drop the
  hidden ones: the visible top-``limit`` is exactly what it would be without them.
- ``vectors`` drops the hidden rows; ``edges`` drops an edge with a hidden end (a conflict with
  an invisible claim is not shown at all); ``tombstones`` drops a hidden item's dismissals.
- ``events`` drops every event that names a hidden item or an edge with a hidden end anywhere
  in its payload (``mentions``) but for the words an item read shows as written and a principal's
  blind quotes (``model.free_text.checked_view``), and never shows ``unseen``; ``summary_counts``
  subtracts the hidden items; ``scopes`` names only the scopes where the principal sees something
  (an item, an intent or task, a conversation).
- conversations: a conversation whose audience omits the principal is absent; an entry (message,
  summary, recap, tool call) whose own audience omits it, or a message whose recallable memory is
  hidden, is left out of every conversation read (archive search included), and the log's events
  carrying or naming such an entry are dropped, as is every event of a hidden conversation.
  Changing a message's audience and purging a message are the owner's (``NotPermittedError``):
  both rewrite what other principals see. A principal opens a new conversation only under its own
  name; any other name it may not see, hidden or free, is the same ``NotFoundError``
  (``model.conversation_names``), as is a hidden conversation a store holds under its own name.
- intents and tasks (``intent``, ``task``, ``intents``, ``tasks``) carry no audience: a principal
  sees every one of its scope, with the hidden claims it names left out of ``memory_ids`` /
  ``inputs`` / ``outputs`` and out of its free text (``model.conceal``); a ``memory`` filter on
  a hidden claim matches nothing. Their events (history, the log, a slice's moves) and the
  records a principal's own move returns are concealed the same way, not dropped.
- writes naming a hidden item or edge are refused with the same ``NotFoundError`` an absent id
  gets (no existence oracle); a restricted visibility the principal writes includes it. Free
  text names nothing (``model.free_text``): a hidden id quoted there is stored as an unknown one
  is, and listed in the command's ``unseen`` (its event's, or its intent's or task's record).
- a tombstone holds only within the audience of the claim it came from: ``Remember``, ``Revise``
  and ``Undismiss`` carry the principal, and the reducer treats a tombstone of a claim it may not
  see as absent (its write is stored as any new text; its ``undismiss`` is ``not_found``).
- operator operations (``doctor``, ``rebuild``, ``reindex``, ``backup``, and ``migrate``'s copy
  of the idempotency keys: a recorded response may quote a hidden claim) and dream-run summaries
  of a scope with hidden items (their counts include them) are refused / withheld.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import numpy as np

from reverie.errors import NotFoundError, NotPermittedError
from reverie.model import commands as cmd
from reverie.model.agenda import (
    AGENDA_COMMANDS,
    AGENDA_EVENT_TYPES,
    CreateIntent,
    CreateTask,
    Intent,
    IntentQuery,
    MoveTask,
    Task,
    TaskQuery,
)
from reverie.model.commands import Command
from reverie.model.conceal import (
    agenda_query_names_hidden,
    agenda_unseen,
    conceal_agenda_payload,
    conceal_edge,
    conceal_filter,
    conceal_intent,
    conceal_item,
    conceal_task,
)
from reverie.model.conversation import (
    ConversationState,
    Entry,
    OpenConversation,
    PurgeMessage,
    RecordEntry,
    SetMessageVisibility,
    conversation_of,
    time_shown,
)
from reverie.model.conversation_names import named_for, not_visible
from reverie.model.cursor import after_id
from reverie.model.events import ALERT_DISMISSED, Event
from reverie.model.free_text import checked_view, free_strings, quoted_ids, references
from reverie.model.item import Edge, Item
from reverie.model.query import Filter, Sort
from reverie.model.visibility import (
    Restricted,
    VisibleTo,
    check_principal,
    first_mention,
    may_see,
    mentions,
    with_writer,
)
from reverie.store.idempotency import Claim, Recorded
from reverie.store.protocol import Batch, DoctorReport, Embed, Lease, Outcome, Step, Store

_BY_ID: Sort = (("id", False),)
#: An agenda command's fields that name records or claims. The reducer resolves them, in its
#: order, with the principal set on the command: a hidden claim there fails exactly as an unknown
#: id does. Refused here first, it failed earlier and worded apart — an existence oracle.
_AGENDA_REFS = ("id", "parent", "intent", "memory_ids", "inputs", "outputs")
_PAGE = 10_000


class VisibleStore:
    """``inner`` as ``principal`` may see it; writes pass through once they name nothing hidden."""

    def __init__(self, inner: Store, principal: str, *, owns: bool = False) -> None:
        self.inner = inner
        self.principal = check_principal(principal)
        #: Whether ``close`` closes ``inner`` (a ``Memory(principal=...)`` owns its file; a view
        #: made by ``Memory.as_principal`` shares its parent's and must leave it open).
        self._owns = owns
        self.read_only = bool(getattr(inner, "read_only", False))

    # -- what is hidden -------------------------------------------------------------------
    def hidden_items(self, scope: str, *, subscopes: bool = False) -> list[Item]:
        """Every item of ``scope`` (open or closed; and of its subscopes if asked) the principal may not see."""
        out: list[Item] = []
        page: list[Item] = []
        while True:
            where = Restricted() & after_id(page)
            page = self.inner.query(scope, where, _BY_ID, limit=_PAGE, subscopes=subscopes)
            out += [i for i in page if not may_see(i.visibility, self.principal)]
            if len(page) < _PAGE:
                return out

    def hidden(self, scope: str, *, subscopes: bool = False) -> set[str]:
        return {i.id for i in self.hidden_items(scope, subscopes=subscopes)}

    def _hidden_refs(self, scope: str, ids: set[str] | None = None) -> set[str]:
        """Hidden item ids and the ids of every edge (open or closed) with a hidden end.

        The edges are read per hidden item, by endpoint (an indexed read in every backend): the
        scope's other edges are never read. Reading every edge of the scope and keeping those
        with a hidden end made each write of a principal grow with all the scope's links
        (``tests/security/test_visibility_edge_reads.py``). The cost left is proportional to the
        hidden items and their own edges, as ``hidden`` itself is.
        """
        ids = self.hidden(scope) if ids is None else ids
        edges: set[str] = set()
        for item_id in sorted(ids):
            edges.update(e.id for e in self.inner.edges(scope, item_id, include_closed=True))
        return ids | edges

    def _visible(self, item: Item | None, scope: str) -> Item | None:
        """``item`` as the principal is shown it, or None if it may not see it at all."""
        if item is None or not may_see(item.visibility, self.principal):
            return None
        return self._shown(scope, [item])[0]

    def _shown(self, scope: str, items: list[Item], hidden: set[str] | None = None) -> list[Item]:
        """``items`` (all visible) with their references to hidden items omitted (``model.conceal``).

        The hidden set is read only when some item could refer to another (parents, meta, a
        provenance ref or locator): a page of plain claims costs no extra read.
        """
        if not any(i.parents or i.meta or i.provenance.ref or i.provenance.locator for i in items):
            return items
        gone = self.hidden(scope) if hidden is None else hidden
        return [conceal_item(i, gone) for i in items]

    def _edges_shown(self, scope: str, found: list[Edge]) -> list[Edge]:
        hidden = self.hidden(scope) if found else set()
        return [conceal_edge(e, hidden) for e in found if e.src not in hidden and e.dst not in hidden]

    # -- writes ---------------------------------------------------------------------------
    def _checked(self, commands: Sequence[Command]) -> list[Command]:
        """``commands`` refused if one names anything hidden; restricted writes include the writer."""
        out: list[Command] = []
        refs: dict[str, set[str]] = {}
        for c in commands:
            scope = str(getattr(c, "scope", ""))
            if scope and scope not in refs:  # once per scope per call (setdefault read it per command)
                refs[scope] = self._hidden_refs(scope)
            hidden = refs.get(scope, set())
            # Free text names nothing: a hidden id quoted there is stored as an unknown one is
            # (``model.free_text``); refusing it was an existence oracle.
            named = references(c)
            if isinstance(c, AGENDA_COMMANDS):
                for field in _AGENDA_REFS:
                    named.pop(field, None)
            blind = tuple(sorted(quoted_ids(*free_strings(c)) & hidden))
            if blind and hasattr(c, "unseen"):  # its words' blind quotes: its readers take them as words
                c = dataclasses.replace(cast(Any, c), unseen=blind)
            if isinstance(c, CreateIntent | CreateTask | MoveTask):
                c = dataclasses.replace(c, principal=self.principal)
            ref = first_mention(named, hidden)
            if ref is not None:
                raise NotFoundError(f"no item {ref} in scope {scope!r}")
            if isinstance(c, PurgeMessage | SetMessageVisibility):
                what = "purging a message" if isinstance(c, PurgeMessage) else "changing a message's visibility"
                raise NotPermittedError(
                    f"{what} rewrites what every principal of the conversation sees; principal "
                    f"{self.principal!r} may not do it: run it without a principal (the store's owner)"
                )
            if isinstance(c, cmd.Remember | cmd.SetVisibility):
                c = dataclasses.replace(c, visibility=with_writer(c.visibility, self.principal))
            if isinstance(c, OpenConversation):
                self._check_open(c)
                c = dataclasses.replace(c, visibility=with_writer(c.visibility, self.principal))
            if isinstance(c, RecordEntry):
                entry = dataclasses.replace(c.entry, visibility=with_writer(c.entry.visibility, self.principal))
                c = dataclasses.replace(c, entry=entry)
            if isinstance(c, cmd.Remember | cmd.Revise | cmd.Undismiss):
                c = dataclasses.replace(c, principal=self.principal)  # tombstones it may not see do not hold
            out.append(c)
        return out

    def _check_open(self, c: OpenConversation) -> None:
        """A principal resumes a conversation of its audience, or opens one under its own name.

        Every other name — a conversation it may not see, or a free name — is the same
        ``not_found``: opening a free name while a hidden one was refused told which names a
        hidden conversation holds (``model.conversation_names`` says why the own name).
        """
        state = self._conversations().conversation_state(c.scope, c.conversation)
        if state is not None and may_see(state.visibility, self.principal):
            return
        # A hidden conversation under the principal's own name (opened before own names were the
        # rule) is refused as any hidden name: resuming it wrote into it, and its refusals named
        # its audience. A writer's open renames it away (``model.legacy_names``); a read-only open
        # does not, and there the open goes on to the store's ``read_only`` refusal, a free own name's.
        mine = named_for(c.conversation) == self.principal
        if not mine or (state is not None and not self.read_only):
            raise NotFoundError(not_visible(c.scope, c.conversation, self.principal))

    def execute(
        self, commands: Sequence[Command], *, now: Any, new_id: Callable[[], str], vectors: Mapping[str, np.ndarray]
    ) -> list[Outcome]:
        outcomes = self.inner.execute(self._checked(commands), now=now, new_id=new_id, vectors=vectors)
        return [self._outcome_shown(o) for o in outcomes]

    def _outcome_shown(self, outcome: Outcome) -> Outcome:
        """A creation's outcome carries the record's whole state, which may name a hidden claim the
        owner linked, and a move's its delta, whose reason may quote one: what the principal's
        ``mem.intents.create(...)`` returns, and any agenda event it is handed, is concealed like a read."""
        if not any(e.type in AGENDA_EVENT_TYPES or "unseen" in e.payload for e in outcome.events):
            return outcome
        hidden: dict[str, set[str]] = {}
        return dataclasses.replace(outcome, events=tuple(self._event_shown(e, hidden) for e in outcome.events))

    def _event_shown(self, event: Event, refs: dict[str, set[str]]) -> Event:
        """An event as shown to the principal: without ``unseen`` (it lists hidden ids), and an
        agenda event with its record concealed (``refs``: hidden refs per scope, read once)."""
        if "unseen" in event.payload:
            event = dataclasses.replace(event, payload={k: v for k, v in event.payload.items() if k != "unseen"})
        if event.type not in AGENDA_EVENT_TYPES:
            return event
        if event.scope not in refs:
            refs[event.scope] = self._hidden_refs(event.scope)
        payload = conceal_agenda_payload(event.payload, refs[event.scope])
        return event if payload is event.payload else dataclasses.replace(event, payload=payload)

    def execute_steps(
        self, steps: Sequence[Step], *, now: Any, new_id: Callable[[], str], vectors: Mapping[str, np.ndarray]
    ) -> list[Any]:
        def guarded(step: Step) -> Step:
            def run(b: Batch) -> Any:
                seen = Batch(
                    run=lambda commands: b.run(self._checked(commands)),
                    item=lambda scope, item_id: self._visible(b.item(scope, item_id), scope),
                )
                return step(seen)

            return run

        return self.inner.execute_steps([guarded(s) for s in steps], now=now, new_id=new_id, vectors=vectors)

    def take_lease(self, scope: str, owner: str, *, now: datetime, expires_at: datetime) -> Lease:
        return self.inner.take_lease(scope, owner, now=now, expires_at=expires_at)

    def release_lease(self, scope: str, owner: str) -> bool:
        return self.inner.release_lease(scope, owner)

    def record_dream_run(self, scope: str, summary: Mapping[str, Any], *, at: datetime) -> None:
        self.inner.record_dream_run(scope, summary, at=at)

    def atomic(self, scope: str, *, wait: bool = True) -> AbstractContextManager[None]:
        """Passed through: the block's writes come back here one by one and are checked then."""
        return self.inner.atomic(scope, wait=wait)

    def read_snapshot(self) -> AbstractContextManager[None]:
        """Passed through: the reads inside come back here one by one and are filtered then."""
        return self.inner.read_snapshot()

    def idempotency(self, scope: str, key: str, *, now: datetime) -> Recorded | None:
        """Passed through: the face puts the principal in the request's fingerprint, so one
        principal's recorded response is never replayed to another."""
        return self.inner.idempotency(scope, key, now=now)

    def record_response(self, scope: str, claim: Claim, *, status: int, body: str, now: datetime) -> Recorded | None:
        return self.inner.record_response(scope, claim, status=status, body=body, now=now)

    def dream_runs(self, scope: str, *, limit: int) -> list[dict[str, Any]]:
        """Withheld when the scope holds hidden items: a summary counts every item the pass saw."""
        return [] if self.hidden(scope) else self.inner.dream_runs(scope, limit=limit)

    # -- item reads -----------------------------------------------------------------------
    def get(self, scope: str, item_id: str) -> Item | None:
        return self._visible(self.inner.get(scope, item_id), scope)

    def get_many(self, scope: str, item_ids: Sequence[str]) -> dict[str, Item]:
        found = [v for v in self.inner.get_many(scope, item_ids).values() if may_see(v.visibility, self.principal)]
        return {v.id: v for v in self._shown(scope, found)}

    def query(
        self, scope: str, where: Filter, sort: Sort, *, limit: int, offset: int = 0, subscopes: bool = False
    ) -> list[Item]:
        """``VisibleTo`` and the concealed filter are pushed into the backend, so pages stay exact.

        With ``subscopes`` the hidden set spans them all (ids are unique, so one set serves each).
        """
        hidden = self.hidden(scope, subscopes=subscopes)
        mine = conceal_filter(where, hidden) & VisibleTo(self.principal)
        found = self.inner.query(scope, mine, sort, limit=limit, offset=offset, subscopes=subscopes)
        return self._shown(scope, found, hidden)

    def count(self, scope: str, where: Filter) -> int:
        return self.inner.count(scope, conceal_filter(where, self.hidden(scope)) & VisibleTo(self.principal))

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]:
        return self._edges_shown(scope, self.inner.edges(scope, item_id, include_closed=include_closed))

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        return self._edges_shown(scope, self.inner.edges_by_type(scope, type, include_closed=include_closed))

    def events(self, scope: str, *, item_id: str | None = None, after_seq: int = 0, limit: int = 1000) -> list[Event]:
        """The log without the events that name anything hidden, still ``limit`` long when it can be.

        An ``alert.dismissed`` event is left out while the scope holds claims hidden from the
        principal, as the alerts themselves are (``dream_runs``): it names no claim, but the alert
        it dismisses may be built from hidden ones, and its kind, evidence fingerprint and the
        owner's reason would say that they exist.
        """
        hidden = self.hidden(scope)
        entries, conversations = self._hidden_in_conversations(scope)
        refs = self._hidden_refs(scope, hidden) | entries
        withheld = {ALERT_DISMISSED} if hidden else set()
        by_scope = {scope: refs}
        out: list[Event] = []
        after = after_seq
        while len(out) < limit:
            batch = self.inner.events(scope, item_id=item_id, after_seq=after, limit=limit)
            # An intent's or task's event is concealed, not dropped (its record is shown to
            # everyone in the scope); one still naming something hidden after that is dropped.
            shown = ((e, self._event_shown(e, by_scope)) for e in batch)
            # A hidden conversation's events are left out whole: ``conversation.opened`` names no
            # entry, yet says the conversation's name, when it was opened and its audience.
            out += [
                s
                for e, s in shown
                if e.type not in withheld
                and conversation_of(e) not in conversations
                and not self._names_hidden(e, s, refs)
            ]
            if len(batch) < limit:
                break
            after = batch[-1].seq
        return out[:limit]

    @staticmethod
    def _names_hidden(raw: Event, shown: Event, refs: set[str]) -> bool:
        """Whether an event is left out of the principal's log: it names something hidden.

        An agenda event is checked as concealed (its record is shown), less its principal-written
        blind quotes; any other as ``model.free_text.checked_view`` says (an item's words and a
        principal's blind quotes are words, not mentions).
        """
        if raw.type in AGENDA_EVENT_TYPES:
            return mentions(shown.payload, refs - agenda_unseen(raw.payload))
        return mentions(checked_view(raw.payload), refs)

    def paused(self, scope: str) -> bool:
        return self.inner.paused(scope)

    def tombstones(self, scope: str) -> list[tuple[str, str]]:
        hidden = self.hidden(scope)
        return [(fp, by) for fp, by in self.inner.tombstones(scope) if by not in hidden]

    def lexical(self, scope: str, match: str, *, limit: int, current_only: bool = True) -> list[tuple[str, float]]:
        hidden = self.hidden(scope)
        found = self.inner.lexical(scope, match, limit=limit + len(hidden), current_only=current_only)
        return [(i, s) for i, s in found if i not in hidden][:limit]

    def nearest(self, scope: str, query: np.ndarray, *, limit: int) -> list[str] | None:
        near = getattr(self.inner, "nearest", None)
        if near is None:
            return None  # the engine scans ``vectors`` exactly, which this class filters
        hidden = self.hidden(scope)
        found: list[str] | None = near(scope, query, limit=limit + len(hidden))
        return None if found is None else [i for i in found if i not in hidden][:limit]

    def vectors(self, scope: str, *, current_only: bool = True) -> tuple[list[str], np.ndarray]:
        ids, mat = self.inner.vectors(scope, current_only=current_only)
        hidden = self.hidden(scope)
        if not hidden:
            return ids, mat
        keep = [n for n, i in enumerate(ids) if i not in hidden]
        return [ids[n] for n in keep], mat[keep]

    def summary_counts(self, scope: str) -> dict[str, dict[str, int]]:
        counts = {k: dict(v) for k, v in self.inner.summary_counts(scope).items()}
        for item in self.hidden_items(scope):
            fields = ("tier", "kind", "source", "status") if item.is_current else ("status",)
            for name in fields:
                by = counts.setdefault(name, {})
                key = getattr(item, name)
                by[key] = by.get(key, 0) - 1
                if by[key] <= 0:
                    del by[key]
        return counts

    def scopes(self) -> list[str]:
        """The scopes where this principal sees some content: an item of its audience, an intent or
        task (they carry no audience: everyone in the scope sees them), or a conversation of its
        audience. A scope holding only what it may not see stays unnamed, as its items do."""
        return [s for s in self.inner.scopes() if self._sees_content(s)]

    def _sees_content(self, scope: str) -> bool:
        """Cheapest first: a visible item is one indexed count; the other reads stop at one record."""
        if self.inner.count(scope, VisibleTo(self.principal)) > 0:
            return True
        agenda = self._agenda()
        if agenda.intents(scope, IntentQuery(), limit=1) or agenda.tasks(scope, TaskQuery(), limit=1):
            return True
        return any(may_see(c.visibility, self.principal) for c in self._conversations().conversations(scope))

    # -- intents and tasks (scope-wide: a record carries no visibility; the claims it names may) --
    def _agenda(self) -> Any:
        return self.inner  # every backend keeps them (``memory.agenda_common.AgendaStore``)

    def intent(self, scope: str, intent_id: str) -> Intent | None:
        found: Intent | None = self._agenda().intent(scope, intent_id)
        return None if found is None else conceal_intent(found, self.hidden(scope))

    def task(self, scope: str, task_id: str) -> Task | None:
        found: Task | None = self._agenda().task(scope, task_id)
        return None if found is None else conceal_task(found, self.hidden(scope))

    def intents(self, scope: str, where: IntentQuery, *, limit: int) -> list[Intent]:
        """Every record is shown (none is hidden), so a page stays exactly ``limit`` long."""
        hidden = self.hidden(scope)
        if agenda_query_names_hidden(where, hidden):
            return []
        return [conceal_intent(i, hidden) for i in self._agenda().intents(scope, where, limit=limit)]

    def tasks(self, scope: str, where: TaskQuery, *, limit: int) -> list[Task]:
        hidden = self.hidden(scope)
        if agenda_query_names_hidden(where, hidden):
            return []
        return [conceal_task(t, hidden) for t in self._agenda().tasks(scope, where, limit=limit)]

    # -- conversations: an entry carries its own audience; a message's memory may hide it too --
    def _conversations(self) -> Any:
        return self.inner

    def _hidden_messages(self, scope: str) -> set[str]:
        return {str(i.meta["message"]) for i in self.hidden_items(scope) if "message" in i.meta}

    def _sees(self, entry: Entry, hidden: set[str]) -> bool:
        return may_see(entry.visibility, self.principal) and entry.id not in hidden

    def _entries(self, scope: str, entries: list[Entry]) -> list[Entry]:
        hidden = self._hidden_messages(scope)
        return [e for e in entries if self._sees(e, hidden)]

    def _hidden_entries(self, scope: str) -> set[str]:
        """Every entry of ``scope`` the principal may not see (for the log and the archive search)."""
        return self._hidden_in_conversations(scope)[0]

    def _hidden_in_conversations(self, scope: str) -> tuple[set[str], set[str]]:
        """The entries of ``scope`` the principal may not see, and the conversations it may not see.

        Read conversation by conversation: the cost grows with the scope's entries, paid only by
        the two reads that cannot ask per conversation.
        """
        inner = self._conversations()
        out = self._hidden_messages(scope)
        names: set[str] = set()
        for state in inner.conversations(scope):
            whole = not may_see(state.visibility, self.principal)
            if whole:
                names.add(state.id)
            for e in inner.conversation_entries(scope, state.id):
                if whole or not may_see(e.visibility, self.principal):
                    out.add(e.id)
        return out, names

    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None:
        state: ConversationState | None = self._conversations().conversation_state(scope, conversation)
        return state if state is not None and may_see(state.visibility, self.principal) else None

    def conversation_entry(self, scope: str, entry_id: str) -> Entry | None:
        entry: Entry | None = self._conversations().conversation_entry(scope, entry_id)
        if entry is None or self.conversation_state(scope, entry.conversation) is None:
            return None
        return entry if self._sees(entry, self._hidden_messages(scope)) else None

    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[Entry]:
        if self.conversation_state(scope, conversation) is None:
            return []
        found = self._conversations().conversation_entries(
            scope, conversation, after_position=after_position, kinds=kinds
        )
        return self._entries(scope, list(found))

    def conversations(self, scope: str) -> list[ConversationState]:
        """The conversations of the principal's audience, their times as its messages show them."""
        found = self._conversations().conversations(scope)
        return [self.shown_state(s) for s in found if may_see(s.visibility, self.principal)]

    def shown_state(self, state: ConversationState) -> ConversationState:
        """``state`` as the principal is shown it: ``last_at`` / ``active_at`` over the messages and
        tool calls it may see (``model.conversation.time_shown``); ``state`` itself if it sees them all.

        ``conversation_state`` stays the whole conversation's: the writers read it to keep every
        message in time order and to tell an idle session, for every reader alike.
        """
        inner = self._conversations()
        timed = inner.conversation_entries(state.scope, state.id, kinds=("message", "tool_call"))
        hidden = self._hidden_messages(state.scope) if timed else set()
        seen = [e for e in timed if self._sees(e, hidden)]
        return state if len(seen) == len(timed) else time_shown(state, seen)

    def conversation_speakers(self, scope: str) -> list[str]:
        """Passed through: recall only matches these names against the question's words, never
        shows them (filtering would read every entry of the scope on every recall)."""
        return list(self._conversations().conversation_speakers(scope))

    def archive_search(self, scope: str, query: str, *, conversation: str | None, limit: int) -> list[Entry]:
        hidden = self._hidden_entries(scope)
        found = self._conversations().archive_search(scope, query, conversation=conversation, limit=limit + len(hidden))
        return [e for e in found if e.id not in hidden][:limit]

    # -- index upkeep and operator operations ---------------------------------------------
    def warm(self, scope: str) -> bool:
        return self.inner.warm(scope)

    def embedder(self) -> tuple[str, int] | None:
        return self.inner.embedder()

    def set_embedder(self, name: str, dim: int) -> None:
        self.inner.set_embedder(name, dim)

    def _operator(self, what: str) -> NotPermittedError:
        return NotPermittedError(
            f"{what} is an operator operation over every item of the store; principal {self.principal!r} "
            "may see only part of it: run it without a principal (the store's owner)"
        )

    def reindex(self, embed: Embed, *, batch: int = 256, progress: Callable[[int, int], None] | None = None) -> int:
        raise self._operator("reindex")

    def doctor(self) -> DoctorReport:
        raise self._operator("doctor")

    def rebuild(self, embed: Embed) -> None:
        raise self._operator("rebuild")

    def backup(self, target: str | Path) -> None:
        raise self._operator("backup")

    def idempotency_rows(self, scope: str, *, now: datetime) -> list[Recorded]:
        raise self._operator("copying the idempotency keys (migrate)")

    def put_idempotency(self, scope: str, rows: Sequence[Recorded]) -> int:
        raise self._operator("copying the idempotency keys (migrate)")

    def in_atomic(self) -> bool:
        return self.inner.in_atomic()

    def close(self) -> None:
        if self._owns:
            self.inner.close()


def principal_of(store: object) -> str | None:
    """The principal a store reads for (None: the owner's unfiltered store)."""
    return store.principal if isinstance(store, VisibleStore) else None


def shown_conversation_state(store: object, state: ConversationState) -> ConversationState:
    """``state`` as the reader of ``store`` is shown it (the owner: as stored)."""
    return store.shown_state(state) if isinstance(store, VisibleStore) else state


def unwrapped(store: Store) -> Store:
    """The backend under any ``VisibleStore`` (a view of a view filters for the newest principal only)."""
    return store.inner if isinstance(store, VisibleStore) else store


__all__ = ["VisibleStore", "principal_of", "shown_conversation_state", "unwrapped"]
