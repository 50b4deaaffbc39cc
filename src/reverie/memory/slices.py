"""The slice capability: ``export_slice`` and ``import_slice`` (issue #18, transplant).

Export (``slice_export``) picks items (the ones asked for, then their parents, aliases and
contradictions) and the current edges between them, in the shape the receiving store will keep
(``reverie.slice.format``); ``Memory.export_slice`` calls it with the facade's core.

Import is append-only and all-or-nothing: every check (format, version, forged trust, limits,
conflicts) runs before the write, and the whole slice is applied in *one* store transaction
(``execute_steps`` with a single step), so a refusal half-way leaves the scope as it was. Items
get fresh ids here (``SliceReport.ids`` maps them); each keeps the id its claim had where it was
first recorded in ``meta[ORIGIN_META]``, which is how a later import recognises it.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reverie.errors import (
    AlreadyClosedError,
    DismissedValueError,
    EmbedderError,
    EmbedderMismatchError,
    InvalidInputError,
    InvalidSliceError,
    LimitExceededError,
    NotFoundError,
    ReverieError,
    SliceConflictError,
)
from reverie.memory.candidates import build_remember
from reverie.memory.core import Core
from reverie.memory.slice_agenda import AgendaPlan, apply_agenda, memory_refs, plan_agenda
from reverie.memory.slice_conversations import (
    ConversationsPlan,
    apply_conversations,
    plan_conversations,
)
from reverie.memory.slice_export import MAX_SLICE_ITEMS, PAGE, record_events
from reverie.memory.slice_purged import claim_copies, purged_items
from reverie.memory.writes import Writes
from reverie.model import commands as cmd
from reverie.model import events as ev
from reverie.model.cursor import BY_ID, after_id
from reverie.model.item import STATUSES, Item, Provenance
from reverie.model.query import Q
from reverie.model.redact import REDACTED
from reverie.model.validate import check_count, check_meta, check_text
from reverie.slice.conversations import SliceConversation
from reverie.slice.format import IMPORTED_AUTHORITY, KNOWN_SECTIONS, ORIGIN_META, Slice, SliceEdge, SliceItem
from reverie.slice.report import ON_CONFLICT, SliceReport
from reverie.store.protocol import VECTOR_PENDING, Batch, Outcome, Store
from reverie.store.visible import VisibleStore


class Slices:
    """Export and import of slices over one ``Core``, writing through ``Writes``' upkeep."""

    def __init__(self, core: Core, writes: Writes) -> None:
        self._core = core
        self._writes = writes

    # -- import ---------------------------------------------------------------------------------
    def import_slice(
        self,
        slice: Slice | Mapping[str, Any] | str | bytes,
        *,
        scope: str,
        on_conflict: str = "report",
        allow_future: bool = False,
    ) -> SliceReport:
        """Replay ``slice`` into ``scope``, append-only and in one transaction; returns a ``SliceReport``.

        Every claim is stored as ``source="imported"`` (its original source in
        ``provenance.source``, its authority at most ``IMPORTED_AUTHORITY``). A claim already here
        (the same origin and words) is skipped; an equivalent claim of other origin gains the
        evidence (``corroborated``); a claim here in *other* words under the same origin is a
        conflict, handled by ``on_conflict`` (``report``: refuse with ``SliceConflictError``,
        nothing written; ``skip``: keep ours; ``reid``: import theirs as a new claim). A value
        dismissed here stays dismissed (skipped). A malformed slice, a newer format version or one
        forging trust raises ``InvalidSliceError``; nothing is written on any refusal.

        Each claim keeps the visibility the slice gives it (None: everyone; a version-1/2 slice
        has none, so everyone, as before); a principal importing a restricted claim is added to its
        audience, as to every restricted write of a principal. A claim already here keeps its own.

        The ``intents`` / ``tasks`` sections replay in the same transaction, each record through
        its status machine, memory ids through ``report.ids`` (``reverie.memory.slice_agenda``).

        A conversation message dated more than ``Limits.max_clock_skew_seconds`` after this clock's
        now (a sender whose clock ran ahead) is refused as a live ``conv.add`` refuses it
        (``InvalidInputError`` naming it; nothing written); ``allow_future=True`` imports it as
        dated, and its conversation takes live messages once the clock passes it or it is purged.
        Claims are not bound: one may be valid from a future time, as in any write.
        """
        core = self._core
        s = core.scope(scope)
        if on_conflict not in ON_CONFLICT:
            raise InvalidInputError(f"on_conflict must be one of {', '.join(ON_CONFLICT)}, got {on_conflict!r}")
        if not isinstance(allow_future, bool):
            raise InvalidInputError("allow_future must be True or False")
        sl = _parse(slice)
        if len(sl.items) > MAX_SLICE_ITEMS:
            raise LimitExceededError(f"{len(sl.items)} items in one slice; the limit is {MAX_SLICE_ITEMS}")
        _check_moves(sl, core.limits.max_record_moves)
        # Planned once outside the lock to embed the texts (a slow model never holds the write
        # lock), then again inside one write transaction with the writes: the reads that decide
        # what is "already here" and the writes they decide are never split, so processes
        # importing one slice at once apply it once (outside probe 2, #17).
        first = self._prepare(sl, s, on_conflict, allow_future)
        vectors, pending = self._vectors([c.text for c in first.commands.values()])
        with core.store.atomic(s):
            prep = self._prepare(sl, s, on_conflict, allow_future)
            missing = [c.text for c in prep.commands.values() if c.text not in vectors]
            if missing and not pending:  # another import changed the plan meanwhile (rare)
                more, pending = self._vectors(missing)
                vectors = {**vectors, **more}
            commands = prep.commands
            if pending:
                commands = {k: replace(c, flags=(*c.flags, VECTOR_PENDING)) for k, c in commands.items()}
            plan = prep.plan
            results = core.store.execute_steps(
                [lambda batch: _apply(batch, plan, commands, prep.links, prep.agenda, prep.external, prep.talks)],
                now=core.clock.now(),
                new_id=core.new_id,
                vectors=vectors,
            )
            if isinstance(results[0], ReverieError):
                raise results[0]
        self._detect(s, results[0])
        return plan.report

    def _prepare(self, sl: Slice, s: str, on_conflict: str, allow_future: bool) -> _Prepared:
        """Everything the import decides from what this scope holds, before it writes (raises on a
        refusal: a conflict under ``report``, a malformed record, a message dated past the skew bound)."""
        core = self._core
        report = SliceReport(s)
        unseen = _unseen_origins(core.store, s, sl)
        sl = _entries_of_own_origin(sl, unseen, core.new_id)
        now = None if allow_future else core.clock.now()
        talks = plan_conversations(sl, core.store, s, core.limits, core.new_id, on_conflict, report, now)
        dropped = purged_items(sl, talks)  # what would bring a message purged here back
        dropped |= claim_copies(sl, dropped)  # and the system's copies of those (a gist of a mined claim)
        if sl.conversations:  # the items name entries and conversations as they will be here
            sl = replace(sl, items=tuple(talks.rewrite(i) for i in sl.items))
        plan = _Plan(sl, s, report)
        plan.kept |= talks.left_out | dropped
        plan.purged_out = dropped
        for item_id in sorted(dropped):
            report.skipped.append({"id": item_id, "target": "", "reason": "purged here"})
        plan.separate = set(talks.memory_meta)
        self._classify(plan, on_conflict)
        agenda = plan_agenda(sl, core.store, s, on_conflict, plan.report, record_events(core.store, s))
        plan.unseen = unseen
        agenda.reid |= {rec for rec, origin in _record_origins(sl) if origin in plan.unseen}
        commands = self._commands(plan)
        links = self._links(plan)
        external = {
            ref: min(held, key=lambda h: (h.closed_at is not None, h.id)).id
            for ref, held in self._by_origin(s, memory_refs(sl)).items()
        }
        return _Prepared(plan, talks, agenda, commands, links, external)

    def _detect(self, s: str, outcomes: Sequence[Outcome]) -> None:
        """Write-time detection on the claims the import created, as ``remember`` runs it.

        ``outcomes`` leave out the memories of imported messages: a live ``conv.add`` writes a
        message's memory without detection (its mined claims get it), so an imported one gets none
        either — checking each message against its look-alikes was 9/10 of a conversation
        import's time. The alias groups are read once for the whole import (detection adds only
        ``contradicts`` edges, so they cannot change between two items), not once per claim. As
        after any write, a failure flags the claim for the dream pass and never fails the import.
        """
        core = self._core
        if not core.detect_conflicts:
            return
        conflicts = self._writes._conflicts
        ids = [str(e.payload["item"]["id"]) for o in outcomes for e in o.events if e.type == ev.REMEMBERED]
        if not ids:
            return
        try:
            count = check_count(None, "candidates", default=10, limits=core.limits)  # as ``detect_conflicts``
            items, (aliases, people) = core.store.get_many(s, ids), conflicts.alias_views(s)
        except Exception as exc:  # the import has committed: every claim is left to the dream pass
            for item_id in ids:
                self._writes._defer_detection(s, item_id, exc)
            return
        for item_id in ids:
            item = items.get(item_id)
            if item is None or not item.is_current:
                continue  # closed in the same transaction (it was closed where exported)
            try:
                links = conflicts.conflict_links(item, count, aliases=aliases, second=core.read_at_write, people=people)
                if links:
                    core.store.execute(links, now=core.clock.now(), new_id=core.new_id, vectors={})
            except Exception as exc:  # any failure: the import stands (``Writes._after_write``)
                self._writes._defer_detection(s, item_id, exc)

    def _vectors(self, texts: Sequence[str]) -> tuple[Mapping[str, Any], bool]:
        """Embedded before the transaction (a slow model never holds the write lock); a failing
        embedder stores the claims anyway, flagged ``VECTOR_PENDING``, as every write does."""
        try:
            return self._core.embed_texts(texts), False
        except EmbedderMismatchError:
            raise
        except EmbedderError:
            return {}, True

    def _classify(self, plan: _Plan, on_conflict: str) -> None:
        """Find which slice items this scope already holds (by origin), and the conflicts."""
        here = self._by_origin(plan.scope, [i.origin_id for i in plan.slice.items])
        conflicts: list[dict[str, str]] = []
        copies = claim_copies(plan.slice, _purged_here(plan.slice, here))
        for it in plan.slice.items:
            if it.id in plan.purged_out:
                continue
            held = here.get(it.origin_id, [])
            same = next((h for h in held if _same_claim(h, it)), None)
            purged = next((h for h in held if h.text == REDACTED), None)
            if same is None and it.id in copies:  # a system copy of a claim purged here (another origin)
                plan.kept.add(it.id)
                plan.report.skipped.append({"id": it.id, "target": "", "reason": "purged here"})
            elif same is not None:
                plan.report.ids[it.id] = same.id
                plan.report.skipped.append({"id": it.id, "target": same.id, "reason": "already here"})
            elif purged is not None:  # a purge here stays a purge: the slice's copy of the words stays out
                plan.kept.add(it.id)
                plan.report.skipped.append({"id": it.id, "target": purged.id, "reason": "purged here"})
            elif held:
                conflicts.append(
                    {"id": it.id, "target": held[0].id, "reason": "this scope holds the same claim in other words"}
                )
        if conflicts and on_conflict == "report":
            shown = ", ".join(f"{c['id']} (here {c['target']})" for c in conflicts[:5])
            raise SliceConflictError(
                f"{len(conflicts)} claim(s) of the slice are held here in other words: {shown}; nothing was "
                "imported. Pass on_conflict='skip' to keep this scope's versions or 'reid' to import the "
                "slice's as new claims",
                conflicts,
            )
        plan.report.conflicts = conflicts
        for c in conflicts:
            if on_conflict == "skip":
                plan.report.skipped.append({"id": c["id"], "target": c["target"], "reason": "conflict: kept ours"})
                plan.kept.add(c["id"])
            else:
                plan.reid.add(c["id"])

    def _by_origin(self, s: str, origins: Sequence[str]) -> dict[str, list[Item]]:
        """This scope's items whose claim started as ``origin``: the item itself, or a copy of it.

        Copies are found in one pass over the scope's imported items (``meta_has``): an ``OR`` of
        one ``meta`` test per origin cost a scan of the scope per chunk (quadratic at 10k items).
        """
        store = self._core.store
        wanted = set(origins)
        out: dict[str, list[Item]] = {}
        for o, item in store.get_many(s, sorted(wanted)).items():
            out.setdefault(o, []).append(item)
        where = Q.meta_has(ORIGIN_META) & Q.status(*STATUSES)
        page: list[Item] = []
        while wanted:
            page = store.query(s, where & after_id(page), BY_ID, limit=PAGE)
            for item in page:
                origin = item.meta.get(ORIGIN_META)
                if isinstance(origin, str) and origin in wanted:
                    out.setdefault(origin, []).append(item)
            if len(page) < PAGE:
                break
        return out

    def _commands(self, plan: _Plan) -> dict[str, cmd.Remember]:
        """One checked ``Remember`` per item to write (parents are mapped inside the transaction)."""
        core = self._core
        out: dict[str, cmd.Remember] = {}
        for it in plan.slice.items:
            if it.id in plan.report.ids or it.id in plan.kept:
                continue
            meta = dict(it.meta)
            meta.pop(ORIGIN_META, None)
            if it.id not in plan.reid and it.origin_id not in plan.unseen:
                meta[ORIGIN_META] = it.origin_id
            scores = dict(it.scores)
            scores["authority"] = min(scores.get("authority", IMPORTED_AUTHORITY), IMPORTED_AUTHORITY)
            prov = Provenance(
                it.provenance.get("origin") or "api", it.provenance.get("ref"), it.provenance.get("locator")
            )
            fields = {
                "text": it.text,
                "kind": it.kind,
                "source": "imported",
                "key": it.key,
                "value": it.value,
                "author": it.author,
                "tags": it.tags,
                "meta": meta,
                "provenance": replace(prov, source=it.original_source),
                "scores": scores,
                "valid_from": it.valid_from,
                "valid_to": _valid_to(it),
                # Who may read it, as where it was exported (dropped, a restricted claim came in
                # readable by every principal). None: everyone in the scope; checked again here.
                "visibility": list(it.visibility) if it.visibility is not None else None,
            }
            try:
                command = build_remember(fields, plan.scope, ("imported",), core.limits)
            except InvalidInputError as exc:
                raise slice_error(exc, f"slice item {it.id}") from None
            # A system-made item (a dream gist) quotes a member verbatim: a new item, as in its store.
            # A message's memory is its own item, as a live message's is (never merged into another).
            alone = it.original_source == "system" or it.id in plan.separate
            command = replace(command, tier=it.tier, corroborate=not alone)
            # A message's memory gets no detection (see ``_detect``), so no marker asking for it either.
            out[it.id] = command if it.id in plan.separate else self._writes._mark_unchecked(command)
        self._external_parents(plan)
        return out

    def _external_parents(self, plan: _Plan) -> None:
        """Parents outside the slice: this scope's item of that origin, if it holds one."""
        inside = {i.id for i in plan.slice.items}
        outside = sorted({p for i in plan.slice.items for p in i.parents if p not in inside})
        for p, held in self._by_origin(plan.scope, outside).items():
            plan.external[p] = sorted(held, key=lambda h: (h.closed_at is not None, h.id))[0].id

    def _links(self, plan: _Plan) -> list[tuple[SliceEdge, dict[str, Any]]]:
        """Each edge's checked author and meta (the ends are mapped inside the transaction)."""
        out = []
        for e in plan.slice.edges:
            try:
                if e.author is not None:
                    check_text(e.author, self._core.limits, "author")
                meta = check_meta(e.meta, self._core.limits)
            except InvalidInputError as exc:
                raise slice_error(exc, f"slice edge {e.id}") from None
            out.append((e, meta))
        return out


def slice_error(exc: InvalidInputError, where: str) -> InvalidInputError:
    """A boundary check's refusal of one slice record, as the slice's error.

    A malformed field (a NUL in a text, a bad kind) makes the slice ``invalid_slice``, whatever check
    found it; a ``Limits`` bound keeps ``limit_exceeded``, which names the bound to raise.
    """
    kind = type(exc) if isinstance(exc, LimitExceededError) else InvalidSliceError
    return kind(f"{where}: {exc.message}")


@dataclass
class _Prepared:
    """One planning of an import: what ``_apply`` writes."""

    plan: _Plan
    talks: ConversationsPlan
    agenda: AgendaPlan
    commands: dict[str, cmd.Remember]
    links: list[tuple[SliceEdge, dict[str, Any]]]
    external: dict[str, str]


class _Plan:
    """What one import decided before writing, and the report it fills while writing."""

    def __init__(self, sl: Slice, scope: str, report: SliceReport) -> None:
        self.slice = sl
        self.scope = scope
        self.report = report
        self.reid: set[str] = set()  # conflicting items imported as new claims
        self.kept: set[str] = set()  # conflicting items left out (this scope's version kept)
        self.external: dict[str, str] = {}  # parent id outside the slice -> this scope's item
        self.supersede_reasons: dict[str, str] = {}  # superseded slice id -> the reason its edge carries
        self.separate: set[str] = set()  # message memories of imported entries: never corroborate
        self.unseen: frozenset[str] = frozenset()  # origins naming a claim the importer may not see
        self.purged_out: set[str] = set()  # items that would bring a message purged here back


def _unseen_origins(store: Store, s: str, sl: Slice) -> frozenset[str]:
    """The slice's origin ids (of claims, intents, tasks and conversation entries) naming a claim of
    ``s`` the importing principal may not see; none for the owner.

    Such a record is imported as a new one of its own origin (as ``reid`` does; an entry gets a
    fresh origin id), never tied to the hidden claim. Why: kept as ``meta.slice_origin`` (or an
    intent's origin) the write named a hidden claim and was refused ``not_found``, where an
    unknown origin imports — an existence oracle for whoever holds or guesses the id (outside
    probe #12). The report then reads exactly as for an unknown origin. The owner's import is
    unchanged (it sees every claim).
    """
    if not isinstance(store, VisibleStore):
        return frozenset()
    origins = {i.origin_id for i in sl.items} | {origin for _, origin in _record_origins(sl)}
    origins |= {e.origin_id for c in sl.conversations or () for e in c.entries}
    return frozenset(origins & store.hidden(s)) if origins else frozenset()


def _entries_of_own_origin(sl: Slice, unseen: frozenset[str], new_id: Callable[[], str]) -> Slice:
    """``sl`` with each conversation entry whose origin names a hidden claim given a fresh origin
    of its own (``_unseen_origins``: an entry's origin is kept in its ``meta`` as an item's is)."""
    if not unseen or not sl.conversations:
        return sl

    def own(c: SliceConversation) -> SliceConversation:
        entries = tuple(replace(e, origin_id=new_id()) if e.origin_id in unseen else e for e in c.entries)
        return replace(c, entries=entries)

    return replace(sl, conversations=tuple(own(c) for c in sl.conversations))


def _check_moves(sl: Slice, bound: int) -> None:
    """Refuse a slice whose intent or task carries more than ``Limits.max_record_moves`` moves.

    Why a bound: each replayed move rewrites the whole record (its failures included), so replay
    time grows with the square of the moves, under the write lock (outside probe 2, #12: 4,001
    moves held the file 53 s). Checked before anything is read or written. A live record is held
    to the same bound (``model/agenda_rules.py``), so every record a store holds can be imported.
    ``limit_exceeded``, as every ``Limits`` bound in a slice (``slice_error``), naming the field.
    """
    for kind, records in (("intent", sl.intents or ()), ("task", sl.tasks or ())):
        for rec in records:
            if len(rec.moves) > bound:
                raise LimitExceededError(
                    f"slice {kind} {rec.id} carries {len(rec.moves)} moves; Limits.max_record_moves is {bound}: "
                    "export it again from a store that holds fewer, or raise the bound; nothing was written"
                )


def _record_origins(sl: Slice) -> list[tuple[str, str]]:
    """(slice id, origin id) of every intent and task the slice carries."""
    return [(i.id, i.origin_id) for i in sl.intents or ()] + [(t.id, t.origin_id) for t in sl.tasks or ()]


def _parse(value: Slice | Mapping[str, Any] | str | bytes) -> Slice:
    if isinstance(value, Slice):
        sl = Slice.from_dict(value.to_dict())  # a hand-built Slice gets the same checks as JSON
    elif isinstance(value, str | bytes):
        sl = Slice.from_json(value)
    elif isinstance(value, Mapping):
        sl = Slice.from_dict(dict(value))
    else:
        raise InvalidSliceError(f"a slice is a Slice, its JSON text or its dict, got {type(value).__name__}")
    carried = sorted(name for name, rows in sl.sections.items() if rows)
    unknown = [name for name in carried if name not in KNOWN_SECTIONS]
    if unknown:
        raise InvalidSliceError(
            f"this slice carries {', '.join(unknown)}, which this build cannot import; nothing was written"
        )
    return sl


def _order(items: Sequence[SliceItem]) -> list[SliceItem]:
    """Parents before children (a remember needs its parents); a cycle is a malformed slice."""
    by_id = {i.id: i for i in items}
    done: set[str] = set()
    out: list[SliceItem] = []
    for root in items:
        stack: list[tuple[SliceItem, bool]] = [(root, False)]
        on_path: set[str] = set()
        while stack:
            it, expanded = stack.pop()
            if it.id in done:
                continue
            if expanded:
                on_path.discard(it.id)
                done.add(it.id)
                out.append(it)
                continue
            if it.id in on_path:
                raise InvalidSliceError(f"item {it.id} is its own ancestor through parents; a slice is acyclic")
            on_path.add(it.id)
            stack.append((it, True))
            for p in reversed(it.parents):
                if p in by_id and p not in done:
                    if p in on_path:
                        raise InvalidSliceError(f"item {p} is its own ancestor through parents; a slice is acyclic")
                    stack.append((by_id[p], False))
    return out


def _apply(
    batch: Batch,
    plan: _Plan,
    commands: Mapping[str, cmd.Remember],
    links: Sequence[tuple[SliceEdge, dict[str, Any]]],
    agenda: AgendaPlan,
    external: Mapping[str, str],
    talks: ConversationsPlan,
) -> list[Outcome]:
    """The whole import inside one savepoint: items, then edges, closing the closed ones, then
    the intents and tasks (whose memory ids map through the items' new ids), then the
    conversations' entries."""
    report, s = plan.report, plan.scope
    outcomes: list[Outcome] = []
    created: dict[str, str] = {}  # slice id -> new id, for items this import created
    for it in _order(plan.slice.items):
        command = commands.get(it.id)
        if command is None:
            continue
        parents = []
        for p in it.parents:
            target = report.ids.get(p) or plan.external.get(p)
            if target is None:
                report.dropped_parents.append({"id": it.id, "parent": p})
            else:
                parents.append(target)
        try:
            out = batch.run([replace(command, parents=tuple(dict.fromkeys(parents)))])[0]
        except DismissedValueError:  # the reducer refuses before it writes: nothing to undo
            report.skipped.append({"id": it.id, "target": "", "reason": "its value is dismissed in this scope"})
            continue
        if it.id not in plan.separate:  # a message's memory gets no detection (``Slices._detect``)
            outcomes.append(out)
        _record(report, created, it.id, out)
    superseded_by = _superseders(plan, created)
    for e, meta in links:
        if e.type != "supersedes":
            _link(batch, plan, e, meta, superseded_by)
    closed = [it for it in plan.slice.items if it.status != "live" and it.id in created]
    # Supersedes first, oldest first (a superseder must still be current when it supersedes:
    # a revised claim may be revised again, or forgotten, later); then the plain closings.
    for it in closed:
        by = superseded_by.get(it.id)
        if by is not None:
            batch.run([cmd.Supersede(s, created[it.id], created[by], plan.supersede_reasons.get(it.id, ""))])
            # A supersede halves the loser's trust (conflict resolution); a revision, which is what
            # superseded it where it was exported, does not: its exported authority is restored.
            now = batch.item(s, created[it.id])
            want = min(it.scores.get("authority", IMPORTED_AUTHORITY), IMPORTED_AUTHORITY)
            if now is not None and now.scores.authority != want:
                batch.run([cmd.SetScores(s, created[it.id], {"authority": want}, "authority as exported")])
    for it in closed:
        if it.id in superseded_by:
            continue
        here = batch.item(s, created[it.id])
        if here is not None and not here.is_current:
            continue  # a gist the supersedes above left without a standing source, forgotten with it (model.gists)
        batch.run([cmd.Forget(s, created[it.id], f"{it.status} where it was exported")])
    # Supersedes edges last: the slice says each claim's status, so such an edge only records that
    # a claim it closed was replaced (a link to a current claim would replace it: ``_link`` skips it).
    for e, meta in links:
        if e.type == "supersedes":
            _link(batch, plan, e, meta, superseded_by)
    apply_agenda(batch, plan.slice, agenda, s, report, external)
    apply_conversations(batch, talks, s)
    return outcomes


def _valid_to(it: SliceItem) -> Any:
    """A closed claim forgotten before its validity began ends before it starts (forget ends
    validity when it forgets): remembered open here, the replayed forget ends it again (at the
    import's time, not the original forget's: record time belongs to each store)."""
    if it.valid_from is not None and it.valid_to is not None and it.valid_to <= it.valid_from:
        return None
    return it.valid_to


def _purged_here(sl: Slice, here: Mapping[str, builtins.list[Item]]) -> set[str]:
    """The slice's items whose claim this scope purged (found by origin, none held in the same words)."""
    out = set()
    for it in sl.items:
        held = here.get(it.origin_id, [])
        if any(h.text == REDACTED for h in held) and not any(_same_claim(h, it) for h in held):
            out.add(it.id)
    return out


def _record(report: SliceReport, created: dict[str, str], slice_id: str, out: Outcome) -> None:
    for e in out.events:
        if e.type == ev.REMEMBERED:
            new_id = str(e.payload["item"]["id"])
            report.ids[slice_id] = created[slice_id] = new_id
            report.created.append(new_id)
        elif e.type == ev.CORROBORATED:
            report.ids[slice_id] = str(e.payload["id"])
            report.corroborated.append(str(e.payload["id"]))
        elif e.type == ev.ECHOED:  # a correction here replaced this value: the evidence went to the old version
            report.skipped.append({"id": slice_id, "target": str(e.payload["id"]), "reason": "corrected here"})


def _superseders(plan: _Plan, created: Mapping[str, str]) -> dict[str, str]:
    """Superseded slice items whose superseder came in too: replayed as a supersede, not a forget."""
    out: dict[str, str] = {}
    status = {i.id: i.status for i in plan.slice.items}
    for e in plan.slice.edges:
        if e.type != "supersedes" or status.get(e.dst) != "superseded" or e.dst in out:
            continue
        if e.dst in created and e.src in created:
            out[e.dst] = e.src
            # The supersede writes the edge: its reason is the edge's (the revise's, where exported).
            reason = e.meta.get("reason")
            plan.supersede_reasons[e.dst] = reason if isinstance(reason, str) else ""
    return out


def _link(batch: Batch, plan: _Plan, e: SliceEdge, meta: dict[str, Any], superseded_by: Mapping[str, str]) -> None:
    report = plan.report
    if e.type == "supersedes" and superseded_by.get(e.dst) == e.src:
        return  # the supersede that closes e.dst writes this edge
    src, dst = report.ids.get(e.src), report.ids.get(e.dst)
    if src is None or dst is None or src == dst:
        report.edges_skipped.append({"id": e.id, "reason": "an end was not imported"})
        return
    if e.type == "supersedes" and (target := batch.item(plan.scope, dst)) is not None and target.is_current:
        reason = "its target is current here, and a supersedes link would replace it (the slice keeps it live)"
        report.edges_skipped.append({"id": e.id, "reason": reason})
        return
    authority = min(e.authority, IMPORTED_AUTHORITY)
    try:
        out = batch.run([cmd.Link(plan.scope, e.type, src, dst, e.author, authority, meta)])[0]
    except (AlreadyClosedError, NotFoundError) as exc:
        report.edges_skipped.append({"id": e.id, "reason": exc.message})
        return
    except InvalidInputError as exc:  # a loop of supersedes / derived_from edges (``model.lineage``)
        raise InvalidSliceError(f"slice edge {e.id}: {exc.message}") from None
    if out.events:
        report.edges[e.id] = str(out.events[0].payload["edge"]["id"])
    else:
        report.edges_skipped.append({"id": e.id, "reason": "already linked here"})


def _same_claim(held: Item, it: SliceItem) -> bool:
    return (held.text, held.kind, held.key, held.value) == (it.text, it.kind, it.key, it.value)
