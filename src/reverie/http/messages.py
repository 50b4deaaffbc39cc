"""Error texts as an HTTP client (or a person on the review page) should read them.

``Memory``'s messages say how to fix a problem *in Python* — "call resume_learning('user:bob')",
"call undismiss(...)", "datetime.now(UTC)" — which names a call nobody on this face can make.
The core is right to say it that way (it serves the Python API) and knows nothing of routes,
so the HTTP layer rewrites them here, by error code where the fix is a route, and by phrase
for the Python-isms that can reach HTTP. ``tests/security/test_http_messages.py`` pins the
ones reachable through HTTP; a new core message naming a call needs a line here.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from reverie.advice import drop_python_phrases, scope_named_in
from reverie.http.scope_path import scope_url

#: Python phrases only HTTP meets, and what to say instead (the shared ones: ``reverie.advice``).
_PHRASES = (
    (re.compile(r"^set_scores needs at least one of"), "give at least one score:"),
    (
        re.compile(r"; open it with mem\.conversation\(id, scope=\.\.\.\)"),
        "; POST a message to .../conversations/{id}/messages to open one",
    ),
    (re.compile(r"; mem\.people\(scope=\.\.\.\) lists who is known"), "; GET .../people lists who is known"),
    (
        re.compile(r": list them with alerts\(scope=\.\.\.\) after a dream pass"),
        ": GET .../alerts lists them after a dream pass (POST .../dream)",
    ),
    (re.compile(r" \(from alerts\(\)\)"), " (from GET .../alerts)"),
    (re.compile(r"Pass on_conflict='skip'"), 'Send "on_conflict": "skip"'),
    (re.compile(r" or 'reid' to import"), ' or "reid" to import'),
)


def for_http(code: str, message: str, path: str, scope: str | None) -> str:
    """``message`` with its Python advice replaced by the route (or the review page's button)."""
    on_page = not path.startswith("/v1/")
    scope = scope if scope is not None else scope_named_in(message)
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
    return drop_python_phrases(message, _PHRASES)
