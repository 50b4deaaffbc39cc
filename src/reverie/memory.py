"""``Memory``: the facade every face (Python, CLI, MCP, HTTP) uses, and the only thing they import.

It validates input at the boundary, turns each call into commands, computes embeddings
*outside* the write transaction (so a slow model never holds the write lock), and hands the
commands to the store, which applies them atomically.
"""

from __future__ import annotations

import base64
import builtins
import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from reverie.conflict.alerts import Alert, build_alert
from reverie.conflict.alerts import rank as rank_alerts
from reverie.embed import Embedder
from reverie.errors import (
    EmbedderMismatchError,
    InvalidInputError,
    InvalidQueryError,
    LimitExceededError,
    NotFoundError,
)
from reverie.limits import DEFAULT_LIMITS, Limits
from reverie.model import commands as cmd
from reverie.model.clock import Clock, SystemClock, ensure_aware
from reverie.model.events import Event
from reverie.model.ids import IdFactory
from reverie.model.item import (
    CANDIDATE_SOURCES,
    EDGE_TYPES,
    SYMMETRIC_EDGES,
    Candidate,
    Edge,
    Item,
    Provenance,
)
from reverie.model.projection import ProjectionView, PutItem, PutTiers, project
from reverie.model.query import All, Filter, parse_sort
from reverie.model.validate import (
    SCORE_NAMES,
    check_count,
    check_id,
    check_key,
    check_kind,
    check_meta,
    check_numbers,
    check_reason,
    check_scope,
    check_score,
    check_seq,
    check_tags,
    check_text,
    check_unicode,
    check_value,
    decode_cursor,
    fingerprints,
    shown,
)
from reverie.recall.engine import Hit, RecallOptions, Weights, check_pool, default_pool
from reverie.recall.engine import recall as run_recall
from reverie.recall.packing import PackCandidate, estimate_tokens, pack, render_context, render_line
from reverie.store.protocol import DREAM_RUNS_KEPT, DoctorReport, Outcome, Store

if TYPE_CHECKING:
    from reverie.dream import Cohort, DreamConfig, DreamReport, QueueEntry


#: "Not read yet" for an optional argument whose read value may itself be None.
_UNREAD: Any = object()
#: Seconds ``close()`` waits for a running dream pass to stop between two batches.
DREAM_STOP_WAIT = 4.0
#: Flag on an item whose write-time conflict detection did not run (``detect_conflicts=False``):
#: the next dream pass checks it and clears the flag.
CONFLICTS_UNCHECKED = "conflicts_unchecked"
_log = logging.getLogger("reverie")


@dataclass(frozen=True, slots=True)
class Page:
    """One page of ``list`` results; pass ``next_cursor`` back to continue (None = no more)."""

    items: list[Item]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class History:
    """Every version of a claim (oldest first) and every event that touched any of them."""

    versions: list[Item]
    events: list[Event]


class Memory:
    """A belief-state memory in one embedded SQLite file (or ``":memory:"``).

    >>> from reverie import Memory
    >>> mem = Memory(":memory:", embedder="hash")
    >>> item = mem.remember("Alice is allergic to peanuts", scope="user:alice", kind="assertion",
    ...                     source="user_stated")
    >>> mem.get(item.id, scope="user:alice").text
    'Alice is allergic to peanuts'

    Every read and write takes ``scope=`` (the isolation boundary). Writes are atomic and
    acknowledged only after they commit; reads see only their own scope.
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        embedder: Embedder | str | None = None,
        clock: Clock | None = None,
        durability: str = "full",
        limits: Limits | None = None,
        seed: int | None = None,
        store: Store | None = None,
        detect_conflicts: bool = True,
    ) -> None:
        """Open (creating if missing) the store at ``path``.

        ``embedder``: an ``Embedder``, ``"minilm"`` (the default: a local model shipped in a
        PyPI package), or ``"hash"`` (deterministic, no model; for tests and scale runs).
        ``clock``: where "now" comes from (inject a ``ManualClock`` in tests).
        ``durability``: ``"full"`` (fsync every commit, the default) or ``"fast"``.
        ``seed``: makes generated ids reproducible. ``store``: another backend (e.g. the
        in-memory reference store) instead of SQLite at ``path``. ``detect_conflicts``: check
        each new claim against similar ones and link contradictions (on by default).
        """
        self.clock: Clock = clock or SystemClock()
        self.limits = limits or DEFAULT_LIMITS
        self._ids = IdFactory(seed)
        self._embedder_spec = embedder
        self._embedder: Embedder | None = embedder if not isinstance(embedder, str | None) else None
        self._embed_lock = threading.Lock()
        if store is None:
            from reverie.store.sqlite import SQLiteStore

            if not isinstance(path, str | Path):
                raise InvalidInputError("path must be a file path or ':memory:'")
            store = SQLiteStore(path, durability=durability)
        self.store: Store = store
        self._closed = False
        self._detect = detect_conflicts
        # A replayed import carries its source's edges and flags: it sets this False so the
        # copy is exact (cli/state.py); everyone else gets the marker when detection is off.
        self._mark_unchecked_writes = True
        self.last_dream_report: DreamReport | None = None
        # Dream passes running on this Memory, and the signal that asks them to stop (close()).
        self._dream_stop = threading.Event()
        self._dream_idle = threading.Condition()
        self._dreams_running = 0

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Release the file. Safe to call twice; any later call raises ``ClosedError``.

        A dream pass running in another thread is asked to stop and given up to
        ``DREAM_STOP_WAIT`` seconds: it stops between two atomic batches, releases its lease and
        reports itself interrupted, so close() returns promptly and leaves nothing half-applied.
        """
        if not self._closed:
            self._closed = True
            self._dream_stop.set()
            with self._dream_idle:
                self._dream_idle.wait_for(lambda: self._dreams_running == 0, timeout=DREAM_STOP_WAIT)
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- embedding ------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The embedder in use (created on first need: opening a store loads no model)."""
        with self._embed_lock:
            if self._embedder is None:
                from reverie.embed import HashEmbedder, default_embedder

                spec = self._embedder_spec or "minilm"
                if spec == "hash":
                    self._embedder = HashEmbedder()
                elif spec == "minilm":
                    self._embedder = default_embedder()
                else:
                    raise InvalidInputError(f"embedder {spec!r} is unknown: use 'minilm', 'hash' or an Embedder")
            return self._embedder

    def _checked_embedder(self) -> Embedder:
        """The embedder, after checking the store's vectors were made by the same one."""
        emb = self.embedder
        recorded = self.store.embedder()
        if recorded is None:
            self.store.set_embedder(emb.name, emb.dim)
        elif recorded[0] != emb.name:
            raise EmbedderMismatchError(
                f"this store's vectors were made by {recorded[0]!r} but the embedder is {emb.name!r}; "
                "open it with the same embedder, or run `reverie reindex` (Memory.reindex()) to rebuild them"
            )
        return emb

    def _embed_texts(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        unique = list(dict.fromkeys(texts))
        if not unique:
            return {}
        vecs = self._checked_embedder().embed(unique)
        return dict(zip(unique, vecs, strict=True))

    def reindex(self, *, progress: Any = None) -> int:
        """Re-embed every item with the current embedder and record it; returns items done."""
        emb = self.embedder
        self.store.set_embedder(emb.name, emb.dim)
        return self.store.reindex(emb.embed, progress=progress)

    # -- writes ---------------------------------------------------------------------------
    def _run(self, commands: Sequence[cmd.Command], texts: Sequence[str] = ()) -> builtins.list[Outcome]:
        vectors = self._embed_texts(texts)
        return self.store.execute(commands, now=self.clock.now(), new_id=self._new_id, vectors=vectors)

    def _new_id(self) -> str:
        return self._ids.new(self.clock.now())

    def _scope(self, scope: object) -> str:
        return check_scope(scope, self.limits)

    def _build_remember(self, c: Candidate | Mapping[str, Any], scope: str, source_ok: Sequence[str]) -> cmd.Remember:
        data = _candidate_fields(c)
        unknown = set(data) - _CANDIDATE_FIELDS
        if unknown:  # a typo ("tag=") must not be dropped silently
            raise InvalidInputError(
                f"unknown field(s) {', '.join(sorted(map(str, unknown)))}; "
                f"a claim has {', '.join(sorted(_CANDIDATE_FIELDS))}"
            )
        source = data.get("source", "observed")
        if source not in source_ok:
            raise InvalidInputError(
                f"source {source!r} is not allowed here; use one of {', '.join(source_ok)} "
                "('manual' and 'system' only through remember_manual / remember_system)"
            )
        scores: dict[str, float] = {}
        if data.get("scores") is not None and not isinstance(data["scores"], Mapping):
            raise InvalidInputError("scores must be a dict such as {'importance': 0.8}")
        for name, v in (data.get("scores") or {}).items():
            if name not in SCORE_NAMES:
                raise InvalidInputError(f"unknown score {name!r}; scores are {', '.join(SCORE_NAMES)}")
            scores[name] = check_score(name, v)
        for name in ("authority", "confidence", "importance", "durability"):
            if data.get(name) is not None:
                scores[name] = check_score(name, data[name])
        parents = tuple(check_id(p, "parent") for p in (data.get("parents") or ()))
        if len(parents) > self.limits.max_parents:
            raise LimitExceededError(f"{len(parents)} parents; the limit is {self.limits.max_parents}")
        prov = data.get("provenance")
        if prov is not None and not isinstance(prov, Provenance):
            if not isinstance(prov, Mapping):
                raise InvalidInputError("provenance must be a Provenance or a dict with origin/ref/locator")
            prov = Provenance.from_dict(dict(prov))
        if prov is not None:
            _check_provenance(prov, data["provenance"], self.limits)
        valid_from = ensure_aware(data["valid_from"], "valid_from") if data.get("valid_from") else None
        valid_to = ensure_aware(data["valid_to"], "valid_to") if data.get("valid_to") else None
        if valid_from and valid_to and valid_to <= valid_from:
            raise InvalidInputError("valid_to must be after valid_from")
        author = data.get("author")
        if author is not None:
            check_unicode(check_text(author, self.limits, "author"), "author")
        return cmd.Remember(
            scope=scope,
            text=check_text(data.get("text"), self.limits),
            kind=check_kind(data.get("kind", "observation")),
            source=source,
            key=check_key(data.get("key"), self.limits),
            value=check_value(data.get("value"), self.limits),
            author=author,
            tags=check_tags(data.get("tags"), self.limits),
            meta=check_meta(data.get("meta"), self.limits),
            parents=parents,
            provenance=prov or Provenance(),
            scores=scores,
            valid_from=valid_from,
            valid_to=valid_to,
        )

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
    ) -> Item:
        """Remember one claim; an equivalent current claim is corroborated instead of duplicated.

        ``source`` may be ``user_stated``, ``observed`` or ``inferred`` (what an agent or
        extractor can propose). Raises ``DismissedValueError`` for a dismissed value and
        ``LearningPausedError`` while the scope's learning is paused; nothing is stored then.
        Returns the stored (or corroborated) item.
        """
        fields = {k: v for k, v in locals().items() if k not in ("self", "scope")}
        return self._remember_one(fields, scope, CANDIDATE_SOURCES)

    def remember_manual(self, text: str, *, scope: str, **fields: Any) -> Item:
        """Remember a claim a *person* vouches for: source ``manual``, full authority, never auto-forgotten."""
        fields.setdefault("authority", 1.0)
        return self._remember_one({**fields, "text": text, "source": "manual"}, scope, ("manual",))

    def remember_system(self, text: str, *, scope: str, **fields: Any) -> Item:
        """Remember a claim reverie itself derived (a dream-pass gist, a system fact): source ``system``."""
        return self._remember_one({**fields, "text": text, "source": "system"}, scope, ("system",))

    def _remember_one(self, fields: Mapping[str, Any], scope: str, sources: Sequence[str]) -> Item:
        s = self._scope(scope)
        command = self._mark_unchecked(self._build_remember(fields, s, sources))
        out = self._run([command], [command.text])
        self._after_write(s, out)
        return self._outcome_item(s, out[0])

    def _mark_unchecked(self, command: cmd.Remember) -> cmd.Remember:
        """With write-time detection off, a new item carries ``CONFLICTS_UNCHECKED`` so the
        dream pass can check exactly the items that missed it (and clear the flag)."""
        if self._detect or not self._mark_unchecked_writes:
            return command
        return replace(command, flags=(*command.flags, CONFLICTS_UNCHECKED))

    def _after_write(self, scope: str, outcomes: Sequence[Outcome]) -> None:
        """Post-commit upkeep on newly created items: conflict detection.

        The write has committed before this runs, so no failure here may reach the caller as
        if the write had failed (a retry would store the claim twice, and a ``StorageError``
        saying "nothing was changed" would be false). A failed detection flags the item
        ``conflicts_unchecked`` instead, and the next dream pass runs it (``_defer_detection``).
        """
        if not self._detect:
            return
        for o in outcomes:
            for e in o.events:
                if e.type in ("memory.remembered", "memory.revised"):
                    item_id = e.payload["item"]["id"]
                    try:
                        self.detect_conflicts(item_id, scope=scope)
                    except Exception as exc:  # any failure: the write stands (see the docstring)
                        self._defer_detection(scope, item_id, exc)

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
            self._run([cmd.SetFlags(scope, item_id, (CONFLICTS_UNCHECKED,), (), why)])
        except Exception:  # best effort: the claim itself is committed
            _log.exception("could not flag item %s %s either", item_id, CONFLICTS_UNCHECKED)

    def remember_many(self, candidates: Iterable[Candidate | Mapping[str, Any]], *, scope: str) -> builtins.list[Item]:
        """Remember a batch in one transaction: all are stored, or (on any refusal) none."""
        s = self._scope(scope)
        batch = list(candidates)
        if len(batch) > self.limits.max_batch:
            raise LimitExceededError(f"{len(batch)} items in one batch; the limit is {self.limits.max_batch}")
        commands = [self._mark_unchecked(self._build_remember(c, s, CANDIDATE_SOURCES)) for c in batch]
        out = self._run(commands, [c.text for c in commands])
        self._after_write(s, out)
        ids = [o.item_id for o in out]
        found = self.store.get_many(s, [i for i in ids if i])
        return [found[i] for i in ids if i]

    def _outcome_item(self, scope: str, outcome: Outcome, key: str = "item") -> Item:
        for e in outcome.events:
            if key in e.payload and isinstance(e.payload[key], dict):
                item_id = e.payload[key]["id"]
                break
        else:
            item_id = outcome.item_id
        assert item_id is not None
        item = self.store.get(scope, item_id)
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
    ) -> Item:
        """Replace a claim by a new version: the old one is closed and linked by ``supersedes``.

        Returns the new version. With ``expected_version`` the revise succeeds only if the item
        is still at that version (optimistic concurrency), else ``VersionConflictError``.
        """
        s = self._scope(scope)
        text = check_text(new_text, self.limits)
        command = cmd.Revise(
            scope=s,
            id=check_id(id),
            text=text,
            reason=check_reason(reason),
            key=check_key(key, self.limits),
            value=check_value(value, self.limits),
            expected_version=_version(expected_version),
        )
        if not self._detect and self._mark_unchecked_writes:
            # The new version is a new claim that write-time detection skipped, like a remember.
            command = replace(command, flags=(CONFLICTS_UNCHECKED,))
        out = self._run([command], [text])
        self._after_write(s, out)
        return self._outcome_item(s, out[0])

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
        the queries that retrieved it, the meta of edges touching it and its tombstones — and
        appends a ``memory.purged`` event (the reason, no content). On SQLite it then rewrites
        the file (``secure_delete``, FTS merge, ``VACUUM``, WAL truncated) so the old bytes are
        gone from disk too; that costs time proportional to the file, so use it for erasure,
        not routine forgetting. Works on an already closed claim. Items *derived* from it (a
        dream gist, a child) keep their own text: purge those ids too if they quote it.
        Backups and exports made earlier are outside its reach. Returns the redacted item.
        """
        s = self._scope(scope)
        if not isinstance(purge, bool):
            raise InvalidInputError(f"purge must be True or False, got {type(purge).__name__}")
        if purge:
            from reverie.model.redact import REDACTED

            command: cmd.Command = cmd.Purge(s, check_id(id), check_reason(reason), _version(expected_version))
            # The redacted versions keep a vector (of the marker) so the history index stays whole.
            self._run([command], [REDACTED])
        else:
            self._run([cmd.Forget(s, check_id(id), check_reason(reason), _version(expected_version))])
        return self._must_get(s, id)

    def dismiss(self, id: str, *, scope: str, reason: str = "") -> Item:
        """Tombstone the claim's *value*: it leaves current truth and is refused if learned again."""
        s = self._scope(scope)
        self._run([cmd.Dismiss(s, check_id(id), check_reason(reason))])
        return self._must_get(s, id)

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
        s = self._scope(scope)
        prints: builtins.list[str] = []
        if text is not None:
            prints += fingerprints(check_text(text, self.limits), None, None)
        k, v = check_key(key, self.limits), check_value(value, self.limits)
        if k is not None and v is not None:
            prints += fingerprints("x", k, v)[1:]
        if not prints:
            raise InvalidInputError("undismiss needs the dismissed text, or key and value")
        self._run([cmd.Undismiss(s, tuple(prints), check_reason(reason))])

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
        """Add a typed edge (supports, contradicts, supersedes, alias, derived_from, about)."""
        s = self._scope(scope)
        if type not in EDGE_TYPES:
            raise InvalidInputError(f"edge type {type!r} is unknown; use one of {', '.join(EDGE_TYPES)}")
        if author is not None:
            check_text(author, self.limits, "author")
        command = cmd.Link(
            s,
            type,
            check_id(src, "src"),
            check_id(dst, "dst"),
            author,
            check_score("authority", authority),
            check_meta(meta, self.limits),
        )
        out = self._run([command])
        if out[0].events:
            edge_id = out[0].events[0].payload["edge"]["id"]
            return next(e for e in self.store.edges(s, src) if e.id == edge_id)
        # Already linked: return the existing edge (link is idempotent).
        return next(
            e
            for e in self.store.edges(s, src)
            if e.type == type
            and ((e.src, e.dst) == (src, dst) or ((e.dst, e.src) == (src, dst) and type in SYMMETRIC_EDGES))
        )

    def unlink(self, edge_id: str, *, scope: str, reason: str = "") -> None:
        """Close an edge (kept in history)."""
        self._run([cmd.Unlink(self._scope(scope), check_id(edge_id, "edge_id"), check_reason(reason))])

    def set_scores(
        self, id: str, *, scope: str, reason: str = "", expected_version: int | None = None, **scores: float
    ) -> Item:
        """Set any of authority / confidence / importance / durability / value (each in [0, 1])."""
        s = self._scope(scope)
        if not scores:
            raise InvalidInputError(f"set_scores needs at least one of {', '.join(SCORE_NAMES)}")
        checked = {}
        for name, v in scores.items():
            if name not in SCORE_NAMES:
                raise InvalidInputError(f"unknown score {name!r}; scores are {', '.join(SCORE_NAMES)}")
            checked[name] = check_score(name, v)
        self._run([cmd.SetScores(s, check_id(id), checked, check_reason(reason), _version(expected_version))])
        return self._must_get(s, id)

    def set_tier(
        self, id: str, tier: str, *, scope: str, reason: str = "", expected_version: int | None = None
    ) -> Item:
        """Move an item between tiers (active, durable, subconscious); optimistic with ``expected_version``."""
        s = self._scope(scope)
        self._run([cmd.SetTier(s, check_id(id), tier, check_reason(reason), _version(expected_version))])
        return self._must_get(s, id)

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
        s = self._scope(scope)
        if not isinstance(tiers, Mapping):
            raise InvalidInputError("tiers must be a mapping of item id -> tier")
        if len(tiers) > self.limits.max_batch:
            raise LimitExceededError(f"{len(tiers)} tier changes in one call; the limit is {self.limits.max_batch}")
        own = reasons or {}
        changes = tuple(cmd.TierChange(check_id(i), str(t), check_reason(own.get(i, reason))) for i, t in tiers.items())
        self._run([cmd.SetTiers(s, changes)])
        found = self.store.get_many(s, [c.id for c in changes])
        return [found[c.id] for c in changes]

    def promote(self, id: str, *, scope: str, to: str = "manual", reason: str = "") -> Item:
        """A person vouches for a claim (``to="manual"``) or pins it (``to="durable"``)."""
        s = self._scope(scope)
        self._run([cmd.Promote(s, check_id(id), to, check_reason(reason))])
        return self._must_get(s, id)

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
        s = self._scope(scope)
        add_, remove_ = check_tags(add, self.limits, "flags"), check_tags(remove, self.limits, "flags")
        version = _version(expected_version)
        self._run([cmd.SetFlags(s, check_id(id), add_, remove_, check_reason(reason), version)])
        return self._must_get(s, id)

    def pause_learning(self, scope: str, *, reason: str = "") -> None:
        """Refuse every learning write in ``scope`` (reads keep working) until ``resume_learning``."""
        self._run([cmd.PauseLearning(self._scope(scope), check_reason(reason))])

    def resume_learning(self, scope: str, *, reason: str = "") -> None:
        """Allow learning writes in ``scope`` again after ``pause_learning``."""
        self._run([cmd.ResumeLearning(self._scope(scope), check_reason(reason))])

    def record_use(self, scope: str, uses: Sequence[tuple[str, float]], query: str) -> None:
        """Record that ``query`` used these items (weights in (0, 1]); recall calls this for you."""
        s = self._scope(scope)
        if isinstance(uses, str) or not isinstance(uses, Iterable):
            raise InvalidInputError("uses must be a list of (item id, weight) pairs")
        checked = tuple(_use(u) for u in uses)
        if not isinstance(query, str):
            raise InvalidInputError(f"query must be a string, got {type(query).__name__}")
        check_unicode(query, "query")
        if checked:
            self._run([cmd.RecordUse(s, checked, query[: self.limits.max_query_chars])])

    # -- reads ----------------------------------------------------------------------------
    def _must_get(self, scope: str, id: str) -> Item:
        item = self.store.get(scope, id)
        if item is None:
            raise NotFoundError(f"no item {id} in scope {scope!r}")
        return item

    def get(self, id: str, *, scope: str, as_of: datetime | None = None) -> Item:
        """The item by id, or as it stood at ``as_of`` (record time). ``NotFoundError`` if absent then."""
        s = self._scope(scope)
        item_id = check_id(id)
        if as_of is None:
            return self._must_get(s, item_id)
        when = ensure_aware(as_of, "as_of")
        state = self._item_at(s, item_id, when)
        if state is None:
            raise NotFoundError(f"no item {item_id} in scope {s!r} as of {when.isoformat()}")
        return state

    def _item_at(self, scope: str, item_id: str, when: datetime) -> Item | None:
        """Replay this item's events up to ``when`` through the projection: its state then."""
        states: dict[str, Item] = {}

        def item(_scope: str, other: str) -> Item | None:
            # An event may also need another item (``memory.revised`` closes the version it
            # replaces): that one comes from its current row. Only this item's state is kept.
            return states[other] if other in states else self.store.get(scope, other)

        view = ProjectionView(item, lambda _s, _e: None)
        for event in self.store.events(scope, item_id=item_id, limit=1_000_000):
            if event.at > when:
                break
            for change in project(event, view):
                if isinstance(change, PutItem) and change.item.id == item_id:
                    states[item_id] = change.item
                elif isinstance(change, PutTiers) and item_id in states:
                    states[item_id] = change.moved(states[item_id]) or states[item_id]
        return states.get(item_id)

    def history(self, id: str, *, scope: str) -> History:
        """All versions of the claim (following ``supersedes`` both ways) and their events."""
        s = self._scope(scope)
        start = self._must_get(s, check_id(id))
        seen = {start.id}
        frontier = [start.id]
        while frontier:
            current = frontier.pop()
            for e in self.store.edges(s, current, include_closed=True):
                if e.type == "supersedes":
                    for other in (e.src, e.dst):
                        if other not in seen:
                            seen.add(other)
                            frontier.append(other)
        versions = sorted(self.store.get_many(s, list(seen)).values(), key=lambda i: (i.recorded_at, i.id))
        events: builtins.list[Event] = []
        for v in versions:
            events += self.store.events(s, item_id=v.id, limit=1_000_000)
        unique = {e.seq: e for e in events}
        return History(versions=versions, events=[unique[k] for k in sorted(unique)])

    def list(
        self,
        *,
        scope: str,
        where: Filter | None = None,
        sort: Sequence[str] | str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        include_closed: bool = False,
        subscopes: bool = False,
    ) -> Page:
        """Items matching a query-algebra filter (``reverie.Q``), sorted, paged.

        By default only current items; ``include_closed=True`` adds forgotten, superseded and
        dismissed ones. ``subscopes=True`` also reads ``scope/…`` child scopes.
        """
        s = self._scope(scope)
        if where is not None and not isinstance(where, Filter):
            raise InvalidQueryError("where must be a filter built with reverie.Q")
        f: Filter = where or All()
        if not include_closed:
            from reverie.model.query import Q

            f = f & Q.status("live")
        limit = check_count(limit, "limit", default=50, limits=self.limits)
        offset = _decode_cursor(cursor)
        items = self.store.query(s, f, parse_sort(sort), limit=limit + 1, offset=offset, subscopes=subscopes)
        more = len(items) > limit
        return Page(items[:limit], _encode_cursor(offset + limit) if more else None)

    def edges(self, id: str | None = None, *, scope: str, include_closed: bool = False) -> builtins.list[Edge]:
        """Edges of the scope, or those touching item ``id``."""
        s = self._scope(scope)
        return self.store.edges(s, check_id(id) if id is not None else None, include_closed=include_closed)

    def events(self, *, scope: str, after_seq: int = 0, limit: int | None = None) -> builtins.list[Event]:
        """The scope's event log, in order (for audit, export and replication).

        ``limit``: at most this many (default 1000, or ``Limits.max_events`` if lower: like
        ``max_k``'s counts, lowering the bound never breaks a caller that relied on the default).
        """
        s = self._scope(scope)
        bound = self.limits.max_events
        if limit is None:
            limit = min(1000, bound)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInputError(f"limit must be a positive int (at most {bound}), got {shown(limit)}")
        if limit > bound:
            raise LimitExceededError(
                f"limit is {shown(limit)}; the limit is Limits.max_events ({bound}): read the log in pages "
                "(pass the last seq you saw as after_seq) or raise Limits.max_events"
            )
        return self.store.events(s, after_seq=check_seq(after_seq), limit=limit)

    def summary(self, *, scope: str) -> dict[str, Any]:
        """Counts by tier (subconscious separately), kind, source, and dismissed / forgotten, plus pause state."""
        s = self._scope(scope)
        by = self.store.summary_counts(s)
        return {
            "scope": s,
            "current": sum(by["tier"].values()),
            "active": by["tier"].get("active", 0) + by["tier"].get("durable", 0),
            "subconscious": by["tier"].get("subconscious", 0),
            "by_tier": dict(sorted(by["tier"].items())),
            "by_kind": dict(sorted(by["kind"].items())),
            "by_source": dict(sorted(by["source"].items())),
            "dismissed": by["status"].get("dismissed", 0),
            "forgotten": by["status"].get("forgotten", 0),
            "superseded": by["status"].get("superseded", 0),
            "tombstones": len(self.store.tombstones(s)),
            "learning_paused": self.store.paused(s),
        }

    def scopes(self) -> builtins.list[str]:
        """Every scope that holds items (for operators; agents should know their scope)."""
        return self.store.scopes()

    # -- contradictions -------------------------------------------------------------------
    def detect_conflicts(self, id: str, *, scope: str, candidates: int = 10) -> builtins.list[Edge]:
        """Check one current item against similar current items of its scope; link what conflicts.

        Candidates: items with the same ``key``, plus the best lexical and dense matches. Each
        pair goes through the rule-based detector (polarity, numeric, entity, temporal); a hit
        becomes a ``contradicts`` edge carrying the axis, evidence spans, confidence and reason.
        Both items stay. Runs after every ``remember`` / ``revise`` (``detect=True``) and in the
        dream pass; idempotent (an existing edge between the pair is not duplicated).
        """
        s = self._scope(scope)
        item = self._must_get(s, check_id(id))
        if not item.is_current:
            return []
        commands = self._conflict_links(item, check_count(candidates, "candidates", default=10, limits=self.limits))
        if not commands:
            return []
        out = self.store.execute(commands, now=self.clock.now(), new_id=self._new_id, vectors={})
        new_ids = {o.events[0].payload["edge"]["id"] for o in out}
        return [e for e in self.store.edges(s, item.id) if e.id in new_ids]

    def _conflict_links(
        self, item: Item, candidates: int = 10, *, aliases: Any = _UNREAD, match: str | None = None
    ) -> builtins.list[cmd.Command]:
        """The ``contradicts`` links ``detect_conflicts`` would add for ``item`` (reads only).

        Split out so the dream pass can run it inside its own batch transaction, reading the
        alias groups once per batch (``aliases``, from ``_alias_lookup``) and querying the
        full-text index with the item's rarest words (``match``) instead of its whole text.
        """
        from reverie.conflict import Claim, detect

        s = item.scope
        others = self._conflict_candidates(item, candidates, match)
        linked = {frozenset((e.src, e.dst)) for e in self.store.edges(s, item.id) if e.type == "contradicts"}
        if aliases is _UNREAD:
            aliases = self._alias_lookup(s)
        mine = _claim(Claim, item)
        commands: builtins.list[cmd.Command] = []
        for other in others:
            if frozenset((item.id, other.id)) in linked:
                continue
            found = detect(mine, _claim(Claim, other), aliases=aliases)
            if found is None:
                continue
            meta = found.to_dict()
            meta["newer"] = item.id if item.recorded_at >= other.recorded_at else other.id
            commands.append(
                cmd.Link(s, "contradicts", item.id, other.id, "reverie.conflict", float(found.confidence), meta)
            )
        return commands

    def _conflict_candidates(self, item: Item, n: int, match: str | None = None) -> builtins.list[Item]:
        from reverie.model.query import Q
        from reverie.recall.normalize import fts_query

        s = item.scope
        ids: dict[str, None] = {}
        if item.key:
            for other in self.store.query(s, Q.key(item.key) & _current(), parse_sort(None), limit=n):
                ids[other.id] = None
        match = match or fts_query(item.text)
        if match:
            for other_id, _ in self.store.lexical(s, match, limit=n):
                ids[other_id] = None
        ids.pop(item.id, None)
        found = self.store.get_many(s, builtins.list(ids))
        return [found[i] for i in ids if i in found and found[i].is_current]

    def _alias_lookup(self, scope: str) -> Any:
        """Alias groups (transitive, over current ``alias`` edges) as a name → group lookup."""
        groups: dict[str, set[str]] = {}
        edges = [e for e in self.store.edges(scope) if e.type == "alias"]
        if not edges:
            return None
        items = self.store.get_many(scope, [i for e in edges for i in (e.src, e.dst)])
        for e in edges:
            a, b = items.get(e.src), items.get(e.dst)
            if a is None or b is None:
                continue
            names = {a.text.casefold(), b.text.casefold()} | {v.casefold() for v in (a.value, b.value) if v}
            merged = set(names)
            for name in names:
                merged |= groups.get(name, set())
            for name in merged:
                groups[name] = merged
        return lambda name: frozenset(groups.get(name.casefold(), {name.casefold()}))

    def contradictions(
        self, *, scope: str, alerts_only: bool = False, limit: int | None = None
    ) -> builtins.list[Alert]:
        """Open conflicts (both sides current), hypercorrections and established beliefs first.

        ``limit``: at most this many (default 100, or ``Limits.max_k`` if lower).
        """
        s = self._scope(scope)
        limit = check_count(limit, "limit", default=100, limits=self.limits)
        edges = [e for e in self.store.edges(s) if e.type == "contradicts"]
        items = self.store.get_many(s, [i for e in edges for i in (e.src, e.dst)])
        alerts = []
        for e in edges:
            a, b = items.get(e.src), items.get(e.dst)
            if a is None or b is None or not a.is_current or not b.is_current:
                continue
            alert = build_alert(e, a, b)
            if alert.alert or not alerts_only:
                alerts.append(alert)
        return rank_alerts(alerts)[:limit]

    def resolve(self, conflict: str, *, keep: str, scope: str, reason: str = "") -> Item:
        """Settle a conflict: ``keep`` stays, the other side is superseded (lower authority,
        ``supersedes`` edge, validity closed), the conflict edge closes, and current items derived
        from the loser are flagged ``stale_derived`` and demoted — all in one transaction.
        """
        from reverie.model.query import Q

        s = self._scope(scope)
        edge_id, keep_id = check_id(conflict, "conflict"), check_id(keep, "keep")
        edge = next((e for e in self.store.edges(s) if e.id == edge_id and e.type == "contradicts"), None)
        if edge is None:
            raise NotFoundError(f"no open conflict {edge_id} in scope {s!r}")
        if keep_id not in (edge.src, edge.dst):
            raise InvalidInputError(f"keep must be one side of the conflict: {edge.src} or {edge.dst}")
        loser = edge.dst if keep_id == edge.src else edge.src
        why = check_reason(reason) or "conflict resolved"
        commands: builtins.list[cmd.Command] = [
            cmd.Supersede(s, loser, keep_id, why),
            cmd.Unlink(s, edge.id, why),
        ]
        derived = self.store.query(s, Q.parent(loser) & _current(), parse_sort(None), limit=self.limits.max_batch)
        for d in derived:
            commands.append(cmd.SetFlags(s, d.id, ("stale_derived",), (), f"parent {loser} lost a conflict"))
            commands.append(cmd.SetTier(s, d.id, "subconscious", f"parent {loser} lost a conflict"))
        self._run(commands)
        return self._must_get(s, keep_id)

    # -- the dream pass -------------------------------------------------------------------
    def dream(
        self,
        *,
        scope: str,
        dry_run: bool = False,
        config: DreamConfig | None = None,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> DreamReport:
        """One deterministic consolidation pass over ``scope`` (no LLM); returns what it did and why.

        Salience, near-duplicate consolidation into gist items (originals untouched), the
        state-toggle guard, hub flagging, the keep-budget, tiering, provenance upkeep and
        importance settling — each change an event with its reason. ``dry_run=True`` returns
        the plan and applies nothing. A second pass on the same scope (any process sharing
        the file) skips and says why. ``progress(phase, done, total)`` is called as the pass
        plans (``"plan"``, in steps) and applies (``"apply"``, in actions). A pass that ran is
        recorded in the store for every process to read (``dream_runs``); the report of this
        process's last one stays in ``last_dream_report`` too.
        """
        from reverie.dream import dream as run_dream

        report = run_dream(self, scope=self._scope(scope), dry_run=dry_run, config=config, progress=progress)
        if not dry_run:
            self.last_dream_report = report
        return report

    def dream_runs(self, *, scope: str, limit: int | None = None) -> builtins.list[dict[str, Any]]:
        """The scope's recent dream passes as the store recorded them, newest first — including
        passes run by another process (cron, a server) or before a restart.

        Each is a JSON-ready summary of the pass's report (``reverie.dream.runs``): scope, ``at``,
        ``interrupted``, stats, notes, timings, config, counts of actions by step and status, the
        first few actions with their reasons, and the first ``spared`` entries with
        ``spared_total``. Every action's reason is in the event log. Applied and interrupted
        passes are recorded, not dry runs or passes skipped for the lease; a store keeps the
        newest 20 per scope. ``limit``: at most this many (default 20, or ``Limits.max_k`` if lower).
        """
        s = self._scope(scope)
        limit = check_count(limit, "limit", default=DREAM_RUNS_KEPT, limits=self.limits)
        return self.store.dream_runs(s, limit=limit)

    @contextmanager
    def _dream_running(self) -> Iterator[None]:
        """Count a running pass so ``close()`` can wait for it to stop (``reverie.dream.run``)."""
        with self._dream_idle:
            self._dreams_running += 1
        try:
            yield
        finally:
            with self._dream_idle:
                self._dreams_running -= 1
                self._dream_idle.notify_all()

    def _dream_cancelled(self) -> bool:
        """True once ``close()`` has asked running passes to stop (checked between batches)."""
        return self._dream_stop.is_set()

    def value_by_cohort(self, *, scope: str, by: str = "tag") -> builtins.list[Cohort]:
        """Value summed and averaged per cohort (``by="tag"`` or ``"month"`` of recording)."""
        from reverie.dream import value_by_cohort

        return value_by_cohort(self, scope=self._scope(scope), by=by)

    def thinking_queue(self, *, scope: str, k: int | None = None) -> builtins.list[QueueEntry]:
        """What deserves attention: current items by importance × (1 − authority).

        ``k``: at most this many (default 10, or ``Limits.max_k`` if lower).
        """
        from reverie.dream import thinking_queue

        return thinking_queue(self, scope=self._scope(scope), k=check_count(k, "k", default=10, limits=self.limits))

    def cascade_retract(self, id: str, *, scope: str, reason: str = "") -> builtins.list[str]:
        """Forget ``id`` and every current item derived from it, transitively; returns the ids."""
        from reverie.dream import cascade_retract

        return cascade_retract(self, check_id(id), scope=self._scope(scope), reason=reason)

    # -- recall ---------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        scope: str,
        k: int | None = None,
        mode: str = "hybrid",
        where: Filter | None = None,
        as_of: datetime | None = None,
        include_history: bool = False,
        tiers: Sequence[str] = ("active", "durable"),
        contradictions: str = "surface",
        weights: Weights | None = None,
        diversity: Mapping[str, float] | None = None,
        min_authority: float = 0.0,
        record_use: bool = True,
        options: RecallOptions | None = None,
    ) -> builtins.list[Hit]:
        """The best current memories for ``query``, each with ``score`` and ``why``.

        Full-text (FTS5 bm25) and dense legs fused by Reciprocal Rank Fusion, then ranked by
        relevance × value × per-kind decay. Current truth only unless ``as_of`` (what we
        believed then) or ``include_history``; subconscious items only if ``tiers`` names them
        (and recalling one promotes it back). ``contradictions="surface"`` flags both sides of
        a conflict, ``"filter"`` keeps the better-supported one. ``diversity`` penalises hits
        sharing an ``author`` or ``parent``. When the answer is weak, one corrective pass runs
        (wider pool, no trust floor) and replaces it only if strictly better. Each hit records
        this query as ``last_used_query`` unless ``record_use=False``.
        """
        s = self._scope(scope)
        opts = (
            self._recall_options(
                query,
                k,
                mode,
                where,
                as_of,
                include_history,
                tiers,
                contradictions,
                weights,
                diversity,
                min_authority,
            )
            if options is None
            else self._checked_options(query, options)
        )
        qvec = None
        if opts.mode in ("hybrid", "dense"):
            qvec = self._checked_embedder().embed([query])[0]
        hits, trace = run_recall(self.store, s, query, qvec, opts, self.clock.now())
        hits = [replace(h, why={**h.why, "passes": trace["passes"], "answer_from": trace["used"]}) for h in hits]
        if record_use and hits:
            top = hits[0].score or 1.0
            self.record_use(s, [(h.item.id, max(0.01, min(1.0, h.score / top))) for h in hits], query)
        return hits

    def _checked_options(self, query: object, options: RecallOptions) -> RecallOptions:
        """Caller-built options pass the same checks as the keyword arguments, then are used as given.

        Regression: they used to skip them, so ``k=0`` gave an empty answer and ``k`` or the query had
        no bound, and ``pool`` (which the keyword path sets itself) was not checked at all
        (tests/recall/test_recall_options.py).
        """
        diversity = {"author": options.diversity_author, "parent": options.diversity_parent}
        checked = self._recall_options(
            query,
            options.k,
            options.mode,
            options.where,
            options.as_of,
            options.include_history,
            options.tiers,
            options.contradictions,
            options.weights,
            diversity,
            options.min_authority,
        )
        check_pool(options.pool, self.limits)
        return replace(options, as_of=checked.as_of)

    def _recall_options(
        self,
        query: object,
        k: object,
        mode: object,
        where: object,
        as_of: datetime | None,
        include_history: bool,
        tiers: Sequence[str],
        contradictions: object,
        weights: Weights | None,
        diversity: Mapping[str, float] | None,
        min_authority: float,
    ) -> RecallOptions:
        text = check_text(query, self.limits, "query")
        if len(text) > self.limits.max_query_chars:
            raise LimitExceededError(f"query is longer than Limits.max_query_chars ({self.limits.max_query_chars})")
        k = check_count(k, "k", default=10, limits=self.limits)  # None: 10, or max_k if lower
        if mode not in ("hybrid", "lexical", "dense"):
            raise InvalidInputError("mode must be 'hybrid', 'lexical' or 'dense'")
        if contradictions not in ("surface", "filter"):
            raise InvalidInputError("contradictions must be 'surface' or 'filter'")
        if where is not None and not isinstance(where, Filter):
            raise InvalidQueryError("where must be a filter built with reverie.Q")
        bad = [t for t in tiers if t not in ("active", "durable", "subconscious")]
        if isinstance(tiers, str) or bad or not tiers:
            raise InvalidInputError("tiers must be a non-empty list of 'active', 'durable', 'subconscious'")
        div = dict(diversity or {})
        unknown = set(div) - {"author", "parent"}
        if unknown:
            raise InvalidInputError(f"diversity takes 'author' and 'parent' penalties, not {sorted(unknown)}")
        return RecallOptions(
            k=k,
            mode=mode,
            where=where,
            as_of=ensure_aware(as_of, "as_of") if as_of is not None else None,
            include_history=bool(include_history),
            tiers=tuple(tiers),
            contradictions=contradictions,
            weights=check_numbers(weights, Weights, "weights"),
            pool=default_pool(k),
            min_authority=check_score("min_authority", min_authority),
            diversity_author=check_score("diversity author", div.get("author", 0.0)),
            diversity_parent=check_score("diversity parent", div.get("parent", 0.0)),
        )

    def context(
        self,
        query: str,
        *,
        scope: str,
        budget_tokens: int = 800,
        k: int | None = None,
        **recall_args: Any,
    ) -> str:
        """Recall, then pack the best memories by score per token into ``budget_tokens``.

        Each memory is rendered with its kind, source and time, inside a block marked as
        stored data (not instructions), ready to put in a prompt.
        """
        if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 1:
            raise InvalidInputError("budget_tokens must be a positive int")
        k = check_count(k, "k", default=50, limits=self.limits)  # None: 50, or max_k if lower
        hits = self.recall(query, scope=scope, k=k, **recall_args)
        cands = []
        lines: dict[str, str] = {}
        for h in hits:
            at = h.item.valid_from or h.item.recorded_at
            line = render_line(h.item.text, kind=h.item.kind, source=h.item.source, at=at)
            if h.contradicted_by:
                line += " (contested)"
            if not h.asserted:
                line += " (low confidence)"
            lines[h.item.id] = line
            cands.append(PackCandidate(id=h.item.id, text=line, score=h.score, tokens=estimate_tokens(line)))
        packed = pack(cands, budget_tokens)
        return render_context([lines[c.id] for c in packed])

    # -- health ---------------------------------------------------------------------------
    def doctor(self) -> DoctorReport:
        """Check every projection against the record store; ``report.ok`` is True when all agree."""
        report = self.store.doctor()
        recorded = self.store.embedder()
        if recorded is not None and self._embedder is not None and recorded[0] != self._embedder.name:
            report.problems.append(f"vectors were made by {recorded[0]!r}, the embedder is {self._embedder.name!r}")
        return report

    def rebuild(self) -> None:
        """Drop and rebuild every projection from the event log (the fix ``doctor`` points to)."""
        emb = self.embedder
        self.store.set_embedder(emb.name, emb.dim)
        self.store.rebuild(emb.embed)

    def backup(self, target: str | Path) -> None:
        """Write a consistent copy of the store to ``target`` with SQLite's backup API."""
        backup = getattr(self.store, "backup", None)
        if backup is None:
            raise InvalidInputError("this store backend has no backup")
        backup(target)


def _claim(factory: Any, item: Item) -> Any:
    return factory(text=item.text, key=item.key, value=item.value, valid_from=item.valid_from, valid_to=item.valid_to)


def _current() -> Filter:
    from reverie.model.query import Q

    return Q.status("live")


def _candidate_fields(c: Candidate | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(c, Candidate):
        return {name: getattr(c, name) for name in c.__dataclass_fields__}
    if isinstance(c, Mapping):
        return dict(c)
    if isinstance(c, str):
        return {"text": c}
    raise InvalidInputError(f"each batch entry must be a Candidate, a dict or a string, got {type(c).__name__}")


#: Every field a claim may carry: ``Candidate``'s fields plus the four score shortcuts.
_CANDIDATE_FIELDS = frozenset(Candidate.__dataclass_fields__) | {"authority", "confidence", "importance", "durability"}
_PROVENANCE_FIELDS = ("origin", "ref", "locator", "event_id")


def _check_provenance(prov: Provenance, given: object, limits: Limits) -> None:
    """Provenance is structured: known fields only, each a storable string (or None)."""
    if isinstance(given, Mapping):
        unknown = set(given) - set(_PROVENANCE_FIELDS)
        if unknown:
            raise InvalidInputError(
                f"unknown provenance field(s) {', '.join(sorted(map(str, unknown)))}; use origin, ref, locator"
            )
        values = [given.get(name) for name in _PROVENANCE_FIELDS]
    else:
        values = [getattr(prov, name) for name in _PROVENANCE_FIELDS]
    for name, v in zip(_PROVENANCE_FIELDS, values, strict=True):
        if v is not None:
            check_text(v, limits, f"provenance.{name}")


def _use(entry: object) -> tuple[str, float]:
    """One (item id, weight) pair of ``record_use``; weight in (0, 1] (it scales reinforcement)."""
    if not isinstance(entry, tuple | list) or len(entry) != 2:
        raise InvalidInputError("each use is an (item id, weight) pair")
    weight = check_score("weight", entry[1])
    if weight <= 0.0:
        raise InvalidInputError("a use weight must be in (0, 1]")
    return check_id(entry[0]), weight


def _version(v: object) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise InvalidInputError("expected_version must be a positive int")
    return v


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode()


def _decode_cursor(cursor: str | None) -> int:
    return decode_cursor(cursor)
