"""``/v1/scopes/{scope}/alerts``: the bias alerts of the scope's last dream pass, and dismissing one.

Its own router (h-patterns), registered beside ``api.router`` with the same error shape.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from reverie.http import schemas as s
from reverie.http.api import ERRORS, Mem, ScopeName
from reverie.http.jsonbody import StrictJSONRoute

router = APIRouter(prefix="/v1/scopes/{scope}", responses=ERRORS, route_class=StrictJSONRoute)
AlertKind = Literal["single_source", "never_tested", "recency_bias", "overconfident"]


class AlertOut(BaseModel):
    """One bias alert: what kind, about which subject, why, and the items behind it."""

    id: str = Field(description="Stable across passes while the alert stands ('al_' + 16 hex digits).")
    kind: AlertKind
    subject: str = Field(description="What the beliefs behind it are about (a key's head or first content word).")
    reason: str
    items: list[str] = Field(description="Ids of the items behind the alert.")
    evidence: str = Field(description="Fingerprint of that evidence: a dismissal holds while it is unchanged.")
    severity: float
    dismissed: bool


class AlertsOut(BaseModel):
    alerts: list[AlertOut]


class DismissedOut(BaseModel):
    alert: AlertOut


AlertId = Annotated[str, Path(description="The alert's id (AlertOut.id).")]


@router.get("/alerts", response_model=AlertsOut, summary="Bias alerts")
def alerts(
    scope: ScopeName,
    mem: Mem,
    kind: Annotated[AlertKind | None, Query(description="Only alerts of this kind.")] = None,
    include_dismissed: Annotated[bool, Query(description="Also dismissed alerts.")] = False,
    limit: Annotated[int | None, Query(description=s.COUNT_DOC.format(default=100))] = None,
) -> AlertsOut:
    """The bias alerts the scope's last dream pass computed, ranked; empty before any pass.

    Dismiss one with ``/alerts/{alert_id}/dismiss``.
    """
    found = mem.alerts(scope=scope, kind=kind, include_dismissed=include_dismissed, limit=limit)
    return AlertsOut(alerts=[AlertOut.model_validate(a.to_dict()) for a in found])


@router.post("/alerts/{alert_id}/dismiss", response_model=DismissedOut, summary="Dismiss a bias alert")
def dismiss(scope: ScopeName, alert_id: AlertId, body: s.ReasonIn, mem: Mem) -> DismissedOut:
    """Dismiss the alert until its evidence changes (an event in the log). Returns it, dismissed."""
    done = mem.dismiss_alert(alert_id, scope=scope, reason=body.reason)
    return DismissedOut(alert=AlertOut.model_validate(done.to_dict()))
