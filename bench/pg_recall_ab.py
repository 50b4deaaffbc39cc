"""PostgreSQL recall of two source trees, alternated on copies of one built store.

    git archive <old commit> src | tar -x -C /tmp/old
    .venv/bin/python bench/pg_recall_ab.py --old-src /tmp/old/src [--items 10000] [--rounds 4]
        [--queries 200] [--record-use] [--cache DIR] [--json out.json] [--profile]

One ``pgserver`` holds a store of ``--items`` items in one scope, built once with this checkout
the way ``pg_vs_sqlite.py`` builds its stores (``remember_many`` batches of 2,000, hash
embedder, ``ManualClock``) and warmed (``store.warm``: the scope's HNSW index from 20k items).
Each round copies it (``CREATE DATABASE ... TEMPLATE``) once per variant and runs
``--queries`` hybrid recalls (``k=10``, ``pg_vs_sqlite.py``'s queries, after one untimed
recall) in a child process whose ``PYTHONPATH`` is the variant's ``src``: ``old`` (the tree
given) and ``new`` (this checkout). The order of the variants flips every round, so a drift of
the shared machine's load falls on both.

Each row has recall p50 / p95 wall time, the client process's CPU per recall, the server
backend's CPU per recall (``/proc/<backend pid>/stat``: same machine), the statements per recall
(``PostgresStore._run`` and ``xmany`` calls), the transactions per recall (``_txn`` calls that
began one; each is a BEGIN and a COMMIT round trip besides its statements), and a SHA-256 of
every answer (ids, scores, ``why``) plus, with ``--record-use``, the scope's log after the run:
the two trees must give the same digest. ``--profile`` also prints each variant's statements
grouped by text, with count and total time.
``--cache DIR`` keeps the server's data directory and the built store for the next run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from pg_ab import build, counted_statements  # noqa: E402  (this folder, beside the script)


def _ticks(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one(url: str, variant: str, queries: int, record_use: bool, profile: bool) -> dict[str, Any]:
    """The recalls in this process (the caller set PYTHONPATH to the variant's source tree)."""
    from threadpoolctl import threadpool_limits

    from benchutil import pct
    from pg_vs_sqlite import SCOPE, SEED, _open, _queries

    qs = _queries(queries, SEED + 1)
    answers: list[Any] = []
    walls: list[float] = []
    with threadpool_limits(1), _open(url, seed=2) as mem:
        store: Any = mem.store
        mem.recall(qs[0], scope=SCOPE, record_use=False)  # warm: caches, vectors read once
        backend = int(store.q("SELECT pg_backend_pid() WHERE %s = %s", ("x", "x"))[0][0])
        txn = store._txn
        begins = [0]

        def counted_txn(*a: Any, **kw: Any) -> Any:
            begins[0] += store._txn_scopes is None  # a transaction of its own, not one joined
            return txn(*a, **kw)

        store._txn = counted_txn
        with counted_statements(store) as spent:
            server0, client0 = _ticks(backend), time.process_time()
            for q in qs:
                start = time.perf_counter()
                hits = mem.recall(q, scope=SCOPE, k=10, record_use=record_use)
                walls.append((time.perf_counter() - start) * 1000)
                answers.append([(h.item.id, repr(h.score), h.why, list(h.contradicted_by)) for h in hits])
            client_s, server_s = time.process_time() - client0, _ticks(backend) - server0
        store._txn = txn
        events = [(e.seq, e.type, e.payload) for e in mem.store.events(SCOPE, limit=10**9)] if record_use else []
    body = json.dumps({"answers": answers, "events": events}, sort_keys=True, default=str)
    n = len(qs)
    row: dict[str, Any] = {
        "variant": variant,
        "p50_ms": round(pct(walls, 50), 2),
        "p95_ms": round(pct(walls, 95), 2),
        "mean_ms": round(statistics.fmean(walls), 2),
        "client_cpu_ms": round(client_s * 1000 / n, 2),
        "server_cpu_ms": round(server_s * 1000 / n, 2),
        "statements": round(sum(int(c[0]) for c in spent.values()) / n, 2),
        "transactions": round(begins[0] / n, 2),
        "digest": hashlib.sha256(body.encode()).hexdigest()[:16],
        "loadavg_1": round(os.getloadavg()[0], 2),
    }
    if profile:
        top = sorted(spent.items(), key=lambda kv: -kv[1][1])[:25]
        row["top_statements"] = [
            {"sql": k, "count": int(c[0]), "ms_per_recall": round(c[1] * 1000 / n, 3)} for k, c in top
        ]
    return row


def _summary(rows: list[dict[str, Any]]) -> None:
    """Medians over rounds per variant, and new / old ratios."""
    keys = ("p50_ms", "p95_ms", "mean_ms", "client_cpu_ms", "server_cpu_ms", "statements", "transactions")
    med = {
        v: {k: statistics.median(r[k] for r in rows if r["variant"] == v) for k in keys}
        for v in dict.fromkeys(r["variant"] for r in rows)
    }
    for v, m in med.items():
        print(v, json.dumps({k: round(x, 2) for k, x in m.items()}), flush=True)
    if "old" in med and "new" in med:
        ratios = {k: round(med["new"][k] / med["old"][k], 3) for k in keys if med["old"][k]}
        print("new/old", json.dumps(ratios), flush=True)
        digests = {r["variant"]: set() for r in rows}
        for r in rows:
            digests[r["variant"]].add(r["digest"])
        print("same answers:", digests["old"] == digests["new"] and len(digests["old"]) == 1, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--old-src", type=Path, help="the old tree's src directory (git archive ... | tar -x)")
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--record-use", action="store_true", help="recall with record_use=True (writes use events)")
    ap.add_argument("--variants", default="old,new", help="comma-separated, of old, new (flipped every round)")
    ap.add_argument("--profile", action="store_true", help="print each variant's statements, most expensive first")
    ap.add_argument("--cache", type=Path, help="keep the server and the built store here for the next run")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--one", nargs=2, metavar=("URL", "VARIANT"), help=argparse.SUPPRESS)
    ap.add_argument("--build", metavar="URL", help=argparse.SUPPRESS)  # a child process
    args = ap.parse_args()
    if args.build:
        build(args.build, args.items)
        return
    if args.one:
        url, variant = args.one
        print(json.dumps(one(url, variant, args.queries, args.record_use, args.profile)), flush=True)
        return
    variants = args.variants.split(",")
    if "old" in variants and args.old_src is None:
        ap.error("--old-src is required for the old variant")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver  # type: ignore[import-untyped]
        import psycopg
    rows: list[dict[str, Any]] = []
    new_src = HERE.parent / "src"
    with tempfile.TemporaryDirectory() as tmp:
        root = args.cache or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        srv = pgserver.get_server(root / "pg", cleanup_mode="stop")
        base, _, query = srv.get_uri().partition("?")

        def url(db: str) -> str:
            return base.rsplit("/", 1)[0] + "/" + db + ("?" + query if query else "")

        def child(*argv: str, src: Path) -> str:
            return subprocess.run(  # nosec B603 # this interpreter, this script
                [sys.executable, __file__, "--items", str(args.items), "--queries", str(args.queries), *argv],
                env=dict(os.environ, PYTHONPATH=str(src)),
                capture_output=True,
                text=True,
                check=True,
            ).stdout

        def admin(sql: str) -> None:
            with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                c.execute(sql)

        seeded = f"seeded_{args.items}"
        try:
            if not (root / f"{seeded}.done").exists():
                admin(f'DROP DATABASE IF EXISTS "{seeded}"')
                admin(f'CREATE DATABASE "{seeded}"')
                start = time.perf_counter()
                child("--build", url(seeded), src=new_src)
                (root / f"{seeded}.done").touch()
                print(f"built {args.items} items in {time.perf_counter() - start:.0f} s", flush=True)
            for rnd in range(1, args.rounds + 1):
                for v in variants if rnd % 2 else variants[::-1]:
                    db = f"r{rnd}_{v}"
                    admin(f'DROP DATABASE IF EXISTS "{db}"')
                    admin(f'CREATE DATABASE "{db}" TEMPLATE "{seeded}"')
                    extra = ["--profile"] if args.profile else []
                    extra += ["--record-use"] if args.record_use else []
                    src = args.old_src if v == "old" else new_src
                    out = child(*extra, "--one", url(db), v, src=src)
                    admin(f'DROP DATABASE "{db}"')
                    row = {"round": rnd, **json.loads(out.strip().splitlines()[-1])}
                    rows.append(row)
                    top = row.pop("top_statements", None)
                    print(json.dumps(row), flush=True)
                    for t in top or []:
                        print(f"  {t['count']:>7} {t['ms_per_recall']:>8.3f} ms/recall  {t['sql']}", flush=True)
                    if top:
                        row["top_statements"] = top
        finally:
            srv.cleanup()
    _summary(rows)
    if args.json:
        sys.path.insert(0, str(HERE))
        from benchutil import machine

        doc = {
            "items": args.items,
            "queries": args.queries,
            "old_src": str(args.old_src),
            "machine": machine(),
            "rows": rows,
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
