"""Writing only the changed columns of an item row (``sql.item_changes``) stays in step with the
full row (``sql.item_to_row``), and a tier change touches neither full text nor vectors.

Why: a dream pass over a 100k backlog applies ~40k tier changes; rewriting all 31 columns (five
JSON encodings, every index on ``items``) was a quarter of its apply time. The diff must never
drift from the full row, or a projection would silently lose a column.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reverie import Memory
from reverie.model.item import Item, Provenance, Scores
from reverie.store.sqlite import SQLiteStore
from reverie.store.sqlite.sql import ITEM_COLUMNS, _provenance, item_changes, item_to_row, row_to_item

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
    "visibility": ("agent:a", "user:é"),
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
    was = dict(zip(ITEM_COLUMNS, item_to_row(BASE), strict=True))
    # every column but the identity, except one a changed field leaves as it was (text stays text)
    assert changes == {k: v for k, v in full.items() if k not in ("id", "scope") and v != was[k]}
    assert set(full) - set(changes) == {"id", "scope", "value_type"}
    assert item_changes(BASE, BASE) == []
    assert item_changes(BASE, replace(BASE, id="01941f29-7c00-7000-8000-00000000000f")) is None


def test_the_decoded_row_round_trips_through_the_fast_paths() -> None:
    """``row_to_item`` reads provenance without json.loads and shares list tuples: same Item."""
    for item in (BASE, replace(BASE, **OTHER), replace(BASE, provenance=Provenance(origin="null", ref='q"uote'))):
        assert row_to_item(item_to_row(item)) == item


def test_every_field_lands_in_its_own_place() -> None:
    """``row_to_item`` builds Item, Scores and Provenance positionally (the dream pass decodes
    100k rows; keyword arguments cost ~10%): with every value distinct, a field order that
    drifted from the constructor's would swap two values and fail here."""
    item = replace(BASE, **{**OTHER, "provenance": Provenance("document", "doc", "line 3", "ev-1")})
    got = row_to_item(item_to_row(item))
    for f in fields(Item):
        assert getattr(got, f.name) == getattr(item, f.name), f.name
        assert type(getattr(got, f.name)) is type(getattr(item, f.name)), f.name
    assert repr(got) == repr(item)


#: Pieces a hand-written JSON reader gets wrong: quotes, escapes, control characters (JSON
#: forbids them raw), NUL, the word null, non-ASCII, text that looks like the next key.
NASTY = [
    "",
    "null",
    '"',
    "\\",
    '\\"',
    "\\u0041",
    "\x00",
    "\x1f",
    "\x7f",
    "\n",
    "é",
    "\U0001f9e0",
    "\u2028",
    '", "ref": "x',
    "api",
]
nasty_text = st.one_of(st.text(max_size=12), st.lists(st.sampled_from(NASTY), max_size=4).map("".join))
optional_text = st.one_of(st.none(), nasty_text)


@given(origin=nasty_text.filter(bool), ref=optional_text, locator=optional_text, event_id=optional_text)
@example(origin="null", ref='q"uote', locator="back\\slash", event_id="\x00")
@example(origin="ü", ref="null", locator="", event_id='"')
def test_provenance_round_trips_through_the_row(
    origin: str, ref: str | None, locator: str | None, event_id: str | None
) -> None:
    prov = Provenance(origin=origin, ref=ref, locator=locator, event_id=event_id)
    got = row_to_item(item_to_row(replace(BASE, provenance=prov)))
    assert got.provenance == prov
    assert repr(got.provenance) == repr(prov)


def _outcome(read: Callable[[str], Provenance], text: str) -> object:
    try:
        return repr(read(text))
    except Exception as exc:  # both readers must refuse the same texts the same way
        return type(exc)


def _json_read(text: str) -> Provenance:
    return Provenance.from_dict(json.loads(text))


#: Text that needs no JSON escape (the fast path's own case), or anything at all.
any_text = st.one_of(
    st.text(st.characters(exclude_categories=("Cc", "Cs"), exclude_characters='"\\'), max_size=12), nasty_text
)
any_optional = st.one_of(st.none(), any_text)
_PROV_KEYS = ["event_id", "locator", "origin", "ref"]
_json_value = st.one_of(optional_text, st.integers(), st.booleans(), st.just([]))


@st.composite
def provenance_texts(draw: st.DrawFn) -> str:
    """Stored provenance as ``item_to_row`` writes it, as another writer might, or damaged."""
    if draw(st.booleans()):  # exactly as item_to_row writes it: the fast path's own layout
        prov = Provenance(draw(any_text), draw(any_optional), draw(any_optional), draw(any_optional))
        text = json.dumps(prov.to_dict(), ensure_ascii=False, sort_keys=True)
    else:
        keys = draw(st.lists(st.sampled_from([*_PROV_KEYS, "extra"]), unique=True))
        text = json.dumps(
            {k: draw(_json_value) for k in keys},
            ensure_ascii=draw(st.booleans()),
            sort_keys=draw(st.booleans()),
            separators=draw(st.sampled_from([None, (",", ":"), (", ", ": "), (",", ": ")])),
        )
    if draw(st.booleans()):  # splice a raw piece in anywhere: often no longer JSON at all
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(NASTY)) + text[at:]
    return text


@given(text=provenance_texts())
@example(text='{"event_id": null, "locator": null, "origin": "", "ref": null}')
@example(text='{"event_id": "a\tb", "locator": null, "origin": "api", "ref": null}')
@example(text='{"event_id": "a\\u0000", "locator": null, "origin": "api", "ref": null}')
@example(text='{"event_id": null, "locator": null, "origin": null, "ref": null}')
@example(text='{"event_id": null, "locator": null, "origin": "api", "ref": null} ')
def test_the_provenance_fast_path_reads_exactly_what_json_reads(text: str) -> None:
    """Same Provenance as json.loads + from_dict for any text, or the same refusal."""
    assert _outcome(_provenance, text) == _outcome(_json_read, text)


#: UTC times as stored (``fold`` is not part of the stored text, so it is left at 0).
_times = st.one_of(st.none(), st.datetimes(timezones=st.just(UTC)).map(lambda t: t.replace(fold=0)))


@given(
    tags=st.lists(nasty_text, max_size=3).map(tuple),
    flags=st.lists(st.sampled_from(["conflicts_unchecked", "hub", "[]", ""]), max_size=2, unique=True).map(tuple),
    parents=st.lists(st.sampled_from(["p1", "p2", "[]"]), max_size=2).map(tuple),
    # keys in sorted order: the row stores meta with sorted keys, so that is the order read back
    meta=st.dictionaries(nasty_text, st.one_of(st.none(), nasty_text, st.integers()), max_size=3).map(
        lambda d: dict(sorted(d.items()))
    ),
    key=optional_text,
    times=st.tuples(_times, _times, _times, _times, _times),
    scores=st.tuples(*[st.floats(0.0, 1.0)] * 5),
)
def test_any_item_round_trips_through_the_row(
    tags: tuple[str, ...],
    flags: tuple[str, ...],
    parents: tuple[str, ...],
    meta: dict[str, Any],
    key: str | None,
    times: tuple[datetime | None, ...],
    scores: tuple[float, ...],
) -> None:
    valid_from, valid_to, closed_at, last_seen_at, last_used_at = times
    item = replace(
        BASE,
        tags=tags,
        flags=flags,
        parents=parents,
        meta=meta,
        key=key,
        value=key,
        valid_from=valid_from,
        valid_to=valid_to,
        closed_at=closed_at,
        last_seen_at=last_seen_at,
        last_used_at=last_used_at,
        scores=Scores(*scores),
    )
    got = row_to_item(item_to_row(item))
    assert got == item
    assert repr(got) == repr(item)


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


@pytest.mark.parametrize(("before", "after"), [(None, 1024), (1024, 1024.0), ("1024", 1024), (2.5, None)])
def test_a_value_and_its_type_are_written_and_read_together(before: Any, after: Any) -> None:
    """Schema 6: ``value`` holds the text, ``value_type`` says a number was given (finding 7)."""
    old, new = replace(BASE, key="q", value=before), replace(BASE, key="q", value=after)
    full_old, full_new = item_to_row(old), item_to_row(new)
    differ = {ITEM_COLUMNS[k]: full_new[k] for k in range(len(ITEM_COLUMNS)) if full_new[k] != full_old[k]}
    assert dict(item_changes(old, new) or []) == differ
    back = row_to_item(full_new).value
    assert (type(back), back) == (type(after), after)
