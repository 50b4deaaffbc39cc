"""Approximate nearest-neighbour search for large scopes: a faiss IVF index kept in step with the file.

Why IVF (inverted file: k-means lists, search the lists nearest the query) and not HNSW:
- *A function of the current vector set.* Once its centroids are trained, where a vector goes
  depends only on the vector, not on insertion order or past deletions, and a probed list is
  scored exactly. So an index caught up incrementally answers like one rebuilt from the file
  with the same centroids, and appends / removals are cheap (assign to a list / drop from it).
- *Cheap to build.* 1M x 384 vectors are read from SQLite, trained on (k-means on an 82k sample, 5 iterations),
  added and saved in ~1 min on one core here; HNSW (usearch) took ~14 min (DESIGN.md), 20 s per
  100k single-threaded, and its graph depends on insertion order.
- *Deterministic.* Centroids are trained single-threaded with a fixed seed on a fixed sample
  (the scope's first vectors by row number); ties in the answer break by row number.

Consistency with the record store: every vector write bumps ``vec_appends`` / ``vec_removals``
of the scope in the same transaction (``VectorCache`` relies on the same counters). The index
records the counters it reflects and its highest row number; before each search it fetches rows
above that watermark (their number must equal the appends since, or the file changed under it
and the index is rebuilt) and, when removals moved, drops the rows that went to
``vectors_history``. Every answer is still checked against the ``vectors`` table (current items
of this scope only), so even a lagging or foreign index can never return a forgotten, closed or
other-scope item. A sidecar file ``<db>.ann/<scope hash>.ivf`` saves a built index (after a
build, and on close when it changed); on open it is loaded only if it was made for the same
embedder and a sample of its vectors still matches the table, then caught up like above.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import math
import os
import sqlite3
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reverie.errors import InvalidInputError

_MAGIC = b"RVANN1\n"
_FORMAT = 1
_SAMPLE_CHECKS = 16  # vectors compared against the table when a sidecar is loaded
_ADD_CHUNK = 65_536  # rows per read / add while building (bounds the extra memory)
#: k-means sample and iterations. Training costs sample x lists x iterations. Measured at 100k
#: vectors (1,024 lists; ``bench/scale.py``, agreement of the ANN top 10 with exact search over
#: its 300 queries, probing 1/8; first-recall build time): 40 points per list and 10 iterations
#: 0.872 in 5.1 s; 40 and 5: 0.868 in 3.5 s; 24 and 10: 0.862 in 3.4 s; 16 and 8: 0.852 in 2.5 s.
#: k-means has mostly converged after 5 iterations, while a smaller sample costs agreement.
_TRAIN_PER_LIST = 40
_TRAIN_ITERATIONS = 5


@dataclass(frozen=True, slots=True)
class AnnConfig:
    """When and how a scope's dense search goes approximate.

    ``threshold``: scopes with at least this many current vectors use the IVF index; smaller ones
    keep the exact vectorised scan (exact at 50k costs ~4 ms here, and small stores stay exact).
    ``probe_fraction``: share of the lists searched per query (recall against exact search vs
    time: on hash-embedder vectors at 100k, 1/8 of 1,024 lists gave recall@10 ~0.87 in 1.2 ms,
    1/5 gave 0.93 in 2 ms; real sentence embeddings cluster and do better). ``min_probe``: never
    fewer lists. ``max_lists``: cap on k-means lists (their count is ~4·sqrt(n), a power of two).
    ``persist``: keep a sidecar file beside the database so a reopen need not rebuild.
    """

    threshold: int = 50_000
    probe_fraction: float = 0.125
    min_probe: int = 8
    max_lists: int = 2048
    persist: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, int) or self.threshold < 1:
            raise InvalidInputError(f"AnnConfig.threshold must be an int >= 1, got {self.threshold!r}")
        if not 0.0 < self.probe_fraction <= 1.0:
            raise InvalidInputError(f"AnnConfig.probe_fraction must be in (0, 1], got {self.probe_fraction!r}")
        if self.min_probe < 1 or self.max_lists < 1:
            raise InvalidInputError("AnnConfig.min_probe and max_lists must be >= 1")


def _faiss() -> Any:
    """faiss, imported on first use (it costs ~0.2 s and only large scopes need it); untyped."""
    return importlib.import_module("faiss")


@dataclass
class _Counters:
    appends: int
    removals: int


@dataclass
class ScopeIndex:
    """One scope's IVF index and the point of the record store it reflects."""

    embedder: str
    dim: int
    appends: int
    removals: int
    max_n: int
    trained_on: int  # vectors in the scope when the centroids were trained
    ns: np.ndarray  # sorted int64 row numbers held by the index
    index: Any
    checks: list[list[int]]  # [row, crc32 of its vector] sampled at build: detects a changed file
    dirty: bool = field(default=True)

    @property
    def size(self) -> int:
        return len(self.ns)

    @property
    def nlist(self) -> int:
        return int(self.index.nlist)

    def search(self, query: np.ndarray, limit: int, cfg: AnnConfig) -> list[tuple[int, float]]:
        """(row number, inner product) best first; ties by row number."""
        self.index.nprobe = min(self.nlist, max(cfg.min_probe, math.ceil(self.nlist * cfg.probe_fraction)))
        sims, labels = self.index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), limit)
        pairs = [(int(n), float(s)) for n, s in zip(labels[0], sims[0], strict=True) if n >= 0]
        pairs.sort(key=lambda p: (-p[1], p[0]))
        return pairs

    def add(self, ns: np.ndarray, mat: np.ndarray) -> None:
        """Add rows numbered above every row held (appends only ever come above the watermark)."""
        if len(ns):
            self.index.add_with_ids(np.ascontiguousarray(mat, dtype=np.float32), ns.astype(np.int64))
            self.ns = np.concatenate([self.ns, ns.astype(np.int64)])
            self.dirty = True

    def remove(self, ns: np.ndarray) -> None:
        want = np.asarray(ns, dtype=np.int64)
        pos = np.searchsorted(self.ns, want)
        ok = pos < len(self.ns)
        ok[ok] = self.ns[pos[ok]] == want[ok]
        if ok.any():
            held = np.unique(want[ok])
            self.index.remove_ids(_faiss().IDSelectorBatch(held))
            self.ns = np.delete(self.ns, np.unique(pos[ok]))
            self.dirty = True


def n_lists(size: int, cfg: AnnConfig) -> int:
    """~4·sqrt(n) lists as a power of two, capped, and at least 39 training points per list (faiss's floor)."""
    want = 1 << round(math.log2(max(1.0, 4 * math.sqrt(size))))
    return max(1, min(want, cfg.max_lists, size // 39))


class AnnManager:
    """Every scope's index for one store: build, catch up, search, persist, report drift."""

    def __init__(self, db_path: str, cfg: AnnConfig) -> None:
        self.cfg = cfg
        self._dir = None if db_path == ":memory:" else Path(db_path + ".ann")
        self._indexes: dict[str, ScopeIndex] = {}
        self._counts: dict[str, tuple[int, int, int]] = {}  # scope -> (appends, removals, current count)
        #: Indexes built from the table (not loaded from a sidecar) since this manager was made:
        #: tests and ``doctor`` read it to tell a warm index from a rebuild.
        self.builds = 0

    # -- public ---------------------------------------------------------------------------------
    def clear(self, *, drop_files: bool = False) -> None:
        """Forget every in-memory index (after a rebuild or reindex changed the rows under them)."""
        self._indexes.clear()
        self._counts.clear()
        if drop_files and self._dir is not None and self._dir.is_dir():
            for f in self._dir.glob("*.ivf"):
                with contextlib.suppress(OSError):
                    f.unlink()

    def nearest(
        self, c: sqlite3.Connection, scope: str, query: np.ndarray, limit: int, embedder: tuple[str, int]
    ) -> list[tuple[str, float]] | None:
        """The ``limit`` nearest current vectors of ``scope`` as (id, similarity), or None below the threshold."""
        idx = self._ready(c, scope, embedder)
        if idx is None:
            return None
        return self._checked(c, scope, idx, idx.search(query, limit, self.cfg))

    def warm(self, c: sqlite3.Connection, scope: str, embedder: tuple[str, int]) -> bool:
        """Build or catch up ``scope``'s index now and save its sidecar; False below the threshold.

        Why: the first search after a scope crosses the threshold pays the build (3.5 s at 100k
        vectors, ~40 s at 1M). A dream pass calls this at its end, as idle work, so that search
        finds the index in step (and a reopened store finds the sidecar in step).
        """
        idx = self._ready(c, scope, embedder)
        if idx is None:
            return False
        if self.cfg.persist and idx.dirty:
            with contextlib.suppress(OSError):
                self._save(scope, idx)
        return True

    def prepare(self, c: sqlite3.Connection, scope: str, embedder: tuple[str, int]) -> ScopeIndex | None:
        """The slow half of ``warm``, run on the caller's own connection *without* the store lock.

        Loads the sidecar or builds the index from ``c``'s read snapshot (open a transaction on
        ``c`` first, so counters and rows agree) and leaves this manager's indexes alone: pass
        the result to ``install`` under the lock, where ``warm`` catches it up with writes made
        meanwhile. None when there is nothing slow to do (already in memory, or below the
        threshold). Why: a build takes ~1 min at 1M vectors; holding the store lock for it would
        stall every other call, ``close()`` included.
        """
        if scope in self._indexes:
            return None
        size = int(c.execute("SELECT count(*) FROM vectors WHERE scope = ?", (scope,)).fetchone()[0])
        if size < self.cfg.threshold:
            return None
        idx = self._load(c, scope, embedder)
        if idx is None:
            idx = self._build(c, scope, _read_counters(c, scope), embedder)
        return idx

    def install(self, scope: str, idx: ScopeIndex) -> None:
        """Adopt an index from ``prepare`` (call under the store lock) unless a search built one meanwhile."""
        self._indexes.setdefault(scope, idx)

    def _ready(self, c: sqlite3.Connection, scope: str, embedder: tuple[str, int]) -> ScopeIndex | None:
        """The scope's index, opened or built and caught up with the file; None below the threshold."""
        counters = _read_counters(c, scope)
        idx = self._indexes.get(scope)
        if idx is None:
            if self._count(c, scope, counters) < self.cfg.threshold:
                return None
            idx = self._open(c, scope, counters, embedder)
        else:
            idx = self._catch_up(c, scope, idx, counters, embedder)
        if idx.size < self.cfg.threshold:  # shrank below it: exact again (and rebuilt if it regrows)
            self._indexes.pop(scope, None)
            return None
        return idx

    def persist(self, c: sqlite3.Connection) -> None:
        """Save every index that changed since it was last saved and still matches the file.

        One that lags the file is not saved (it could hold a vector a purge has since erased);
        the next open catches up from the older sidecar or rebuilds. A cache: failures are ignored.
        """
        if not self.cfg.persist:
            return
        for scope, idx in self._indexes.items():
            now = _read_counters(c, scope)
            if idx.dirty and (now.appends, now.removals) == (idx.appends, idx.removals):
                with contextlib.suppress(OSError):
                    self._save(scope, idx)

    def drift(self, c: sqlite3.Connection) -> tuple[list[str], dict[str, int]]:
        """Sidecars that cannot serve (problems), and how many exist / lag the file (counts)."""
        problems: list[str] = []
        if self._dir is None or not self._dir.is_dir():
            return problems, {}  # no ANN state: nothing to report (and no new keys in the report)
        counts = {"ann_sidecars": 0, "ann_lagging": 0}
        embedder = dict(c.execute("SELECT k, v FROM settings WHERE k IN ('embedder', 'embedder_dim')").fetchall())
        for path in sorted(self._dir.glob("*.ivf")):
            counts["ann_sidecars"] += 1
            try:
                meta = _read_meta(path)
            except (OSError, ValueError) as exc:
                problems.append(f"ANN sidecar {path.name} is unreadable ({exc}); delete it or run rebuild")
                continue
            scope = str(meta["scope"])
            if (meta["embedder"], str(meta["dim"])) != (embedder.get("embedder"), embedder.get("embedder_dim")):
                problems.append(f"ANN sidecar for scope {scope!r} was built for another embedder; it will be rebuilt")
                continue
            now = _read_counters(c, scope)
            if now.appends < meta["appends"] or now.removals < meta["removals"]:
                problems.append(
                    f"ANN sidecar for scope {scope!r} is ahead of the store (restored from another copy?); "
                    "it will be rebuilt"
                )
            elif (now.appends, now.removals) != (meta["appends"], meta["removals"]):
                counts["ann_lagging"] += 1  # normal: caught up incrementally on the next search
            if not _sample_ok(c, scope, meta["checks"]):
                problems.append(f"ANN sidecar for scope {scope!r} holds vectors that differ from the store")
        return problems, counts

    # -- internals ------------------------------------------------------------------------------
    def _count(self, c: sqlite3.Connection, scope: str, counters: _Counters) -> int:
        cached = self._counts.get(scope)
        if cached is not None and cached[:2] == (counters.appends, counters.removals):
            return cached[2]
        if counters.appends < self.cfg.threshold:  # every current vector was once appended
            n = counters.appends
        else:
            n = int(c.execute("SELECT count(*) FROM vectors WHERE scope = ?", (scope,)).fetchone()[0])
        self._counts[scope] = (counters.appends, counters.removals, n)
        return n

    def _open(self, c: sqlite3.Connection, scope: str, counters: _Counters, embedder: tuple[str, int]) -> ScopeIndex:
        idx = self._load(c, scope, embedder)
        if idx is not None:
            idx = self._catch_up(c, scope, idx, counters, embedder)
        else:
            idx = self._build(c, scope, counters, embedder)
        self._indexes[scope] = idx
        return idx

    def _catch_up(
        self, c: sqlite3.Connection, scope: str, idx: ScopeIndex, counters: _Counters, embedder: tuple[str, int]
    ) -> ScopeIndex:
        if (idx.embedder, idx.dim) != embedder or counters.appends < idx.appends or counters.removals < idx.removals:
            return self._rebuild(c, scope, counters, embedder)
        moved = (counters.appends, counters.removals) != (idx.appends, idx.removals)
        if moved and not _advance(c, scope, idx, counters):
            return self._rebuild(c, scope, counters, embedder)
        if n_lists(idx.size, self.cfg) >= 2 * idx.nlist:  # grown well past what it was trained for
            return self._rebuild(c, scope, counters, embedder)
        self._indexes[scope] = idx
        return idx

    def _rebuild(self, c: sqlite3.Connection, scope: str, counters: _Counters, embedder: tuple[str, int]) -> ScopeIndex:
        self._indexes.pop(scope, None)
        idx = self._build(c, scope, counters, embedder)
        self._indexes[scope] = idx
        return idx

    def _build(self, c: sqlite3.Connection, scope: str, counters: _Counters, embedder: tuple[str, int]) -> ScopeIndex:
        """Train on the scope's first vectors (by row number: stable as the scope grows), then add all."""
        faiss = _faiss()
        self.builds += 1
        dim = embedder[1]
        size = int(c.execute("SELECT count(*) FROM vectors WHERE scope = ?", (scope,)).fetchone()[0])
        nlist = n_lists(size, self.cfg)
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)  # k-means sums in a fixed order: the same centroids every time
        try:
            index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
            index.cp.seed = 1234
            index.cp.niter = _TRAIN_ITERATIONS
            _, sample = _rows(c, scope, after=0, dim=dim, limit=_TRAIN_PER_LIST * nlist)
            index.train(sample)
            idx = ScopeIndex(
                embedder=embedder[0],
                dim=dim,
                appends=counters.appends,
                removals=counters.removals,
                max_n=0,
                trained_on=size,
                ns=np.zeros(0, dtype=np.int64),
                index=index,
                checks=[],
            )
            while True:
                ns, mat = _rows(c, scope, after=idx.max_n, dim=dim, limit=_ADD_CHUNK)
                if not len(ns):
                    break
                idx.add(ns, mat)
                idx.max_n = int(ns[-1])
        finally:
            faiss.omp_set_num_threads(threads)
        idx.checks = _checks(c, idx.ns)
        if self.cfg.persist:
            with contextlib.suppress(OSError):
                self._save(scope, idx)
        return idx

    def _checked(
        self, c: sqlite3.Connection, scope: str, idx: ScopeIndex, pairs: list[tuple[int, float]]
    ) -> list[tuple[str, float]]:
        """Keep hits that are current vectors of this scope; drop any other from the index."""
        if not pairs:
            return []
        marks = ", ".join("?" * len(pairs))
        live = dict(
            c.execute(
                f"SELECT v.n, i.id FROM vectors v JOIN items i ON i.n = v.n WHERE v.n IN ({marks}) AND v.scope = ?",  # nosec B608 # marks: only ? marks
                (*(n for n, _ in pairs), scope),
            ).fetchall()
        )
        stale = [n for n, _ in pairs if n not in live]
        if stale:
            idx.remove(np.asarray(stale, dtype=np.int64))
        return [(live[n], s) for n, s in pairs if n in live and s > 0.0]

    def _path(self, scope: str) -> Path | None:
        if self._dir is None:
            return None
        return self._dir / (hashlib.sha256(scope.encode()).hexdigest()[:32] + ".ivf")

    def _save(self, scope: str, idx: ScopeIndex) -> None:
        """One file, written beside and renamed over the old one, so a reader never sees half of it."""
        path = self._path(scope)
        if path is None:
            return
        path.parent.mkdir(exist_ok=True)
        meta = {
            "format": _FORMAT,
            "scope": scope,
            "embedder": idx.embedder,
            "dim": idx.dim,
            "appends": idx.appends,
            "removals": idx.removals,
            "max_n": idx.max_n,
            "trained_on": idx.trained_on,
            "checks": idx.checks,
        }
        head = json.dumps(meta).encode()
        faiss = _faiss()
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            f.write(_MAGIC + struct.pack("<QQ", len(head), len(idx.ns)) + head)
            f.write(idx.ns.astype("<i8").tobytes())
            # Streamed to the file as faiss writes it (the same bytes as ``serialize_index``),
            # not through a copy of the whole index in memory: 0.4 -> 0.06 s at 100k vectors.
            writer = faiss.PyCallbackIOWriter(f.write)
            faiss.write_index(idx.index, writer)
            del writer  # flushes its buffer into ``f`` before the file is closed
        os.replace(tmp, path)
        idx.dirty = False

    def _load(self, c: sqlite3.Connection, scope: str, embedder: tuple[str, int]) -> ScopeIndex | None:
        """The saved index if it is usable for this store (same embedder, sampled vectors match)."""
        path = self._path(scope)
        if path is None or not self.cfg.persist or not path.is_file():
            return None
        try:
            data = path.read_bytes()
            meta, ns, offset = _parse(data)
            if meta.get("format") != _FORMAT or meta["scope"] != scope:
                return None
            if (meta["embedder"], meta["dim"]) != embedder or not _sample_ok(c, scope, meta["checks"]):
                return None
            index = _faiss().deserialize_index(np.frombuffer(data, dtype=np.uint8, offset=offset))
        except (OSError, ValueError, KeyError, RuntimeError):
            return None  # a damaged cache is rebuilt, never trusted
        return ScopeIndex(
            embedder=meta["embedder"],
            dim=int(meta["dim"]),
            appends=int(meta["appends"]),
            removals=int(meta["removals"]),
            max_n=int(meta["max_n"]),
            trained_on=int(meta["trained_on"]),
            ns=ns,
            index=index,
            checks=[[int(n), int(crc)] for n, crc in meta["checks"]],
            dirty=False,
        )


def _advance(c: sqlite3.Connection, scope: str, idx: ScopeIndex, counters: _Counters) -> bool:
    """Apply the writes since ``idx`` was synced; False if they are not plain appends and retirements.

    Every append adds one row above the watermark (to ``vectors``, or already moved on to
    ``vectors_history`` if it was retired since); every retirement moves one row from ``vectors``
    to ``vectors_history``. If the counters moved by anything else — a purge rewriting a vector in
    place, a re-embedding, a replay renumbering rows — the counts disagree and the caller rebuilds.
    """
    ns, mat = _rows(c, scope, after=idx.max_n, dim=idx.dim)
    new_retired = int(
        c.execute("SELECT count(*) FROM vectors_history WHERE scope = ? AND n > ?", (scope, idx.max_n)).fetchone()[0]
    )
    if len(ns) + new_retired != counters.appends - idx.appends:
        return False
    retired = np.fromiter(
        (r[0] for r in c.execute("SELECT n FROM vectors_history WHERE scope = ? AND n <= ?", (scope, idx.max_n))),
        dtype=np.int64,
    )
    held = retired[np.isin(retired, idx.ns)] if len(retired) else retired
    if len(held) + new_retired != counters.removals - idx.removals:
        return False
    idx.remove(held)
    idx.add(ns, mat)
    if len(ns):
        idx.max_n = int(ns[-1])
    hist_max = c.execute("SELECT max(n) FROM vectors_history WHERE scope = ? AND n > ?", (scope, idx.max_n)).fetchone()
    if hist_max[0] is not None:  # appended and retired since: the watermark passes them too
        idx.max_n = int(hist_max[0])
    idx.appends, idx.removals = counters.appends, counters.removals
    return True


def _read_counters(c: sqlite3.Connection, scope: str) -> _Counters:
    row = c.execute("SELECT vec_appends, vec_removals FROM scope_state WHERE scope = ?", (scope,)).fetchone()
    return _Counters(int(row[0]), int(row[1])) if row else _Counters(0, 0)


def _rows(c: sqlite3.Connection, scope: str, *, after: int, dim: int, limit: int = -1) -> tuple[np.ndarray, np.ndarray]:
    rows = c.execute(
        "SELECT n, vec FROM vectors WHERE scope = ? AND n > ? ORDER BY n LIMIT ?", (scope, after, limit)
    ).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)), mat


def _sample(ns: np.ndarray) -> list[int]:
    if not len(ns):
        return []
    picks = np.linspace(0, len(ns) - 1, min(_SAMPLE_CHECKS, len(ns))).astype(np.int64)
    return [int(ns[i]) for i in np.unique(picks)]


def _checks(c: sqlite3.Connection, ns: np.ndarray) -> list[list[int]]:
    """[row, crc32 of its stored vector] for up to ``_SAMPLE_CHECKS`` rows spread over ``ns``."""
    out = []
    for n in _sample(ns):
        row = c.execute("SELECT vec FROM vectors WHERE n = ?", (n,)).fetchone()
        if row is not None:
            out.append([n, zlib.crc32(row[0])])
    return out


def _sample_ok(c: sqlite3.Connection, scope: str, checks: list[list[int]]) -> bool:
    """Do the sampled rows still hold the vectors the index was built from? (Removed rows are skipped.)"""
    for n, crc in checks:
        row = c.execute("SELECT vec FROM vectors WHERE n = ? AND scope = ?", (n, scope)).fetchone()
        if row is not None and zlib.crc32(row[0]) != crc:
            return False
    return True


def _parse(data: bytes) -> tuple[dict[str, Any], np.ndarray, int]:
    if not data.startswith(_MAGIC):
        raise ValueError("not a reverie ANN sidecar")
    at = len(_MAGIC)
    head_len, count = struct.unpack_from("<QQ", data, at)
    at += 16
    meta = json.loads(data[at : at + head_len])
    at += head_len
    ns = np.frombuffer(data, dtype="<i8", count=count, offset=at).astype(np.int64)
    return meta, ns, at + 8 * count


def _read_meta(path: Path) -> dict[str, Any]:
    with open(path, "rb") as f:
        head = f.read(len(_MAGIC) + 16)
        if not head.startswith(_MAGIC) or len(head) < len(_MAGIC) + 16:
            raise ValueError("not a reverie ANN sidecar")
        head_len, _ = struct.unpack_from("<QQ", head, len(_MAGIC))
        meta: dict[str, Any] = json.loads(f.read(head_len))
    return meta
