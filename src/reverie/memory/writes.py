"""The write capability: every call that changes what the scope believes.

Each method checks its input at the boundary, turns the call into commands and hands them to
the store through ``Core.run`` (one atomic transaction, acknowledged after it commits). New
claims then go through write-time conflict detection, which runs *after* the commit and can
never make a committed write look failed (``_after_write``).
"""

from __future__ import annotations

import builtins
import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from reverie.conversation.people.follow import follow_people
from reverie.dream.upkeep import IMPORTANCE_STATED, stated_importance
from reverie.errors import InvalidInputError, LimitExceededError
from reverie.memory.candidates import build_remember, check_version
from reverie.memory.contradictions import Contradictions
from reverie.memory.core import CONFLICTS_UNCHECKED, CONFLICTS_UNREAD, Core
from reverie.memory.written import Contradiction, WriteResult
from reverie.model import commands as cmd
from reverie.model.clock import ensure_aware
from reverie.model.item import CANDIDATE_SOURCES, EDGE_TYPES, SYMMETRIC_EDGES, Candidate, Edge, Item, Provenance
from reverie.model.validate import (
    SCORE_NAMES,
    check_id,
    check_key,
    check_meta,
    check_reason,
    check_score,
    check_tags,
    check_text,
    check_value,
    fingerprints,
)
from reverie.model.visibility import check_visibility
from reverie.store.protocol import Outcome

_log = logging.getLogger("reverie")


class Writes:
    """remember (and its manual / system / batch forms), revise, forget, dismiss, link, scores, tiers."""

    def __init__(self, core: Core, conflicts: Contradictions) -> None:
        self._core = core
        self._conflicts = conflicts
        #: Set by the facade to the conversation wing's ``purge_message_memory`` (built after this):
        #: a purge of a message's memory is that message's purge (``forget``).
        self.message_purge: Callable[[str, str, str], bool] | None = None
        #: Set by the facade to the conversation wing's ``message_of``: the archived message an item
        #: is the memory of (its id), which ``revise`` refuses to rewrite.
        self.message_of: Callable[[str, str], str | None] | None = None

    @contextlib.contextmanager
    def atomic(self, *, scope: str) -> Iterator[None]:
        """Make the block's writes land together or not at all: one store transaction.

        Every write inside (any method, any scope) is acknowledged only when the block commits,
        at its end; if the block raises, or the process dies inside it, none of them was
        written. A call refused inside the block raises as usual and leaves nothing of itself,
        so the block may catch it and go on. Reads inside see the block's writes. The block
        holds the write lock throughout (on SQLite the file's, on PostgreSQL ``scope``'s), so
        other writers wait for it: keep it to one job, such as an import (``reverie import``
        replays a file's events in one block). An ``idempotency.claim`` open around the block
        is written by it, so a retried block finds the key and writes nothing. A purge inside
        is scrubbed from a SQLite file once the block commits.
        """
        s = self._core.scope(scope)
        self._core.pending_uses.flush()  # earlier recalls' uses first, and not at the block's mercy
        with self._core.store.atomic(s):
            yield

    def remember(
        self,
        text: str,
        *,
        scope: str,
        kind: str = "observation",
        source: str = "observed",
        key: str | None = None,
        value: str | int | float | None = None,
        author: str | None = None,
        tags: Sequence[str] = (),
        meta: Mapping[str, Any] | None = None,
        parents: Sequence[str] = (),
        provenance: Provenance | Mapping[str, Any] | None = None,
        authority: float | None = None,
        confidence: float | None = None,
        importance: float | None = None,
        durability: float | None = None,
        scores: Mapping[str, float] | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        visibility: Sequence[str] | None = None,
        count_once: bool = False,
    ) -> Item:
        """Remember one claim; an equivalent current claim is corroborated instead of duplicated.

        ``visibility``: only these principals may see it (None: everyone in the scope; an empty list
        is refused; a principal writing a restricted claim is always among them). Only a claim with the same visibility
        is corroborated.

        ``count_once=True``: ``provenance`` (its ``origin`` and ``ref``, which it then needs) names one
        source, such as a note or a file, that counts at most once as evidence for a claim: if it
        made the equivalent claim or already corroborated it, ``evidence_count`` is unchanged (a
        ``memory.restated`` event records the statement) and the claim is returned.

        ``source`` may be ``user_stated``, ``observed`` or ``inferred`` (what an agent or
        extractor can propose). Raises ``DismissedValueError`` for a dismissed value and
        ``LearningPausedError`` while the scope's learning is paused; nothing is stored then.
        Returns the stored (or corroborated) item; ``remember_checked`` also says what it contradicts.
        """
        fields = {k: v for k, v in locals().items() if k not in ("self", "scope")}
        return self._remember_one(fields, scope, CANDIDATE_SOURCES).item

    def remember_checked(
        self,
        text: str,
        *,
        scope: str,
        kind: str = "observation",
        source: str = "observed",
        key: str | None = None,
        value: str | int | float | None = None,
        author: str | None = None,
        tags: Sequence[str] = (),
        meta: Mapping[str, Any] | None = None,
        parents: Sequence[str] = (),
        provenance: Provenance | Mapping[str, Any] | None = None,
        authority: float | None = None,
        confidence: float | None = None,
        importance: float | None = None,
        durability: float | None = None,
        scores: Mapping[str, float] | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        visibility: Sequence[str] | None = None,
        count_once: bool = False,
    ) -> WriteResult:
        """``remember``, returning a ``WriteResult``: the item and the contradictions it created.

        The same arguments, checks and refusals as ``remember``. Why a second method: an agent
        should learn that a claim contradicts another when it writes it, not by polling
        ``contradictions``; and ``remember``'s return type (``Item``) stays as every caller knows it.
        """
        fields = {k: v for k, v in locals().items() if k not in ("self", "scope")}
        return self._remember_one(fields, scope, CANDIDATE_SOURCES)

    def remember_manual(self, /, text: str, *, scope: str, **fields: Any) -> Item:
        """Remember a claim a *person* vouches for: source ``manual``, full authority, never auto-forgotten."""
        fields.setdefault("authority", 1.0)
        return self._remember_one({**fields, "text": text, "source": "manual"}, scope, ("manual",)).item

    def remember_system(self, /, text: str, *, scope: str, **fields: Any) -> Item:
        """Remember a claim reverie itself derived (a dream-pass gist, a system fact): source ``system``."""
        return self._remember_one({**fields, "text": text, "source": "system"}, scope, ("system",)).item

    def remember_many(
        self, candidates: Iterable[Candidate | Mapping[str, Any]], *, scope: str, check_conflicts: bool = True
    ) -> builtins.list[Item]:
        """Remember a batch in one transaction: all are stored, or (on any refusal) none.

        ``check_conflicts=False`` is for items that are not claims (a vault's notes: whole pages,
        not one statement each): they are neither checked at write time nor flagged for the dream
        pass to check. Claims written later are still checked against everything.
        """
        return [r.item for r in self._many(candidates, scope, check_conflicts)]

    def remember_many_checked(
        self, candidates: Iterable[Candidate | Mapping[str, Any]], *, scope: str
    ) -> builtins.list[WriteResult]:
        """``remember_many``, returning one ``WriteResult`` per candidate (in order): the item and the
        contradictions its write created — a batch learns its conflicts as a single write does.

        Detection runs after the commit, item by item in batch order, so a later candidate may
        contradict an earlier one of the same batch (the edge is named on the later one).
        """
        return self._many(candidates, scope, True)

    def _many(
        self, candidates: Iterable[Candidate | Mapping[str, Any]], scope: str, check_conflicts: bool
    ) -> builtins.list[WriteResult]:
        """The batch in one transaction; ``check_conflicts`` as in ``remember_many``."""
        core = self._core
        s = core.scope(scope)
        batch = list(candidates)
        if len(batch) > core.limits.max_batch:
            raise LimitExceededError(f"{len(batch)} items in one batch; the limit is {core.limits.max_batch}")
        commands = [build_remember(c, s, CANDIDATE_SOURCES, core.limits) for c in batch]
        if check_conflicts:
            commands = [self._mark_unchecked(c) for c in commands]
        out = core.run(commands, [c.text for c in commands])
        found = self._after_write(s, out) if check_conflicts else {}
        made = [o for o in out if o.item_id]
        # One read for the batch (a ``get`` per item was ~5 % of a batched write's time).
        items = core.store.get_many(s, [_outcome_id(o) for o in made])
        return [_result(items[_outcome_id(o)], o, found) for o in made]

    def remember_guarded(self, /, text: str, *, scope: str, guard: Callable[[], None], **fields: Any) -> Item:
        """``remember`` with ``guard()`` run under the write lock just before the claim is written
        (``Core.run``): a ``TaskRun`` checks there that its task is still its own, so a claim is
        never tagged with a task another agent finished in between. Refused by ``guard``: nothing
        is written."""
        s = self._core.scope(scope)
        command = build_remember({**fields, "text": text}, s, CANDIDATE_SOURCES, self._core.limits)
        return self._store(s, command, guard=guard).item

    def _remember_one(self, fields: Mapping[str, Any], scope: str, sources: Sequence[str]) -> WriteResult:
        s = self._core.scope(scope)
        return self._store(s, build_remember(fields, s, sources, self._core.limits))

    def store_remember(self, scope: str, command: cmd.Remember) -> Item:
        """Apply one checked ``Remember`` with the write path's upkeep (the marker, detection)."""
        return self._store(scope, command).item

    def _store(self, scope: str, command: cmd.Remember, guard: Callable[[], None] | None = None) -> WriteResult:
        command = self._mark_unchecked(command)
        out = self._core.run([command], [command.text], guard=guard)
        found = self._after_write(scope, out)
        return _result(self._outcome_item(scope, out[0]), out[0], found)

    def remember_held(self, /, text: str, *, scope: str, held: builtins.list[str], **fields: Any) -> Item:
        """``remember`` with write-time detection held back: the ids of the items it created join
        ``held``, for ``detect_held`` once the caller has linked them.

        Why: conversation extraction links each claim to the persons it is about (``about``)
        after ``remember`` returns, and detection leaves claims about two different persons
        uncompared (``people.apart``) — run before the links, it compared "Dana works at Google
        now." of Alice's sister with "Dana works at Acme." of Carl's friend (session 33).
        """
        s = self._core.scope(scope)
        command = self._mark_unchecked(
            build_remember({**fields, "text": text}, s, CANDIDATE_SOURCES, self._core.limits)
        )
        out = self._core.run([command], [command.text])
        held.extend(_created(out))
        return self._outcome_item(s, out[0])

    def detect_held(self, scope: str, held: Sequence[str]) -> None:
        """Write-time detection for the items ``remember_held`` created (as ``remember`` runs it)."""
        self._detect(self._core.scope(scope), builtins.list(held))

    def _mark_unchecked(self, command: cmd.Remember) -> cmd.Remember:
        """With write-time detection off, a new item carries ``CONFLICTS_UNCHECKED`` so the
        dream pass can check exactly the items that missed it (and clear the flag); with a
        second reader that reads while idle, ``CONFLICTS_UNREAD`` likewise."""
        flag = _pending_flag(self._core)
        return command if flag is None else replace(command, flags=(*command.flags, flag))

    def _after_write(self, scope: str, outcomes: Sequence[Outcome]) -> dict[str, builtins.list[Edge]]:
        """Post-commit upkeep on newly created items: conflict detection.

        Returns, for each new item whose detection ran, the ``contradicts`` edges it added (the
        write's result names them: ``WriteResult``); an item whose detection did not run (off, or
        failed) is absent.

        The write has committed before this runs, so no failure here may reach the caller as
        if the write had failed (a retry would store the claim twice, and a ``StorageError``
        saying "nothing was changed" would be false). A failed detection flags the item
        ``conflicts_unchecked`` instead, and the next dream pass runs it (``_defer_detection``).
        """
        return self._detect(scope, _created(outcomes))

    def _detect(self, scope: str, created: Sequence[str]) -> dict[str, builtins.list[Edge]]:
        found: dict[str, builtins.list[Edge]] = {}
        if not self._core.detect_conflicts:
            return found
        aliases: Any = None
        have_aliases = False
        for item_id in created:
            try:
                if not have_aliases:  # once per write, however many items it made (lazily: it may fail)
                    aliases, have_aliases = self._conflicts.alias_lookup(scope), True
                found[item_id] = self._conflicts.detect_after_write(item_id, scope=scope, aliases=aliases)
            except Exception as exc:  # any failure: the write stands (see the docstring)
                self._defer_detection(scope, item_id, exc)
        return found

    def _defer_detection(self, scope: str, item_id: str, exc: BaseException) -> None:
        """Leave a failed write-time detection to the dream pass; never raises.

        If even the flag cannot be written (the store is failing), the failure is logged: the
        claim is stored and a later ``detect_conflicts`` or a pass with ``recheck_days`` finds it.
        """
        why = f"write-time conflict detection failed ({type(exc).__name__}: {exc})"[:500]
        _log.warning(
            "%s for item %s in scope %r; flagged %s for the dream pass", why, item_id, scope, CONFLICTS_UNCHECKED
        )
        try:
            self._core.run([cmd.SetFlags(scope, item_id, (CONFLICTS_UNCHECKED,), (), why)])
        except Exception:  # best effort: the claim itself is committed
            _log.exception("could not flag item %s %s either", item_id, CONFLICTS_UNCHECKED)

    def _outcome_item(self, scope: str, outcome: Outcome, key: str = "item") -> Item:
        item = self._core.store.get(scope, _outcome_id(outcome, key))
        assert item is not None
        return item

    def revise(
        self,
        id: str,
        new_text: str,
        *,
        scope: str,
        reason: str = "",
        key: str | None = None,
        value: str | int | float | None = None,
        expected_version: int | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
    ) -> Item:
        """Replace a claim by a new version, linked to the old one by ``supersedes``.

        Without ``valid_from`` this is a *correction* (we were wrong): the old version is closed
        (no longer believed; ``as_of`` still sees it) and the new one holds over the same valid
        time. With ``valid_from=T`` it is a *change in the world* (it was true until T): the old
        version stays believed with ``valid_to = T``, and the new one is valid from T (until
        ``valid_to``, if given). A correction whose text equals another current claim
        corroborates that claim and returns it, instead of making a twin. Without ``value`` the
        old structured value is kept only if the new text still states it. Returns the new
        version. With ``expected_version`` the revise succeeds only if the item is still at that
        version (optimistic concurrency), else ``VersionConflictError``. The memory of a
        conversation message is the record of what was said and is not revised (``invalid_input``):
        remember the correction instead, or purge the message.
        """
        return self.revise_checked(
            id,
            new_text,
            scope=scope,
            reason=reason,
            key=key,
            value=value,
            expected_version=expected_version,
            valid_from=valid_from,
            valid_to=valid_to,
        ).item

    def revise_checked(
        self,
        id: str,
        new_text: str,
        *,
        scope: str,
        reason: str = "",
        key: str | None = None,
        value: str | int | float | None = None,
        expected_version: int | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
    ) -> WriteResult:
        """``revise``, returning a ``WriteResult``: the new version and the contradictions it created.

        The same arguments, checks and refusals as ``revise`` (see there).
        """
        core = self._core
        s = core.scope(scope)
        text = check_text(new_text, core.limits)
        self._refuse_message_memory(s, check_id(id))
        command = cmd.Revise(
            scope=s,
            id=check_id(id),
            text=text,
            reason=check_reason(reason),
            key=check_key(key, core.limits),
            value=check_value(value, core.limits),
            expected_version=check_version(expected_version),
            valid_from=ensure_aware(valid_from, "valid_from") if valid_from is not None else None,
            valid_to=ensure_aware(valid_to, "valid_to") if valid_to is not None else None,
        )
        flag = _pending_flag(core)
        if flag is not None:  # the new version is a new claim, flagged like a remember
            command = replace(command, flags=(flag,))

        def follow(outcomes: builtins.list[Outcome]) -> None:
            # The new version is linked to the persons its words name in the same transaction
            # (``conversation.people.follow``): "Omar is Bob's manager." corrected to "Priya is …".
            if outcomes[0].item_id is not None:
                follow_people(core, s, outcomes[0].item_id)

        out = core.run([command], [text], after=follow)
        found = self._after_write(s, out)
        for e in out[0].events:
            if e.type == "memory.corroborated":  # corrected into another current claim's words
                return WriteResult(core.must_get(s, str(e.payload["id"])))
        return _result(self._outcome_item(s, out[0]), out[0], found)

    def forget(
        self,
        id: str,
        *,
        scope: str,
        reason: str = "",
        expected_version: int | None = None,
        purge: bool = False,
    ) -> Item:
        """Close the claim's validity now. Nothing is deleted: ``as_of`` and ``history`` still see it.

        ``purge=True`` is the one real deletion (a GDPR erasure, a leaked secret): in one atomic
        write it closes the claim (if still current) and erases the content of *every version*
        of it (its revisions) wherever reverie stored it — the item rows (text, key, value, tags,
        meta become ``"[purged]"`` / empty; id, scope, kind, source, author, provenance, scores
        and times stay), the full-text and vector indexes, every event payload that carried it,
        the queries that retrieved it, the meta of edges touching it, the reasons of operations
        about it (an unlink of its edges, a resolve it took part in included), and its fingerprints
        in tombstones and dismiss / undismiss events (sealed as a digest: a dismissed value stays
        dismissed) — and appends a ``memory.purged`` event (the reason, no content). On SQLite it then rewrites
        the file (``secure_delete``, FTS merge, ``VACUUM``, WAL truncated) so the old bytes are
        gone from disk too; that costs time proportional to the file, so use it for erasure,
        not routine forgetting. Works on an already closed claim. The system's own copies of it
        (a dream gist or other ``source="system"`` item that lists a purged version as a parent
        and quotes its text) are purged with it; items a caller derived from it keep their text
        and are listed in the ``memory.purged`` event's ``kept``: purge those ids too if they
        quote it. The memory of a conversation message (what ``recall`` returns for it) holds the
        message's words, so its purge is the message's purge (``Conversation.purge``: archive,
        log, summaries, later turns' contexts).
        Backups and exports made earlier are outside its reach. Returns the redacted item.
        """
        core = self._core
        s = core.scope(scope)
        if not isinstance(purge, bool):
            raise InvalidInputError(f"purge must be True or False, got {type(purge).__name__}")
        if purge:
            from reverie.model.redact import REDACTED

            erase = cmd.Purge(s, check_id(id), check_reason(reason), check_version(expected_version))
            if self._purged_as_message(erase):
                return core.must_get(s, id)
            command: cmd.Command = erase
            # The redacted versions keep a vector (of the marker) so the history index stays whole.
            core.run([command], [REDACTED])
        else:
            core.run([cmd.Forget(s, check_id(id), check_reason(reason), check_version(expected_version))])
        return core.must_get(s, id)

    def _refuse_message_memory(self, scope: str, item_id: str) -> None:
        """Refuse to revise the memory of a conversation message (outside probe 4, finding 14).

        Why: its text is the message's words (``meta.speaker``, ``meta.message`` name who said it
        and where), and recall quotes it; a revision made recall quote words never said, while the
        archive kept what was. Its purge is the message's purge; a correction is a claim of its own.
        """
        message = self.message_of(scope, item_id) if self.message_of is not None else None
        if message is not None:
            raise InvalidInputError(
                f"item {item_id} is the memory of conversation message {message}: the record of what was "
                "said, kept word for word, so it is not revised (recall would quote words never said). To "
                "correct what it says, remember the correction as a claim of its own (remember(...), which "
                "meets the old claim); to erase the message, purge it (conv.purge(message_id), or "
                "forget(id, purge=True) on this item)"
            )

    def _purged_as_message(self, purge: cmd.Purge) -> bool:
        """Purge the message ``purge.id`` is the memory of, if it is one (its words are the message's;
        see ``Conversations.purge_message_memory``). A stale ``expected_version`` is left to the
        item's own purge, which refuses it."""
        if self.message_purge is None:
            return False
        if purge.expected_version is not None:
            item = self._core.store.get(purge.scope, purge.id)
            if item is None or item.version != purge.expected_version:
                return False
        return self.message_purge(purge.scope, purge.id, purge.reason)

    def dismiss(self, id: str, *, scope: str, reason: str = "") -> Item:
        """Tombstone the claim's *value*: it leaves current truth and is refused if learned again."""
        core = self._core
        s = core.scope(scope)
        core.run([cmd.Dismiss(s, check_id(id), check_reason(reason))])
        return core.must_get(s, id)

    def undismiss(
        self,
        text: str | None = None,
        *,
        scope: str,
        key: str | None = None,
        value: str | int | float | None = None,
        reason: str = "",
    ) -> None:
        """Lift a tombstone (by the dismissed text, or key + value) so the value may be learned again."""
        core = self._core
        s = core.scope(scope)
        prints: builtins.list[str] = []
        if text is not None:
            prints += fingerprints(check_text(text, core.limits), None, None)
        k, v = check_key(key, core.limits), check_value(value, core.limits)
        if k is not None and v is not None:
            prints += fingerprints("x", k, v)[1:]
        if not prints:
            raise InvalidInputError("undismiss needs the dismissed text, or key and value")
        core.run([cmd.Undismiss(s, tuple(prints), check_reason(reason))])

    def link(
        self,
        src: str,
        dst: str,
        type: str,
        *,
        scope: str,
        author: str | None = None,
        authority: float = 0.5,
        meta: Mapping[str, Any] | None = None,
    ) -> Edge:
        """Add a typed edge (supports, contradicts, supersedes, alias, derived_from, about).

        ``supersedes`` means ``src`` replaces ``dst``: a current ``dst`` is closed as superseded
        (as ``resolve`` keeping ``src`` would), a closed one only gains the lineage. A link that
        would close a loop of ``supersedes`` or ``derived_from`` is refused (``invalid_input``).
        """
        core = self._core
        s = core.scope(scope)
        if type not in EDGE_TYPES:
            raise InvalidInputError(f"edge type {type!r} is unknown; use one of {', '.join(EDGE_TYPES)}")
        if author is not None:
            check_text(author, core.limits, "author")
        command = cmd.Link(
            s,
            type,
            check_id(src, "src"),
            check_id(dst, "dst"),
            author,
            check_score("authority", authority),
            check_meta(meta, core.limits),
        )
        out = core.run([command])
        if out[0].events:
            # A link records ``edge.linked``; a supersedes link to a current claim replaces it
            # (``memory.superseded``, which names its edge by ``edge_id``).
            made = out[0].events[0].payload
            edge_id = made["edge_id"] if "edge_id" in made else made["edge"]["id"]
            return next(e for e in core.store.edges(s, src) if e.id == edge_id)
        # Already linked: return the existing edge (link is idempotent).
        return next(
            e
            for e in core.store.edges(s, src)
            if e.type == type
            and ((e.src, e.dst) == (src, dst) or ((e.dst, e.src) == (src, dst) and type in SYMMETRIC_EDGES))
        )

    def unlink(self, edge_id: str, *, scope: str, reason: str = "") -> None:
        """Close an edge (kept in history)."""
        core = self._core
        core.run([cmd.Unlink(core.scope(scope), check_id(edge_id, "edge_id"), check_reason(reason))])

    def set_scores(
        self,
        /,
        id: str,
        *,
        scope: str,
        reason: str = "",
        expected_version: int | None = None,
        stated: bool = True,
        **scores: float,
    ) -> Item:
        """Set any of authority / confidence / importance / durability / value (each in [0, 1]).

        Setting ``importance`` states it: the item is flagged ``importance_stated`` in the same
        transaction (unless its source already states it), and the dream pass never settles it.
        ``stated=False`` sets the scores alone: an import replays a dream pass's settling (a
        system ``set_scores``) with it, and a person's statement through its own exported
        ``memory.flags_set`` event, so who set a score survives the round trip.
        """
        core = self._core
        s = core.scope(scope)
        if not isinstance(stated, bool):
            raise InvalidInputError("stated must be True or False")
        if not scores:
            raise InvalidInputError(f"set_scores needs at least one of {', '.join(SCORE_NAMES)}")
        checked = {}
        for name, v in scores.items():
            if name not in SCORE_NAMES:
                raise InvalidInputError(f"unknown score {name!r}; scores are {', '.join(SCORE_NAMES)}")
            checked[name] = check_score(name, v)
        item_id, why = check_id(id), check_reason(reason)
        commands: list[cmd.Command] = [cmd.SetScores(s, item_id, checked, why, check_version(expected_version))]
        current = core.must_get(s, item_id) if stated and "importance" in checked else None
        if current is not None and stated_importance(current) is None:
            # A person set it: the dream pass never settles it below this (dream.upkeep.settle).
            commands.append(cmd.SetFlags(s, item_id, add=(IMPORTANCE_STATED,), reason="importance set by set_scores"))
        core.run(commands)
        return core.must_get(s, id)

    def set_tier(
        self, id: str, tier: str, *, scope: str, reason: str = "", expected_version: int | None = None
    ) -> Item:
        """Move an item between tiers (active, durable, subconscious); optimistic with ``expected_version``."""
        core = self._core
        s = core.scope(scope)
        core.run([cmd.SetTier(s, check_id(id), tier, check_reason(reason), check_version(expected_version))])
        return core.must_get(s, id)

    def set_tiers(
        self,
        tiers: Mapping[str, str],
        *,
        scope: str,
        reason: str = "",
        reasons: Mapping[str, str] | None = None,
    ) -> builtins.list[Item]:
        """Move many items between tiers in one event, all or nothing (item id → tier).

        Each item's reason is ``reasons[id]`` when given, else ``reason``. One unknown tier,
        missing item or repeated id refuses the whole call and writes nothing. Returns the
        moved items in the order given. Why: the dream pass demotes thousands at a time, and an
        import replays its ``memory.tiers_set`` events through here.
        """
        core = self._core
        s = core.scope(scope)
        if not isinstance(tiers, Mapping):
            raise InvalidInputError("tiers must be a mapping of item id -> tier")
        if len(tiers) > core.limits.max_batch:
            raise LimitExceededError(f"{len(tiers)} tier changes in one call; the limit is {core.limits.max_batch}")
        own = reasons or {}
        changes = tuple(cmd.TierChange(check_id(i), str(t), check_reason(own.get(i, reason))) for i, t in tiers.items())
        core.run([cmd.SetTiers(s, changes)])
        found = core.store.get_many(s, [c.id for c in changes])
        return [found[c.id] for c in changes]

    def promote(self, id: str, *, scope: str, to: str = "manual", reason: str = "") -> Item:
        """A person vouches for a claim (``to="manual"``) or pins it (``to="durable"``)."""
        core = self._core
        s = core.scope(scope)
        core.run([cmd.Promote(s, check_id(id), to, check_reason(reason))])
        return core.must_get(s, id)

    def flag(
        self,
        id: str,
        *,
        scope: str,
        add: Sequence[str] = (),
        remove: Sequence[str] = (),
        reason: str = "",
        expected_version: int | None = None,
    ) -> Item:
        """Add or remove machine flags (e.g. ``hub``, ``stale_derived``) on an item."""
        core = self._core
        s = core.scope(scope)
        add_, remove_ = check_tags(add, core.limits, "flags"), check_tags(remove, core.limits, "flags")
        version = check_version(expected_version)
        core.run([cmd.SetFlags(s, check_id(id), add_, remove_, check_reason(reason), version)])
        return core.must_get(s, id)

    def set_visibility(self, id: str, *, scope: str, visibility: Sequence[str] | None, reason: str = "") -> Item:
        """Change who may see the claim — all its versions — in one ``memory.visibility_set`` event.

        ``visibility``: a non-empty list of principals, or None for everyone in the scope (an empty
        list is refused: it would hide the claim from everyone). A principal restricting a claim
        stays among those who see it.
        """
        core = self._core
        s = core.scope(scope)
        audience = check_visibility(visibility)
        core.run([cmd.SetVisibility(s, check_id(id), audience, check_reason(reason))])
        return core.must_get(s, id)

    def pause_learning(self, scope: str, *, reason: str = "") -> None:
        """Refuse every learning write in ``scope`` (reads keep working) until ``resume_learning``."""
        core = self._core
        core.run([cmd.PauseLearning(core.scope(scope), check_reason(reason))])

    def resume_learning(self, scope: str, *, reason: str = "") -> None:
        """Allow learning writes in ``scope`` again after ``pause_learning``."""
        core = self._core
        core.run([cmd.ResumeLearning(core.scope(scope), check_reason(reason))])


def _outcome_id(outcome: Outcome, key: str = "item") -> str:
    """The id of the item ``outcome`` wrote: the first event payload's ``key`` object, else ``item_id``."""
    for e in outcome.events:
        if key in e.payload and isinstance(e.payload[key], dict):
            return str(e.payload[key]["id"])
    assert outcome.item_id is not None
    return outcome.item_id


def _result(item: Item, outcome: Outcome, found: Mapping[str, builtins.list[Edge]]) -> WriteResult:
    """The write's result: ``item`` and, if it is new, the links its detection added (see ``WriteResult``)."""
    created = [e.payload["item"]["id"] for e in outcome.events if e.type in ("memory.remembered", "memory.revised")]
    if item.id not in created:
        return WriteResult(item)  # corroborated: no new claim, so nothing new to contradict
    if item.id not in found:
        return WriteResult(item, checked=False)
    return WriteResult(item, tuple(Contradiction.from_edge(e, item.id) for e in found[item.id]))


def _pending_flag(core: Core) -> str | None:
    """The flag a new claim carries for the dream pass: what write-time detection leaves to it."""
    if not core.mark_unchecked_writes:
        return None
    if not core.detect_conflicts:
        return CONFLICTS_UNCHECKED  # the pass runs the rules, and the reader if there is one
    if core.has_conflict_reader and not core.read_at_write:
        return CONFLICTS_UNREAD
    return None


def _created(outcomes: Sequence[Outcome]) -> builtins.list[str]:
    """The ids of the items ``outcomes`` created (a corroboration creates none)."""
    return [
        e.payload["item"]["id"] for o in outcomes for e in o.events if e.type in ("memory.remembered", "memory.revised")
    ]
