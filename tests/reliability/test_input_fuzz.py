"""Promise: bad or huge input is refused with ``InvalidInputError``, never a crash; good input
round-trips exactly.

- Arbitrary Unicode text (lone surrogates, NUL, bidi controls, combining marks, 4-byte emoji,
  every plane): accepted text comes back byte for byte (also after reopening the file) and is
  found by a lexical recall of itself; refused text raises ``InvalidInputError`` — exactly
  when it is blank, holds NUL or a lone surrogate, or is too long. The same for meta
  (arbitrary nested JSON-ish values) and tags.
- ``fts_query`` over 10,000 generated queries: never raises, and its output always runs as a
  MATCH on a real FTS5 table built with ``FTS_TOKENIZE`` and finds the text it came from.
- 200 tricky tokens (code identifiers, hashes, versions, emails, units, contractions, accented
  and CJK words), each found first by a lexical recall among near-miss distractors.
- Every ``Limits`` bound: at the bound accepted, one over ``LimitExceededError``.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing as mp
import random
import re
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import InvalidInputError, LimitExceededError, Limits, Memory
from reverie.limits import DEFAULT_LIMITS
from reverie.recall.normalize import FTS_TOKENIZE, fts_query, tokenize
from reverie.store.fts_tokens import index_form

from .soak import seed
from .soak_workers import remember_distinct_tags

TIGHT = Limits(
    max_text_chars=40,
    max_meta_bytes=120,
    max_meta_depth=3,
    max_tags=4,
    max_tag_chars=8,
    max_query_chars=30,
    max_k=5,
    max_batch=7,
    max_parents=3,
)
LIMITS = {"default": DEFAULT_LIMITS, "tight": TIGHT}

SPECIALS = [
    "\x00",
    "\ud800",  # lone high surrogate
    "\udfff",  # lone low surrogate
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u0301",  # combining acute accent
    "\u200d",  # zero-width joiner
    "\ufeff",  # byte-order mark
    "\U0001f9e0",  # 4-byte emoji
    "\U0010fffd",  # last plane, private use
    " ",
    "\n",
    "\t",
]
any_char = st.one_of(st.characters(codec=None), st.sampled_from(SPECIALS))
any_text = st.text(any_char, max_size=60)


def _storable(text: str) -> bool:
    return "\x00" not in text and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def text_ok(text: object, limits: Limits) -> bool:
    return isinstance(text, str) and bool(text.strip()) and _storable(text) and len(text) <= limits.max_text_chars


class Scopes:
    """Fresh scope names, so no example corroborates another's text."""

    def __init__(self, prefix: str) -> None:
        self.prefix, self.n = prefix, 0

    def __call__(self) -> str:
        self.n += 1
        return f"{self.prefix}{self.n}"


# -- text ------------------------------------------------------------------------------------------


def test_any_text_round_trips_or_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "fuzz.db"
    stored: dict[str, tuple[str, str]] = {}  # id -> (scope, text)
    counts = {"accepted": 0, "refused": 0}
    with Memory(db, embedder="hash", durability="fast") as mem:
        fresh = Scopes("t")

        @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(st.one_of(any_text, st.binary(max_size=10), st.integers(), st.none()))
        def check(text: Any) -> None:
            scope = fresh()
            try:
                item = mem.remember(text, scope=scope)
            except InvalidInputError:
                assert not text_ok(text, DEFAULT_LIMITS), f"refused storable text {text!r}"
                assert mem.list(scope=scope, limit=1).items == []
                counts["refused"] += 1
                return
            assert text_ok(text, DEFAULT_LIMITS), f"accepted unstorable text {text!r}"
            got = mem.get(item.id, scope=scope).text
            assert got == text and got.encode("utf-8") == text.encode("utf-8")
            stored[item.id] = (scope, text)
            counts["accepted"] += 1
            hits = mem.recall(text, scope=scope, mode="lexical", record_use=False)
            if fts_query(text) is not None:
                assert [h.item.id for h in hits] == [item.id]
            for mode in ("hybrid", "dense"):
                assert [h.item.id for h in mem.recall(text, scope=scope, mode=mode, record_use=False)] == [item.id]

        check()
    with Memory(db, embedder="hash") as mem:  # byte-exact after the round trip through the file
        for item_id, (scope, text) in stored.items():
            assert mem.get(item_id, scope=scope).text.encode("utf-8") == text.encode("utf-8")
        assert mem.doctor().ok
    assert counts["accepted"] > 50 and counts["refused"] > 50, counts


@settings(max_examples=300, deadline=None)
@given(any_text)
def test_any_query_text_recalls_or_is_refused(query: str) -> None:
    with Memory(":memory:", embedder="hash") as mem:
        mem.remember("a plain memory about tea", scope="q")
        for mode in ("hybrid", "lexical", "dense"):
            try:
                hits = mem.recall(query, scope="q", mode=mode, record_use=False)
            except InvalidInputError:
                assert not text_ok(query, DEFAULT_LIMITS)
                continue
            assert text_ok(query, DEFAULT_LIMITS)
            assert len(hits) <= 1


# -- meta ------------------------------------------------------------------------------------------

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),  # beyond 64 bits too
    st.floats(),  # NaN and infinities included
    any_text,
    st.binary(max_size=4),  # not JSON
    st.sets(st.integers(), max_size=2),  # not JSON
)
json_key = st.one_of(any_text, any_text, st.integers(), st.none(), st.booleans())


def _nest(value: Any, levels: int) -> Any:
    for i in range(levels):
        value = {"n": value} if i % 2 else [value]
    return value


json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(json_key, inner, max_size=4),
    ),
    max_leaves=16,
)
meta_strategy = st.one_of(
    st.builds(_nest, json_value, st.integers(0, 10)).map(lambda v: {"root": v}),
    st.dictionaries(json_key, json_value, max_size=5),
    json_value,  # mostly not an object at the top: refused (None means "no meta")
)


def _container_depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_container_depth(v) for v in value.values()), default=0)
    if isinstance(value, list | tuple):
        return 1 + max((_container_depth(v) for v in value), default=0)
    return 0


def _json_ok(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _storable(k) and _json_ok(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_json_ok(v) for v in value)
    if isinstance(value, str):
        return _storable(value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, bool | int)


def _has_wide_int(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_wide_int(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_wide_int(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63


def meta_verdict(meta: Any, limits: Limits) -> bool | None:
    """True: must be accepted; False: must be refused; None: either, if it round-trips when accepted.

    "Either" covers the depth bound itself (see the Limits tests) and integers beyond 64 bits
    (valid JSON that SQLite's JSON functions cannot compare exactly: storing or refusing them
    is a policy choice; losing precision is not).
    """
    if meta is None:
        return True
    if not isinstance(meta, dict) or not _json_ok(meta):
        return False
    depth = _container_depth(meta)
    if depth > limits.max_meta_depth:
        return False
    encoded = json.dumps(meta, ensure_ascii=False, sort_keys=True)
    if len(encoded.encode("utf-8")) > limits.max_meta_bytes:
        return False
    return None if depth == limits.max_meta_depth or _has_wide_int(meta) else True


@pytest.mark.parametrize("limits", ["default", "tight"])
def test_any_meta_round_trips_or_is_refused(limits: str) -> None:
    lim = LIMITS[limits]
    counts = {"accepted": 0, "refused": 0}
    with Memory(":memory:", embedder="hash", limits=lim) as mem:
        fresh = Scopes("m")

        @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(meta_strategy)
        def check(meta: Any) -> None:
            verdict = meta_verdict(meta, lim)
            scope = fresh()
            try:
                item = mem.remember("a claim with meta", scope=scope, meta=meta)
            except InvalidInputError:
                assert verdict is not True, f"refused valid meta {meta!r}"
                assert mem.list(scope=scope, limit=1).items == []
                counts["refused"] += 1
                return
            assert verdict is not False, f"accepted invalid meta {meta!r}"
            expected = json.loads(json.dumps(meta or {}))  # tuples become lists, as JSON has no tuple
            assert mem.get(item.id, scope=scope).meta == expected
            counts["accepted"] += 1

        check()
    assert counts["accepted"] > 20 and counts["refused"] > 20, counts


# -- tags ------------------------------------------------------------------------------------------


def tags_verdict(tags: Any, limits: Limits) -> tuple[str, ...] | None:
    """The stored tags, or None when the call must be refused."""
    if tags is None:
        return ()
    if isinstance(tags, str | bytes) or not isinstance(tags, list):
        return None
    out: list[str] = []
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip() or not _storable(tag) or len(tag) > limits.max_tag_chars:
            return None
        if tag not in out:
            out.append(tag)
    return tuple(out) if len(out) <= limits.max_tags else None


tag_text = st.one_of(any_text.map(lambda s: s[:12]), st.sampled_from(["health", "food", "work", " ", ""]))
tags_strategy = st.one_of(
    st.lists(tag_text, max_size=8),
    st.lists(st.one_of(tag_text, st.integers(), st.none()), max_size=8),
    st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), max_size=70),
    st.lists(st.text("xyz", min_size=1, max_size=3), min_size=60, max_size=70, unique=True),
    any_text,
    st.none(),
)


@pytest.mark.parametrize("limits", ["default", "tight"])
def test_any_tags_round_trip_or_are_refused(limits: str) -> None:
    lim = LIMITS[limits]
    counts = {"accepted": 0, "refused": 0}
    with Memory(":memory:", embedder="hash", limits=lim) as mem:
        fresh = Scopes("g")

        @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(tags_strategy)
        def check(tags: Any) -> None:
            expected = tags_verdict(tags, lim)
            scope = fresh()
            try:
                item = mem.remember("a tagged claim", scope=scope, tags=tags)
            except InvalidInputError:
                assert expected is None, f"refused valid tags {tags!r}"
                counts["refused"] += 1
                return
            assert expected is not None, f"accepted invalid tags {tags!r}"
            assert mem.get(item.id, scope=scope).tags == expected
            counts["accepted"] += 1

        check()
    assert counts["accepted"] > 20 and counts["refused"] > 20, counts


# -- fts_query -------------------------------------------------------------------------------------

FTS_SYNTAX = ['"', "*", "^", ":", "(", ")", "-", "+", "#", "AND", "OR", "NOT", "NEAR", "NEAR(", "text:", "extra:"]
FTS_SYNTAX += ["{text}", "'", ",", ".", "\\", "''", '""', "NEAR/3", "-text:", "* *", "()", "c++", "C#", "AND OR"]
SCRIPTS = ["東京 北京大学", "データベース", "한국어", "Ελληνικά ς", "русский й", "עברית", "العربية", "ß ǅ İ ﬁ"]


def random_query(rng: random.Random) -> str:
    """One query from a seeded mix of FTS5 syntax, scripts, code points of every plane, and size."""
    parts: list[str] = []
    for _ in range(rng.choice([1, 1, 2, 3, 5, 8, 20, 100])):
        kind = rng.random()
        if kind < 0.3:
            parts.append(rng.choice(FTS_SYNTAX))
        elif kind < 0.5:
            parts.append(rng.choice(SPECIALS + SCRIPTS))
        elif kind < 0.75:
            parts.append("".join(chr(rng.choice([rng.randrange(0x80), rng.randrange(0x110000)])) for _ in range(8)))
        elif kind < 0.95:
            parts.append(rng.choice(["tea", "Café", "don't", "GB/s", "v1.2.3", "a@b.io", "x" * rng.randrange(400)]))
        else:
            parts.append("".join(rng.choice("ab+#-'./") for _ in range(rng.randrange(1, 80))))
    return rng.choice(["", " ", "\t"]).join(parts)


@pytest.fixture
def fts_table() -> Iterator[sqlite3.Connection]:
    con = sqlite3.connect(":memory:")
    con.execute(f'CREATE VIRTUAL TABLE t USING fts5(text, extra, tokenize = "{FTS_TOKENIZE}")')
    rng = random.Random(seed())
    con.executemany(
        "INSERT INTO t (text, extra) VALUES (?, '')", [(_sqlite_safe(random_query(rng)),) for _ in range(30)]
    )
    yield con
    con.close()


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _sqlite_safe(text: str) -> str:
    """What the document's full-text row would hold once stored: NUL and lone surrogates cannot
    be, and the store indexes the text's ``index_form`` (CJK per character, a word-initial "#"
    blanked, format characters off, composed)."""
    return index_form(_UNSTORABLE.sub(" ", text))


def check_query(con: sqlite3.Connection, query: str) -> bool:
    """fts_query's output runs as MATCH and finds the text it was made from; returns if searchable."""
    found_any = False
    for mode in ("or", "and"):
        match = fts_query(query, mode=mode)  # type: ignore[arg-type]
        if match is None:
            assert tokenize(query) == [], f"{query!r} has tokens but no query"
            continue
        found_any = True
        con.execute("INSERT INTO t (rowid, text, extra) VALUES (1000000, ?, '')", (_sqlite_safe(query),))
        try:
            rows = {r[0] for r in con.execute("SELECT rowid FROM t WHERE t MATCH ? AND rowid = 1000000", (match,))}
        finally:
            con.execute("DELETE FROM t WHERE rowid = 1000000")
        assert 1000000 in rows, f"{match!r} (from {query!r}) does not find its own text"
    return found_any


def test_fts_query_on_10000_generated_queries(fts_table: sqlite3.Connection) -> None:
    rng = random.Random(seed())
    searchable = 0
    for _ in range(10_000):
        searchable += check_query(fts_table, random_query(rng))
    assert searchable > 5_000
    print(f"\nfts_query: 10000 generated queries, {searchable} searchable, 0 exceptions")


@settings(max_examples=500, deadline=None)
@given(st.text(any_char, max_size=80))
def test_fts_query_on_any_text(query: str) -> None:
    con = sqlite3.connect(":memory:")
    try:
        con.execute(f'CREATE VIRTUAL TABLE t USING fts5(text, extra, tokenize = "{FTS_TOKENIZE}")')
        check_query(con, query)
    finally:
        con.close()


# -- tricky tokens -----------------------------------------------------------------------------------


def tricky_tokens() -> dict[str, list[str]]:
    """200 tokens in 8 families of 25, generated (seeded) rather than listed."""
    rng = random.Random(seed())
    words = ["core", "node", "react", "spark", "rust", "flask", "numpy", "kafka", "redis", "torch", "vue", "dart"]
    cjk = "東京北京大学機械学習数据库会议日程電話番号天気予報中文資料研究開発"
    hangul = "서울한국어데이터베이스회의일정"
    accented = ["café", "naïve", "Zürich", "crème", "façade", "jalapeño", "Ångström", "Dvořák", "Łódź", "smörgåsbord"]
    accented += ["Øresund", "piñata", "über", "coöperate", "São", "Gödel", "Ærø", "Škoda", "Čapek", "señor", "déjà"]
    accented += ["fiancée", "Müller", "Brontë", "Köln"]
    families: dict[str, set[str]] = {k: set() for k in ("code", "hash", "version", "email", "unit", "contraction")}
    families["accented"] = set(accented)
    families["cjk"] = set()
    patterns = ["{w}++", "{w}#", "{w}.js", "{w}-{n}", "{w}/{v}", "{w}.{v}", "{w}_{v}", "@{w}/{v}", "{w}::{v}"]
    while len(families["code"]) < 25:
        pattern = rng.choice(patterns)
        families["code"].add(pattern.format(w=rng.choice(words), v=rng.choice(words), n=rng.randrange(100)))
    while len(families["hash"]) < 25:
        families["hash"].add(hashlib.sha1(str(rng.random()).encode()).hexdigest()[: rng.choice([7, 8, 12, 40])])
    while len(families["version"]) < 25:
        a, b, c = rng.randrange(10), rng.randrange(20), rng.randrange(30)
        families["version"].add(rng.choice([f"v{a}.{b}.{c}", f"{a}.{b}.{c}-rc{c % 4}", f"{a}.{b}"]))
    while len(families["email"]) < 25:
        families["email"].add(
            f"{rng.choice(words)}.{rng.randrange(99)}@{rng.choice(words)}.{rng.choice(['io', 'com'])}"
        )
    units = ["GB/s", "km/h", "MB/s", "m/s²", "°C", "kWh", "µs", "ms", "Mbit/s", "req/s"]
    while len(families["unit"]) < 25:
        families["unit"].add(f"{rng.randrange(1, 999)}{rng.choice(units)}")
    names = ["alice", "bob", "carol", "rock", "o", "y", "we", "they", "ma", "jack"]
    tails = ["'s", "'ll", "'clock", "'all", "'n'roll", "'d", "'re", "'ve"]
    families["contraction"] |= {"don't", "can't", "won't", "shouldn't"}
    while len(families["contraction"]) < 25:
        families["contraction"].add(rng.choice(names) + rng.choice(tails))
    while len(families["cjk"]) < 25:
        source = rng.choice([cjk, hangul])
        start = rng.randrange(len(source) - 4)
        families["cjk"].add(source[start : start + rng.choice([2, 3, 4])])
    return {k: sorted(v)[:25] for k, v in families.items()}


def test_200_tricky_tokens_are_found_among_near_misses() -> None:
    families = tricky_tokens()
    assert sum(len(v) for v in families.values()) == 200
    rng = random.Random(seed())
    misses = []
    with Memory(":memory:", embedder="hash") as mem:
        for family, tokens in families.items():
            for i, token in enumerate(tokens):
                scope = f"tok:{family}:{i}"
                target = mem.remember(f"note: {token} appears here", scope=scope)
                others = [t for t in tokens if t != token]
                distractors = rng.sample(others, 6)
                for d in distractors:  # near misses: the same family, the same filler words
                    mem.remember(f"note: {d} appears here", scope=scope)
                hits = mem.recall(token, scope=scope, mode="lexical", record_use=False)
                if not hits or hits[0].item.id != target.id:
                    misses.append((token, [h.item.text for h in hits]))
    assert misses == []


# -- Limits -----------------------------------------------------------------------------------------


def nested(depth: int) -> dict[str, Any]:
    """``depth`` nested objects, the innermost holding a number."""
    node: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        node = {"n": node}
    return node


@pytest.fixture(params=["default", "tight"])
def limited(request: pytest.FixtureRequest) -> Iterator[Memory]:
    with Memory(":memory:", embedder="hash", limits=LIMITS[request.param]) as mem:
        yield mem


def at_and_over(mem: Memory, call: Any, at: Any, over: Any) -> None:
    """``call(at)`` is accepted, ``call(over)`` raises LimitExceededError and stores nothing."""
    before = len(mem.events(scope="lim", limit=100_000))
    call(at)
    after = len(mem.events(scope="lim", limit=100_000))
    with pytest.raises(LimitExceededError):
        call(over)
    assert len(mem.events(scope="lim", limit=100_000)) == after >= before


def test_text_limit(limited: Memory) -> None:
    n = limited.limits.max_text_chars
    at_and_over(limited, lambda t: limited.remember(t, scope="lim"), "é" * n, "é" * (n + 1))


def test_meta_bytes_limit_counts_bytes(limited: Memory) -> None:
    n = limited.limits.max_meta_bytes
    frame = len(json.dumps({"a": ""}))  # '{"a": ""}'
    at = {"a": "é" * ((n - frame) // 2) + "x" * ((n - frame) % 2)}
    assert len(json.dumps(at, ensure_ascii=False).encode()) == n  # the form the bound is measured on
    over = {"a": at["a"] + "x"}
    at_and_over(limited, lambda m: limited.remember(f"meta {len(str(m))}", scope="lim", meta=m), at, over)
    short_but_heavy = {"a": "é" * ((n - frame) // 2 + 1)}  # fewer characters than n, more bytes
    assert len(json.dumps(short_but_heavy, ensure_ascii=False)) < n
    with pytest.raises(LimitExceededError):
        limited.remember("heavy", scope="lim", meta=short_but_heavy)


def test_meta_depth_over_the_limit(limited: Memory) -> None:
    d = limited.limits.max_meta_depth
    at_and_over(
        limited, lambda m: limited.remember(f"depth {len(str(m))}", scope="lim", meta=m), nested(d - 1), nested(d + 1)
    )


def test_meta_depth_at_the_limit_is_accepted(limited: Memory) -> None:
    d = limited.limits.max_meta_depth
    limited.remember("as deep as allowed", scope="lim", meta=nested(d))


def test_tag_limits(limited: Memory) -> None:
    lim = limited.limits
    tags = [f"t{i}" for i in range(lim.max_tags + 1)]
    at_and_over(limited, lambda t: limited.remember(f"tags {len(t)}", scope="lim", tags=t), tags[:-1], tags)
    # duplicates are one tag: max_tags distinct tags written twice are still within the bound
    assert len(limited.remember("dups", scope="lim", tags=tags[:-1] * 2).tags) == lim.max_tags
    at_and_over(
        limited,
        lambda t: limited.remember(f"tag {len(t)}", scope="lim", tags=[t]),
        "ü" * lim.max_tag_chars,
        "ü" * (lim.max_tag_chars + 1),
    )


def test_query_length_limit(limited: Memory) -> None:
    limited.remember("something to find", scope="lim")
    n = limited.limits.max_query_chars
    at_and_over(limited, lambda q: limited.recall(q, scope="lim", k=1, record_use=False), "q" * n, "q" * (n + 1))


def test_k_limit(limited: Memory) -> None:
    limited.remember("something to find", scope="lim")
    n = limited.limits.max_k
    at_and_over(limited, lambda k: limited.recall("find", scope="lim", k=k, record_use=False), n, n + 1)


def test_batch_limit(limited: Memory) -> None:
    n = limited.limits.max_batch
    if n > 1000:  # the default (10,000) at the bound costs seconds: check the bound on TIGHT, refusal here
        with pytest.raises(LimitExceededError):
            limited.remember_many([f"b{i}" for i in range(n + 1)], scope="lim")
        assert limited.list(scope="lim").items == []
        return
    at_and_over(
        limited,
        lambda b: limited.remember_many(b, scope="lim"),
        [f"at {i}" for i in range(n)],
        [f"over {i}" for i in range(n + 1)],
    )


def test_parents_limit() -> None:
    with Memory(":memory:", embedder="hash", limits=TIGHT) as mem:
        parents = [mem.remember(f"parent {i}", scope="lim").id for i in range(TIGHT.max_parents + 1)]
        at_and_over(
            mem,
            lambda p: mem.remember(f"child of {len(p)}", scope="lim", parents=p),
            parents[:-1],
            parents,
        )


def _deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):  # far past the recursion limit, if anything recursed into it
        node = {"n": node}
    return node


HUGE = "x" * 10_000_000
HUGE_CALLS: dict[str, Any] = {
    "text-10MB": lambda m: m.remember(HUGE, scope="big"),
    "meta-10MB": lambda m: m.remember("ok", scope="big", meta={"a": HUGE}),
    "meta-100000-deep": lambda m: m.remember("ok", scope="big", meta=_deep(100_000)),
    "tags-1M-too-long": lambda m: m.remember("ok", scope="big", tags=["x" * 101] * 1_000_000),
    "query-10MB": lambda m: m.recall(HUGE, scope="big"),
    "batch-1M": lambda m: m.remember_many(["x"] * 1_000_000, scope="big"),
    "parents-100000": lambda m: m.remember("ok", scope="big", parents=[str(uuid.UUID(int=i)) for i in range(100_000)]),
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("case", sorted(HUGE_CALLS))
def test_huge_input_is_refused_quickly(case: str) -> None:
    with Memory(":memory:", embedder="hash") as mem:
        with pytest.raises(LimitExceededError):
            HUGE_CALLS[case](mem)
        assert mem.list(scope="big").items == [] and mem.doctor().ok


def test_200000_distinct_tags_are_refused_quickly() -> None:
    ctx = mp.get_context("forkserver")  # a child we can kill: the quadratic loop would run for minutes
    ctx.set_forkserver_preload(["reverie", "reliability.soak_workers"])
    child = ctx.Process(target=remember_distinct_tags, args=(200_000,), daemon=True)
    child.start()
    child.join(5)  # fixed, it takes well under a second
    if child.is_alive():
        child.kill()
        child.join(10)
        pytest.fail("200,000 distinct tags were not refused within 5 s")
    assert child.exitcode == 0


@pytest.mark.parametrize("year", [1, 993, 999, 1000, 9999])
def test_a_valid_from_in_any_four_digit_year_round_trips(mem: Memory, year: int) -> None:
    """Found by schemathesis over HTTP: a year below 1000 was stored as "993-…" and crashed the write."""
    from datetime import UTC, datetime

    when = datetime(year, 10, 28, 15, 42, 7, 805540, tzinfo=UTC)
    item = mem.remember("an old fact", scope="fuzz", valid_from=when)
    assert mem.get(item.id, scope="fuzz").valid_from == when
