"""Bias alerts through every face: ``reverie alerts``, the HTTP routes, the MCP tools — one SQLite file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client

from reverie import ManualClock, Memory
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp import build_server
from reverie.testing import EPOCH

S = "user:alice"
ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}


def _seed(db: Path) -> str:
    """Three beliefs about Rosa from one author, and a dream pass: one single-source alert."""
    with Memory(db, embedder="hash", clock=ManualClock(EPOCH), seed=0, detect_conflicts=False) as mem:
        for text in ("Rosa lives in Seattle", "Rosa works at the harbour office", "Rosa speaks Portuguese"):
            mem.remember(text, scope=S, source="user_stated", author="bob")
        mem.dream(scope=S)
        (alert,) = mem.alerts(scope=S)
        return alert.id


def _cli(db: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "hash", "--scope", S, *args], env=ENV)


def test_cli_lists_dismisses_and_refuses_a_bad_id(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    alert_id = _seed(db)
    listed = _cli(db, "--json", "alerts")
    assert listed.exit_code == 0, listed.output
    (doc,) = json.loads(listed.stdout)["alerts"]
    assert doc["id"] == alert_id and doc["kind"] == "single_source" and doc["subject"] == "rosa"
    assert alert_id in _cli(db, "alerts").stdout
    done = _cli(db, "alerts", "--dismiss", alert_id, "--reason", "bob is Rosa")
    assert done.exit_code == 0 and f"dismissed {alert_id}" in done.stdout
    assert "no open bias alerts" in _cli(db, "alerts").stdout
    assert "[dismissed]" in _cli(db, "alerts", "--all").stdout
    bad = _cli(db, "alerts", "--dismiss", "not-an-alert")
    assert bad.exit_code == 2 and "error[invalid_input]: " in bad.stderr and "Traceback" not in bad.output
    missing = _cli(db, "alerts", "--dismiss", "al_0123456789abcdef")
    assert missing.exit_code != 0 and "error[not_found]: " in missing.stderr


def test_http_routes_list_dismiss_and_answer_errors_in_the_one_shape(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    alert_id = _seed(db)
    with Memory(db, embedder="hash", clock=ManualClock(EPOCH), seed=0) as mem:
        client = TestClient(create_app(mem), base_url="http://127.0.0.1", raise_server_exceptions=False)
        with client:
            base = "/v1/scopes/user%3Aalice/alerts"
            got = client.get(base)
            assert got.status_code == 200 and [a["id"] for a in got.json()["alerts"]] == [alert_id]
            assert client.get(base, params={"kind": "overconfident"}).json() == {"alerts": []}
            done = client.post(f"{base}/{alert_id}/dismiss", json={"reason": "known"})
            assert done.status_code == 200 and done.json()["alert"]["dismissed"] is True
            assert client.get(base).json() == {"alerts": []}
            missing = client.post(f"{base}/al_0123456789abcdef/dismiss", json={})
            assert missing.status_code == 404 and set(missing.json()) == {"code", "error", "status"}
            assert client.post(f"{base}/nope/dismiss", json={}).status_code == 400
            assert client.get(base, params={"kind": "vibes"}).status_code in (400, 422)


def _payload(result: Any) -> dict[str, Any]:
    assert len(result.content) == 1 and result.content[0].type == "text"
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


@pytest.mark.anyio
async def test_mcp_alerts_and_dismiss_alert_tools(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    alert_id = _seed(db)
    with Memory(db, embedder="hash", clock=ManualClock(EPOCH), seed=0) as mem:
        async with Client(build_server(mem), raise_exceptions=True) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"alerts", "dismiss_alert"} <= names
            listed = _payload(await client.call_tool("alerts", {"scope": S}))
            assert listed["count"] == 1 and listed["alerts"][0]["id"] == alert_id and "note" in listed
            done = _payload(await client.call_tool("dismiss_alert", {"scope": S, "id": alert_id, "reason": "ok"}))
            assert done["alert"]["dismissed"] is True
            assert _payload(await client.call_tool("alerts", {"scope": S}))["count"] == 0
            bad = await client.call_tool("dismiss_alert", {"scope": S, "id": "al_0123456789abcdef"})
            assert bad.is_error and _payload(bad)["code"] == "not_found"
