"""The MCP server: the static catalog, one dispatcher, and the stdio / HTTP entry points.

Built on the SDK's low-level ``Server`` so every schema and description is exactly the
hand-written constant in ``catalog`` (no signature introspection that could drift). Every
tool outcome is a ``CallToolResult``: success carries ``structuredContent`` plus the same
JSON as text (for clients that read only text); failure carries ``isError`` and
``{"code", "error"}`` — never a traceback.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, cast

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from reverie import InvalidInputError, Memory, NotFoundError, ReverieError, __version__
from reverie.advice import drop_python_phrases
from reverie.mcp.catalog import DESCRIPTIONS, INSTRUCTIONS, SCHEMAS, TOOL_NAMES
from reverie.mcp.conversation_catalog import ADDITIVE as CONVERSATION_ADDITIVE
from reverie.mcp.conversation_catalog import READ_ONLY as CONVERSATION_READ_ONLY
from reverie.mcp.handlers import HANDLERS, ToolError
from reverie.mcp.http_repeats import RefuseRepeatedKeys
from reverie.mcp.schema import check_arguments
from reverie.mcp.stdio_lines import CheckedLines, wire_stdin
from reverie.mcp.unreadable import Answering
from reverie.mcp.vault_tools import READ_ONLY as VAULT_READ_ONLY
from reverie.mcp.vault_tools import VAULT_DESCRIPTIONS, VAULT_HANDLERS, VAULT_SCHEMAS, run_vault_tool

logger = logging.getLogger(__name__)

HTTP_HOSTS = ("127.0.0.1", "::1")
"""Where HTTP may bind: loopback only. The server has no authentication, so anything that
can reach the port can read and rewrite every scope; a LAN address is refused."""

DEFAULT_HTTP_PORT = 8766  # `reverie serve` (the HTTP API) takes 8765

_READ_ONLY = (
    frozenset({"get", "history", "list", "contradictions", "summary", "slice_export", "alerts"})
    | CONVERSATION_READ_ONLY
)
_ADDITIVE = frozenset(
    {"remember", "recall", "context", "link", "pause_learning", "resume_learning", "slice_import"}
) | (CONVERSATION_ADDITIVE)


def tools(*, vault: bool = False) -> list[types.Tool]:
    """The catalog as SDK ``Tool`` objects (fresh copies: a caller mutating one changes nothing);
    ``vault``: with the vault tools (``vault_tools``) after the rest."""
    return [_tool(name) for name in TOOL_NAMES] + ([_tool(n) for n in VAULT_DESCRIPTIONS] if vault else [])


def _tool(name: str) -> types.Tool:
    read_only = name in _READ_ONLY or name in VAULT_READ_ONLY
    return types.Tool(
        name=name,
        description=DESCRIPTIONS[name] if name in DESCRIPTIONS else VAULT_DESCRIPTIONS[name],
        input_schema=copy.deepcopy(SCHEMAS[name] if name in SCHEMAS else VAULT_SCHEMAS[name]),
        annotations=types.ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=None if read_only else name not in _ADDITIVE,
            open_world_hint=False,
        ),
    )


def _ok(payload: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(content=[_json_text(payload)], structured_content=payload)


def _error(code: str, message: str) -> types.CallToolResult:
    payload = {"code": code, "error": message}
    return types.CallToolResult(content=[_json_text(payload)], structured_content=payload, is_error=True)


def _json_text(payload: dict[str, Any]) -> types.TextContent:
    return types.TextContent(text=json.dumps(payload, ensure_ascii=False, allow_nan=False))


def call_tool(mem: Memory, name: str, arguments: object, vault: Path | None = None) -> types.CallToolResult:
    """Run one tool synchronously and turn every outcome, including bugs, into a result.

    ``vault``: the one vault folder the operator serves (its tools answer only then).
    """
    try:
        if vault is not None and name in VAULT_HANDLERS:
            return _ok(run_vault_tool(mem, vault, name, check_arguments(VAULT_SCHEMAS[name], arguments)))
        handler = HANDLERS.get(name)
        if handler is None:
            raise ToolError("unknown_tool", f"no tool {name[:60]!r}; the tools are {', '.join(TOOL_NAMES)}")
        return _ok(handler(mem, check_arguments(SCHEMAS[name], arguments)))
    except (ReverieError, ToolError) as exc:
        # The Python-only advice ("e.g. datetime.now(UTC)") says nothing a JSON caller can send.
        return _error(exc.code, drop_python_phrases(exc.message))
    except Exception:
        # A bug, not a refusal: keep the traceback in the server's log (stderr), out of the result.
        logger.exception("tool %s failed", name)
        return _error("internal", f"{name} failed inside the server; see the server log")


def build_server(mem: Memory, vault: str | Path | None = None) -> Server[Any]:
    """An MCP server over ``mem`` (which the caller owns and closes); ``vault``: also serve the
    vault tools over that one folder (``reverie.mcp.vault_tools``).

    ``Memory`` calls block on SQLite and the embedder, so each runs in a worker thread; one
    at a time, so concurrent clients queue instead of contending for the write lock.
    """
    limiter = anyio.CapacityLimiter(1)
    root = Path(vault) if vault is not None else None

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools(vault=root is not None))

    async def on_call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        run = functools.partial(call_tool, mem, params.name, params.arguments or {}, root)
        return await anyio.to_thread.run_sync(run, limiter=limiter)

    return Server(
        "reverie",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def open_memory(
    db_path: str | Path,
    embedder: str | None = None,
    *,
    read_only: bool = False,
    principal: str | None = None,
    conflict_reader: str | None = None,
) -> Memory:
    """The ``Memory`` the entry points serve (``embedder``: ``"minilm"`` or ``"hash"``; None, the
    default, is the one the store records — minilm for a new store).

    ``read_only``: for inspection; every write tool then answers ``read_only``. (The entry points
    refuse a missing file first, unless asked to create one: ``__main__.check_store``.)
    ``principal``: every tool reads as this principal (issue #14.8). It is fixed by whoever
    launches the server (the agent host's configuration), never by a tool argument: the model
    on the other end of the connection cannot widen what it sees.
    ``conflict_reader``: ``"nli"`` for the contradictions' second reader (``Memory``).
    """
    return Memory(db_path, embedder=embedder, read_only=read_only, principal=principal, conflict_reader=conflict_reader)


async def serve_stdio(mem: Memory, vault: str | Path | None = None) -> None:
    """Serve ``mem`` over this process's stdin / stdout until the client hangs up."""
    server = build_server(mem, vault)
    with wire_stdin() as stdin:
        # A line repeating a key is refused by name before the SDK reads it (and keeps the last).
        lines = CheckedLines(anyio.wrap_file(stdin))
        # The transport only iterates its stdin's lines, which is all CheckedLines offers.
        async with stdio_server(stdin=cast("anyio.AsyncFile[str]", lines)) as (read_stream, write_stream):
            lines.answer_through(write_stream)
            # A line the SDK cannot read (a 5000-digit number) gets an answer, not silence.
            answering = Answering(read_stream, write_stream)
            await server.run(answering, write_stream, server.create_initialization_options())


def run_stdio(
    db_path: str | Path,
    *,
    embedder: str | None = None,
    create: bool = True,
    read_only: bool = False,
    vault: str | Path | None = None,
    principal: str | None = None,
    conflict_reader: str | None = None,
) -> None:
    """Open the store at ``db_path``, serve it over stdio, close it when the client leaves.

    ``create=False`` refuses a path that names no file (``NotFoundError``) instead of serving a
    new empty store; ``read_only`` serves it for inspection.
    """
    check_store(db_path, create and not read_only)
    with open_memory(
        db_path, embedder, read_only=read_only, principal=principal, conflict_reader=conflict_reader
    ) as mem:
        anyio.run(serve_stdio, mem, vault)


def check_http_host(host: str) -> str:
    """Refuse any bind address but loopback (see ``HTTP_HOSTS``)."""
    if host not in HTTP_HOSTS:
        raise InvalidInputError(
            f"refusing to serve HTTP on {host!r}: reverie's MCP server has no authentication, "
            f"so it binds only to {' or '.join(HTTP_HOSTS)}"
        )
    return host


def run_http(
    db_path: str | Path,
    *,
    port: int = DEFAULT_HTTP_PORT,
    host: str = "127.0.0.1",
    embedder: str | None = None,
    create: bool = True,
    read_only: bool = False,
    vault: str | Path | None = None,
    principal: str | None = None,
    conflict_reader: str | None = None,
) -> None:
    """Serve the store over streamable HTTP at ``http://{host}:{port}/mcp`` (loopback only).

    ``create`` and ``read_only`` as for ``run_stdio``.
    """
    import uvicorn

    check_http_host(host)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise InvalidInputError(f"port must be an int in [1, 65535], got {port!r}")
    check_store(db_path, create and not read_only)
    with (
        _sigterm_returns(),
        open_memory(
            db_path, embedder, read_only=read_only, principal=principal, conflict_reader=conflict_reader
        ) as mem,
    ):
        # The SDK turns on DNS-rebinding protection (Host / Origin checks) for loopback hosts.
        # A body repeating a JSON key is refused by name before the SDK reads it (and keeps the last).
        app = RefuseRepeatedKeys(build_server(mem, vault).streamable_http_app(host=host))
        uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()


def check_store(db_path: str | Path, create: bool) -> None:
    """Refuse a ``db_path`` naming no file unless ``create``: a mistyped ``--db`` would serve an empty store."""
    if not create and str(db_path) != ":memory:" and not Path(db_path).exists():
        raise NotFoundError(f"no store at {db_path} (a mistyped --db?); pass --create to make a new store there")


class _Terminated(Exception):
    """Raised by the SIGTERM handler ``_sigterm_returns`` installs."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


@contextmanager
def _sigterm_returns() -> Iterator[None]:
    """Make SIGTERM a normal return, after the store is closed.

    uvicorn drains requests on SIGTERM and then re-raises the signal; with the default
    disposition that kills the process before ``with open_memory(...)`` can close the store.
    Here the re-raised signal becomes an exception that unwinds through the ``with`` instead.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread; leave the default
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    except _Terminated:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
