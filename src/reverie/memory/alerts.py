"""The bias-alerts capability: ``alerts`` (the standing list) and ``dismiss_alert``.

Why alerts are read from the last recorded dream pass rather than computed here: they are a
standing process — every pass recomputes them for its scope (``reverie.dream.bias``) and its
record keeps them (``Store.record_dream_run``), so every process and face reads the same list,
and a listing costs one row, not a scan of the scope. Dismissals are events in the log; the
listing overlays the latest ones, so a dismissal shows at once, before the next pass.
"""

from __future__ import annotations

import builtins
from typing import Any

from reverie.dream.bias import ALERT_ID, KINDS, BiasAlert, dismissals, overlay
from reverie.errors import InvalidInputError, NotFoundError
from reverie.memory.core import Core
from reverie.model import commands as cmd
from reverie.model.validate import check_count, check_reason

#: Recorded passes searched for the newest one that computed alerts (a pass with alerts off has none).
_RUNS_READ = 5


class Alerts:
    """``alerts`` and ``dismiss_alert`` over one ``Core``."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def alerts(
        self, *, scope: str, kind: str | None = None, include_dismissed: bool = False, limit: int | None = None
    ) -> builtins.list[BiasAlert]:
        """The scope's bias alerts from its last dream pass, ranked (kind, severity, id).

        Kinds: ``single_source``, ``never_tested``, ``recency_bias``, ``overconfident``
        (``reverie.dream.bias`` says what each checks). Dismissed alerts are left out unless
        ``include_dismissed``; one whose evidence changed since it was dismissed is listed
        again. Empty until a dream pass has run on the scope. ``limit``: at most this many
        (default 100, or ``Limits.max_k`` if lower).
        """
        core = self._core
        s = core.scope(scope)
        if kind is not None and kind not in KINDS:
            raise InvalidInputError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        limit = check_count(limit, "limit", default=100, limits=core.limits)
        found = overlay(self._recorded(s), dismissals(core.store, s))
        out = [a for a in found if (kind is None or a.kind == kind) and (include_dismissed or not a.dismissed)]
        return out[:limit]

    def dismiss_alert(self, id: str, *, scope: str, reason: str = "") -> BiasAlert:
        """Dismiss one alert (an ``alert.dismissed`` event); it stays dismissed on later passes
        until its evidence changes. Returns the alert, marked dismissed."""
        core = self._core
        s = core.scope(scope)
        if not isinstance(id, str) or not ALERT_ID.fullmatch(id):
            raise InvalidInputError(f"alert id must look like 'al_' + 16 hex digits (from alerts()), got {id!r}")
        why = check_reason(reason)
        alert = next((a for a in self._recorded(s) if a.id == id), None)
        if alert is None:
            raise NotFoundError(f"no alert {id} in scope {s!r}: list them with alerts(scope=...) after a dream pass")
        core.run([cmd.DismissAlert(s, alert.id, alert.kind, alert.evidence, why)])
        return BiasAlert(**{**_fields(alert), "dismissed": True})

    def _recorded(self, scope: str) -> builtins.list[BiasAlert]:
        for run in self._core.store.dream_runs(scope, limit=_RUNS_READ):
            if run.get("config", {}).get("alerts") is False:
                return []  # the newest pass was told not to compute them: older ones are stale
            if "alerts_total" in run.get("stats", {}):
                return [BiasAlert.from_dict(a) for a in run.get("alerts", [])]
        return []  # no pass since alerts existed (or only passes whose planning was cancelled)


def _fields(alert: BiasAlert) -> dict[str, Any]:
    return {
        "id": alert.id,
        "kind": alert.kind,
        "subject": alert.subject,
        "reason": alert.reason,
        "items": alert.items,
        "evidence": alert.evidence,
        "severity": alert.severity,
    }
