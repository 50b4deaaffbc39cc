"""Writing only the changed columns of an item row (``sql.item_changes``) stays in step with the
full row (``sql.item_to_row``), and a tier change touches neither full text nor vectors.

Why: a dream pass over a 100k backlog applies ~40k tier changes; rewriting all 31 columns (five
JSON encodings, every index on ``items``) was a quarter of its apply time. The diff must never
drift from the full row, or a projection would silently lose a column.
"""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from reverie import Memory
from reverie.model.item import Item, Provenance, Scores
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.sql import ITEM_COLUMNS, item_changes, item_to_row, row_to_item

T = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
BASE = Item(
    id="01941f29-7c00-7000-8000-000000000001",
    scope="user:rows",
    text="the flag is on",
    kind="observation",
    source="observed",
    recorded_at=T,
    updated_at=T,
    tags=("a",),
    provenance=Provenance(origin="api", ref="r", event_id="e"),
)
#: One different value per field (id and scope never change within a row).
OTHER: dict[str, Any] = {
    "text": "the flag is off",
    "kind": "policy",
    "source": "user_stated",
    "key": "flag",
    "value": "off",
    "author": "bob",
    "tags": ("a", "é"),
    "meta": {"k": [1, 2], "z": "é"},
    "parents": ("01941f29-7c00-7000-8000-000000000002",),
    "provenance": Provenance(origin="document", ref="doc ü", locator="line 3"),
    "scores": Scores(authority=0.1, confidence=0.2, importance=0.3, durability=0.4, value=0.6),
    "evidence_count": 4,
    "tier": "subconscious",
    "status": "forgotten",
    "flags": ("conflicts_unchecked", "hub"),
    "valid_from": T - timedelta(days=3),
    "valid_to": T + timedelta(days=3),
    "closed_at": T + timedelta(hours=1),
    "recorded_at": T - timedelta(days=1),
    "updated_at": T + timedelta(hours=2),
    "last_seen_at": T + timedelta(minutes=5),
    "last_used_at": T + timedelta(minutes=6),
    "last_used_query": "flag?",
    "use_count": 7,
    "version": 9,
}


def test_every_field_but_the_identity_has_a_test_value() -> None:
    assert {f.name for f in fields(Item)} - {"id", "scope"} == set(OTHER)


def test_each_changed_field_writes_exactly_the_columns_the_full_row_changes() -> None:
    before_row = item_to_row(BASE)
    for name, value in OTHER.items():
        after = replace(BASE, **{name: value})
        after_row = item_to_row(after)
        differ = {ITEM_COLUMNS[k]: after_row[k] for k in range(len(ITEM_COLUMNS)) if after_row[k] != before_row[k]}
        changes = item_changes(BASE, after)
        assert changes is not None, name
        assert dict(changes) == differ, name  # same columns, same encoded values


def test_all_fields_at_once_and_nothing_at_all() -> None:
    after = replace(BASE, **OTHER)
    changes = dict(item_changes(BASE, after) or [])
    full = dict(zip(ITEM_COLUMNS, item_to_row(after), strict=True))
    assert changes == {k: v for k, v in full.items() if k not in ("id", "scope")}
    assert item_changes(BASE, BASE) == []
    assert item_changes(BASE, replace(BASE, id="01941f29-7c00-7000-8000-00000000000f")) is None


def test_the_decoded_row_round_trips_through_the_fast_paths() -> None:
    """``row_to_item`` reads provenance without json.loads and shares list tuples: same Item."""
    for item in (BASE, replace(BASE, **OTHER), replace(BASE, provenance=Provenance(origin="null", ref='q"uote'))):
        assert row_to_item(item_to_row(item)) == item


def test_a_tier_change_writes_one_event_and_three_columns_and_no_index_row(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "rows.db", durability="fast")
    with Memory(store=store, embedder="hash", seed=0) as mem:
        item = mem.remember("Alice drinks green tea", scope="user:rows")
        seen: list[str] = []
        store._crash_hook = seen.append  # every statement of a write, in order
        mem.set_tier(item.id, scope="user:rows", tier="subconscious", reason="test")
        store._crash_hook = None
        assert not [sql for sql in seen if "fts" in sql or "vectors" in sql or "fingerprints" in sql]
        updates = [sql for sql in seen if sql.startswith("UPDATE items")]
        assert updates == ["UPDATE items SET updated_at = ?, tier = ?, version = ? WHERE id = ? AND version = ?"]
        got = mem.get(item.id, scope="user:rows")
        assert (got.tier, got.version) == ("subconscious", item.version + 1)
        assert mem.doctor().ok


def test_a_hint_that_does_not_match_the_row_falls_back_to_the_full_row(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "hint.db", durability="fast")
    with Memory(store=store, embedder="hash", seed=0) as mem:
        item = mem.remember("Alice drinks green tea", scope="user:rows")
        stale = replace(item, version=item.version + 5)
        with store._write():
            assert not store._update_changed(stale, replace(item, tier="subconscious"))
        assert mem.get(item.id, scope="user:rows").tier == item.tier  # nothing was written
