"""Metacognition over detected conflicts: which ones matter, in what order. Pure: no I/O.

A conflict is an *alert* when it challenges an established belief — one a person promoted
(``manual``), or a high-trust, corroborated one. Churn among unvetted inferences is listed but
not alerted. Ordering: hypercorrections first (a confident belief facing stronger evidence:
the case where being wrong costs most), then by how established the challenged side is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from reverie.model.item import Edge, Item

#: Authority at or above which a corroborated belief counts as established.
ESTABLISHED_AUTHORITY = 0.8
#: Confidence at or above which being contradicted is a hypercorrection candidate.
HYPERCORRECTION_CONFIDENCE = 0.8


def support(item: Item) -> float:
    """How well-supported a claim is: trust × corroboration, doubled for a person's word."""
    manual = 2.0 if item.source == "manual" else 1.0
    return item.scores.authority * (1.0 + math.log1p(item.evidence_count - 1)) * manual


def is_established(item: Item) -> bool:
    return item.source == "manual" or (item.scores.authority >= ESTABLISHED_AUTHORITY and item.evidence_count >= 2)


@dataclass(frozen=True, slots=True)
class Alert:
    """One open conflict between two current items, with why it matters."""

    edge_id: str
    a: Item
    b: Item
    axis: str
    confidence: float
    reason: str
    established: float
    alert: bool
    hypercorrection: bool
    supersession_candidate: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "edge_id": self.edge_id,
            "a": {"id": self.a.id, "text": self.a.text, "source": self.a.source, "authority": self.a.scores.authority},
            "b": {"id": self.b.id, "text": self.b.text, "source": self.b.source, "authority": self.b.scores.authority},
            "axis": self.axis,
            "confidence": self.confidence,
            "reason": self.reason,
            "established": round(self.established, 4),
            "alert": self.alert,
            "hypercorrection": self.hypercorrection,
            "supersession_candidate": self.supersession_candidate,
        }


def build_alert(edge: Edge, a: Item, b: Item) -> Alert:
    meta = edge.meta
    stronger, weaker = (a, b) if (support(a), a.id) >= (support(b), b.id) else (b, a)
    hyper = weaker.scores.confidence >= HYPERCORRECTION_CONFIDENCE and support(stronger) > support(weaker)
    return Alert(
        edge_id=edge.id,
        a=a,
        b=b,
        axis=str(meta.get("axis", "unspecified")),
        confidence=float(meta.get("confidence", edge.authority)),
        reason=str(meta.get("reason", "linked as contradicting")),
        established=max(support(a), support(b)),
        alert=is_established(a) or is_established(b),
        hypercorrection=hyper,
        supersession_candidate=bool(meta.get("mutable", False)),
    )


def rank(alerts: list[Alert]) -> list[Alert]:
    """Hypercorrections, then alerts, then most established first; ties by edge id (stable)."""
    return sorted(alerts, key=lambda x: (not x.hypercorrection, not x.alert, -x.established, x.edge_id))
