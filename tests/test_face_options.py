"""Every face takes the options ``Memory.recall`` and ``Memory.context`` take, so they cannot drift again.

Regression (outside probe 5, finding 9): HTTP and MCP ``context`` took only ``query``,
``budget_tokens`` and ``k`` — no ``where``, no ``as_of`` — HTTP and MCP ``recall`` refused
``diversity``, HTTP ``weights``, MCP had no ``tiers`` and the CLI offered a third of them. Each
face's accepted options are read from the face itself (the OpenAPI document of a real app, the
MCP tools as listed, the click commands) and compared to the Python signatures.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import click
import pytest
from fastapi.testclient import TestClient

from reverie import Memory
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp import tools
from reverie.recall.options_json import PYTHON_ONLY

#: Options of a face that are its own spelling of a filter (AND-ed into ``where``), not a Python argument.
HTTP_SHORTHANDS = {"kind", "source", "tag"}
MCP_SHORTHANDS = {"kinds", "tags"}
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
    assert names - CLI_DISPLAY == _python(verb)
