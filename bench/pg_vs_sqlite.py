"""SQLite and PostgreSQL side by side, in one run: write throughput, recall latency at scale, a
dream pass, and concurrent writer processes (issue #19).

    .venv/bin/python bench/pg_vs_sqlite.py [--steps 10k,100k,dream,writers,1m] [--cache DIR]
        [--json bench/results/pg_vs_sqlite.json] [--png bench/results/pg_vs_sqlite.png]

Both stores get the same data through the same ``Memory`` API (``embedder="hash"``, conflict
detection off, a ``ManualClock``). SQLite is a file with ``durability="full"``; PostgreSQL is a
``pgserver`` (PostgreSQL 16 + pgvector, started by this script, default settings: fsync on)
over its Unix socket, on the same machine. BLAS is pinned to one thread. Steps, in this order:

- ``10k``: ``--single`` items one ``remember`` each (one transaction each), then the rest of 10k
  through ``remember_many`` in batches of 500 (the throughput figures); then recall at 10k, right
  after the load and again once PostgreSQL's table is vacuumed and analyzed (``settled``).
- ``100k``: a 100k-item scope built with ``remember_many`` (batches of 2,000; its rate is
  reported as ``build``), ``store.warm`` (what a dream pass ends with: the ANN index of a large
  scope, faiss IVF on SQLite, a per-scope HNSW index on PostgreSQL), then recall.
- ``dream``: one dream pass over that 100k scope (the store is changed: last use of it).
- ``writers``: ``--writers`` processes each ``remember`` ``--writes`` items (one transaction
  each) into one shared scope of a fresh store, all at once: ops/s over the wall time from the
  first start to the last finish, and the writes that raised (counted by error code).
- ``1m``: ``--scopes`` scopes of ``--per-scope`` items (1M by default), then recall in scopes
  drawn at random (every scope queried once first, untimed).

Recall: ``--queries`` hybrid recalls (``k=10``, ``record_use=False``) of 3-word queries from the
corpus vocabulary, the query embedding included. Built stores are kept in ``--cache`` (SQLite
files and a PostgreSQL data directory) and reused by the next run of the same sizes; the JSON
says which stores were built in this run and which were reused.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, pct
from reverie import ManualClock, Memory

SEED = 20250101
SCOPE = "bench"
BATCH = 500
BUILD_BATCH = 2_000
STEPS = ("10k", "100k", "dream", "writers", "1m")
BACKENDS = ("sqlite", "postgres")


def _vocab() -> tuple[list[str], list[float]]:
    vocab = [f"w{i}" for i in range(5000)]
    return vocab, [1.0 / (i + 1) for i in range(len(vocab))]  # Zipf-like: a few common words, a long tail


def _texts(n: int, seed: int, tag: str = "") -> list[str]:
    rng = random.Random(seed)
    vocab, weights = _vocab()
    return [" ".join(rng.choices(vocab, weights, k=rng.randint(6, 14))) + f" item{tag}{i}" for i in range(n)]


def _queries(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    vocab, _ = _vocab()
    return [" ".join(rng.choices(vocab[:2000], k=3)) for _ in range(n)]


def _open(location: str, seed: int = 1) -> Memory:
    """A Memory on ``location``. ``seed`` seeds its ids: a later writer to a store needs its own."""
    return Memory(location, embedder="hash", clock=ManualClock(), seed=seed, detect_conflicts=False)


class Stores:
    """Where each backend's stores live: SQLite files and databases of one pgserver, both under
    ``root`` (a ``--cache`` directory survives the run; a finished build leaves a ``.done`` mark)."""

    def __init__(self, root: Path) -> None:
        import pgserver  # type: ignore[import-untyped]

        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR under root
            self.server = pgserver.get_server(root / "pg", cleanup_mode="stop")

    def location(self, backend: str, name: str) -> str:
        if backend == "sqlite":
            return str(self.root / f"{name}.db")
        base, _, query = self.server.get_uri().partition("?")
        return base.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else "")

    def done(self, backend: str, name: str) -> Path:
        return self.root / f"{backend}-{name}.done"

    def fresh(self, backend: str, name: str) -> str:
        """An empty store called ``name`` (any earlier one of that name is removed)."""
        self.done(backend, name).unlink(missing_ok=True)
        if backend == "sqlite":
            for suffix in ("", "-wal", "-shm"):
                Path(self.location(backend, name) + suffix).unlink(missing_ok=True)
            shutil.rmtree(self.location(backend, name) + ".ann", ignore_errors=True)
        else:
            import psycopg

            with psycopg.connect(self.server.get_uri(), autocommit=True) as c:
                c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                c.execute(f'CREATE DATABASE "{name}"')
        return self.location(backend, name)

    def close(self) -> None:
        self.server.cleanup()


def _recall(mem: Memory, queries: list[str], scopes: list[str]) -> dict[str, float]:
    """p50 / p95 of ``queries`` (the i-th in ``scopes[i % len]``) after one untimed query per scope."""
    for scope in dict.fromkeys(scopes):
        mem.recall(queries[0], scope=scope, record_use=False)  # warm: caches, vectors read once
    times = []
    for i, q in enumerate(queries):
        start = time.perf_counter()
        mem.recall(q, scope=scopes[i % len(scopes)], k=10, record_use=False)
        times.append((time.perf_counter() - start) * 1000)
    return {"recall_p50_ms": pct(times, 50), "recall_p95_ms": pct(times, 95)}


def step_10k(stores: Stores, backend: str, args: argparse.Namespace) -> dict[str, Any]:
    texts = _texts(args.small, SEED)
    out: dict[str, Any] = {}
    with _open(stores.fresh(backend, "s10k")) as mem:
        start = time.perf_counter()
        for text in texts[: args.single]:
            mem.remember(text, scope=SCOPE)
        out["remember_single_per_s"] = args.single / (time.perf_counter() - start)
        rest = texts[args.single :]
        start = time.perf_counter()
        for at in range(0, len(rest), BATCH):
            mem.remember_many(rest[at : at + BATCH], scope=SCOPE)
        out["remember_batched_per_s"] = len(rest) / (time.perf_counter() - start)
        out.update(_recall(mem, _queries(args.queries, SEED + 1), [SCOPE]))
        if backend == "postgres":
            # What autovacuum does within a minute or so of a bulk load: the planner's statistics
            # and the full-text index's pending list flushed. Before, the lexical statement scanned
            # the whole scope (no statistics; the GIN pending list holds every new row): 8 ms of
            # the first figure at 10k, 0.3 ms after (EXPLAIN ANALYZE; bench/pg_recall_ab.py).
            mem.store._run("VACUUM ANALYZE items")  # type: ignore[attr-defined]
        settled = _recall(mem, _queries(args.queries, SEED + 1), [SCOPE])
        out["recall_settled_p50_ms"], out["recall_settled_p95_ms"] = settled["recall_p50_ms"], settled["recall_p95_ms"]
        out["doctor_ok"] = mem.doctor().ok
    return out


def _build(stores: Stores, backend: str, name: str, scopes: list[str], per_scope: int) -> dict[str, Any]:
    """The store ``name`` with ``per_scope`` items in each of ``scopes`` (reused if cached)."""
    if stores.done(backend, name).exists():
        return {"built": False}
    location = stores.fresh(backend, name)
    start = time.perf_counter()
    with _open(location) as mem:
        for k, scope in enumerate(scopes):
            texts = _texts(per_scope, SEED + 7 * k, tag=f"s{k}-")
            for at in range(0, per_scope, BUILD_BATCH):
                mem.remember_many(texts[at : at + BUILD_BATCH], scope=scope)
            if (k + 1) % 10 == 0 or k + 1 == len(scopes):
                done = (k + 1) * per_scope
                print(f"  {backend} {name}: {done} items, {done / (time.perf_counter() - start):.0f}/s", flush=True)
        if backend == "sqlite":
            mem.store.checkpoint()  # type: ignore[attr-defined]  # fold the WAL in
    seconds = time.perf_counter() - start
    stores.done(backend, name).write_text(f"{seconds:.1f}\n")
    return {"built": True, "build_s": seconds, "build_per_s": len(scopes) * per_scope / seconds}


def step_100k(stores: Stores, backend: str, args: argparse.Namespace) -> dict[str, Any]:
    out = _build(stores, backend, "s100k", [SCOPE], args.big)
    with _open(stores.location(backend, "s100k")) as mem:
        start = time.perf_counter()
        out["ann_index"] = mem.store.warm(SCOPE)
        out["warm_s"] = time.perf_counter() - start
        out.update(_recall(mem, _queries(args.queries, SEED + 2), [SCOPE]))
    return out


def step_dream(stores: Stores, backend: str, args: argparse.Namespace) -> dict[str, Any]:
    _build(stores, backend, "s100k", [SCOPE], args.big)
    stores.done(backend, "s100k").unlink()  # the pass changes the store: the next run builds it again
    with _open(stores.location(backend, "s100k"), seed=2) as mem:
        start = time.perf_counter()
        report = mem.dream(scope=SCOPE)
        seconds = time.perf_counter() - start
    return {"dream_s": seconds, "dream_actions": len(report.actions), "items": args.big}


def _writer(location: str, worker: int, writes: int, start_at: float, queue: Any) -> None:
    """One writer process: ``writes`` single remembers into the shared scope; reports to ``queue``."""
    errors: Counter[str] = Counter()
    texts = _texts(writes, SEED + 100 + worker, tag=f"p{worker}-")
    with _open(location, seed=10 + worker) as mem:
        while time.time() < start_at:  # all processes start writing together
            time.sleep(0.005)
        begin = time.time()
        ok = 0
        for text in texts:
            try:
                mem.remember(text, scope=SCOPE)
                ok += 1
            except Exception as exc:  # counted, not hidden: the figure says how many failed and why
                errors[str(getattr(exc, "code", type(exc).__name__))] += 1
        queue.put((worker, ok, dict(errors), begin, time.time()))


def step_writers(stores: Stores, backend: str, args: argparse.Namespace) -> dict[str, Any]:
    location = stores.fresh(backend, "writers")
    with _open(location) as mem:
        mem.remember("the store exists before the writers start", scope=SCOPE)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    start_at = time.time() + 8.0  # time for every process to import reverie and open the store
    procs = [ctx.Process(target=_writer, args=(location, w, args.writes, start_at, queue)) for w in range(args.writers)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=1800) for _ in procs]
    for p in procs:
        p.join()
    ok = sum(r[1] for r in results)
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r[2])
    wall = max(r[4] for r in results) - min(r[3] for r in results)
    with _open(location) as mem:  # every acknowledged write is in the log (one event each)
        stored = len(mem.store.events(SCOPE, limit=10**7)) - 1
    return {
        "writers": args.writers,
        "writes_each": args.writes,
        "ops_per_s": ok / wall,
        "ok": ok,
        "errors": sum(errors.values()),
        "errors_by_code": dict(errors),
        "events_stored": stored,
    }


def _progress(stores: Stores, backend: str, name: str) -> Path:
    return stores.root / f"{backend}-{name}.progress"


def _build_interleaved(stores: Stores, name: str, scopes: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Both backends' many-scope stores, scope by scope in turn, resumable, within the time budget.

    Why interleaved: when the budget runs out, both stores hold the same scopes, so the recall
    that follows compares like with like; ``complete`` says whether every scope was built.
    Each (backend, scope) gets its own ``Memory`` seed, so a resumed build never repeats an id.
    """
    done = {b: int(p.read_text()) if (p := _progress(stores, b, name)).exists() else -1 for b in BACKENDS}
    for backend in BACKENDS:
        if done[backend] < 0:
            stores.fresh(backend, name)
            done[backend] = 0
    spent = dict.fromkeys(BACKENDS, 0.0)
    added = dict.fromkeys(BACKENDS, 0)
    start = time.perf_counter()
    budget = args.build_budget_min * 60 if args.build_budget_min else float("inf")
    k = min(done.values())
    while k < len(scopes) and time.perf_counter() - start < budget:
        texts = _texts(args.per_scope, SEED + 7 * k, tag=f"s{k}-")
        for backend in BACKENDS:
            if done[backend] > k:
                continue
            with _open(stores.location(backend, name), seed=1000 + k) as mem:
                t = time.perf_counter()
                for at in range(0, len(texts), BUILD_BATCH):
                    mem.remember_many(texts[at : at + BUILD_BATCH], scope=scopes[k])
                spent[backend] += time.perf_counter() - t
            added[backend] += 1
            done[backend] = k + 1
            _progress(stores, backend, name).write_text(f"{k + 1}\n")
        k += 1
        if k % 5 == 0:
            rates = {b: f"{added[b] * args.per_scope / max(spent[b], 1e-9):.0f}/s" for b in BACKENDS}
            print(f"  {name}: {k} scopes built ({time.perf_counter() - start:.0f} s this run) {rates}", flush=True)
    built = min(done.values())
    return {
        "scopes_built": built,
        "complete": built == len(scopes),
        "build_s_this_run": spent,
        "items_added_this_run": {b: added[b] * args.per_scope for b in BACKENDS},
    }


_INTERLEAVED: dict[str, dict[str, Any]] = {}


def step_1m(stores: Stores, backend: str, args: argparse.Namespace) -> dict[str, Any]:
    scopes = [f"tenant{k:03d}" for k in range(args.scopes)]
    name = f"s{args.scopes}x{args.per_scope}"
    if name not in _INTERLEAVED:  # the first backend's turn builds both (see _build_interleaved)
        _INTERLEAVED[name] = _build_interleaved(stores, name, scopes, args)
    built = _INTERLEAVED[name]
    seconds = built["build_s_this_run"][backend]
    out: dict[str, Any] = {
        "scopes_built": built["scopes_built"],
        "complete": built["complete"],
        "items": built["scopes_built"] * args.per_scope,
        "build_s_this_run": seconds,
    }
    if seconds > 0:  # the rate of the scopes this run added (a resumed build counts only its own)
        out["build_per_s"] = built["items_added_this_run"][backend] / seconds
    rng = random.Random(SEED + 3)
    live = scopes[: built["scopes_built"]]
    drawn = [rng.choice(live) for _ in range(args.queries)]
    with _open(stores.location(backend, name)) as mem:
        out.update(_recall(mem, _queries(args.queries, SEED + 4), drawn))
    return out


RUNNERS: dict[str, Callable[[Stores, str, argparse.Namespace], dict[str, Any]]] = {
    "10k": step_10k,
    "100k": step_100k,
    "dream": step_dream,
    "writers": step_writers,
    "1m": step_1m,
}


#: (step, key, label, format) of the printed table.
ROWS = (
    ("10k", "remember_single_per_s", "remember, single (/s)", "{:.0f}"),
    ("10k", "remember_batched_per_s", "remember_many, 500 (/s)", "{:.0f}"),
    ("10k", "recall_p50_ms", "recall p50 at 10k (ms)", "{:.1f}"),
    ("10k", "recall_p95_ms", "recall p95 at 10k (ms)", "{:.1f}"),
    ("10k", "recall_settled_p50_ms", "recall p50 at 10k, vacuumed (ms)", "{:.1f}"),
    ("10k", "recall_settled_p95_ms", "recall p95 at 10k, vacuumed (ms)", "{:.1f}"),
    ("100k", "build_per_s", "build 100k, batches of 2000 (/s)", "{:.0f}"),
    ("100k", "warm_s", "warm: ANN index of 100k (s)", "{:.1f}"),
    ("100k", "recall_p50_ms", "recall p50 at 100k (ms)", "{:.1f}"),
    ("100k", "recall_p95_ms", "recall p95 at 100k (ms)", "{:.1f}"),
    ("dream", "dream_s", "dream pass at 100k (s)", "{:.1f}"),
    ("writers", "ops_per_s", "4 writer processes (ops/s)", "{:.0f}"),
    ("writers", "errors", "4 writer processes: errors", "{}"),
    ("1m", "items", "many scopes: items built", "{}"),
    ("1m", "scopes_built", "many scopes: scopes of 10k built", "{}"),
    ("1m", "build_per_s", "many scopes: build (/s)", "{:.0f}"),
    ("1m", "recall_p50_ms", "recall p50, many scopes (ms)", "{:.1f}"),
    ("1m", "recall_p95_ms", "recall p95, many scopes (ms)", "{:.1f}"),
)


def table(results: dict[str, Any]) -> str:
    lines = [f"{'':38} {'sqlite':>10} {'postgres':>10}"]
    for step, key, label, fmt in ROWS:
        cells = []
        for backend in BACKENDS:
            value = results.get("steps", {}).get(step, {}).get(backend, {}).get(key)
            cells.append("-" if value is None else fmt.format(value))
        if any(c != "-" for c in cells):
            lines.append(f"{label:38} {cells[0]:>10} {cells[1]:>10}")
    return "\n".join(lines)


def plot(results: dict[str, Any], path: Path) -> None:
    """Recall p50 / p95 per size and the write rates, one bar per backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = results["steps"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    big = steps.get("1m", {}).get("sqlite", {})
    many = f"{big.get('items', 0):,} / {big.get('scopes_built', 0)} scopes"
    sizes = [(s, lbl) for s, lbl in (("10k", "10k"), ("100k", "100k"), ("1m", many)) if s in steps]
    for i, backend in enumerate(BACKENDS):
        xs = [j + i * 0.4 for j in range(len(sizes))]
        left.bar(xs, [steps[s][backend]["recall_p50_ms"] for s, _ in sizes], 0.4, label=f"{backend} p50")
        left.scatter(xs, [steps[s][backend]["recall_p95_ms"] for s, _ in sizes], marker="_", s=300, color="k")
    left.set_xticks([j + 0.2 for j in range(len(sizes))], [lbl for _, lbl in sizes])
    left.set_ylabel("recall latency, ms (bar p50, tick p95)")
    left.legend()
    rates = [(s, k, lbl) for s, k, lbl, _ in ROWS if k.endswith("per_s") and s in steps]
    for i, backend in enumerate(BACKENDS):
        right.barh([j + i * 0.4 for j in range(len(rates))], [steps[s][backend].get(k, 0) for s, k, _ in rates], 0.4)
    right.set_yticks([j + 0.2 for j in range(len(rates))], [lbl for _, _, lbl in rates], fontsize=8)
    right.set_xlabel("items or ops per second")
    loads = [row["loadavg_1"] for step in steps.values() for row in step.values() if "loadavg_1" in row]
    fig.suptitle(f"SQLite vs PostgreSQL, hash embedder (load average {min(loads):.1f}-{max(loads):.1f} on 2 cores)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


@contextmanager
def _stores(cache: Path | None) -> Iterator[Stores]:
    with tempfile.TemporaryDirectory() as tmp:
        stores = Stores(cache or Path(tmp))
        try:
            yield stores
        finally:
            stores.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, of {', '.join(STEPS)}")
    ap.add_argument("--small", type=int, default=10_000, help="items of the 10k step")
    ap.add_argument("--single", type=int, default=300)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--big", type=int, default=100_000, help="items of the one-scope store (100k step, dream)")
    ap.add_argument("--scopes", type=int, default=100)
    ap.add_argument("--per-scope", type=int, default=10_000)
    ap.add_argument("--build-budget-min", type=float, help="1m step: stop adding scopes after this long")
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--writes", type=int, default=150, help="remembers per writer process")
    ap.add_argument("--cache", type=Path, help="keep built stores here and reuse them")
    ap.add_argument("--merge", type=Path, nargs="+", help="print (and --png) the steps of earlier --json files")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--png", type=Path)
    args = ap.parse_args()
    if args.merge:  # steps run separately (the 1M build on its own): one table, one chart
        merged: dict[str, Any] = {"steps": {}, "from": [str(p) for p in args.merge]}
        for path in args.merge:
            part = json.loads(path.read_text())
            for step, rows in part["steps"].items():  # a later file's figures win, row by row
                for backend, row in rows.items():
                    merged["steps"].setdefault(step, {}).setdefault(backend, {}).update(row)
            merged["machine"] = part["machine"]
        print(table(merged))
        if args.png:
            plot(merged, args.png)
        return
    steps = [s for s in args.steps.split(",") if s]
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        ap.error(f"unknown steps {unknown}; choose from {', '.join(STEPS)}")
    results: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}, "steps": {}}
    with _stores(args.cache) as stores, threadpool_limits(1):
        for step in steps:
            for backend in BACKENDS:
                start = time.perf_counter()
                row = RUNNERS[step](stores, backend, args)
                row["step_s"] = time.perf_counter() - start
                row["loadavg_1"] = round(os.getloadavg()[0], 2)
                results["steps"].setdefault(step, {})[backend] = row
                print(f"{step} {backend}: {json.dumps(row)}", flush=True)
                results["machine"] = machine()
                if args.json:  # after every step: a run cut short keeps what it measured
                    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    if args.png:
        plot(results, args.png)


if __name__ == "__main__":
    main()
