"""reverie's MCP face: every ``Memory`` verb an agent needs, as MCP tools.

A thin adapter over the public ``reverie.Memory`` API (never the store). Entry points:
``build_server(mem)`` for an in-process server, ``run_stdio(db_path)`` and
``run_http(db_path, port=...)`` for a process, ``python -m reverie.mcp`` from a shell.
"""

from __future__ import annotations

from reverie.mcp.catalog import DATA_NOTE, DESCRIPTIONS, SCHEMAS, TOOL_NAMES
from reverie.mcp.server import (
    DEFAULT_HTTP_PORT,
    HTTP_HOSTS,
    build_server,
    call_tool,
    check_http_host,
    run_http,
    run_stdio,
    serve_stdio,
    tools,
)

__all__ = [
    "DATA_NOTE",
    "DEFAULT_HTTP_PORT",
    "DESCRIPTIONS",
    "HTTP_HOSTS",
    "SCHEMAS",
    "TOOL_NAMES",
    "build_server",
    "call_tool",
    "check_http_host",
    "run_http",
    "run_stdio",
    "serve_stdio",
    "tools",
]
