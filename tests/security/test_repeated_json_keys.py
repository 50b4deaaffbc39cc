"""One JSON rule at every face: an object that repeats a key is refused, naming the key.

Regression (outside tester, finding 19): an HTTP body that repeated a key was refused, but the
same object as ``GET …/items?where=`` ran with its last key winning (``{"kind": "policy",
"kind": "secret"}`` listed the secrets), and the CLI's ``--meta '{"a": 1, "a": 2}'`` stored
``a = 2``. JSON readers disagree on which of two equal keys counts, so a proxy or a log that
read the first saw another request than the one run. Imports (an export file, a slice) and the
``--principals`` file read JSON by the same rule.
"""

from __future__ import annotations

import json
from pathlib import Path

from reverie import Memory

from .input_faces import SCOPE, api_refuses, cli_refuses, http, http_refuses, run_cli

TWICE = '{"kind": "policy", "kind": "secret"}'


def _names_the_key(message: str, key: str) -> None:
    assert f"'{key}'" in message and "twice" in message, message


def test_http_get_where_refuses_a_repeated_key_as_the_post_body_does(mem: Memory) -> None:
    mem.remember("public note about deploys", scope=SCOPE, kind="policy")
    mem.remember("secret note about deploys", scope=SCOPE, kind="secret")
    with http(mem) as client:
        got = client.get(f"/v1/scopes/{SCOPE}/items", params={"where": TWICE})
        posted = client.post(
            f"/v1/scopes/{SCOPE}/recall",
            content=('{"query": "deploys", "where": ' + TWICE + "}").encode(),
            headers={"content-type": "application/json"},
        )
    for sent in (got, posted):
        body = http_refuses(sent, code="invalid_input")
        _names_the_key(body["error"], "kind")
    nested = '{"and": [{"kind": "policy"}, {"kind": "a", "kind": "b"}]}'
    with http(mem) as client:
        _names_the_key(http_refuses(client.get(f"/v1/scopes/{SCOPE}/items", params={"where": nested}))["error"], "kind")


def test_http_get_where_keeps_the_same_key_in_sibling_objects(mem: Memory) -> None:
    mem.remember("public note about deploys", scope=SCOPE, kind="policy")
    where = '{"or": [{"kind": "policy"}, {"kind": "secret"}]}'
    with http(mem) as client:
        got = client.get(f"/v1/scopes/{SCOPE}/items", params={"where": where})
    assert got.status_code == 200 and [i["text"] for i in got.json()["items"]] == ["public note about deploys"]


def test_cli_meta_refuses_a_repeated_key(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    err = cli_refuses(db, "remember", "dup meta", "--meta", '{"a": 1, "a": 2}', code="invalid_input")
    _names_the_key(err, "a")
    assert "--meta" in err and "not valid JSON" not in err, err
    err = cli_refuses(db, "remember", "dup meta", "--meta", '{"a": {"b": 1, "b": 1}}', code="invalid_input")
    _names_the_key(err, "b")
    assert not db.exists() or Memory(db, embedder="hash").list(scope=SCOPE).items == []


def test_cli_list_meta_condition_refuses_a_repeated_key(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    assert run_cli(db, "remember", "Alice likes tea").exit_code == 0
    _names_the_key(cli_refuses(db, "list", "--meta", 'x={"a": 1, "a": 2}', code="invalid_input"), "a")


def test_cli_import_refuses_an_event_line_that_repeats_a_key(tmp_path: Path) -> None:
    src, db = tmp_path / "src.db", tmp_path / "dst.db"
    assert run_cli(src, "remember", "Alice likes tea").exit_code == 0
    dump = tmp_path / "dump.jsonl"
    assert run_cli(src, "export", "--out", str(dump)).exit_code == 0, "export failed"
    line = dump.read_text().splitlines()[0]
    assert line.startswith("{")
    dump.write_text('{"scope": "elsewhere", ' + line[1:] + "\n")  # its own "scope" comes later and won
    err = cli_refuses(db, "import", str(dump), code="invalid_input")
    _names_the_key(err, "scope")
    assert "line 1" in err


def test_a_slice_that_repeats_a_key_is_an_invalid_slice(mem: Memory) -> None:
    mem.remember("Alice likes tea", scope="source")
    text = mem.export_slice(scope="source").to_json()
    doubled = '{"format": "not-a-slice", ' + text.lstrip()[1:]
    exc = api_refuses(lambda: mem.import_slice(doubled, scope=SCOPE), code="invalid_slice")
    _names_the_key(exc.message, "format")
    assert mem.events(scope=SCOPE) == []
    assert json.loads(text)  # the untouched slice imports
    mem.import_slice(text, scope=SCOPE)
