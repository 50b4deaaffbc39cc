"""Error texts as a person at a shell should read them: the fix is a ``reverie`` command.

``Memory``'s messages say how to fix a problem *in Python* ("call resume_learning('u')",
"call undismiss(...)", "remember_manual / remember_system", "Memory.reindex()"): right for
the Python API, but naming a call nobody at a shell can make. The core knows nothing of
commands, so the CLI rewrites them here, by error code where the fix is a command and by
phrase for the other Python-isms that can reach the CLI (the HTTP face does the same with its
routes in ``reverie.http.messages``). ``tests/security/test_faces_cli.py`` pins the ones
reachable from the CLI; a new core message naming a call needs a line here.
"""

from __future__ import annotations

import ast
import re
import shlex

#: ``in scope 'user:alice'`` as ``Memory`` writes it (``{scope!r}``).
_SCOPE = re.compile(r"in scope (?P<scope>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
#: Python phrases that may reach the CLI, and what to say instead.
_PHRASES = (
    (re.compile(r" \(e\.g\. datetime\.now\(UTC\)\); got a naive datetime"), " (e.g. 2030-01-01T00:00:00Z)"),
    (
        re.compile(r" \('manual' and 'system' only through remember_manual / remember_system\)"),
        " with --source ('manual' and 'system' are not for the learning path)",
    ),
    (re.compile(r" \(Memory\.remember_manual / Memory\.remember_system\)"), ""),
    (re.compile(r" \(Memory\.reindex\(\)\)"), ""),
)
#: The storage error of a store this user cannot write (``store.sqlite``'s wording).
_UNWRITABLE = "cannot be opened for writing"
_READ_ONLY_HINT = "; to only read it, pass --read-only"


def for_cli(code: str, message: str, scope: str | None) -> str:
    """``message`` with its Python advice replaced by the ``reverie`` command that does it."""
    scope = scope if scope is not None else _scope_in(message)
    if code == "learning_paused" and scope is not None:
        head = message.split(";", 1)[0]
        return f"{head}; run `reverie resume --scope {shlex.quote(scope)}` to allow writes"
    if code == "dismissed_value" and scope is not None:
        head = message.split(";", 1)[0]
        return (
            f"{head}; run `reverie undismiss --scope {shlex.quote(scope)} TEXT` "
            "(or --key K --value V) first if it should be learned again"
        )
    if code == "read_only":
        return f"{message} (drop --read-only)"
    if code == "storage" and _UNWRITABLE in message:
        return message + _READ_ONLY_HINT
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
