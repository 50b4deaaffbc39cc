"""The long-running servers: ``serve`` (HTTP API and review page) and ``mcp`` (stdio or HTTP).

Both check what they can before opening the store and listening, so a mistake is one
``error[<code>]`` line and an exit code, never a server that starts on the wrong thing:
a ``--db`` naming no file is refused (``not_found``, exit 1) unless ``--create`` asks for a new
store — a typo would otherwise serve an empty one and leave a stray file; a port another
server holds is refused (``port_in_use``, exit 2) with the ``--port`` hint, where uvicorn
logged "address already in use" and exited 3. ``--read-only`` serves the store for inspection.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from reverie import InvalidInputError
from reverie.cli.ops import parse_every
from reverie.cli.state import State, state, store_options
from reverie.model.validate import unique_keys


def _create_option(f: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--create", is_flag=True, help="Create the store if --db names no file (else a missing file is refused)."
    )(f)


def _principal_tokens(path: str | None) -> dict[str, str] | None:
    """``--principals FILE``: a JSON object of token → principal (checked again by the server)."""
    if path is None:
        return None
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"), object_pairs_hook=unique_keys(f"--principals {path}"))
    except InvalidInputError:  # a token given twice: which principal it names is ambiguous
        raise
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidInputError(f"--principals {path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise InvalidInputError(
            f'--principals {path}: must be a JSON object of token to principal, e.g. {{"s3cr3t": "agent:a"}}'
        )
    return data


def _prepare(st: State, create: bool, command: str) -> str:
    """Refuse a missing store (unless ``create``); the embedder to open it with."""
    st.require_store(create=create or st.create, creator=f"`reverie {command} --create` or `reverie remember`")
    return st.embedder_for()


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Bind address (non-loopback needs --token).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535))
@click.option("--token", envvar="REVERIE_TOKEN", default=None, help="Bearer token (env REVERIE_TOKEN).")
@click.option(
    "--dream-every", default=None, help="Run the dream pass on every scope this often (e.g. 3600, 30m, 1h; 1s to 365d)."
)
@click.option(
    "--idempotency-window",
    default=None,
    help="Keep each Idempotency-Key this long after its first request (e.g. 3600, 30m, 24h; default 24h).",
)
@click.option(
    "--principals",
    "principals_file",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="A JSON file of {token: principal}: a /v1 request with one of these bearer tokens acts as its principal.",
)
@_create_option
@store_options
def serve(
    host: str,
    port: int,
    token: str | None,
    dream_every: str | None,
    idempotency_window: str | None,
    principals_file: str | None,
    create: bool,
) -> None:
    """Serve the HTTP API and the web review page on the store."""
    # The CLI is the process entry point for every face, so it starts the HTTP adapter; the
    # import is deferred so `reverie remember` never pays for FastAPI.
    from reverie.http import serve as serve_http
    from reverie.http.app import IDEMPOTENCY_WINDOW, check_bind
    from reverie.http.security import check_token
    from reverie.mcp.__main__ import check_port_free

    st = state()
    every = parse_every(dream_every, "--dream-every")
    window = parse_every(idempotency_window, "--idempotency-window")
    if every is not None and st.read_only:  # each pass would fail (and be logged) on a read-only store
        raise InvalidInputError("--dream-every changes the store and --read-only forbids it: drop one of them")
    check_bind(host, token)  # the checks serve_http makes, first: none of them needs the store
    check_token(token)
    principals = _principal_tokens(principals_file)
    embedder = _prepare(st, create, "serve")
    check_port_free(host, port, what="the HTTP API", default=8765)
    serve_http(
        st.db,
        host=host,
        port=port,
        token=token,
        embedder=embedder,
        dream_every=every,
        read_only=st.read_only,
        principal=st.principal,
        principals=principals,
        idempotency_window=window if window is not None else IDEMPOTENCY_WINDOW,
        conflict_reader=st.conflict_reader,
    )


@click.command()
@click.option("--http", "use_http", is_flag=True, help="Streamable HTTP on loopback instead of stdio.")
@click.option("--port", default=8766, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--vault", default=None, metavar="PATH", help="Also serve the vault tools (vault_*) over this Markdown vault."
)
@_create_option
@store_options
def mcp(use_http: bool, port: int, vault: str | None, create: bool) -> None:
    """Run the MCP server (stdio by default; --http for streamable HTTP on 127.0.0.1)."""
    from reverie.mcp import run_http, run_stdio  # deferred: see `serve`
    from reverie.mcp.__main__ import announce_http, check_port_free  # the same checks as python -m reverie.mcp

    st = state()
    embedder = _prepare(st, create, "mcp")
    if use_http:
        check_port_free("127.0.0.1", port)
        announce_http("127.0.0.1", port)
        run_http(
            st.db,
            port=port,
            embedder=embedder,
            read_only=st.read_only,
            vault=vault,
            principal=st.principal,
            conflict_reader=st.conflict_reader,
        )
    else:
        run_stdio(
            st.db,
            embedder=embedder,
            read_only=st.read_only,
            vault=vault,
            principal=st.principal,
            conflict_reader=st.conflict_reader,
        )
