"""The review page's bias-alerts section (h-patterns): each alert of the last dream pass with a
dismiss form. The form posts to ``/ui/dismiss_alert`` (registered in ``page.ACTIONS``)."""

from __future__ import annotations

from reverie.http import render as r
from reverie.memory import Memory

LABELS = {
    "single_source": "single source",
    "never_tested": "never tested",
    "recency_bias": "recency bias",
    "overconfident": "overconfident",
}
DONE = "Alert dismissed: it stays dismissed until its evidence changes."


def panel(mem: Memory, scope: str, csrf: str) -> r.Safe:
    found = mem.alerts(scope=scope)
    rows = [
        r.fmt(
            '<li class="bias-alert" data-kind="{kind}"><p><strong>{label}</strong> — {subject}</p>'
            "<p>{reason}</p><p><small>{n} item(s) behind it</small></p>{form}</li>",
            kind=a.kind,
            label=LABELS.get(a.kind, a.kind),
            subject=a.subject,
            reason=a.reason,
            n=len(a.items),
            form=r.action_form("dismiss_alert", "dismiss alert", csrf, scope=scope, alert_id=a.id),
        )
        for a in found
    ]
    empty = r.Safe('<p class="empty">No open bias alerts (a dream pass computes them).</p>')
    return r.fmt(
        '<section class="alerts"><h3>Bias alerts ({n})</h3>{body}</section>',
        n=len(found),
        body=r.fmt("<ul>{rows}</ul>", rows=r.join(rows)) if rows else empty,
    )


def dismiss(mem: Memory, form: dict[str, str], scope: str) -> str | None:
    """The page action: dismiss the alert named by the form's ``alert_id``."""
    alert_id = form.get("alert_id", "").strip()
    mem.dismiss_alert(alert_id, scope=scope, reason=form.get("reason", ""))
    return None
