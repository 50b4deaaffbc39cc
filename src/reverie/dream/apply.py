"""Applying a plan: in atomic batches, each action only against the item versions the plan read.

Why batches with savepoints: one transaction per action (the ``Memory`` API) made a backlog
pass over 100k items spend most of its time committing. Now ``apply_batch`` actions share one
write transaction (``Store.execute_steps``) and each runs in its own savepoint: an action whose
item changed since the plan read it fails its version check (``expected_version`` in the
reducer, or an explicit check for links and gists), only that savepoint is rolled back, and the
report says why; the rest of the batch commits. Between batches the pass renews its lease and
stops cleanly if ``Memory.close()`` asked it to — each batch is atomic, so nothing is left
half-applied. The pass's own earlier writes to an item are tracked (``seen``), so its later
actions on that item still apply.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from reverie.dream.lease import ScopeLease
from reverie.dream.plan import AUTHOR, UNCHECKED, UNREAD
from reverie.dream.report import Action, DreamReport, Outcome
from reverie.errors import (
    AlreadyClosedError,
    ClosedError,
    ConflictError,
    EmbedderError,
    EmbedderMismatchError,
    InvalidInputError,
    LearningPausedError,
    NotFoundError,
    ReaderError,
    ReverieError,
    StorageError,
    VersionConflictError,
)
from reverie.model import commands as cmd
from reverie.model.item import Item, Provenance
from reverie.recall.normalize import fts_query
from reverie.store.protocol import VECTOR_PENDING, Batch

if TYPE_CHECKING:
    from reverie.dream.host import DreamHost

_MAX_REASON = 2000
Progress = Callable[[str, int, int], None]


def apply_actions(
    mem: DreamHost,
    report: DreamReport,
    *,
    batch: int,
    lease: ScopeLease | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> None:
    """Apply ``report.actions`` in order, ``batch`` per transaction; one outcome per action.

    Stops between batches when ``cancelled()`` or when the lease cannot be renewed, and sets
    ``report.interrupted``; the actions not reached are reported as skipped.
    """
    seen: dict[str, int] = {}
    report.outcomes = []
    total = len(report.actions)
    for start in range(0, total, batch):
        why = _stop_reason(report, start, total, lease, cancelled)
        if why is not None:
            report.interrupted = why
            break
        chunk = report.actions[start : start + batch]
        report.outcomes.extend(_apply_batch(mem, report.scope, chunk, seen))
        if progress is not None:
            progress("apply", len(report.outcomes), total)
    missing = total - len(report.outcomes)
    report.outcomes.extend([Outcome("skipped", f"not applied: {report.interrupted}")] * missing)


def _stop_reason(
    report: DreamReport, start: int, total: int, lease: ScopeLease | None, cancelled: Callable[[], bool]
) -> str | None:
    done = (
        f"{start} of {total} action(s) were applied in atomic batches; "
        "the rest were not (the next pass plans them again)"
    )
    if cancelled():
        return f"Memory.close() asked the pass to stop: {done}"
    if lease is not None and start and not lease.renew():
        return f"the lease expired and another pass took it ({lease.row.owner}): {done}"
    return None


def _apply_batch(mem: DreamHost, scope: str, chunk: Sequence[Action], seen: dict[str, int]) -> list[Outcome]:
    """One write transaction: gist commands are built and embedded first, outside it.

    Consecutive tier moves share one step (``_tier_run``); every other action is its own step.
    """
    prepared = [_prepare(mem, scope, a) for a in chunk]
    texts = [p.text for p in prepared if isinstance(p, cmd.Remember)]
    try:
        vectors = mem.embed_texts(texts)
    except EmbedderMismatchError:
        raise
    except EmbedderError:  # the embedder is down: gists are stored with their vector pending (#13.7)
        prepared = [_pending(p) for p in prepared]
        vectors = {}
    cache: dict[str, Any] = {}  # per batch: the scope's alias groups, read once for all rechecks
    steps: list[Callable[[Batch], Any]] = []
    sizes: list[int] = []  # actions per step
    i = 0
    while i < len(chunk):
        j = i
        while j < len(chunk) and chunk[j].op == "set_tier":
            j += 1
        if j - i > 1:
            steps.append(functools.partial(_tier_run, scope, chunk[i:j], seen))
            sizes.append(j - i)
            i = j
            continue
        steps.append(functools.partial(_step, mem, scope, chunk[i], prepared[i], seen, cache))
        sizes.append(1)
        i += 1
    results = mem.store.execute_steps(steps, now=mem.clock.now(), new_id=mem.new_id, vectors=vectors)
    out: list[Outcome] = []
    for result, size in zip(results, sizes, strict=True):
        if isinstance(result, list):
            out.extend(_outcome(r) for r in result)
        else:  # a single action, or a tier run whose step failed as a whole
            out.extend([_outcome(result)] * size)
    return out


def _tier_run(scope: str, run: Sequence[Action], seen: dict[str, int], b: Batch) -> list[Outcome | ReverieError]:
    """Consecutive tier moves as one ``SetTiers`` event: one write per item, not one event each.

    Why: a first pass over a 100k backlog demotes ~40k items, and one event per move (read,
    event, projection, savepoint) was four seconds of the pass. The reducer checks every move
    before it emits anything, so a refusal (an item changed since the plan read it) has written
    nothing: the moves are then made one by one, each refused or applied on its own, exactly as
    single actions would be.
    """
    expected = [seen.get(a.item_ids[0], a.versions[0]) for a in run]
    changes = tuple(
        cmd.TierChange(a.item_ids[0], str(a.params["tier"]), _reason(a), v) for a, v in zip(run, expected, strict=True)
    )
    try:
        b.run([cmd.SetTiers(scope, changes)])
    except (StorageError, ClosedError):
        raise
    except ReverieError:
        return [_single_tier(scope, c, seen, b) for c in changes]
    for c in changes:
        assert c.expected_version is not None
        seen[c.id] = c.expected_version + 1
    return [Outcome("applied")] * len(changes)


def _single_tier(scope: str, change: cmd.TierChange, seen: dict[str, int], b: Batch) -> Outcome | ReverieError:
    """One move alone; a single command is refused before it writes, so no savepoint is needed."""
    assert change.expected_version is not None
    try:
        b.run([cmd.SetTier(scope, change.id, change.tier, change.reason, change.expected_version)])
    except (StorageError, ClosedError):
        raise
    except ReverieError as exc:
        return exc
    seen[change.id] = change.expected_version + 1
    return Outcome("applied")


def _outcome(result: Any) -> Outcome:
    if isinstance(result, Outcome):
        return result
    if isinstance(result, ConflictError | NotFoundError | LearningPausedError):
        return Outcome("skipped", f"{type(result).__name__}: {result}")
    assert isinstance(result, ReverieError)  # a plan the store refuses is a bug: report it, go on
    return Outcome("failed", f"{type(result).__name__}: {result}")


def _pending(p: cmd.Remember | ReverieError | None) -> cmd.Remember | ReverieError | None:
    """A gist command flagged ``VECTOR_PENDING`` (a later write, pass or reindex fills its vector)."""
    if isinstance(p, cmd.Remember) and VECTOR_PENDING not in p.flags:
        return replace(p, flags=(*p.flags, VECTOR_PENDING))
    return p


def _prepare(mem: DreamHost, scope: str, action: Action) -> cmd.Remember | ReverieError | None:
    """A gist's ``Remember``, validated by the same code as ``remember_system`` (before the
    transaction: validation and embedding never hold the write lock)."""
    if action.op not in ("remember_gist", "remember_pattern"):
        return None
    p = action.params
    meta = dict(p["meta"])
    locator = str(meta["representative"]) if action.op == "remember_gist" else str(meta["pattern"]["key"])
    fields = {
        "text": str(p["text"]),
        "kind": str(p["kind"]),
        "parents": list(p.get("parents", ())),
        "authority": float(p["authority"]),
        "confidence": float(p["confidence"]),
        "importance": float(p["importance"]),
        "tags": list(p["tags"]),
        "meta": meta,
        "author": AUTHOR,
        "provenance": Provenance(origin="dream", ref=scope, locator=locator),
        "source": "system",
        # The members' (plan.py merges equal ones only); none is everyone, which ``remember`` takes as
        # None (an empty list is refused there: it would hide the gist from everyone).
        "visibility": list(p.get("visibility") or ()) or None,
    }
    try:
        built = mem.gist_command(fields, scope)
    except InvalidInputError as exc:
        return exc
    # The gist's mark keeps it from matching the member it quotes; a current claim that already
    # says exactly the gist's words is corroborated rather than twinned (#13.3).
    return built


def _reason(action: Action) -> str:
    return f"dream/{action.step}: {action.reason}"[:_MAX_REASON]


def _check(b: Batch, scope: str, item_id: str, version: int) -> Item:
    """The item as it stands inside the transaction, if still current and at ``version``."""
    item = b.item(scope, item_id)
    if item is None:
        raise NotFoundError(f"no item {item_id} in scope {scope!r}")
    if not item.is_current:
        raise AlreadyClosedError(f"item {item_id} is {item.status} since the plan read it")
    if item.version != version:
        raise VersionConflictError(
            f"item {item_id} changed since the plan read it (version {version} → {item.version})"
        )
    return item


def _step(
    mem: DreamHost, scope: str, action: Action, prepared: Any, seen: dict[str, int], cache: dict[str, Any], b: Batch
) -> Outcome | ReverieError:
    """One action inside its savepoint; raising a ``ReverieError`` rolls back just this action.

    ``forget``, ``set_scores``, ``set_tier`` and ``flag`` carry ``expected_version``: the
    reducer refuses a stale one (a close also bumps the version, so a closed item is refused
    too). Links, gists and rechecks check their items explicitly first.
    """
    if isinstance(prepared, ReverieError):
        return prepared
    expected = [seen.get(i, v) for i, v in zip(action.item_ids, action.versions, strict=True)]
    first, op, why = action.item_ids[0], action.op, _reason(action)
    single: cmd.Command | None = None
    if op == "forget":
        single = cmd.Forget(scope, first, why, expected[0], retracted=bool(action.params.get("retracted", False)))
    elif op == "set_scores":
        scores = {str(k): float(v) for k, v in dict(action.params["scores"]).items()}
        single = cmd.SetScores(scope, first, scores, why, expected[0])
    elif op == "set_tier":
        single = cmd.SetTier(scope, first, str(action.params["tier"]), why, expected[0])
    elif op == "flag":
        add, remove = tuple(action.params.get("add", ())), tuple(action.params.get("remove", ()))
        single = cmd.SetFlags(scope, first, add, remove, why, expected[0])
    elif op == "set_visibility":  # a pattern narrowed to its events' audience (``pattern_step``)
        _check(b, scope, first, expected[0])  # the command takes no expected version: checked here
        single = cmd.SetVisibility(scope, first, tuple(str(v) for v in action.params["visibility"]), why)
    if single is not None:
        out = b.run([single])
        # each event on the item bumps its version once (a forget also unlinks its contradictions)
        seen[first] = expected[0] + sum(1 for e in out[0].events if e.payload.get("id") == first)
        return Outcome("applied")
    if op == "detect_conflicts":
        return _recheck(mem, scope, action, expected[0], seen, cache, b)
    if op == "link":
        return _link(scope, action, expected, b)
    if op == "remember_gist":
        return _gist(scope, action, expected, prepared, b)
    if op == "remember_pattern":  # h-patterns
        return _pattern(scope, action, expected, prepared, b)
    return Outcome("failed", f"unknown op {op!r}")  # pragma: no cover - the planner only makes the ops above


def _recheck(
    mem: DreamHost, scope: str, action: Action, version: int, seen: dict[str, int], cache: dict[str, Any], b: Batch
) -> Outcome:
    """Conflict detection inside the transaction, then the ``conflicts_unchecked`` marker cleared."""
    item = _check(b, scope, action.item_ids[0], version)
    if "aliases" not in cache:
        cache["aliases"] = mem.alias_lookup(scope)
    match = fts_query(" ".join(action.params.get("terms", ()))) if action.params.get("terms") else None
    read, failed = mem.reads_conflicts, ""
    try:
        links = mem.conflict_links(item, aliases=cache["aliases"], match=match)
    except ReaderError as exc:  # the rules still run; the reader tries again next pass
        links, read, failed = (
            mem.conflict_links(item, aliases=cache["aliases"], match=match, second=False),
            False,
            str(exc),
        )
    if links:
        b.run(links)
    detail = f"{len(links)} new contradicts edge(s)"
    if failed:
        detail += f"; {failed[:200]} — rules only, {UNREAD} kept for the next pass"
    cleared = tuple(f for f in (UNCHECKED, UNREAD) if f in item.flags and (f == UNCHECKED or read))
    if cleared:
        b.run([cmd.SetFlags(scope, item.id, (), cleared, _reason(action), version)])
        seen[item.id] = version + 1
        detail += f"; {', '.join(cleared)} cleared"
    return Outcome("applied", detail)


def _link(scope: str, action: Action, expected: list[int], b: Batch) -> Outcome:
    for item_id, version in zip(action.item_ids, expected, strict=True):
        _check(b, scope, item_id, version)
    kind = str(action.params["type"])
    authority = 1.0 if kind == "derived_from" else 0.5  # derivation is a fact; a contradiction a candidate
    meta = {"step": action.step, "reason": action.reason[:500]}
    out = b.run([cmd.Link(scope, kind, str(action.params["src"]), str(action.params["dst"]), AUTHOR, authority, meta)])
    if not out[0].events:
        return Outcome("applied", "edge already recorded")
    return Outcome("applied", f"edge {out[0].events[0].payload['edge']['id']}")


def _gist(scope: str, action: Action, expected: list[int], remember: cmd.Remember, b: Batch) -> Outcome:
    """The gist (parents = originals) and one ``derived_from`` edge per original, all or nothing."""
    for item_id, version in zip(action.item_ids, expected, strict=True):
        _check(b, scope, item_id, version)
    gist_id = b.run([remember])[0].item_id
    assert gist_id is not None
    meta = {"step": action.step, "reason": "consolidated into this gist"}
    b.run([cmd.Link(scope, "derived_from", gist_id, dst, AUTHOR, 1.0, meta) for dst in action.item_ids])
    return Outcome("applied", f"gist {gist_id} from {len(action.item_ids)} items", created=gist_id)


def _pattern(scope: str, action: Action, expected: list[int], remember: cmd.Remember, b: Batch) -> Outcome:
    """A pattern item, a ``derived_from`` edge to each member, and — when it replaces an older
    version of the same pattern — that version superseded by it: all in this savepoint."""
    for item_id, version in zip(action.item_ids, expected, strict=True):
        _check(b, scope, item_id, version)
    pattern_id = b.run([remember])[0].item_id
    assert pattern_id is not None
    meta = {"step": action.step, "reason": "a member of this recurring pattern's support set"}
    b.run([cmd.Link(scope, "derived_from", pattern_id, dst, AUTHOR, 1.0, meta) for dst in action.params["members"]])
    old = action.params.get("replaces")
    if old:
        b.run([cmd.Supersede(scope, str(old), pattern_id, _reason(action))])
    return Outcome("applied", f"pattern {pattern_id} from {len(action.params['members'])} events", created=pattern_id)


__all__ = ["apply_actions"]
