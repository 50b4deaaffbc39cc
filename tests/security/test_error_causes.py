"""Outside tester, finding 11: refusals that named the wrong cause, or none.

- ``--db ""`` failed as ``error[storage]: could not switch  to WAL mode`` (a blank where the path
  belongs); an empty path is bad input and says so.
- An integer of thousands of digits was "not JSON" over HTTP and, in ``meta``, passed on Python's
  ``sys.set_int_max_str_digits()`` advice; both now name reverie's own bound,
  ``Limits.max_int_digits``.
- A slice item with a NUL in its text was ``invalid_input``; the slice is what is malformed.
- An HTTP body repeating a key (``{"text": "a", "text": "b"}``) was accepted, the last one
  silently winning; it is refused, naming the key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reverie import LimitExceededError, Memory
from reverie.cli import cli
from reverie.limits import DEFAULT_LIMITS

from .input_faces import CLEAN_ENV, SCOPE, api_refuses, http, http_refuses

JSON = {"content-type": "application/json"}
DIGITS = DEFAULT_LIMITS.max_int_digits


# -- an empty store path -------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["", "   "])
def test_an_empty_store_path_is_invalid_input_not_a_storage_failure(path: str) -> None:
    exc = api_refuses(lambda: Memory(path, embedder="hash"), code="invalid_input")
    assert "empty" in exc.message and ":memory:" in exc.message, exc.message


@pytest.mark.parametrize("path", ["", "   "])
def test_cli_names_an_empty_db_option(tmp_path: Path, path: str) -> None:
    result = CliRunner().invoke(cli, ["--db", path, "--embedder", "hash", "--scope", "x", "list"], env=CLEAN_ENV)
    assert result.exit_code == 2, (result.exit_code, result.stderr, result.exception)
    assert result.stderr.startswith("error[invalid_input]: "), result.stderr
    assert "--db" in result.stderr and "empty" in result.stderr, result.stderr
    assert "WAL" not in result.stderr


# -- integers too long to read -------------------------------------------------------------------
@pytest.mark.parametrize("digits", [DIGITS + 1, 5000], ids=["over-reverie-limit", "over-python-limit"])
def test_an_integer_too_long_in_meta_names_reverie_limit(mem: Memory, digits: int) -> None:
    big = 10 ** (digits - 1)
    exc = api_refuses(lambda: mem.remember("Alice is old", scope=SCOPE, meta={"n": big}), code="limit_exceeded")
    assert "Limits.max_int_digits" in exc.message and "meta.n" in exc.message, exc.message
    assert "set_int_max_str_digits" not in exc.message
    exc = api_refuses(lambda: mem.remember("Alice is old", scope=SCOPE, key="a.b", value=big), code="limit_exceeded")
    assert "Limits.max_int_digits" in exc.message and "value" in exc.message, exc.message
    assert mem.events(scope=SCOPE) == []


def test_an_integer_at_the_limit_is_kept(mem: Memory) -> None:
    big = 10**DIGITS - 1  # exactly max_int_digits digits
    item = mem.remember("Alice is old", scope=SCOPE, meta={"n": big}, key="a.b", value=-big)
    assert item.meta["n"] == big and mem.get(item.id, scope=SCOPE).meta["n"] == big


@pytest.mark.parametrize("where", ["value", "meta"])
@pytest.mark.parametrize("digits", [DIGITS + 1, 5000], ids=["over-reverie-limit", "over-python-limit"])
def test_http_says_which_limit_a_long_integer_hit(mem: Memory, where: str, digits: int) -> None:
    number = "1" + "0" * (digits - 1)
    field = f'"key": "a.b", "value": {number}' if where == "value" else f'"meta": {{"n": {number}}}'
    with http(mem) as client:
        sent = client.post(f"/v1/scopes/{SCOPE}/items", content='{"text": "Alice is old", ' + field + "}", headers=JSON)
    body = http_refuses(sent, code="limit_exceeded")
    assert sent.status_code == 400 and "Limits.max_int_digits" in body["error"], body
    assert "could not be read as JSON" not in body["error"]
    assert mem.events(scope=SCOPE) == []


# -- a NUL in a slice ----------------------------------------------------------------------------
@pytest.mark.parametrize("field", ["text", "author", "kind"])
def test_a_slice_item_with_a_nul_is_an_invalid_slice(mem: Memory, field: str) -> None:
    mem.remember("Alice likes tea", scope="source", author="alice")
    data = json.loads(mem.export_slice(scope="source").to_json())
    data["items"][0][field] = "bad\x00" + field
    exc = api_refuses(lambda: mem.import_slice(data, scope=SCOPE), code="invalid_slice")
    assert field in exc.message and data["items"][0]["id"] in exc.message, exc.message
    assert mem.events(scope=SCOPE) == []


def test_a_slice_item_over_a_limit_still_says_limit_exceeded(mem: Memory) -> None:
    mem.remember("Alice likes tea", scope="source")
    data = json.loads(mem.export_slice(scope="source").to_json())
    data["items"][0]["text"] = "x" * (DEFAULT_LIMITS.max_text_chars + 1)
    with pytest.raises(LimitExceededError):
        mem.import_slice(data, scope=SCOPE)


# -- duplicate keys in an HTTP body ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('{"text": "first", "text": "second"}', "text"),
        ('{"text": "Alice likes tea", "meta": {"turn": 1, "turn": 2}}', "turn"),
        ('{"text": "Alice likes tea", "meta": {"a": [{"x": 1, "x": 1}]}}', "x"),
    ],
    ids=["top-level", "nested", "in-a-list"],
)
def test_http_refuses_a_body_that_repeats_a_key(mem: Memory, body: str, key: str) -> None:
    with http(mem) as client:
        sent = client.post(f"/v1/scopes/{SCOPE}/items", content=body, headers=JSON)
    refused = http_refuses(sent, code="invalid_input")
    assert sent.status_code == 400 and f"'{key}'" in refused["error"] and "twice" in refused["error"], refused
    assert mem.events(scope=SCOPE) == []


def test_http_refuses_repeated_keys_on_a_body_with_an_idempotency_key(mem: Memory) -> None:
    with http(mem) as client:
        headers = {**JSON, "Idempotency-Key": "dup-1"}
        sent = client.post(f"/v1/scopes/{SCOPE}/items", content='{"text": "a", "text": "b"}', headers=headers)
    http_refuses(sent, code="invalid_input")
    assert mem.events(scope=SCOPE) == []


def test_the_same_key_in_sibling_objects_is_fine(mem: Memory) -> None:
    body = '{"text": "Alice likes tea", "meta": {"a": {"x": 1}, "b": {"x": 2}}}'
    with http(mem) as client:
        sent = client.post(f"/v1/scopes/{SCOPE}/items", content=body, headers=JSON)
    assert sent.status_code == 201, sent.text
    assert sent.json()["meta"] == {"a": {"x": 1}, "b": {"x": 2}}
