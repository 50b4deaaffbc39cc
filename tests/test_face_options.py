"""Every face takes the options ``Memory.recall`` and ``Memory.context`` take, so they cannot drift again.

Regression (outside probe 5, finding 9): HTTP and MCP ``context`` took only ``query``,
``budget_tokens`` and ``k`` — no ``where``, no ``as_of`` — HTTP and MCP ``recall`` refused
``diversity``, HTTP ``weights``, MCP had no ``tiers`` and the CLI offered a third of them. Each
face's accepted options are read from the face itself (the OpenAPI document of a real app, the
MCP tools as listed, the click commands) and compared to the Python signatures; the filter
shortcuts (``kind`` / ``source`` / ``tag``) must be the same names everywhere, and a bad choice
(``mode``, ``contradictions``, a tier) must be refused with Python's code and words on every face.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

from reverie import InvalidInputError, Memory, Q
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp import tools
from reverie.mcp.server import call_tool
from reverie.model.item import TIERS
from reverie.model.query_json import KEYS, parse_filter
from reverie.recall.engine import CONTRADICTION_MODES, MODES
from reverie.recall.options_json import PYTHON_ONLY
from reverie.recall.shortcuts import ALIASES, SHORTCUTS

SCOPE = "user:alice"
#: Options of a face that are a filter said shorter (AND-ed into ``where``), not a Python argument: the
#: same names on every face (``reverie.recall.shortcuts``), plus MCP's older spellings.
HTTP_SHORTHANDS = set(SHORTCUTS)
MCP_SHORTHANDS = set(SHORTCUTS) | set(ALIASES)
CLI_SHORTHANDS = set(SHORTCUTS)
#: CLI options that shape the output, not the call.
CLI_DISPLAY = {"why"}
#: The CLI spells ``budget_tokens`` as ``--budget`` (documented in README since the first release).
CLI_NAMES = {"budget": "budget_tokens"}


def _python(verb: str) -> set[str]:
    """The keyword options of ``Memory.<verb>`` (``context``'s ``**recall_args`` are recall's, but ``k``)."""
    params = inspect.signature(getattr(Memory, verb)).parameters
    names = {n for n, p in params.items() if p.kind is not inspect.Parameter.VAR_KEYWORD}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        names |= _python("recall")
    return names - {"self", "query", "scope"} - PYTHON_ONLY


def test_the_python_options_are_what_this_test_expects() -> None:
    """A guard on the guard: a new recall option must show up here (and then on every face)."""
    recall = _python("recall")
    assert {"where", "as_of", "valid_at", "tiers", "weights", "diversity", "record_use", "mode"} <= recall
    assert _python("context") == recall | {"budget_tokens"}


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    mem = Memory(Path(tmp_path_factory.mktemp("faces")) / "faces.db", embedder="hash")
    try:
        with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
            doc: dict[str, Any] = client.get("/openapi.json").json()
    finally:
        mem.close()
    return doc


@pytest.mark.parametrize("verb", ["recall", "context"])
def test_http_takes_the_python_options(openapi: dict[str, Any], verb: str) -> None:
    body = openapi["paths"][f"/v1/scopes/{{scope}}/{verb}"]["post"]["requestBody"]["content"]["application/json"]
    ref = body["schema"]["$ref"].rsplit("/", 1)[-1]
    fields = set(openapi["components"]["schemas"][ref]["properties"]) - {"query"}
    assert fields - HTTP_SHORTHANDS == _python(verb)


@pytest.mark.parametrize("verb", ["recall", "context"])
def test_mcp_takes_the_python_options(verb: str) -> None:
    schema = next(t.input_schema for t in tools() if t.name == verb)
    fields = set(schema["properties"]) - {"query", "scope"}
    assert fields - MCP_SHORTHANDS == _python(verb)


@pytest.mark.parametrize("verb", ["recall", "context"])
def test_cli_takes_the_python_options(verb: str) -> None:
    command = cli.commands[verb]
    assert isinstance(command, click.Command)
    names = {CLI_NAMES.get(p.name or "", p.name) for p in command.params if p.expose_value} - {"query"}
    assert names - CLI_DISPLAY - CLI_SHORTHANDS == _python(verb)


# -- the filter shortcuts and the refusals of a bad choice (session 32) -------------------------------
# Regression (h-facespell): HTTP took ``kind`` / ``source`` / ``tag``, MCP ``kinds`` / ``tags`` and the
# CLI no shortcut at all; a bad ``mode`` / ``contradictions`` (and over HTTP a tier) was refused by each
# face's own schema, in words that differed from Python's (and with code ``usage`` on the CLI). The
# shortcuts are the query algebra's own keys (``Q.kind``, ``Q.source``, ``Q.tag``: one value, or a list
# meaning any of them), MCP's older plurals are documented aliases, and every face lets ``Memory`` word
# the refusal.


def test_the_shortcuts_are_the_query_algebras_own_names() -> None:
    """A shortcut is a key of ``where`` said shorter: a name the algebra does not have would be a face's own."""
    assert set(SHORTCUTS) == {"kind", "source", "tag"}
    assert set(SHORTCUTS) <= set(KEYS)
    assert set(ALIASES) == {"kinds", "tags"} and set(ALIASES.values()) <= set(SHORTCUTS)


@pytest.mark.parametrize("verb", ["recall", "context"])
def test_each_face_takes_the_shortcuts_by_the_same_names(openapi: dict[str, Any], verb: str) -> None:
    body = openapi["paths"][f"/v1/scopes/{{scope}}/{verb}"]["post"]["requestBody"]["content"]["application/json"]
    http = set(openapi["components"]["schemas"][body["schema"]["$ref"].rsplit("/", 1)[-1]]["properties"])
    mcp = set(next(t.input_schema for t in tools() if t.name == verb)["properties"])
    command = cli.commands[verb]
    cli_names = {p.name for p in command.params if p.expose_value}
    assert http - _python(verb) - {"query"} == set(SHORTCUTS)
    assert mcp - _python(verb) - {"query", "scope"} == set(SHORTCUTS) | set(ALIASES)
    assert cli_names - _python(verb) - {"query", "budget"} - CLI_DISPLAY == set(SHORTCUTS)


@pytest.mark.parametrize("verb", ["recall", "context"])
def test_each_face_lists_the_python_choices(openapi: dict[str, Any], verb: str) -> None:
    """The choices a face advertises (OpenAPI enum, MCP enum, click choices) are the ones ``Memory`` accepts."""
    body = openapi["paths"][f"/v1/scopes/{{scope}}/{verb}"]["post"]["requestBody"]["content"]["application/json"]
    http = openapi["components"]["schemas"][body["schema"]["$ref"].rsplit("/", 1)[-1]]["properties"]
    mcp = next(t.input_schema for t in tools() if t.name == verb)["properties"]
    command = cli.commands[verb]
    clicks = {p.name: p.type for p in command.params}
    for name, choices in (("mode", MODES), ("contradictions", CONTRADICTION_MODES)):
        assert http[name]["enum"] == list(choices), name
        assert mcp[name]["enum"] == list(choices), name
        assert isinstance(clicks[name], click.Choice) and list(clicks[name].choices) == list(choices), name
    assert http["tiers"]["items"]["enum"] == list(TIERS)


#: Bad choices, each refused by ``Memory`` in Python: every face must answer with its code and words.
BAD_CHOICES = [
    ("mode", "fast", ["--mode", "fast"]),
    ("contradictions", "hide", ["--contradictions", "hide"]),
    ("tiers", ["archive"], ["--tier", "archive"]),
]


@pytest.mark.parametrize("verb", ["recall", "context"])
@pytest.mark.parametrize(("name", "value", "argv"), BAD_CHOICES, ids=[c[0] for c in BAD_CHOICES])
def test_a_bad_choice_reads_the_same_on_every_face(
    mem: Memory, db_path: Path, verb: str, name: str, value: Any, argv: list[str]
) -> None:
    mem.remember("deploys happen on Fridays", scope=SCOPE, kind="policy")
    with pytest.raises(InvalidInputError) as refused:
        getattr(mem, verb)("deploys", scope=SCOPE, **{name: tuple(value) if name == "tiers" else value})
    code, words = refused.value.code, refused.value.message
    assert code == "invalid_input" and repr(value if isinstance(value, str) else value[0]) in words, words

    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.post(f"/v1/scopes/{SCOPE}/{verb}", json={"query": "deploys", name: value})
    assert (http.status_code, http.json()["code"], http.json()["error"]) == (400, code, words)

    mcp = json.loads(call_tool(mem, verb, {"query": "deploys", "scope": SCOPE, name: value}).content[0].text)
    assert mcp == {"code": code, "error": words}

    ran = _cli(db_path, verb, "deploys", *argv)
    assert ran.exit_code == 2 and ran.stderr.strip() == f"error[{code}]: {words}", ran.stderr


def _cli(db_path: Path, *args: str) -> Result:
    head = ["--db", str(db_path), "--embedder", "hash", "--scope", SCOPE]
    env: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
    return CliRunner().invoke(cli, [*head, *args], env=env)


def _seed_filters(mem: Memory) -> None:
    """Claims that each shortcut tells apart: two kinds, two sources, three tags."""
    mem.remember("deploys happen on Fridays", scope=SCOPE, kind="policy", source="user_stated", tags=["ops"])
    mem.remember("deploys broke twice", scope=SCOPE, kind="observation", source="observed", tags=["rota"])
    mem.remember("deploys need a review", scope=SCOPE, kind="policy", source="inferred", tags=["review"])
    mem.remember("deploys are logged", scope=SCOPE, kind="observation", source="user_stated")


#: (shortcut, value, the reference filter): a list is any of its values, as ``Q.kind("a", "b")``.
SHORTCUT_CASES = [
    ("kind", ["policy"], Q.kind("policy")),
    ("kind", "observation", Q.kind("observation")),
    ("source", ["observed", "inferred"], Q.source("observed", "inferred")),
    ("tag", ["ops", "rota"], Q.tags_any("ops", "rota")),
    ("tag", "review", Q.tag("review")),
]


@pytest.mark.parametrize(("name", "value", "reference"), SHORTCUT_CASES)
def test_every_face_filters_by_a_shortcut_as_python_filters_by_where(
    mem: Memory, db_path: Path, name: str, value: Any, reference: Any
) -> None:
    _seed_filters(mem)
    want = [h.item.id for h in mem.recall("deploys", scope=SCOPE, where=reference, record_use=False)]
    assert want and len(want) < 4
    assert want == [h.item.id for h in mem.recall("deploys", scope=SCOPE, where=parse_filter({name: value}))]

    body = {"query": "deploys", "record_use": False, name: value}
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.post(f"/v1/scopes/{SCOPE}/recall", json=body)
    assert http.status_code == 200, http.text
    assert [h["item"]["id"] for h in http.json()["hits"]] == want

    mcp = json.loads(call_tool(mem, "recall", {**body, "scope": SCOPE}).content[0].text)
    assert [h["id"] for h in mcp["hits"]] == want, mcp

    values = [value] if isinstance(value, str) else value
    argv = [arg for v in values for arg in (f"--{name}", v)]
    ran = _cli(db_path, "--json", "recall", "deploys", "--no-record-use", *argv)
    assert ran.exit_code == 0, ran.stderr
    # the CLI opens the file with the wall clock, so decay (and the order) may differ: the same items
    assert {h["item"]["id"] for h in json.loads(ran.stdout)["hits"]} == set(want)


@pytest.mark.parametrize(("alias", "name", "value"), [("kinds", "kind", ["policy"]), ("tags", "tag", ["ops", "rota"])])
def test_mcps_older_spellings_still_work(mem: Memory, alias: str, name: str, value: list[str]) -> None:
    """``kinds`` / ``tags`` were MCP's names before session 32: documented aliases, so no client breaks."""
    _seed_filters(mem)
    args = {"query": "deploys", "scope": SCOPE, "record_use": False}
    new = json.loads(call_tool(mem, "recall", {**args, name: value}).content[0].text)
    old = json.loads(call_tool(mem, "recall", {**args, alias: value}).content[0].text)
    assert "hits" in old and [h["id"] for h in old["hits"]] == [h["id"] for h in new["hits"]], old
    context = json.loads(call_tool(mem, "context", {**args, alias: value}).content[0].text)
    assert context["context"] == json.loads(call_tool(mem, "context", {**args, name: value}).content[0].text)["context"]


def test_a_name_and_its_alias_together_are_refused(mem: Memory) -> None:
    """Two spellings of one shortcut would be AND-ed or one dropped unseen: say which to keep instead."""
    args = {"query": "deploys", "scope": SCOPE, "kind": ["policy"], "kinds": ["observation"]}
    got = json.loads(call_tool(mem, "recall", args).content[0].text)
    assert got["code"] == "invalid_input" and "kinds" in got["error"] and "not both" in got["error"], got
