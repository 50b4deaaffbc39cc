"""A PostgreSQL dream pass of two source trees, alternated on copies of one built store.

    git archive <old commit> src | tar -x -C /tmp/old
    .venv/bin/python bench/pg_dream_ab.py --old-src /tmp/old/src [--items 10000] [--rounds 2]
        [--json out.json] [--profile]

One ``pgserver`` holds a store of ``--items`` items in one scope, built once with this
checkout the way ``pg_vs_sqlite.py`` builds its 100k store (``remember_many`` batches of 2,000,
hash embedder, ``ManualClock``) and warmed (``store.warm``: the scope's HNSW index from 20k items,
as that script's dream step finds it, so a pass's own ``warm`` only catches up; the 10k and the
unwarmed 100k results were measured before this step was added: below 20k it changes nothing).
Each round copies it (``CREATE DATABASE ... TEMPLATE``) once per variant and runs one
``Memory.dream`` over the copy in a child process whose ``PYTHONPATH`` is the variant's
``src``: ``old`` (the tree given) and ``new`` (this checkout).
Each row has the pass's wall time, its phase timings, the statements the store issued
(``PostgresStore._run`` and ``xmany`` calls) and a SHA-256 of the report's ``to_dict()`` plus
the scope's events after the pass: the two trees must give the same digest. ``--profile``
also prints each variant's statements grouped by text, with count and total time, the most
expensive first (the table this bench was written to find).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
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


def one(url: str, variant: str, profile: bool) -> dict[str, Any]:
    """One pass in this process (the caller set PYTHONPATH to the variant's source tree)."""
    from threadpoolctl import threadpool_limits

    from pg_vs_sqlite import SCOPE, _open

    with threadpool_limits(1), _open(url, seed=2) as mem:
        with counted_statements(mem.store) as spent:
            start = time.perf_counter()
            report = mem.dream(scope=SCOPE)
            seconds = time.perf_counter() - start
        events = [(e.seq, e.type, e.payload) for e in mem.store.events(SCOPE, limit=10**9)]
    body = json.dumps({"report": report.to_dict(), "events": events}, sort_keys=True, default=str)
    row: dict[str, Any] = {
        "variant": variant,
        "dream_s": seconds,
        "actions": len(report.actions),
        "statements": sum(int(c[0]) for c in spent.values()),
        "statement_s": sum(c[1] for c in spent.values()),
        "timings": {k: round(v, 3) for k, v in report.timings.items()},
        "digest": hashlib.sha256(body.encode()).hexdigest()[:16],
        "loadavg_1": round(os.getloadavg()[0], 2),
    }
    if profile:
        top = sorted(spent.items(), key=lambda kv: -kv[1][1])[:25]
        row["top_statements"] = [{"sql": k, "count": int(c[0]), "s": round(c[1], 3)} for k, c in top]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--old-src", type=Path, help="the old tree's src directory (git archive ... | tar -x)")
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variants", default="old,new", help="comma-separated, of old, new (in this order each round)")
    ap.add_argument("--profile", action="store_true", help="print each pass's statements, most expensive first")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--one", nargs=2, metavar=("URL", "VARIANT"), help=argparse.SUPPRESS)  # a child process
    ap.add_argument("--build", metavar="URL", help=argparse.SUPPRESS)  # a child process
    args = ap.parse_args()
    if args.build:
        build(args.build, args.items)  # pg_ab.build: as pg_vs_sqlite's 100k step before its dream step
        return
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], args.profile)), flush=True)
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
        srv = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="stop")
        base, _, query = srv.get_uri().partition("?")

        def url(db: str) -> str:
            return base.rsplit("/", 1)[0] + "/" + db + ("?" + query if query else "")

        def child(*argv: str, src: Path) -> str:
            return subprocess.run(  # nosec B603 # this interpreter, this script
                [sys.executable, __file__, "--items", str(args.items), *argv],
                env=dict(os.environ, PYTHONPATH=str(src)),
                capture_output=True,
                text=True,
                check=True,
            ).stdout

        try:
            with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                c.execute('CREATE DATABASE "seeded"')
            start = time.perf_counter()
            child("--build", url("seeded"), src=new_src)
            print(f"built {args.items} items in {time.perf_counter() - start:.0f} s", flush=True)
            for rnd in range(1, args.rounds + 1):
                for v in variants:
                    db = f"r{rnd}_{v}"
                    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                        c.execute(f'CREATE DATABASE "{db}" TEMPLATE seeded')
                    extra = ["--profile"] if args.profile else []
                    out = child(*extra, "--one", url(db), v, src=args.old_src if v == "old" else new_src)
                    row = {"round": rnd, **json.loads(out.strip().splitlines()[-1])}
                    rows.append(row)
                    top = row.pop("top_statements", None)
                    print(json.dumps(row), flush=True)
                    for t in top or []:
                        print(f"  {t['count']:>7} {t['s']:>8.3f}s  {t['sql']}", flush=True)
                    if top:
                        row["top_statements"] = top
        finally:
            srv.cleanup()
    if args.json:
        sys.path.insert(0, str(HERE))
        from benchutil import machine

        doc = {"items": args.items, "old_src": str(args.old_src), "machine": machine(), "rows": rows}
        args.json.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
