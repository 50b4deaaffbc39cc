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


# -- pending uses on the servers' status (session 33) --------------------------------------------------
# Regression (h-faces33): a plain recall that found another writer holding the lock kept its use in the
# served ``Memory`` (``Memory.pending_uses``), but neither server said so: an operator could not see
# uses piling up behind a long import. Both now report the count, under Python's name, in ``summary``.


def test_each_server_reports_the_pending_uses_in_its_summary(mem: Memory, db_path: Path) -> None:
    _seed_filters(mem)
    other = Memory(db_path, embedder="hash", busy_timeout_ms=50)
    try:
        with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:

            def counts() -> tuple[int, int]:
                http = client.get(f"/v1/scopes/{SCOPE}/summary")
                assert http.status_code == 200, http.text
                mcp = json.loads(call_tool(mem, "summary", {"scope": SCOPE}).content[0].text)
                return http.json()["pending_uses"], mcp["pending_uses"]

            assert counts() == (0, 0)
            with other.atomic(scope=SCOPE):  # another writer holds the lock: the recalls answer, uses wait
                other.remember("deploys are frozen in December", scope=SCOPE)
                mem.recall("deploys", scope=SCOPE)
                assert client.post(f"/v1/scopes/{SCOPE}/recall", json={"query": "deploys"}).status_code == 200
                assert mem.pending_uses == 2
                assert counts() == (2, 2)
            mem.recall("deploys", scope=SCOPE)  # the lock is free: this one writes every waiting use
            assert counts() == (0, 0)
        assert "pending_uses" in openapi_summary_fields(mem)
    finally:
        other.close()


def openapi_summary_fields(mem: Memory) -> set[str]:
    """The documented fields of ``GET …/summary`` (what a client can count on)."""
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        doc = client.get("/openapi.json").json()
    return set(doc["components"]["schemas"]["SummaryOut"]["properties"])


def test_a_principals_summary_counts_its_own_pending_uses_and_the_operators_all(mem: Memory, db_path: Path) -> None:
    """With principals the server holds one ``Memory`` view each: a principal sees its own waiting uses
    (not another caller's), the operator every one the server holds."""
    _seed_filters(mem)
    other = Memory(db_path, embedder="hash", busy_timeout_ms=50)
    app = create_app(mem, token="op-token", principals={"ops-token": "agent:ops", "qa-token": "agent:qa"})
    try:
        with TestClient(app, base_url="http://127.0.0.1") as client:

            def pending(token: str) -> int:
                got = client.get(f"/v1/scopes/{SCOPE}/summary", headers={"Authorization": f"Bearer {token}"})
                assert got.status_code == 200, got.text
                return int(got.json()["pending_uses"])

            with other.atomic(scope=SCOPE):
                for token in ("ops-token", "ops-token", "op-token"):
                    recall = client.post(
                        f"/v1/scopes/{SCOPE}/recall",
                        json={"query": "deploys"},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    assert recall.status_code == 200, recall.text
                assert (pending("ops-token"), pending("qa-token"), pending("op-token")) == (2, 0, 3)
    finally:
        other.close()


# -- list's filter shortcuts (session 33) ----------------------------------------------------------------
# Regression (h-faces33): MCP ``list`` took only ``where`` while HTTP ``GET …/items`` and ``reverie list``
# took ``kind`` / ``source`` / ``tag`` / ``tier`` and a ``valid_at``; the MCP tool refused them as unknown
# fields. A bad tier read as pydantic's "Input should be …" over HTTP and as the query algebra's words on
# the CLI.
LIST_FILTERS = {"kind", "source", "tag", "tier"}


def test_each_face_takes_lists_filters_by_the_same_names(openapi: dict[str, Any]) -> None:
    http = {p["name"] for p in openapi["paths"]["/v1/scopes/{scope}/items"]["get"]["parameters"]} - {"scope"}
    mcp = set(next(t.input_schema for t in tools() if t.name == "list")["properties"]) - {"scope"}
    command = cli.commands["list"]
    assert isinstance(command, click.Command)
    flags = {o.lstrip("-").replace("-", "_") for p in command.params for o in p.opts}
    python = set(inspect.signature(Memory.list).parameters) - {"self", "scope", "subscopes"}
    assert LIST_FILTERS | python <= http
    assert LIST_FILTERS | python == mcp
    assert LIST_FILTERS | python <= flags  # and more: the CLI spells much of the algebra as its own options


#: (filter, value, the reference filter): one value, or a list meaning any of them.
LIST_CASES = [
    ("kind", ["policy"], Q.kind("policy")),
    ("source", ["observed", "inferred"], Q.source("observed", "inferred")),
    ("tag", ["review"], Q.tag("review")),
    ("tier", ["active"], Q.tier("active")),
]


@pytest.mark.parametrize(("name", "values", "reference"), LIST_CASES, ids=[c[0] for c in LIST_CASES])
def test_every_face_lists_by_a_filter_as_python_lists_by_where(
    mem: Memory, db_path: Path, name: str, values: list[str], reference: Any
) -> None:
    _seed_filters(mem)
    want = [i.id for i in mem.list(scope=SCOPE, where=reference).items]
    assert want

    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.get(f"/v1/scopes/{SCOPE}/items", params={name: values})
    assert http.status_code == 200, http.text
    assert [i["id"] for i in http.json()["items"]] == want

    for given in (values, values[0]) if len(values) == 1 else (values,):
        mcp = json.loads(call_tool(mem, "list", {"scope": SCOPE, name: given}).content[0].text)
        assert [i["id"] for i in mcp.get("items", [])] == want, mcp

    ran = _cli(db_path, "--json", "list", *[arg for v in values for arg in (f"--{name}", v)])
    assert ran.exit_code == 0, ran.stderr
    assert [i["id"] for i in json.loads(ran.stdout)["items"]] == want


#: Bad filter values, each refused by the query algebra in Python: every face must use its code and words.
BAD_LIST_FILTERS = [("source", "rumour", Q.source), ("tier", "archive", Q.tier)]


@pytest.mark.parametrize(("name", "value", "build"), BAD_LIST_FILTERS, ids=[c[0] for c in BAD_LIST_FILTERS])
def test_a_bad_list_filter_reads_the_same_on_every_face(
    mem: Memory, db_path: Path, name: str, value: str, build: Any
) -> None:
    with pytest.raises(InvalidInputError) as refused:
        build(value)
    code, words = refused.value.code, refused.value.message

    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.get(f"/v1/scopes/{SCOPE}/items", params={name: [value]})
    assert (http.status_code, http.json()["code"], http.json()["error"]) == (400, code, words)

    for given in (value, [value]):
        mcp = json.loads(call_tool(mem, "list", {"scope": SCOPE, name: given}).content[0].text)
        assert mcp == {"code": code, "error": words}

    ran = _cli(db_path, "list", f"--{name}", value)
    assert ran.exit_code == 2 and ran.stderr.strip() == f"error[{code}]: {words}", ran.stderr


def test_mcp_list_reads_what_was_true_at_valid_at(mem: Memory) -> None:
    """``valid_at`` as on HTTP and the CLI: what was true in the world then (``Memory.list(valid_at=)``)."""
    from datetime import timedelta

    now = mem.clock.now()
    mem.remember("the office is in Leeds", scope=SCOPE, valid_to=now - timedelta(days=1))
    mem.remember("the office is in York", scope=SCOPE, valid_from=now - timedelta(days=1))
    then = (now - timedelta(days=10)).isoformat()
    want = [i.text for i in mem.list(scope=SCOPE, valid_at=now - timedelta(days=10)).items]
    assert want == ["the office is in Leeds"]
    got = json.loads(call_tool(mem, "list", {"scope": SCOPE, "valid_at": then}).content[0].text)
    assert [i["text"] for i in got.get("items", [])] == want, got


# -- a wrong JSON type (session 33) ----------------------------------------------------------------------
# Regression (h-faces33): a value of the wrong JSON type was refused by each face in its own words: HTTP
# "body.mode: Input should be a valid string" (pydantic), MCP "mode must be string, got integer". Both
# now answer with one checker (``reverie.model.json_check``): invalid_input, naming the field, the JSON
# type it must be and what was given.
WRONG_TYPES = [
    ("recall", "mode", 3, "string"),
    ("recall", "k", "ten", "integer"),
    ("recall", "record_use", "yes", "boolean"),
    ("recall", "where", ["kind"], "object"),
    ("recall", "kind", 3, "string or array"),
    ("context", "budget_tokens", 1.5, "integer"),
    ("remember", "tags", "x", "array"),
    ("remember", "importance", True, "number"),
    ("remember", "text", 5, "string"),
    ("remember", "value", [1], "string or number"),
]
HTTP_ROUTES = {"recall": "recall", "context": "context", "remember": "items"}


@pytest.mark.parametrize(
    ("verb", "name", "value", "expected"), WRONG_TYPES, ids=[f"{c[0]}-{c[1]}" for c in WRONG_TYPES]
)
def test_a_wrong_json_type_reads_the_same_on_http_and_mcp(
    mem: Memory, verb: str, name: str, value: Any, expected: str
) -> None:
    body = {"text": "deploys happen on Fridays"} if verb == "remember" else {"query": "deploys"}
    body[name] = value
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.post(f"/v1/scopes/{SCOPE}/{HTTP_ROUTES[verb]}", json=body)
    mcp = json.loads(call_tool(mem, verb, {**body, "scope": SCOPE}).content[0].text)
    given = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array"}[type(value)]
    words = f"{name} must be {expected}, got {given} {json.dumps(value)}"
    assert (http.status_code, http.json()["code"], http.json()["error"]) == (400, "invalid_input", words)
    assert mcp == {"code": "invalid_input", "error": words}
    assert mem.list(scope=SCOPE).items == []  # nothing written


def test_a_wrong_type_inside_a_list_or_object_names_its_place_on_both(mem: Memory) -> None:
    body = {"text": "deploys happen on Fridays", "tags": ["ops", 3], "provenance": {"ref": ["x"]}}
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.post(f"/v1/scopes/{SCOPE}/items", json=body)
        nested = client.post(f"/v1/scopes/{SCOPE}/items", json={**body, "tags": ["ops"]})
    mcp = json.loads(call_tool(mem, "remember", {**body, "scope": SCOPE}).content[0].text)
    mcp_nested = json.loads(call_tool(mem, "remember", {**body, "tags": ["ops"], "scope": SCOPE}).content[0].text)
    assert http.json()["error"] == mcp["error"] == "tags[1] must be string, got integer 3"
    assert nested.json()["error"] == mcp_nested["error"] == 'provenance.ref must be string, got array ["x"]'


def test_a_null_where_http_takes_no_null_says_so(mem: Memory) -> None:
    """MCP reads a null argument as left out; HTTP's ``tags`` has a default but takes no null: its
    refusal is worded by the same checker, not pydantic's "Input should be a valid list"."""
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.post(f"/v1/scopes/{SCOPE}/items", json={"text": "deploys happen on Fridays", "tags": None})
    assert (http.status_code, http.json()["error"]) == (400, "tags must be array, got null"), http.text


def test_a_count_that_is_not_a_number_reads_the_same_in_a_query_string(mem: Memory) -> None:
    """``GET …/items?limit=ten`` and MCP ``list`` with ``"limit": "ten"``: one refusal (a query value is a string)."""
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.get(f"/v1/scopes/{SCOPE}/items", params={"limit": "ten"})
    mcp = json.loads(call_tool(mem, "list", {"scope": SCOPE, "limit": "ten"}).content[0].text)
    words = 'limit must be integer, got string "ten"'
    assert (http.status_code, http.json()["code"], http.json()["error"]) == (400, "invalid_input", words)
    assert mcp == {"code": "invalid_input", "error": words}


# -- the rest of the option lists, compared (session 33) -------------------------------------------------
# Regression (h-faces33): ``reverie list`` had no ``--where`` (HTTP, MCP and ``reverie recall`` take the
# filter as JSON), and ``Memory.revise(valid_to=)`` (a change in the world that itself ends) was on no face.


def test_cli_list_takes_where_as_json_anded_with_its_options(mem: Memory, db_path: Path) -> None:
    _seed_filters(mem)
    want = [i.id for i in mem.list(scope=SCOPE, where=Q.kind("policy") & Q.source("inferred")).items]
    assert len(want) == 1
    ran = _cli(db_path, "--json", "list", "--where", '{"source": "inferred"}', "--kind", "policy")
    assert ran.exit_code == 0, ran.stderr
    assert [i["id"] for i in json.loads(ran.stdout)["items"]] == want
    bad = _cli(db_path, "list", "--where", '{"score": {"name": "nerve", "ge": 1}}')
    with pytest.raises(InvalidInputError) as refused:
        parse_filter({"score": {"name": "nerve", "ge": 1}})
    assert bad.exit_code == 2 and bad.stderr.strip() == f"error[{refused.value.code}]: {refused.value.message}"


def test_each_face_revises_with_an_end_of_validity(mem: Memory, db_path: Path) -> None:
    """``valid_from`` and ``valid_to`` on every face, as ``Memory.revise`` takes them."""
    start, end = "2031-01-01T00:00:00+00:00", "2031-06-30T00:00:00+00:00"
    ids = [mem.remember(f"the office is in Leeds ({n})", scope=SCOPE).id for n in range(3)]
    body = {"text": "the office is in York", "valid_from": start, "valid_to": end}
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        http = client.post(f"/v1/scopes/{SCOPE}/items/{ids[0]}/revise", json=body)
    assert http.status_code == 200, http.text
    args = {"id": ids[1], "new_text": body["text"], "valid_from": start, "valid_to": end, "scope": SCOPE}
    mcp = json.loads(call_tool(mem, "revise", args).content[0].text)
    ran = _cli(db_path, "--json", "revise", ids[2], body["text"], "--valid-from", start, "--valid-to", end)
    assert ran.exit_code == 0, ran.stderr
    for got in (http.json(), mcp["item"], json.loads(ran.stdout)["item"]):
        assert (got.get("valid_from"), got.get("valid_to")) == (
            "2031-01-01T00:00:00.000000Z",
            "2031-06-30T00:00:00.000000Z",
        ), got
