"""PostgreSQL write rates of two source trees, alternated on fresh databases of one server.

    git archive <old commit> src | tar -x -C /tmp/old
    .venv/bin/python bench/pg_write_ab.py --old-src /tmp/old/src [--items 10000] [--rounds 2] [--json out.json]

Each round runs, each in its own process on a fresh database of one ``pgserver``: ``old`` (the
tree given), ``old-shared_hnsw`` (the old tree with its table-wide HNSW index dropped by hand),
``new`` (this checkout's ``src``) and ``new+shared_hnsw`` (this checkout with that index put
back by hand): the round-trip changes and the index change, each timed apart. Each variant
writes the ``10k`` step of ``pg_vs_sqlite.py``: 300 single
``remember`` calls, then the rest in ``remember_many`` batches of 500, and counts the statements
the store issued per single write and per batched item (``PostgresStore._run`` calls; each
transaction adds BEGIN and COMMIT). Alternating the variants spreads the machine's load over
all of them; compare within a round.
"""

from __future__ import annotations

import argparse
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
VARIANTS = ("old", "old-shared_hnsw", "new", "new+shared_hnsw")


def one(url: str, variant: str, items: int, single: int) -> dict[str, Any]:
    """One variant in this process (the caller set PYTHONPATH to its source tree)."""
    import psycopg
    from threadpoolctl import threadpool_limits

    sys.path.insert(0, str(HERE))
    from pg_vs_sqlite import SCOPE, SEED, _open, _texts

    texts = _texts(items, SEED)
    with threadpool_limits(1), _open(url) as mem:
        mem.remember(texts[0], scope=SCOPE)  # sets the embedder (and, before schema 3, its HNSW index)
        if variant == "old-shared_hnsw":
            with psycopg.connect(url, autocommit=True) as c:
                c.execute("DROP INDEX items_hnsw")
        if variant == "new+shared_hnsw":
            with psycopg.connect(url, autocommit=True) as c:
                c.execute(
                    f"CREATE INDEX items_hnsw ON items USING hnsw ((vec::vector({mem.embedder.dim})) "
                    "vector_cosine_ops) WHERE closed_at IS NULL AND vec IS NOT NULL"
                )
        calls = [0]
        run = mem.store._run  # type: ignore[attr-defined]

        def counted(sql: str, params: Any = (), **kw: Any) -> Any:
            calls[0] += 1
            return run(sql, params, **kw)

        mem.store._run = counted  # type: ignore[attr-defined]
        start = time.perf_counter()
        for text in texts[1:single]:
            mem.remember(text, scope=SCOPE)
        single_s, single_calls = time.perf_counter() - start, calls[0]
        rest = texts[single:]
        start = time.perf_counter()
        for at in range(0, len(rest), 500):
            mem.remember_many(rest[at : at + 500], scope=SCOPE)
        batched_s = time.perf_counter() - start
    return {
        "variant": variant,
        "single_per_s": (single - 1) / single_s,
        "batched_per_s": len(rest) / batched_s,
        "statements_per_single": single_calls / (single - 1),
        "statements_per_batched_item": (calls[0] - single_calls) / len(rest),
        "loadavg_1": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--old-src", type=Path, help="the old tree's src directory (git archive ... | tar -x)")
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--append", action="store_true", help="add these rows to the --json file's")
    ap.add_argument("--one", nargs=2, metavar=("URL", "VARIANT"), help=argparse.SUPPRESS)  # a child process
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], args.items, 300)), flush=True)
        return
    if args.old_src is None:
        ap.error("--old-src is required")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver  # type: ignore[import-untyped]
        import psycopg
    done = json.loads(args.json.read_text())["rows"] if args.append and args.json and args.json.exists() else []
    first = max((r["round"] for r in done), default=0)  # appended rounds are numbered on
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        srv = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="stop")
        base, _, query = srv.get_uri().partition("?")
        try:
            for rnd in range(first + 1, first + args.rounds + 1):
                for v in args.variants.split(","):
                    db = f"ab{rnd}_{v.replace('+', '_')}"
                    with psycopg.connect(srv.get_uri(), autocommit=True) as c:
                        c.execute(f'CREATE DATABASE "{db}"')
                    src = args.old_src if v.startswith("old") else HERE.parent / "src"
                    url = base.rsplit("/", 1)[0] + "/" + db + "?" + query
                    out = subprocess.run(  # nosec B603 # this interpreter, this script
                        [sys.executable, __file__, "--items", str(args.items), "--one", url, v],
                        env=dict(os.environ, PYTHONPATH=str(src)),
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    row = {"round": rnd, **json.loads(out.stdout.strip().splitlines()[-1])}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
        finally:
            srv.cleanup()
    if args.json:
        args.json.write_text(json.dumps({"items": args.items, "rows": done + rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
