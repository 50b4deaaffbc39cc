"""Issue #14.8 through the faces: the caller's principal is established by the face, never by the
request, and every read through it is filtered.

- CLI: ``--principal`` (a filter for the file's owner) and ``remember --visible-to``;
- HTTP: a token → principal map; a header naming a principal changes nothing;
- MCP: the principal the server is launched with (``open_memory(principal=...)``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest

from reverie import Memory
from reverie.errors import InvalidInputError
from reverie.http import create_app
from reverie.mcp.server import open_memory

from .http_sec_helpers import serving

sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))  # the CLI suite's runner (tests/ has no packages)

from cli_support import SCOPE, Cli

OPERATOR = "operator-token-0123456789"
AGENT = "agent-a-token-0123456789"


def test_cli_principal_sees_only_what_it_may(tmp_path: Path) -> None:
    run = Cli(tmp_path / "r.db")
    run.remember("public zqpub")
    secret = run.remember("secret zqsec", "--visible-to", "agent:ops")
    listed = run.json("--principal", "agent:intern", "list")
    assert "zqsec" not in json.dumps(listed) and "zqpub" in json.dumps(listed)
    run.fails(1, "not_found", "--principal", "agent:intern", "show", secret)
    assert "zqsec" in json.dumps(run.json("--principal", "agent:ops", "list"))
    run.fails(1, "not_permitted", "--principal", "agent:intern", "doctor")
    run.fails(2, "invalid_input", "--principal", "has space", "list")


def _store(tmp_path: Path) -> tuple[Memory, str]:
    mem = Memory(tmp_path / "h.db", embedder="hash")
    mem.remember("public zqpub", scope=SCOPE)
    secret = mem.remember("secret zqsec", scope=SCOPE, visibility=["agent:ops"])
    return mem, secret.id


def test_http_token_acts_as_its_principal_and_headers_cannot_widen_it(tmp_path: Path) -> None:
    mem, secret = _store(tmp_path)
    app = create_app(mem, token=OPERATOR, principals={AGENT: "agent:intern"})
    with serving(app) as port:
        base = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}"
        agent = {"Authorization": f"Bearer {AGENT}", "X-Reverie-Principal": "agent:ops"}
        items = httpx.get(f"{base}/items", headers=agent).json()
        assert "zqsec" not in json.dumps(items) and "zqpub" in json.dumps(items)
        assert httpx.get(f"{base}/items/{secret}", headers=agent).status_code == 404
        hits = httpx.post(f"{base}/recall", headers=agent, json={"query": "secret zqsec"}).json()
        assert "zqsec" not in json.dumps(hits)
        assert httpx.get(f"{base}/summary", headers=agent).json()["current"] == 1
        operator = {"Authorization": f"Bearer {OPERATOR}"}
        assert httpx.get(f"{base}/items/{secret}", headers=operator).status_code == 200
        wrote = httpx.post(f"{base}/items", headers=operator, json={"text": "plan zqplan", "visibility": ["user:ceo"]})
        assert wrote.status_code == 201 and wrote.json()["visibility"] == ["user:ceo"]
        assert "zqplan" not in httpx.get(f"{base}/items", headers=agent).text
        refused = httpx.post(f"{base}/items", headers=operator, json={"text": "x", "visibility": ["bad one"]})
        assert refused.status_code == 400
        assert httpx.get(f"{base}/items", headers={"Authorization": "Bearer wrong-token-0123"}).status_code == 401
    mem.close()


def test_http_principal_tokens_need_an_operator_token_and_differ_from_it(tmp_path: Path) -> None:
    mem, _ = _store(tmp_path)
    with pytest.raises(InvalidInputError):
        create_app(mem, principals={AGENT: "agent:intern"})
    with pytest.raises(InvalidInputError):
        create_app(mem, token=OPERATOR, principals={OPERATOR: "agent:intern"})
    with pytest.raises(InvalidInputError):
        create_app(mem, token=OPERATOR, principals={AGENT: "not a principal"})
    mem.close()


def test_mcp_server_memory_reads_as_its_launch_principal(tmp_path: Path) -> None:
    mem, _ = _store(tmp_path)
    mem.close()
    with open_memory(tmp_path / "h.db", "hash", principal="agent:intern") as served:
        assert served.principal == "agent:intern"
        assert [i.text for i in served.list(scope=SCOPE).items] == ["public zqpub"]
