"""The read-only recap on every face that has a read-only mode: ``reverie --read-only``, ``reverie
mcp --read-only`` and ``reverie serve --read-only`` (each a real process or the real CLI on a real
file). The store is seeded under a manual clock in the past, so at the faces' own clock the open
conversation has long gone idle: a writable face would release it (a write); a read-only one shows
the recap it would write, ``"written": false``, and the file keeps every byte.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from test_read_only_recap import fingerprint

from reverie import ManualClock, Memory
from reverie.cli import cli

REVERIE = str(Path(sys.executable).with_name("reverie"))
SCOPE = "user:alice"
ENV = {**{k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}, "OPENBLAS_NUM_THREADS": "1"}


def seed(db: Path) -> None:
    clock = ManualClock()  # 2025-01-01: every face's clock is long past the 30 idle minutes
    with Memory(db, embedder="hash", clock=clock, seed=1) as mem:
        mem.conversation("old", scope=SCOPE).add("We fixed the boiler on Monday.", speaker="Alice")
        clock.advance(hours=1)
        mem.recap(scope=SCOPE)
        mem.conversation("new", scope=SCOPE).add("We chose the blue tiles for the kitchen.", speaker="Alice")


def _check(recap: dict[str, object], old: dict[str, object]) -> None:
    assert recap["conversation"] == "new" and recap["written"] is False and recap["messages"] == 1
    assert "blue tiles" in str(recap["text"])
    assert old["conversation"] == "old" and old["written"] is True


def test_cli_read_only_recap_and_history(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    seed(db)
    before = fingerprint(db)
    runner = CliRunner()
    ro = ["--db", str(db), "--embedder", "hash", "--read-only", "--scope", SCOPE]
    clean = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
    shown = runner.invoke(cli, [*ro, "--json", "conversation", "recap"], env=clean)
    old = runner.invoke(cli, [*ro, "--json", "conversation", "recap", "--conversation", "old"], env=clean)
    human = runner.invoke(cli, [*ro, "conversation", "recap"], env=clean)
    history = runner.invoke(cli, [*ro, "--json", "conversation", "history", "new"], env=clean)
    for result in (shown, old, human, history):
        assert result.exit_code == 0, (result.stdout, result.stderr)
    _check(json.loads(shown.stdout)["recap"], json.loads(old.stdout)["recap"])
    assert "not written" in human.stdout and "blue tiles" in human.stdout
    assert json.loads(history.stdout)["entries"] == []
    assert fingerprint(db) == before


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_read_only_recap_and_history(tmp_path: Path, anyio_backend: str) -> None:
    db = tmp_path / "ro.db"
    seed(db)
    before = fingerprint(db)
    params = StdioServerParameters(command=REVERIE, args=["mcp", "--read-only", "--db", str(db)], env=ENV)
    async with Client(params, mode="legacy") as client:
        shown = await client.call_tool("conversation_recap", {"scope": SCOPE})
        old = await client.call_tool("conversation_recap", {"scope": SCOPE, "conversation": "old"})
        history = await client.call_tool("conversation_history", {"scope": SCOPE, "conversation": "new"})
        closing = await client.call_tool("conversation_close", {"scope": SCOPE, "conversation": "new"})
    for result in (shown, old, history):
        assert not result.is_error, result.content
    _check(shown.structured_content["recap"], old.structured_content["recap"])  # type: ignore[index]
    assert history.structured_content["entries"] == []  # type: ignore[index]
    assert closing.is_error and closing.structured_content["code"] == "read_only"  # type: ignore[index]
    assert fingerprint(db) == before


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=10) as r:  # nosec B310 # a loopback test server
        data: dict[str, object] = json.loads(r.read())
    return data


def test_http_read_only_recap_and_history(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    seed(db)
    before = fingerprint(db)
    port = _free_port()
    base = f"http://127.0.0.1:{port}/v1/scopes/{SCOPE}/conversations"
    args = [REVERIE, "--db", str(db), "--embedder", "hash", "serve", "--read-only", "--port", str(port)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    try:
        shown: dict[str, object] | None = None
        for _ in range(300):
            try:
                shown = _get(f"{base}/recap")
                break
            except OSError:
                time.sleep(0.1)
        assert shown is not None
        old = _get(f"{base}/recap?conversation=old")
        history = _get(f"{base}/new/history")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    _check(shown["recap"], old["recap"])  # type: ignore[arg-type]
    assert history["entries"] == []
    assert fingerprint(db) == before
