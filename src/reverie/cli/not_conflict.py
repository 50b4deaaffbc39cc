"""``reverie dismiss-contradiction``: close a contradiction as "not a conflict" (a false positive).

Its own module so the reading commands (``read``: ``contradictions``, ``resolve``) stay as they
are; registered in ``app``. The same verb as Python's ``Memory.dismiss_contradiction``, HTTP's
``POST …/contradictions/{edge_id}/dismiss`` and MCP's ``dismiss_contradiction``.
"""

from __future__ import annotations

import click

from reverie import Memory
from reverie.cli.state import json_option, scoped, state, unavailable


@click.command("dismiss-contradiction")
@click.argument("conflict")
@click.option("--reason", default="", help="Why they do not conflict (kept in history).")
@scoped
@json_option
def dismiss_contradiction(conflict: str, reason: str) -> None:
    """Close a CONFLICT (the contradicts edge id from `contradictions`) as not a conflict: both
    claims stay, and the same two are never reported as a conflict again."""
    st = state()
    scope = st.require_scope()
    if not hasattr(Memory, "dismiss_contradiction"):
        raise unavailable("dismiss-contradiction")
    edge = st.memory().dismiss_contradiction(conflict, scope=scope, reason=reason)
    st.emit(
        {"action": "dismissed", "edge": edge.to_dict()},
        lambda: f"dismissed {edge.id}: {edge.src} and {edge.dst} are not a conflict",
    )


COMMANDS = (dismiss_contradiction,)
