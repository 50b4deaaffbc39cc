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

import re
import shlex

from reverie.advice import drop_python_phrases, scope_named_in

#: Python phrases only the CLI meets, and what to say instead (the shared ones: ``reverie.advice``).
_PHRASES = (
    (
        re.compile(r" \('manual' and 'system' only through remember_manual / remember_system\)"),
        " with --source ('manual' and 'system' are not for the learning path)",
    ),
    (
        re.compile(r"; open it with mem\.conversation\(id, scope=\.\.\.\)"),
        "; `reverie conversation list` shows the scope's conversations, `reverie conversation add` opens one",
    ),
    (re.compile(r"; mem\.people\(scope=\.\.\.\) lists who is known"), "; `reverie people` lists who is known"),
    (
        re.compile(r": list them with alerts\(scope=\.\.\.\) after a dream pass"),
        ": `reverie alerts` lists them after `reverie dream`",
    ),
    (re.compile(r" \(from alerts\(\)\)"), " (from `reverie alerts`)"),
    (re.compile(r"Pass on_conflict='skip'"), "Pass --on-conflict skip"),
    (re.compile(r" or 'reid' to import"), " or --on-conflict reid to import"),
)
#: The storage error of a store this user cannot write (``store.sqlite``'s wording).
_UNWRITABLE = "cannot be opened for writing"
_READ_ONLY_HINT = "; to only read it, pass --read-only"


def for_cli(code: str, message: str, scope: str | None) -> str:
    """``message`` with its Python advice replaced by the ``reverie`` command that does it."""
    scope = scope if scope is not None else scope_named_in(message)
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
    return drop_python_phrases(message, _PHRASES)
