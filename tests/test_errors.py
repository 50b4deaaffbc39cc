"""Bad input at every public entry point: the right error, a stable code, and nothing changed.

Each row of ``CASES`` is one refused call. The test checks the exact ``ReverieError`` subclass
and its ``code``, that the message is non-empty, and that the store is byte-for-byte the same
afterwards (every scope's events, items, edges, tombstones, summary, and ``doctor()``).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from reverie import (
    Candidate,
    CorruptStoreError,
    InvalidInputError,
    InvalidQueryError,
    InvalidScopeError,
    LimitExceededError,
    Memory,
    NotFoundError,
    Q,
    ReverieError,
    StorageError,
)
from reverie.limits import DEFAULT_LIMITS
from reverie.model.ids import IdFactory
from strategies import OTHER_SCOPE, SCOPE, state_of

NAIVE = datetime(2024, 1, 1)
AWARE = datetime(2024, 1, 1, tzinfo=UTC)
UNKNOWN_ID = IdFactory(seed=99).new(AWARE)  # well-formed, never stored
TOO_LONG = "x" * (DEFAULT_LIMITS.max_text_chars + 1)


def nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        node = {"n": node}
    return node


@dataclass
class World:
    """Items the calls refer to: ``a`` and ``b`` in SCOPE, ``theirs`` in OTHER_SCOPE, an edge."""

    a: str
    b: str
    theirs: str
    edge: str


Call = Callable[[Memory, World], object]

IE, LE, SE, QE, NF = InvalidInputError, LimitExceededError, InvalidScopeError, InvalidQueryError, NotFoundError


def remember(**kwargs: Any) -> Call:
    kwargs.setdefault("scope", SCOPE)
    text = kwargs.pop("text", "a fine claim")
    return lambda m, w: m.remember(text, **kwargs)


CASES: list[tuple[str, Call, type[ReverieError]]] = [
    # -- text
    ("text-empty", remember(text=""), IE),
    ("text-blank", remember(text=" \n\t\u3000 "), IE),
    ("text-none", remember(text=None), IE),
    ("text-int", remember(text=42), IE),
    ("text-too-long", remember(text=TOO_LONG), LE),
    ("text-nul", remember(text="a\x00b"), IE),
    ("text-lone-surrogate", remember(text="a\ud800b"), IE),
    ("text-low-surrogate", remember(text="\udfff"), IE),
    # -- scores
    ("score-above-one", remember(confidence=1.5), IE),
    ("score-negative", remember(importance=-0.01), IE),
    ("score-nan", remember(durability=math.nan), IE),
    ("score-inf", remember(authority=math.inf), IE),
    ("score-bool", remember(confidence=True), IE),
    ("score-str", remember(confidence="0.5"), IE),
    ("scores-unknown-name", remember(scores={"salience": 0.5}), IE),
    ("scores-out-of-range", remember(scores={"value": 2}), IE),
    ("scores-not-a-mapping", remember(scores="high"), IE),
    ("scores-list", remember(scores=[("value", 0.5)]), IE),
    # -- scope
    ("scope-empty", remember(scope=""), SE),
    ("scope-space", remember(scope="user alice"), SE),
    ("scope-injection", remember(scope="'; DROP TABLE items; --"), SE),
    ("scope-too-long", remember(scope="s" * (DEFAULT_LIMITS.max_scope_chars + 1)), LE),
    ("scope-none", remember(scope=None), SE),
    ("scope-int", remember(scope=7), SE),
    ("scope-trailing-newline", remember(scope="user:alice\n"), SE),
    ("scope-leading-slash", remember(scope="/user"), SE),
    ("scope-unicode", remember(scope="usér"), SE),
    ("scope-nul", remember(scope="user\x00alice"), SE),
    # -- kind, key, value, author
    ("kind-spaces", remember(kind="Bad Kind"), IE),
    ("kind-empty", remember(kind=""), IE),
    ("kind-too-long", remember(kind="k" * 41), IE),
    ("kind-none", remember(kind=None), IE),
    ("kind-trailing-newline", remember(kind="observation\n"), IE),
    ("key-empty", remember(key=""), IE),
    ("key-space", remember(key="alice drink"), IE),
    ("key-too-long", remember(key="k" * (DEFAULT_LIMITS.max_key_chars + 1)), LE),
    ("key-int", remember(key=5), IE),
    ("key-trailing-newline", remember(key="alice.drink\n"), IE),
    ("value-bool", remember(key="k", value=True), IE),
    ("value-list", remember(key="k", value=["tea"]), IE),
    ("value-nul", remember(key="k", value="t\x00a"), IE),
    ("value-too-long", remember(key="k", value=TOO_LONG), LE),
    ("author-blank", remember(author="  "), IE),
    ("author-surrogate", remember(author="\ud83d"), IE),
    ("author-int", remember(author=3), IE),
    # -- tags
    ("tags-bare-string", remember(tags="health"), IE),
    ("tags-blank", remember(tags=["ok", " "]), IE),
    ("tags-non-str", remember(tags=[5]), IE),
    ("tags-nul", remember(tags=["a\x00"]), IE),
    ("tag-too-long", remember(tags=["t" * (DEFAULT_LIMITS.max_tag_chars + 1)]), LE),
    ("tags-too-many", remember(tags=[f"t{i}" for i in range(DEFAULT_LIMITS.max_tags + 1)]), LE),
    # -- meta
    ("meta-not-dict", remember(meta=["a"]), IE),
    ("meta-int-key", remember(meta={1: "x"}), IE),
    ("meta-tuple-key", remember(meta={("a",): "x"}), IE),
    ("meta-nan", remember(meta={"a": math.nan}), IE),
    ("meta-inf-nested", remember(meta={"a": [1, {"b": -math.inf}]}), IE),
    ("meta-set", remember(meta={"a": {1, 2}}), IE),
    ("meta-bytes", remember(meta={"a": b"raw"}), IE),
    ("meta-object", remember(meta={"a": object()}), IE),
    ("meta-datetime", remember(meta={"when": AWARE}), IE),
    ("meta-surrogate-value", remember(meta={"a": "\ud800"}), IE),
    ("meta-surrogate-key", remember(meta={"\udc00": 1}), IE),
    ("meta-nul-key", remember(meta={"a\x00": 1}), IE),
    ("meta-too-deep", remember(meta=nested(DEFAULT_LIMITS.max_meta_depth + 1)), LE),
    ("meta-too-big", remember(meta={"a": "x" * DEFAULT_LIMITS.max_meta_bytes}), LE),
    # -- times
    ("valid-from-naive", remember(valid_from=NAIVE), IE),
    ("valid-to-naive", remember(valid_to=NAIVE), IE),
    ("valid-from-string", remember(valid_from="2024-01-01"), IE),
    ("valid-to-before-from", remember(valid_from=AWARE, valid_to=datetime(2023, 1, 1, tzinfo=UTC)), IE),
    # -- source: candidates cannot forge manual / system authority
    ("source-manual", remember(source="manual"), IE),
    ("source-system", remember(source="system"), IE),
    ("source-unknown", remember(source="oracle"), IE),
    ("batch-source-manual", lambda m, w: m.remember_many([{"text": "x", "source": "manual"}], scope=SCOPE), IE),
    # -- parents and provenance
    ("parent-malformed", remember(parents=["not-an-id"]), IE),
    ("parent-unknown", remember(parents=[UNKNOWN_ID]), NF),
    ("parent-other-scope", lambda m, w: m.remember("child", scope=SCOPE, parents=[w.theirs]), NF),
    ("parents-too-many", remember(parents=[UNKNOWN_ID] * (DEFAULT_LIMITS.max_parents + 1)), LE),
    ("provenance-string", remember(provenance="chat"), IE),
    ("provenance-surrogate", remember(provenance={"origin": "chat", "ref": "\ud800"}), IE),
    ("provenance-non-str", remember(provenance={"origin": "chat", "ref": 5}), IE),
    ("provenance-unknown-field", remember(provenance={"origin": "chat", "page": 5}), IE),
    # -- remember_many
    ("batch-entry-int", lambda m, w: m.remember_many(["ok", 123], scope=SCOPE), IE),
    ("batch-unknown-field", lambda m, w: m.remember_many([{"text": "x", "tagz": ["a"]}], scope=SCOPE), IE),
    ("batch-too-big", lambda m, w: m.remember_many(["x"] * (DEFAULT_LIMITS.max_batch + 1), scope=SCOPE), LE),
    ("batch-bad-scope", lambda m, w: m.remember_many(["x"], scope="bad scope"), SE),
    ("manual-unknown-field", lambda m, w: m.remember_manual("x", scope=SCOPE, tag=["typo"]), IE),
    # -- revise
    ("revise-malformed-id", lambda m, w: m.revise("nope", "new", scope=SCOPE), IE),
    ("revise-unknown-id", lambda m, w: m.revise(UNKNOWN_ID, "new", scope=SCOPE), NF),
    ("revise-other-scope", lambda m, w: m.revise(w.theirs, "new", scope=SCOPE), NF),
    ("revise-empty-text", lambda m, w: m.revise(w.a, "", scope=SCOPE), IE),
    ("revise-version-zero", lambda m, w: m.revise(w.a, "new", scope=SCOPE, expected_version=0), IE),
    ("revise-version-bool", lambda m, w: m.revise(w.a, "new", scope=SCOPE, expected_version=True), IE),
    ("revise-version-str", lambda m, w: m.revise(w.a, "new", scope=SCOPE, expected_version="1"), IE),
    ("revise-reason-int", lambda m, w: m.revise(w.a, "new", scope=SCOPE, reason=5), IE),
    ("revise-reason-too-long", lambda m, w: m.revise(w.a, "new", scope=SCOPE, reason="r" * 2001), LE),
    ("revise-bad-key", lambda m, w: m.revise(w.a, "new", scope=SCOPE, key="bad key"), IE),
    # -- forget / dismiss / undismiss
    ("forget-malformed-id", lambda m, w: m.forget("123", scope=SCOPE), IE),
    ("forget-uppercase-id", lambda m, w: m.forget(w.a.upper(), scope=SCOPE), IE),
    ("forget-unknown-id", lambda m, w: m.forget(UNKNOWN_ID, scope=SCOPE), NF),
    ("forget-other-scope", lambda m, w: m.forget(w.theirs, scope=SCOPE), NF),
    ("forget-negative-version", lambda m, w: m.forget(w.a, scope=SCOPE, expected_version=-1), IE),
    ("forget-reason-surrogate", lambda m, w: m.forget(w.a, scope=SCOPE, reason="\ud800"), IE),
    ("dismiss-none-id", lambda m, w: m.dismiss(None, scope=SCOPE), IE),
    ("dismiss-unknown-id", lambda m, w: m.dismiss(UNKNOWN_ID, scope=SCOPE), NF),
    ("dismiss-other-scope", lambda m, w: m.dismiss(w.theirs, scope=SCOPE), NF),
    ("undismiss-nothing", lambda m, w: m.undismiss(scope=SCOPE), IE),
    ("undismiss-empty-text", lambda m, w: m.undismiss("", scope=SCOPE), IE),
    ("undismiss-not-dismissed", lambda m, w: m.undismiss("never dismissed", scope=SCOPE), NF),
    # -- link / unlink
    ("link-unknown-type", lambda m, w: m.link(w.a, w.b, "likes", scope=SCOPE), IE),
    ("link-type-none", lambda m, w: m.link(w.a, w.b, None, scope=SCOPE), IE),
    ("link-malformed-src", lambda m, w: m.link("src", w.b, "supports", scope=SCOPE), IE),
    ("link-unknown-dst", lambda m, w: m.link(w.a, UNKNOWN_ID, "supports", scope=SCOPE), NF),
    ("link-other-scope", lambda m, w: m.link(w.a, w.theirs, "supports", scope=SCOPE), NF),
    ("link-self", lambda m, w: m.link(w.a, w.a, "supports", scope=SCOPE), IE),
    ("link-authority-range", lambda m, w: m.link(w.a, w.b, "supports", scope=SCOPE, authority=2), IE),
    ("link-meta-nan", lambda m, w: m.link(w.a, w.b, "supports", scope=SCOPE, meta={"x": math.nan}), IE),
    ("link-author-surrogate", lambda m, w: m.link(w.a, w.b, "supports", scope=SCOPE, author="\ud800"), IE),
    ("link-author-int", lambda m, w: m.link(w.a, w.b, "supports", scope=SCOPE, author=5), IE),
    ("unlink-malformed", lambda m, w: m.unlink("edge", scope=SCOPE), IE),
    ("unlink-unknown", lambda m, w: m.unlink(UNKNOWN_ID, scope=SCOPE), NF),
    ("unlink-other-scope", lambda m, w: m.unlink(w.edge, scope=OTHER_SCOPE), NF),
    # -- scores, tiers, promote, flags
    ("set-scores-none", lambda m, w: m.set_scores(w.a, scope=SCOPE), IE),
    ("set-scores-unknown", lambda m, w: m.set_scores(w.a, scope=SCOPE, salience=0.5), IE),
    ("set-scores-range", lambda m, w: m.set_scores(w.a, scope=SCOPE, value=1.01), IE),
    ("set-scores-nan", lambda m, w: m.set_scores(w.a, scope=SCOPE, value=math.nan), IE),
    ("set-scores-other-scope", lambda m, w: m.set_scores(w.theirs, scope=SCOPE, value=0.1), NF),
    ("set-tier-unknown", lambda m, w: m.set_tier(w.a, "attic", scope=SCOPE), IE),
    ("set-tier-list", lambda m, w: m.set_tier(w.a, ["active"], scope=SCOPE), IE),
    ("promote-unknown-target", lambda m, w: m.promote(w.a, scope=SCOPE, to="admin"), IE),
    ("promote-other-scope", lambda m, w: m.promote(w.theirs, scope=SCOPE), NF),
    ("flag-bare-string", lambda m, w: m.flag(w.a, scope=SCOPE, add="hub"), IE),
    ("flag-non-str", lambda m, w: m.flag(w.a, scope=SCOPE, add=[1, "hub"]), IE),
    ("flag-blank", lambda m, w: m.flag(w.a, scope=SCOPE, add=[""]), IE),
    ("flag-remove-non-str", lambda m, w: m.flag(w.a, scope=SCOPE, remove=[None]), IE),
    # -- reads
    ("get-malformed", lambda m, w: m.get("x", scope=SCOPE), IE),
    ("get-unknown", lambda m, w: m.get(UNKNOWN_ID, scope=SCOPE), NF),
    ("get-other-scope", lambda m, w: m.get(w.theirs, scope=SCOPE), NF),
    ("get-as-of-naive", lambda m, w: m.get(w.a, scope=SCOPE, as_of=NAIVE), IE),
    ("get-as-of-string", lambda m, w: m.get(w.a, scope=SCOPE, as_of="yesterday"), IE),
    ("history-unknown", lambda m, w: m.history(UNKNOWN_ID, scope=SCOPE), NF),
    ("list-where-string", lambda m, w: m.list(scope=SCOPE, where="kind = 'x'"), QE),
    ("list-sort-unknown", lambda m, w: m.list(scope=SCOPE, sort=["-bogus"]), QE),
    ("list-sort-injection", lambda m, w: m.list(scope=SCOPE, sort="id; DROP TABLE items"), QE),
    ("list-sort-non-str", lambda m, w: m.list(scope=SCOPE, sort=[1]), QE),
    ("list-limit-zero", lambda m, w: m.list(scope=SCOPE, limit=0), IE),
    ("list-limit-too-big", lambda m, w: m.list(scope=SCOPE, limit=DEFAULT_LIMITS.max_k + 1), LE),
    ("list-limit-bool", lambda m, w: m.list(scope=SCOPE, limit=True), IE),
    ("list-limit-str", lambda m, w: m.list(scope=SCOPE, limit="10"), IE),
    ("list-cursor-garbage", lambda m, w: m.list(scope=SCOPE, cursor="not a cursor"), IE),
    ("list-cursor-int", lambda m, w: m.list(scope=SCOPE, cursor=5), IE),
    ("list-cursor-negative", lambda m, w: m.list(scope=SCOPE, cursor="eyJvIjogLTF9"), IE),
    ("edges-malformed-id", lambda m, w: m.edges("x", scope=SCOPE), IE),
    ("events-limit-zero", lambda m, w: m.events(scope=SCOPE, limit=0), IE),
    ("events-limit-str", lambda m, w: m.events(scope=SCOPE, limit="10"), IE),
    ("events-after-seq-str", lambda m, w: m.events(scope=SCOPE, after_seq="0"), IE),
    ("summary-bad-scope", lambda m, w: m.summary(scope="a b"), SE),
    # -- pause / use
    ("pause-bad-scope", lambda m, w: m.pause_learning(""), SE),
    ("pause-reason-int", lambda m, w: m.pause_learning(SCOPE, reason=1), IE),
    ("resume-bad-scope", lambda m, w: m.resume_learning("a b"), SE),
    ("use-weight-above-one", lambda m, w: m.record_use(SCOPE, [(w.a, 5.0)], "q"), IE),
    ("use-weight-zero", lambda m, w: m.record_use(SCOPE, [(w.a, 0.0)], "q"), IE),
    ("use-malformed-id", lambda m, w: m.record_use(SCOPE, [("x", 1.0)], "q"), IE),
    ("use-query-surrogate", lambda m, w: m.record_use(SCOPE, [(w.a, 1.0)], "\ud800"), IE),
    ("use-query-int", lambda m, w: m.record_use(SCOPE, [(w.a, 1.0)], 5), IE),
]


@pytest.fixture
def world(any_mem: Memory) -> World:
    a = any_mem.remember("Alice likes tea", scope=SCOPE, key="alice.drink", value="tea")
    b = any_mem.remember("Bob likes coffee", scope=SCOPE)
    theirs = any_mem.remember("Their secret", scope=OTHER_SCOPE)
    edge = any_mem.link(a.id, b.id, "supports", scope=SCOPE)
    return World(a.id, b.id, theirs.id, edge.id)


def whole_state(mem: Memory) -> tuple[Any, ...]:
    return state_of(mem, SCOPE), state_of(mem, OTHER_SCOPE), mem.scopes(), mem.doctor().to_dict()


@pytest.mark.parametrize(("name", "call", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_typed_error_and_changes_nothing(
    any_mem: Memory, world: World, name: str, call: Call, expected: type[ReverieError]
) -> None:
    before = whole_state(any_mem)
    with pytest.raises(ReverieError) as info:
        call(any_mem, world)
    err = info.value
    assert type(err) is expected, f"{name}: {type(err).__name__}: {err}"
    assert err.code == expected.code
    assert isinstance(err.message, str) and err.message.strip()
    assert err.to_dict() == {"code": expected.code, "error": err.message}
    assert whole_state(any_mem) == before


def test_error_codes_are_stable() -> None:
    import reverie

    codes = {name: getattr(reverie, name).code for name in reverie.__all__ if name.endswith("Error")}
    assert codes == {
        "AlreadyClosedError": "already_closed",
        "ClosedError": "closed",
        "ConflictError": "conflict",
        "CorruptStoreError": "corrupt_store",
        "DismissedValueError": "dismissed_value",
        "EmbedderError": "embedder",
        "EmbedderMismatchError": "embedder_mismatch",
        "InvalidInputError": "invalid_input",
        "InvalidQueryError": "invalid_query",
        "InvalidScopeError": "invalid_scope",
        "InvalidSliceError": "invalid_slice",
        "InvalidTransitionError": "invalid_transition",
        "LearningPausedError": "learning_paused",
        "LimitExceededError": "limit_exceeded",
        "NotFoundError": "not_found",
        "NotPermittedError": "not_permitted",
        "PortInUseError": "port_in_use",
        "ReadOnlyError": "read_only",
        "ReaderError": "reader",
        "ReverieError": "reverie_error",
        "SliceConflictError": "slice_conflict",
        "StorageError": "storage",
        "VersionConflictError": "version_conflict",
    }
    assert all(issubclass(getattr(reverie, n), reverie.ReverieError) for n in codes)


@pytest.mark.parametrize("source", ["manual", "system", "admin", None])
def test_candidate_cannot_carry_manual_or_system_source(source: Any) -> None:
    with pytest.raises(InvalidInputError) as info:
        Candidate("forged", source=source)
    assert info.value.code == "invalid_input" and "source" in info.value.message


@pytest.mark.parametrize(
    ("make_filter", "expected"),
    [
        (lambda: Q.score("salience", ge=0.5), QE),
        (lambda: Q.score("authority", ge="0.5"), QE),
        (lambda: Q.score("authority", ge=True), QE),
        (lambda: Q.score("authority", ge=math.nan), QE),
        (lambda: Q.score("evidence_count", ge=2**70), QE),
        (lambda: Q.meta("a..b", 1), QE),
        (lambda: Q.meta("", 1), QE),
        (lambda: Q.meta("a b", 1), QE),
        (lambda: Q.meta("a", [1]), QE),
        (lambda: Q.meta("a", math.nan), QE),
        (lambda: Q.meta("a", 2**64), QE),
        (lambda: Q.meta_has("$.a"), QE),
        (lambda: Q.time("created", since=AWARE), QE),
        (lambda: Q.time("recorded_at", since=NAIVE), IE),
        (lambda: Q.recorded(until="2024"), IE),
        (lambda: Q.kind(None), QE),
        (lambda: Q.key(5), QE),
        (lambda: Q.ids("a", None), QE),
        (lambda: Q.tag(5), QE),
        (lambda: Q.parents_count(ge="1"), QE),
        (lambda: Q.parent(None), QE),
        (lambda: Q.all() & "kind", QE),
        (lambda: Q.all() | 5, QE),
    ],
)
def test_malformed_filter_is_refused_when_built(make_filter: Callable[[], object], expected: type) -> None:
    with pytest.raises(ReverieError) as info:
        make_filter()
    assert type(info.value) is expected and info.value.message


def _normalised(message: str, item_id: str) -> str:
    return message.replace(item_id, "<id>")


NOT_FOUND_PROBES: list[tuple[str, Callable[[Memory, str, str], object]]] = [
    ("get", lambda m, i, o: m.get(i, scope=SCOPE)),
    ("get-as-of", lambda m, i, o: m.get(i, scope=SCOPE, as_of=datetime(2030, 1, 1, tzinfo=UTC))),
    ("history", lambda m, i, o: m.history(i, scope=SCOPE)),
    ("revise", lambda m, i, o: m.revise(i, "new text", scope=SCOPE)),
    ("forget", lambda m, i, o: m.forget(i, scope=SCOPE)),
    ("dismiss", lambda m, i, o: m.dismiss(i, scope=SCOPE)),
    ("set-scores", lambda m, i, o: m.set_scores(i, scope=SCOPE, value=0.2)),
    ("set-tier", lambda m, i, o: m.set_tier(i, "durable", scope=SCOPE)),
    ("promote", lambda m, i, o: m.promote(i, scope=SCOPE)),
    ("flag", lambda m, i, o: m.flag(i, scope=SCOPE, add=["hub"])),
    ("link-src", lambda m, i, o: m.link(i, o, "supports", scope=SCOPE)),
    ("link-dst", lambda m, i, o: m.link(o, i, "supports", scope=SCOPE)),
    ("parent", lambda m, i, o: m.remember("child claim", scope=SCOPE, parents=[i])),
]


@pytest.mark.parametrize(("name", "probe"), NOT_FOUND_PROBES, ids=[n for n, _ in NOT_FOUND_PROBES])
def test_other_scopes_id_is_indistinguishable_from_missing_id(
    any_mem: Memory, name: str, probe: Callable[[Memory, str, str], object]
) -> None:
    """No existence oracle: an id living in scope B looks exactly like an id that exists nowhere."""
    mine = any_mem.remember("mine", scope=SCOPE).id
    theirs = any_mem.remember("their secret", scope=OTHER_SCOPE).id
    missing = IdFactory(seed=7).new(datetime(2025, 1, 1, tzinfo=UTC))
    before = whole_state(any_mem)
    errors = []
    for target in (theirs, missing):
        with pytest.raises(ReverieError) as info:
            probe(any_mem, target, mine)
        errors.append(info.value)
    assert [type(e) for e in errors] == [NotFoundError, NotFoundError]
    assert _normalised(errors[0].message, theirs) == _normalised(errors[1].message, missing)
    assert "their secret" not in errors[0].message
    assert whole_state(any_mem) == before


# -- construction and storage errors -------------------------------------------------------------


def test_open_in_missing_directory_raises_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError) as info:
        Memory(tmp_path / "no" / "such" / "dir" / "x.db", embedder="hash")
    assert type(info.value) is StorageError and info.value.code == "storage"
    assert not isinstance(info.value, sqlite3.Error)


def test_open_a_directory_raises_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError):
        Memory(tmp_path, embedder="hash")


def test_open_a_file_that_is_not_a_database_raises_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"this is not an SQLite database, just some text " * 100)
    with pytest.raises(StorageError) as info:
        Memory(path, embedder="hash")
    assert not isinstance(info.value, sqlite3.Error)
    assert path.read_bytes().startswith(b"this is not an SQLite database")


def test_open_a_store_from_a_newer_version_raises_corrupt_store(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    Memory(path, embedder="hash").close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE settings SET v = '999' WHERE k = 'schema_version'")
    conn.close()
    with pytest.raises(CorruptStoreError) as info:
        Memory(path, embedder="hash")
    assert info.value.code == "corrupt_store" and "newer" in info.value.message


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"path": None}, InvalidInputError),
        ({"path": 5}, InvalidInputError),
        ({"path": ":memory:", "durability": "sometimes"}, InvalidInputError),
    ],
)
def test_bad_constructor_arguments_are_refused(kwargs: dict[str, Any], expected: type) -> None:
    path = kwargs.pop("path")
    with pytest.raises(expected):
        Memory(path, embedder="hash", **kwargs)


def test_unknown_embedder_name_is_refused_before_anything_is_stored(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(embedder="no-such-model")
    with pytest.raises(InvalidInputError):
        mem.remember("x", scope=SCOPE)
    assert mem.list(scope=SCOPE).items == []
