"""Error texts as an HTTP client (or a person on the review page) should read them.

``Memory``'s messages say how to fix a problem *in Python* — "call resume_learning('user:bob')",
"call undismiss(...)", "datetime.now(UTC)" — which names a call nobody on this face can make.
The core is right to say it that way (it serves the Python API) and knows nothing of routes,
so the HTTP layer rewrites them here, by error code where the fix is a route, and by phrase
for the Python-isms that can reach HTTP. ``tests/security/test_http_messages.py`` pins the
ones reachable through HTTP; a new core message naming a call needs a line here.
"""

from __future__ import annotations

import ast
import re
from urllib.parse import quote

from reverie.http.scope_path import scope_url

#: ``in scope 'user:alice'`` as ``Memory`` writes it (``{scope!r}``).
_SCOPE = re.compile(r"in scope (?P<scope>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
#: Python phrases that may reach HTTP, and what to say instead.
_PHRASES = (
    (re.compile(r" \(e\.g\. datetime\.now\(UTC\)\); got a naive datetime"), " (e.g. 2030-01-01T00:00:00Z)"),
    (re.compile(r"^set_scores needs at least one of"), "give at least one score:"),
    (re.compile(r" \(Memory\.remember_manual / Memory\.remember_system\)"), ""),
    (re.compile(r" \(Memory\.reindex\(\)\)"), ""),
)


def for_http(code: str, message: str, path: str, scope: str | None) -> str:
    """``message`` with its Python advice replaced by the route (or the review page's button)."""
    on_page = not path.startswith("/v1/")
    scope = scope if scope is not None else _scope_in(message)
    if code == "learning_paused" and scope is not None:
        head = message.split(";", 1)[0]
        if on_page:
            return f"{head}; press 'resume learning' on its page (/?scope={quote(scope, safe='')}) to allow writes"
        return f"{head}; POST {scope_url(scope)}/learning/resume to allow writes"
    if code == "dismissed_value" and scope is not None:
        head = message.split(";", 1)[0]
        return (
            f"{head}; POST {scope_url(scope)}/undismiss with its text (or key and value) if it should be learned again"
        )
    for pattern, replacement in _PHRASES:
        message = pattern.sub(replacement, message)
    return message


def _scope_in(message: str) -> str | None:
    """The scope a core message names (``in scope 'x'``), or None."""
    match = _SCOPE.search(message)
    if match is None:
        return None
    try:
        value = ast.literal_eval(match.group("scope"))
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None
