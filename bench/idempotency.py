"""What an ``Idempotency-Key`` costs an HTTP write, and what its replay costs.

    .venv/bin/python bench/idempotency.py [--requests 200] [--durability full] [--pg] [--json]

Three kinds of ``POST /v1/scopes/{scope}/items`` through the app in process (Starlette's test
client: no sockets, so the numbers are the server's work), interleaved one by one so machine
load hits them alike: without the header, with a fresh key each time (the key's lookup, its row
in the write's transaction and the recorded answer: one more write transaction), and a retry of
an already answered key (a lookup and the replay; nothing is written). p50 / p95 in ms and the
keyed/plain ratio. ``--pg`` runs the same on a throwaway pgserver PostgreSQL as well.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fastapi.testclient import TestClient

from benchutil import machine, pct
from reverie import Memory
from reverie.http import create_app

PATH = "/v1/scopes/bench/items"


def _ms(took: list[float]) -> dict[str, float]:
    return {"p50_ms": round(pct(took, 50), 2), "p95_ms": round(pct(took, 95), 2)}


def measure(target: str, requests: int, durability: str) -> dict[str, Any]:
    kwargs = {"durability": durability} if not target.startswith("postgresql") else {}
    with (
        Memory(target, embedder="hash", seed=0, **kwargs) as mem,
        TestClient(create_app(mem), base_url="http://127.0.0.1") as client,
    ):
        client.post(PATH, json={"text": "warm up"}, headers={"Idempotency-Key": "answered"})
        took: dict[str, list[float]] = {"plain": [], "keyed": [], "replay": []}
        for i in range(requests):
            for kind in ("plain", "keyed", "replay"):
                body = {"text": f"{kind} fact number {i} about topic {i % 13}"}
                headers = {"keyed": {"Idempotency-Key": f"k-{i}"}, "replay": {"Idempotency-Key": "answered"}}
                if kind == "replay":
                    body = {"text": "warm up"}
                t0 = time.perf_counter()
                r = client.post(PATH, json=body, headers=headers.get(kind, {}))
                took[kind].append((time.perf_counter() - t0) * 1000)
                assert r.status_code == 201, r.text
        out: dict[str, Any] = {kind: _ms(values) for kind, values in took.items()}
        out["keyed_over_plain_p50"] = round(out["keyed"]["p50_ms"] / out["plain"]["p50_ms"], 2)
        out["replay_over_plain_p50"] = round(out["replay"]["p50_ms"] / out["plain"]["p50_ms"], 2)
        return out


@contextmanager
def pg_url() -> Iterator[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver  # type: ignore[import-untyped]

        with tempfile.TemporaryDirectory() as tmp:
            srv = pgserver.get_server(Path(tmp), cleanup_mode="delete")
            try:
                yield srv.get_uri()
            finally:
                srv.cleanup()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--durability", choices=["full", "fast"], default="full")
    ap.add_argument("--pg", action="store_true", help="also on a throwaway PostgreSQL (pgserver)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results: dict[str, Any] = {"machine": machine(), "requests": args.requests, "durability": args.durability}
    with threadpool_limits(1), tempfile.TemporaryDirectory() as tmp:
        results["sqlite"] = measure(str(Path(tmp) / "bench.db"), args.requests, args.durability)
        if args.pg:
            with pg_url() as url:
                results["postgres"] = measure(url, args.requests, args.durability)
    results["machine_after"] = machine()["loadavg_1_5_15"]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'backend':10} {'plain p50/p95':>16} {'keyed p50/p95':>16} {'replay p50/p95':>16} {'keyed/plain':>12}")
    for backend in ("sqlite", "postgres"):
        if backend in results:
            r = results[backend]
            cells = [f"{r[k]['p50_ms']:.2f}/{r[k]['p95_ms']:.2f}" for k in ("plain", "keyed", "replay")]
            print(f"{backend:10} {cells[0]:>16} {cells[1]:>16} {cells[2]:>16} {r['keyed_over_plain_p50']:>12}")
    print(f"load average before/after: {results['machine']['loadavg_1_5_15']} / {results['machine_after']}")


if __name__ == "__main__":
    main()
