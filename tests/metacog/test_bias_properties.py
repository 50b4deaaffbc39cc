"""Invariants of the bias checks (``reverie.dream.bias.find_alerts``) over generated populations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.dream.bias import ALERT_ID, KINDS, find_alerts
from reverie.model.item import Edge, Item, Scores

T0 = datetime(2026, 1, 5, tzinfo=UTC)
_SUBJECTS = ["Rosa", "Kai", "The payments service", "Umar", "The gateway"]
_REST = ["lives in Seattle", "is written in Go", "finished a PhD", "times out after 30 s", "likes tea"]


@st.composite
def populations(draw: st.DrawFn) -> list[Item]:
    n = draw(st.integers(0, 14))
    out = []
    for i in range(n):
        day = draw(st.integers(0, 90))
        used = draw(st.booleans())
        out.append(
            Item(
                id=f"i{i:03d}",
                scope="s",
                text=f"{draw(st.sampled_from(_SUBJECTS))} {draw(st.sampled_from(_REST))} ({i})",
                kind="assertion",
                source=draw(st.sampled_from(["user_stated", "observed", "inferred", "manual"])),
                recorded_at=T0 + timedelta(days=day),
                updated_at=T0 + timedelta(days=day),
                author=draw(st.sampled_from([None, "bob", "carla"])),
                scores=Scores(
                    authority=draw(st.sampled_from([0.4, 0.7, 0.9])), confidence=draw(st.sampled_from([0.5, 0.99]))
                ),
                evidence_count=draw(st.integers(1, 4)),
                last_used_at=T0 + timedelta(days=day + draw(st.integers(0, 30))) if used else None,
                last_used_query=draw(st.sampled_from(["where does rosa live", "what is the gateway timeout"]))
                if used
                else None,
            )
        )
    return out


@settings(max_examples=60, deadline=None)
@given(items=populations(), shift=st.integers(0, 13))
def test_alerts_are_blind_to_input_order_well_formed_and_name_only_input_items(items: list[Item], shift: int) -> None:
    a = find_alerts(items, [])
    k = shift % len(items) if items else 0
    b = find_alerts(items[k:] + items[:k], [])
    assert [x.to_dict() for x in a] == [x.to_dict() for x in b]
    ids = {it.id for it in items}
    assert len({x.id for x in a}) == len(a)
    for x in a:
        assert ALERT_ID.fullmatch(x.id) and x.kind in KINDS and set(x.items) <= ids and x.items and x.reason


@settings(max_examples=40, deadline=None)
@given(items=populations())
def test_a_contradicts_edge_on_an_item_removes_its_never_tested_alert(items: list[Item]) -> None:
    tested = {x.items[0] for x in find_alerts(items, []) if x.kind == "never_tested"}
    edges = [Edge(f"e{i}", "s", "contradicts", t, "other", T0) for i, t in enumerate(sorted(tested))]
    after = find_alerts(items, edges)
    assert not [x for x in after if x.kind == "never_tested"]
