"""Issue #14, the hunt: at every boundary touched for findings 11-13, arbitrary input raises
nothing but a ``ReverieError`` — and what is accepted then runs against a real SQLite store.

Generated: JSON filters (shaped like the algebra, with hostile leaves: huge ints, NaN,
calendar-edge times), time strings and aware datetimes at any offset, interval strings,
cursors (arbitrary text and forged payloads), claim values and scores, ``Weights`` fields,
``after_seq``, and the CLI's ``--meta`` texts. Example counts are fixed (``max_examples``) and
generation is derandomised, so the suite is deterministic and bounded in time.
"""

from __future__ import annotations

import base64
import json
import math
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import InvalidInputError, Memory, Q, ReverieError, Weights
from reverie.cli.ops import parse_every
from reverie.cli.parse import iso_time, meta_condition, meta_object
from reverie.model.clock import MAX_TIME, MIN_TIME, ensure_aware
from reverie.model.query import NUMBER_FIELDS, TIME_FIELDS
from reverie.model.query_json import KEYS, parse_filter
from reverie.model.validate import MAX_INTERVAL_SECONDS, MIN_INTERVAL_SECONDS

from .input_faces import SCOPE

PURE = settings(max_examples=300, deadline=None, derandomize=True)
STORE = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

EDGE_TIMES = [
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999Z",
    "0001-01-01",
    "9999-12-31T23:59:59.999999+00:01",
    "2025-02-30T00:00:00Z",
    "2025-01-01T24:00:00Z",
]
HUGE_INTS = [2**63, -(2**63) - 1, 2**64, 10**30, 10**400]

offsets = st.timedeltas(min_value=-timedelta(hours=23, minutes=59), max_value=timedelta(hours=23, minutes=59))
aware_times = st.builds(
    lambda d, off: d.replace(tzinfo=timezone(off)),
    st.one_of(st.datetimes(), st.sampled_from([datetime.min, datetime.max])),
    offsets,
)
time_texts = st.one_of(st.sampled_from(EDGE_TIMES), aware_times.map(datetime.isoformat), st.text(max_size=30))
numbers = st.one_of(st.integers(), st.sampled_from(HUGE_INTS), st.floats(allow_nan=True, allow_infinity=True))
unprintable = st.integers(4301, 4400).map(lambda digits: 10**digits)
"""Ints ``str()`` refuses (over 4300 digits): only for Python-API arguments, as JSON cannot be written for them."""
api_numbers = st.one_of(numbers, unprintable)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=12), time_texts)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
shaped_leaves = st.one_of(
    st.fixed_dictionaries({"field": st.sampled_from(TIME_FIELDS)}, optional={"since": time_texts, "until": time_texts}),
    st.fixed_dictionaries(
        {"name": st.sampled_from(NUMBER_FIELDS)}, optional={"ge": numbers, "le": numbers, "gt": numbers}
    ),
    st.fixed_dictionaries({"path": st.text(max_size=12), "value": scalars}),
    st.fixed_dictionaries({}, optional={"ge": numbers, "le": numbers}),
    json_values,
)
hostile_filters = st.recursive(
    st.dictionaries(st.sampled_from(KEYS), shaped_leaves, max_size=3),
    lambda inner: st.dictionaries(
        st.sampled_from(["and", "or", "not", *KEYS]), st.one_of(inner, st.lists(inner, max_size=3)), max_size=2
    ),
    max_leaves=8,
)
"""Right keys, mostly wrong values: exercises every refusal of ``parse_filter``."""
words = st.one_of(st.sampled_from(["tea", "x", "alice.drink", "observed", "active", "live"]), st.text(max_size=6))
meta_paths = st.from_regex(r"[a-z]{1,4}(\.[a-z]{1,4})?", fullmatch=True) | st.text(max_size=6)
_LEAF_VALUES: dict[str, st.SearchStrategy[Any]] = {
    **{k: st.one_of(words, st.lists(words, min_size=1, max_size=2)) for k in ("ids", "kind", "key", "author")},
    "source": st.sampled_from(["observed", "inferred", "user_stated", "manual", "bogus"]),
    "tier": st.sampled_from(["active", "durable", "subconscious", "subconcious"]),
    "status": st.sampled_from(["live", "forgotten", "dismissed", "superseded", "gone"]),
    **{k: words for k in ("tag", "flag", "parent", "meta_has")},
    "tags_any": st.lists(words, max_size=2),
    "score": st.fixed_dictionaries({"name": st.sampled_from(NUMBER_FIELDS)}, optional={"ge": numbers, "lt": numbers}),
    "evidence": st.fixed_dictionaries({"ge": st.integers(-3, 3) | numbers}),
    "parents_count": st.fixed_dictionaries({"le": st.integers(-3, 3) | numbers}),
    "time": st.fixed_dictionaries({"field": st.sampled_from(TIME_FIELDS)}, optional={"since": time_texts}),
    "meta": st.fixed_dictionaries({"path": meta_paths, "value": scalars}),
}
valid_leaves = st.one_of(*(st.fixed_dictionaries({k: v}) for k, v in _LEAF_VALUES.items()))
likely_filters = st.recursive(
    valid_leaves,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"and": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"or": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"not": inner}),
    ),
    max_leaves=6,
)
"""Mostly well-formed filters with hostile leaves: exercises the SQL the store compiles from them."""
filters = st.one_of(likely_filters, likely_filters, hostile_filters)


TALLY: Counter[str] = Counter()
"""Cases accepted and refused per property (printed with ``-s``; the report quotes them)."""


def refused_or(call: Callable[[], Any], tally: str | None = None) -> tuple[bool, Any]:
    """(True, result) when ``call`` accepted its input, (False, None) when a ``ReverieError`` refused it.

    Any other exception escapes and fails the property, with hypothesis's shrunk example.
    ``tally`` names the property whose accepted / refused counts this call adds to.
    """
    try:
        result = True, call()
    except ReverieError as exc:
        assert exc.message and exc.code, exc
        result = False, None
    if tally is not None:
        TALLY[f"{tally} {'accepted' if result[0] else 'refused'}"] += 1
    return result


def both_seen(name: str, at_least: int = 5) -> None:
    """A property proves something only if it saw accepted and refused cases; print its counts."""
    accepted, refused = TALLY[f"{name} accepted"], TALLY[f"{name} refused"]
    print(f"{name}: {accepted + refused} cases, {accepted} accepted, {refused} refused")
    assert accepted >= at_least and refused >= at_least, (accepted, refused)


def _store(tmp_path: Path, memories: Any) -> Memory:
    mem: Memory = memories.open(tmp_path / "prop.db")
    mem.remember("Alice likes tea", scope=SCOPE, key="alice.drink", value="tea", meta={"turn": 3})
    mem.remember("Bob likes coffee", scope=SCOPE, valid_from=MIN_TIME, valid_to=MAX_TIME, tags=["x"], meta={"turn": 4})
    return mem


def test_any_json_filter_is_refused_or_runs_on_sqlite(tmp_path: Path, memories: Any) -> None:
    mem = _store(tmp_path, memories)

    @STORE
    @given(doc=st.one_of(filters, json_values))
    def run(doc: object) -> None:
        ok, where = refused_or(lambda: parse_filter(doc), "json filter")
        if ok:
            page = mem.list(scope=SCOPE, where=where, include_closed=True)
            assert all(where.matches(i) for i in page.items)  # SQL and the Python oracle agree on hits

    run()
    both_seen("json filter")


def test_any_time_text_is_refused_or_usable_on_every_time_path(tmp_path: Path, memories: Any) -> None:
    mem = _store(tmp_path, memories)
    item = mem.list(scope=SCOPE).items[0]

    @STORE
    @given(text=time_texts, field=st.sampled_from(TIME_FIELDS))
    def run(text: str, field: str) -> None:
        ok, when = refused_or(lambda: iso_time(text, "--as-of"), "time text parse")
        if not ok:
            return
        ok, utc = refused_or(lambda: ensure_aware(when, "as_of"), "time text range")
        if not ok:
            return
        assert utc.tzinfo is UTC and MIN_TIME <= utc <= MAX_TIME
        refused_or(lambda: mem.get(item.id, scope=SCOPE, as_of=when))  # NotFound before the item existed
        mem.recall("tea", scope=SCOPE, as_of=when, mode="lexical", record_use=False)
        mem.list(scope=SCOPE, where=Q.time(field, since=when) | Q.time(field, until=when))
        ok, where = refused_or(lambda: parse_filter({"time": {"field": field, "since": text}}))
        if ok:  # the JSON form reads the same text (a naive one is refused there: no UTC default)
            mem.list(scope=SCOPE, where=where)

    run()
    both_seen("time text parse")
    both_seen("time text range")


@PURE
@given(when=aware_times)
def test_any_aware_datetime_is_refused_exactly_when_utc_cannot_hold_it(when: datetime) -> None:
    offset = when.utcoffset()
    assert offset is not None
    try:
        (when.replace(tzinfo=None) - offset).replace(tzinfo=UTC)
        fits = True
    except OverflowError:
        fits = False
    ok, _ = refused_or(lambda: ensure_aware(when), "aware datetime")
    assert ok == fits


@PURE
@given(
    text=st.one_of(
        st.text(max_size=20),
        st.from_regex(r"\s*[-+]?(inf|nan|[0-9_]{0,20}(\.[0-9]*)?(e[-+]?[0-9]{1,4})?)[smhdSMHD]?\s*", fullmatch=True),
    )
)
def test_any_interval_text_is_refused_or_within_the_documented_bounds(text: str) -> None:
    ok, seconds = refused_or(lambda: parse_every(text), "interval")
    if ok:
        assert MIN_INTERVAL_SECONDS <= seconds <= MAX_INTERVAL_SECONDS


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode("utf-8", "surrogatepass")).decode()


def _forged(listing: str, key: list[Any]) -> str:
    return _b64(json.dumps({"v": 2, "l": listing, "k": key}))


#: Sort values a forged keyset cursor may carry (``recorded_at`` then ``id``): good, wrong-typed, huge.
cursor_keys = st.lists(
    st.one_of(json_values, st.sampled_from(["2025-01-01T00:00:00.000000Z", "0001-01-01T00:00:00.000000Z"])),
    min_size=0,
    max_size=3,
)


#: Cursors of no listing: random text, JSON, the old offset form, a keyset form of an unknown listing.
cursors = st.one_of(
    st.text(max_size=40),
    json_values.map(lambda v: _b64(json.dumps(v))),
    st.one_of(st.integers(), st.sampled_from(HUGE_INTS)).map(lambda o: _b64(json.dumps({"o": o}))),
    cursor_keys.map(lambda k: _forged("0" * 16, k)),
)


def test_any_cursor_is_refused_or_pages_on_sqlite(tmp_path: Path, memories: Any) -> None:
    """Anything passed as a cursor (random text, JSON, the old offset form, a keyset cursor of this
    listing with forged sort values) pages on or is refused with a ``ReverieError``."""
    mem = _store(tmp_path, memories)
    real = mem.list(scope=SCOPE, limit=1).next_cursor
    assert real is not None
    listing = json.loads(base64.urlsafe_b64decode(real))["l"]
    these = st.one_of(
        cursors,
        cursor_keys.map(lambda k: _forged(listing, k)),
        st.tuples(st.sampled_from(["2025-01-01T00:00:00.000000Z", None]), st.text(max_size=40)).map(
            lambda k: _forged(listing, list(k))
        ),
        st.just(real),
    )

    @STORE
    @given(cursor=these)
    def run(cursor: str) -> None:
        refused_or(lambda: mem.list(scope=SCOPE, cursor=cursor, limit=1), "cursor")

    run()
    both_seen("cursor")


def test_any_claim_value_score_or_after_seq_is_refused_or_stored(tmp_path: Path, memories: Any) -> None:
    mem = _store(tmp_path, memories)

    @STORE
    @given(
        value=st.one_of(scalars, unprintable),
        score=st.one_of(st.floats(0, 1), api_numbers),
        after=st.one_of(api_numbers, st.none()),
        k=st.one_of(st.none(), api_numbers),
    )
    def run(value: object, score: object, after: object, k: object) -> None:
        ok, item = refused_or(
            lambda: mem.remember("Carol is tall", scope=SCOPE, key="carol.height", value=value, importance=score),
            "value and score",
        )
        if ok:  # accepted: it reads back, as text
            assert mem.get(item.id, scope=SCOPE).value == (None if value is None else item.value)
        refused_or(lambda: mem.events(scope=SCOPE, after_seq=after, limit=1), "after_seq")  # type: ignore[arg-type]
        refused_or(lambda: mem.list(scope=SCOPE, limit=k), "list limit")  # type: ignore[arg-type]

    run()
    both_seen("value and score")
    both_seen("after_seq")
    both_seen("list limit")


def test_any_weights_are_refused_or_give_finite_scores(tmp_path: Path, memories: Any) -> None:
    mem = _store(tmp_path, memories)
    weight = st.one_of(api_numbers, st.floats(min_value=0, max_value=1), st.text(max_size=3))

    @STORE
    @given(
        fields=st.fixed_dictionaries(
            {}, optional={n: weight for n in ("trust", "importance", "value", "decay", "hub_penalty", "sharpness")}
        ),
        as_dict=st.booleans(),
    )
    def run(fields: dict[str, Any], as_dict: bool) -> None:
        weights: Any = fields if as_dict else Weights(**fields)
        ok, hits = refused_or(lambda: mem.recall("likes", scope=SCOPE, weights=weights, record_use=False), "weights")
        if ok:
            assert not as_dict and all(math.isfinite(h.score) for h in hits)

    run()
    both_seen("weights")


@PURE
@given(text=st.one_of(st.text(max_size=30), json_values.map(json.dumps)))
def test_any_cli_meta_text_is_refused_or_a_dict_or_a_scalar(text: str) -> None:
    ok, meta = refused_or(lambda: meta_object(text), "cli --meta object")
    assert not ok or isinstance(meta, dict)
    ok, cond = refused_or(lambda: meta_condition(f"a.b={text}"), "cli --meta condition")
    assert not ok or not isinstance(cond[1], dict | list)


def test_the_pure_properties_saw_both_accepted_and_refused_cases() -> None:
    """Runs after the pure properties above (file order); alone it has nothing to check."""
    if not TALLY["interval accepted"] + TALLY["interval refused"]:
        return  # selected on its own (-k): the properties it summarises did not run
    for name in ("aware datetime", "interval", "cli --meta object"):
        both_seen(name)
    print(
        f"cli --meta condition: {TALLY['cli --meta condition accepted'] + TALLY['cli --meta condition refused']} cases"
    )


def test_a_refusal_is_never_a_bare_value_error_for_the_cases_that_used_to_crash() -> None:
    # Guards the helper itself: a plain ValueError is not a refusal and must escape.
    try:
        refused_or(lambda: int("x"))
    except ValueError as exc:
        assert not isinstance(exc, InvalidInputError)
    else:
        raise AssertionError("refused_or swallowed a non-reverie error")


def _exported_lines(tmp_path: Path, memories: Any) -> list[dict[str, Any]]:
    """Every event type a busy scope writes, as `reverie export` writes them."""
    src: Memory = memories.open(tmp_path / "src.db")
    tea = src.remember("Alice likes tea", scope=SCOPE, key="alice.drink", value="tea", tags=["food"])
    cake = src.remember("Alice likes cake", scope=SCOPE, meta={"turn": 1})
    green = src.revise(tea.id, "Alice likes green tea", scope=SCOPE)
    src.link(cake.id, green.id, "about", scope=SCOPE)
    src.set_scores(cake.id, scope=SCOPE, importance=0.9)
    src.forget(cake.id, scope=SCOPE, reason="changed her mind")
    src.dismiss(src.remember("Alice hates tea", scope=SCOPE).id, scope=SCOPE)
    src.pause_learning(SCOPE)
    src.resume_learning(SCOPE)
    return [e.to_dict() for e in src.events(scope=SCOPE)]


def test_any_mistyped_field_in_an_import_line_fails_that_event_or_the_file_cleanly(
    tmp_path: Path, memories: Any
) -> None:
    from reverie.cli.transfer import Replayer, read_events

    lines = _exported_lines(tmp_path, memories)
    target: Memory = memories.open(tmp_path / "target.db")

    @STORE
    @given(
        index=st.integers(0, len(lines) - 1),
        level=st.sampled_from(["event", "payload", "item"]),
        key=st.text(max_size=10) | st.sampled_from(["seq", "at", "item", "scores", "text", "valid_from", "meta"]),
        value=json_values,
    )
    def run(index: int, level: str, key: str, value: object) -> None:
        doc = json.loads(json.dumps(lines[index]))
        holder = {"event": doc, "payload": doc["payload"], "item": doc["payload"].get("item")}[level]
        holder = holder if isinstance(holder, dict) and holder else doc["payload"]
        holder[key if key in holder else sorted(holder)[len(key) % len(holder)]] = value  # mostly a real field
        ok, events = refused_or(lambda: read_events([json.dumps(doc)]), "import file")
        if ok:
            report = Replayer(target, SCOPE).run(events, lambda done, total: None)
            assert report.events == 1 and all(f["code"] != "internal" for f in report.failed), report.failed
            TALLY["import event " + ("refused" if report.failed else "accepted")] += 1

    run()
    both_seen("import file")
    both_seen("import event")


def test_any_where_cursor_or_as_of_over_http_is_a_4xx_or_an_answer(tmp_path: Path, memories: Any) -> None:
    from .input_faces import http

    mem = _store(tmp_path, memories)
    item = mem.list(scope=SCOPE).items[0]
    base = f"/v1/scopes/{SCOPE}"

    @settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(
        where=st.one_of(filters.map(json.dumps), st.text(max_size=20)),
        cursor=st.one_of(st.none(), cursors),
        as_of=time_texts,
        body_where=st.one_of(st.none(), filters),
    )
    def run(where: str, cursor: str | None, as_of: str, body_where: object) -> None:
        sent = [
            client.get(f"{base}/items", params={"where": where, **({"cursor": cursor} if cursor else {})}),
            client.get(f"{base}/items/{item.id}", params={"as_of": as_of}),
            client.post(  # json.dumps writes NaN / Infinity, which the server's JSON reader accepts
                f"{base}/recall",
                content=json.dumps({"query": "tea", "as_of": as_of, "where": body_where}),
                headers={"content-type": "application/json"},
            ),
        ]
        for response in sent:
            assert response.status_code < 500, (response.request.url, response.text)
            TALLY["http " + ("accepted" if response.status_code < 400 else "refused")] += 1

    with http(mem) as client:
        run()
    both_seen("http")


def test_any_where_or_as_of_through_mcp_is_a_reverie_error_or_an_answer(tmp_path: Path, memories: Any) -> None:
    from .input_faces import mcp_call

    mem = _store(tmp_path, memories)

    @settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(where=filters, as_of=time_texts)
    def run(where: dict[str, Any], as_of: str) -> None:
        for is_error, payload in (
            mcp_call(mem, "list", scope=SCOPE, where=where),
            mcp_call(mem, "recall", scope=SCOPE, query="tea", as_of=as_of, where=where),
        ):
            assert not is_error or payload["code"] != "internal", payload
            TALLY["mcp " + ("refused" if is_error else "accepted")] += 1

    run()
    both_seen("mcp")
