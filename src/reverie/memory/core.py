"""``Core``: the state every capability of the facade shares, and nothing else.

Why one small object: each capability (writes, reads, recall, contradictions, dream, upkeep)
is handed exactly this — the store, the clock, the limits, the id factory and the embedder —
instead of the whole ``Memory``, so a capability cannot reach into another one except through
what it was given explicitly. Embeddings are computed here *outside* the write transaction, so
a slow model never holds the store's write lock.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Sequence

import numpy as np

from reverie.embed import Embedder
from reverie.errors import EmbedderMismatchError, InvalidInputError, NotFoundError
from reverie.limits import Limits
from reverie.model import commands as cmd
from reverie.model.clock import Clock
from reverie.model.ids import IdFactory
from reverie.model.item import Item
from reverie.model.validate import check_scope
from reverie.store.protocol import Outcome, Store

#: Flag on an item whose write-time conflict detection did not run (``detect_conflicts=False``,
#: or a detection that failed after the write committed): the next dream pass checks it and
#: clears the flag.
CONFLICTS_UNCHECKED = "conflicts_unchecked"


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
    def run(self, commands: Sequence[cmd.Command], texts: Sequence[str] = ()) -> builtins.list[Outcome]:
        """Embed ``texts`` first, then apply ``commands`` in one store transaction."""
        vectors = self.embed_texts(texts)
        return self.store.execute(commands, now=self.clock.now(), new_id=self.new_id, vectors=vectors)

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
