"""``reverie alerts``: the bias alerts of the scope's last dream pass, and dismissing one.

Its own module (h-patterns) so the reading commands stay as they were; registered in ``app``.
"""

from __future__ import annotations

from typing import Any

import click

from reverie import Memory
from reverie.cli.render import clean, score
from reverie.cli.state import json_option, scoped, state, unavailable


def _text(alerts: list[dict[str, Any]]) -> str:
    if not alerts:
        return "no open bias alerts (alerts are computed by `reverie dream`)"
    blocks = []
    for a in alerts:
        mark = "  [dismissed]" if a["dismissed"] else ""
        head = f"{a['id']}  {a['kind']}  subject {clean(a['subject'])}  severity {score(a['severity'])}{mark}"
        items = ", ".join(a["items"][:5]) + (f" … ({len(a['items'])})" if len(a["items"]) > 5 else "")
        blocks.append("\n".join([head, f"  reason: {clean(a['reason'])}", f"  items: {items}"]))
    return "\n\n".join(blocks)


@click.command()
@click.option("--kind", help="Only this kind: single_source, never_tested, recency_bias, overconfident.")
@click.option("--all", "include_dismissed", is_flag=True, help="Include dismissed alerts.")
@click.option("--limit", type=int, help="At most this many (default 100, or Limits.max_k if lower).")
@click.option("--dismiss", metavar="ID", help="Dismiss this alert (until its evidence changes).")
@click.option("--reason", default="", help="Why it is dismissed (kept in the event log).")
@scoped
@json_option
def alerts(kind: str | None, include_dismissed: bool, limit: int | None, dismiss: str | None, reason: str) -> None:
    """Bias alerts from the last dream pass (single source, never tested, recency bias, overconfidence)."""
    st = state()
    scope = st.require_scope()
    if not hasattr(Memory, "alerts"):
        raise unavailable("alerts")
    mem = st.memory()
    if dismiss is not None:
        done = mem.dismiss_alert(dismiss, scope=scope, reason=reason).to_dict()
        st.emit({"action": "dismissed", "alert": done}, lambda: f"dismissed {done['id']} ({done['kind']})")
        return
    found = [a.to_dict() for a in mem.alerts(scope=scope, kind=kind, include_dismissed=include_dismissed, limit=limit)]
    st.emit({"alerts": found}, lambda: _text(found))


COMMANDS = (alerts,)
