"""``python -m reverie.mcp --db PATH [--embedder minilm|hash] [--http [--port N] [--host H]]``.

The same server ``reverie mcp`` starts, without the CLI package: stdio by default (what MCP
clients spawn), streamable HTTP on loopback with ``--http``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from reverie import ReverieError
from reverie.mcp.server import DEFAULT_HTTP_PORT, check_http_host, run_http, run_stdio


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reverie.mcp", description="Serve a reverie store over MCP.")
    p.add_argument("--db", required=True, help="the store file (created if missing)")
    p.add_argument("--embedder", choices=("minilm", "hash"), default="minilm", help="default: minilm")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    p.add_argument("--port", type=int, default=DEFAULT_HTTP_PORT, help=f"HTTP port (default {DEFAULT_HTTP_PORT})")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address: 127.0.0.1 (default) or ::1 only")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.http:
            run_http(args.db, port=args.port, host=check_http_host(args.host), embedder=args.embedder)
        else:
            run_stdio(args.db, embedder=args.embedder)
    except ReverieError as exc:
        # stdout belongs to the protocol in stdio mode: refusals go to stderr, as JSON.
        print(json.dumps(exc.to_dict()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
