"""What the faces share when they rewrite the core's Python advice (CLI commands, HTTP routes).

``Memory``'s messages tell a Python caller how to fix a problem ("call resume_learning(...)",
"Memory.reindex()"). Each face (``reverie.cli.messages``, ``reverie.http.messages``) replaces
that advice with its own command or route, and the MCP server drops the shared phrases
(``reverie.mcp.server.call_tool``); the faces may not import each other, so the parts
they have in common — finding the scope a message names, and the Python-only phrases both drop —
live here, below both. Pure text: no I/O.
"""

from __future__ import annotations

import ast
import re

#: ``in scope 'user:alice'`` as ``Memory`` writes it (``{scope!r}``).
_SCOPE = re.compile(r"in scope (?P<scope>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")

#: Python-only phrases that reach every face, and what a face says instead.
PYTHON_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r" \(e\.g\. datetime\.now\(UTC\)\); got a naive datetime"), " (e.g. 2030-01-01T00:00:00Z)"),
    (re.compile(r" \(Memory\.remember_manual / Memory\.remember_system\)"), ""),
    (re.compile(r" \(Memory\.reindex\(\)\)"), ""),
)


def scope_named_in(message: str) -> str | None:
    """The scope a core message names (``in scope 'x'``), or None."""
    match = _SCOPE.search(message)
    if match is None:
        return None
    try:
        value = ast.literal_eval(match.group("scope"))
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def drop_python_phrases(message: str, extra: tuple[tuple[re.Pattern[str], str], ...] = ()) -> str:
    """``message`` with the face's own phrases (``extra``, first) and the shared ones replaced."""
    for pattern, replacement in (*extra, *PYTHON_PHRASES):
        message = pattern.sub(replacement, message)
    return message


__all__ = ["PYTHON_PHRASES", "drop_python_phrases", "scope_named_in"]
