"""Issue #14, finding 12: numbers, nesting and objects that crashed instead of being refused.

Each was a bare Python exception escaping a public entry point: ``OverflowError`` binding a
forged cursor offset or ``after_seq`` of 2**63 to SQLite, ``RecursionError`` from ``json.loads``
on ``[[[[…`` 3000 deep, ``AttributeError`` from a dict given as ``weights``, ``ValueError`` from
``str(10**5000)``, and a ``ValueError`` / misleading "table events already exists" for a store
whose ``schema_version`` row is damaged or missing.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import pytest

from reverie import CorruptStoreError, Memory, Weights
from reverie.limits import DEFAULT_LIMITS
from reverie.model.validate import check_meta

from .input_faces import SCOPE, api_refuses, cli_refuses, http, http_refuses, mcp_refuses, run_cli

DEEP = "[" * 3000 + "]" * 3000
"""Nested far past Python's recursion limit: ``json.loads`` raises ``RecursionError`` on it."""


def _cursor(doc: object | str) -> str:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    return base64.urlsafe_b64encode(text.encode()).decode()


HUGE_CURSORS = {
    "offset-2^63": _cursor({"o": 2**63}),
    "offset-2^64": _cursor({"o": 2**64 + 5}),
    "deep-json": _cursor('{"o": ' + DEEP + "}"),
}


# -- forged cursors ----------------------------------------------------------------------------
@pytest.mark.parametrize("cursor", list(HUGE_CURSORS.values()), ids=list(HUGE_CURSORS))
def test_a_forged_list_cursor_is_refused_on_every_face(mem: Memory, db_path: Path, cursor: str) -> None:
    mem.remember("Alice likes tea", scope=SCOPE)
    exc = api_refuses(lambda: mem.list(scope=SCOPE, cursor=cursor), code="invalid_input")
    assert "next_cursor" in exc.message
    with http(mem) as client:
        http_refuses(client.get(f"/v1/scopes/{SCOPE}/items", params={"cursor": cursor}), code="invalid_input")
    mcp_refuses(mem, "list", scope=SCOPE, cursor=cursor, code="invalid_input")
    cli_refuses(db_path, "list", f"--cursor={cursor}", code="invalid_input")


def test_a_cursor_the_store_issued_still_pages_on(mem: Memory) -> None:
    for n in range(3):
        mem.remember(f"Alice likes tea number {n}", scope=SCOPE)
    first = mem.list(scope=SCOPE, limit=2)
    assert first.next_cursor is not None
    rest = mem.list(scope=SCOPE, limit=2, cursor=first.next_cursor)
    assert len(first.items) + len(rest.items) == 3 and rest.next_cursor is None


# -- JSON nested past the recursion limit -----------------------------------------------------
def test_deeply_nested_where_is_refused_over_http(mem: Memory) -> None:
    with http(mem) as client:
        body = http_refuses(client.get(f"/v1/scopes/{SCOPE}/items", params={"where": DEEP}), code="invalid_query")
    assert "where" in body["error"] and "deep" in body["error"]


def test_deeply_nested_meta_is_refused_by_the_cli_remember_and_link(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    a = json.loads(run_cli(db, "--json", "remember", "Alice likes tea").stdout)["item"]["id"]
    b = json.loads(run_cli(db, "--json", "remember", "Alice likes green tea").stdout)["item"]["id"]
    assert "--meta" in cli_refuses(db, "remember", "Bob likes coffee", f"--meta={DEEP}", code="limit_exceeded")
    assert "--meta" in cli_refuses(db, "link", a, b, "related", f"--meta={DEEP}", code="limit_exceeded")
    wrapped = '{"a": ' + DEEP + "}"
    cli_refuses(db, "remember", "Bob likes coffee", f"--meta={wrapped}", code="limit_exceeded")


def test_a_deeply_nested_import_line_is_refused_and_imports_nothing(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    run_cli(db, "remember", "Alice likes tea")
    exported = run_cli(db, "export").stdout
    dump = tmp_path / "dump.jsonl"
    dump.write_text(exported + DEEP + "\n", encoding="utf-8")
    message = cli_refuses(db, "import", str(dump), code="invalid_input")
    assert "line 2" in message
    assert len(json.loads(run_cli(db, "--json", "list").stdout)["items"]) == 1  # nothing imported


def test_deeply_nested_meta_in_a_python_dict_is_refused_by_depth_not_recursion() -> None:
    meta: dict[str, object] = {}
    node = meta
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]  # type: ignore[assignment]
    api_refuses(lambda: check_meta(meta, DEFAULT_LIMITS), code="limit_exceeded")


# -- objects and numbers that crashed the API --------------------------------------------------
def test_recall_refuses_a_dict_as_weights_naming_the_weights_class(mem: Memory) -> None:
    mem.remember("Alice likes tea", scope=SCOPE)
    exc = api_refuses(lambda: mem.recall("tea", scope=SCOPE, weights={"trust": 0.5}), code="invalid_input")  # type: ignore[arg-type]
    assert "Weights" in exc.message
    assert mem.recall("tea", scope=SCOPE, weights=Weights(trust=0.5))  # the real object still works


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "0.5", True], ids=["nan", "inf", "str", "bool"])
def test_recall_refuses_weights_whose_fields_are_not_finite_numbers(mem: Memory, bad: object) -> None:
    mem.remember("Alice likes tea", scope=SCOPE)
    exc = api_refuses(lambda: mem.recall("tea", scope=SCOPE, weights=Weights(trust=bad)), code="invalid_input")  # type: ignore[arg-type]
    assert "weights.trust" in exc.message


@pytest.mark.parametrize("after", [2**63, 2**64, 10**30])
def test_events_refuses_an_after_seq_beyond_64_bits(mem: Memory, after: int) -> None:
    mem.remember("Alice likes tea", scope=SCOPE)
    exc = api_refuses(lambda: mem.events(scope=SCOPE, after_seq=after), code="invalid_input")
    assert "after_seq" in exc.message
    assert mem.events(scope=SCOPE, after_seq=2**63 - 1) == []  # the largest seq SQLite holds: simply past the end


def test_remember_refuses_an_integer_value_too_long_to_write_as_text(mem: Memory) -> None:
    exc = api_refuses(lambda: mem.remember("Alice is old", scope=SCOPE, key="alice.age", value=10**5000))
    assert "value" in exc.message
    with http(mem) as client:
        body = '{"text": "Alice is old", "key": "alice.age", "value": 1' + "0" * 5000 + "}"
        sent = client.post(f"/v1/scopes/{SCOPE}/items", content=body, headers={"content-type": "application/json"})
        http_refuses(sent)
    assert mem.events(scope=SCOPE) == []
    big = mem.remember("Alice is old", scope=SCOPE, key="alice.age", value=10**40)  # long, but text-sized
    assert big.value == 10**40 and isinstance(big.value, int)  # kept as the int given (finding 7)


def test_remember_refuses_a_score_too_large_for_a_float(mem: Memory) -> None:
    exc = api_refuses(lambda: mem.remember("Alice likes tea", scope=SCOPE, importance=10**5000))
    assert "importance" in exc.message
    assert mem.events(scope=SCOPE) == []


# -- a damaged schema_version row ---------------------------------------------------------------
def _damage(path: Path, version: str | None) -> None:
    with Memory(path, embedder="hash"):
        pass
    conn = sqlite3.connect(path)
    if version is None:
        conn.execute("DELETE FROM settings WHERE k = 'schema_version'")
    else:
        conn.execute("UPDATE settings SET v = ? WHERE k = 'schema_version'", (version,))
    conn.commit()
    conn.close()


@pytest.mark.parametrize("version", ["abc", "", "-1", "0", "2.5", None], ids=repr)
def test_a_damaged_schema_version_is_a_corrupt_store_error_naming_the_file(tmp_path: Path, version: str | None) -> None:
    path = tmp_path / "damaged.db"
    _damage(path, version)
    exc = api_refuses(lambda: Memory(path, embedder="hash"), code="corrupt_store")
    assert isinstance(exc, CorruptStoreError)
    assert str(path) in exc.message and "schema_version" in exc.message
    result = run_cli(path, "list")
    assert result.exit_code == 1 and result.stderr.startswith("error[corrupt_store]: "), result.stderr
    conn = sqlite3.connect(path)
    try:  # refused without touching the file: the damage is still there for a person to inspect
        assert conn.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchall() == (
            [] if version is None else [(version,)]
        )
    finally:
        conn.close()


def test_an_empty_file_still_becomes_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    sqlite3.connect(path).close()
    with Memory(path, embedder="hash") as mem:
        assert mem.remember("Alice likes tea", scope=SCOPE).text == "Alice likes tea"


# -- import lines of the right shape with fields of the wrong type -----------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [("scores", "high"), ("provenance", 5), ("scores", [1])],
    ids=["scores-str", "prov-int", "scores-list"],
)
def test_an_import_line_with_a_wrongly_typed_item_field_fails_that_event_not_the_import(
    tmp_path: Path, field: str, value: object
) -> None:
    db = tmp_path / "cli.db"
    run_cli(db, "remember", "Alice likes tea")
    line = json.loads(run_cli(db, "export").stdout.splitlines()[0])
    line["payload"]["item"][field] = value
    dump = tmp_path / "dump.jsonl"
    dump.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = run_cli(db, "--json", "import", str(dump))
    assert result.exit_code == 1 and "error[internal]" not in result.stderr, result.stderr
    failed = json.loads(result.stdout)["failed"]
    assert [f["code"] for f in failed] == ["invalid_input"] and "malformed payload" in failed[0]["error"]


@pytest.mark.parametrize("field", ["type", "id", "scope", "cause"])
def test_an_import_line_whose_envelope_field_is_not_a_string_is_refused_before_anything_is_written(
    tmp_path: Path, field: str
) -> None:
    db = tmp_path / "cli.db"
    run_cli(db, "remember", "Alice likes tea")
    line = json.loads(run_cli(db, "export").stdout.splitlines()[0])
    line[field] = ["memory.remembered"]
    dump = tmp_path / "dump.jsonl"
    dump.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert "line 1" in cli_refuses(db, "import", str(dump), code="invalid_input")


@pytest.mark.parametrize("sharpness", [-2000.0, 65.0, -64.5])
def test_recall_refuses_a_weight_beyond_64_which_overflowed_relevance(mem: Memory, sharpness: float) -> None:
    # Found by test_input_properties.py: a hit only the dense leg finds has relevance ~0.5 of the
    # best, and 0.5 ** -2000 raised OverflowError inside recall.
    for text in ("Alice likes tea", "Bob likes coffee", "Bob owns a red car"):
        mem.remember(text, scope=SCOPE)
    exc = api_refuses(lambda: mem.recall("likes", scope=SCOPE, weights=Weights(sharpness=sharpness)))
    assert "weights.sharpness" in exc.message and "64" in exc.message
    assert mem.recall("likes", scope=SCOPE, weights=Weights(sharpness=-64.0), record_use=False)  # the bound itself


def test_counts_and_seqs_too_long_to_print_are_refused_with_a_message(mem: Memory) -> None:
    # The refusal's own message did str(10**5000), which raises ValueError past 4300 digits.
    mem.remember("Alice likes tea", scope=SCOPE)
    assert "k " in api_refuses(lambda: mem.recall("tea", scope=SCOPE, k=10**5000), code="limit_exceeded").message
    api_refuses(lambda: mem.list(scope=SCOPE, limit=-(10**5000)), code="invalid_input")
    api_refuses(lambda: mem.events(scope=SCOPE, after_seq=10**5000), code="invalid_input")
    api_refuses(lambda: mem.events(scope=SCOPE, limit=10**5000), code="limit_exceeded")


@pytest.mark.parametrize("candidates", [2**63, 10**30, 0, -1, True, "10"])
def test_detect_conflicts_refuses_a_candidate_count_that_is_no_bounded_positive_int(
    mem: Memory, candidates: object
) -> None:
    # 2**63 reached SQLite's LIMIT and raised OverflowError, like list's forged cursor offset.
    item = mem.remember("Alice likes tea", scope=SCOPE)
    api_refuses(lambda: mem.detect_conflicts(item.id, scope=SCOPE, candidates=candidates))  # type: ignore[arg-type]
    assert mem.detect_conflicts(item.id, scope=SCOPE, candidates=3) == []
