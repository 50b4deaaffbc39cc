"""A store opened read-only keeps the vault read-only too, on every face (outside probe 2, finding #9).

``reverie mcp --read-only --vault DIR`` let ``vault_write_note`` write and commit a note, and
``reverie --read-only vault write`` / ``request-promotion`` committed and issued tokens.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client
from vault_support import SAMPLE, SCOPE, write

from reverie import Memory, ReadOnlyError
from reverie.cli import cli
from reverie.mcp import build_server
from reverie.vault import Vault

ENV: dict[str, str | None] = dict.fromkeys(("REVERIE_DB", "REVERIE_SCOPE", "REVERIE_EMBEDDER", "REVERIE_VAULT"))


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root``, ``.git`` included: read-only must not even touch git's state."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def ro(tmp_path: Path, open_mem: Any) -> tuple[Memory, Vault]:
    """A vault with one note of alice's (committed), and a read-only memory over an existing store."""
    rw = open_mem()
    v = Vault(tmp_path / "wiki", memory=rw, scope=SCOPE)
    v.write_note("people/alice/a.md", "# A\nThe backups are kept for 30 days.\n", person="alice", why="seed")
    write(v, "orphan.md", "# Orphan\nno links here\n")
    v.index()
    rw.close()
    mem = open_mem(read_only=True)
    return mem, Vault(tmp_path / "wiki", memory=mem, scope=SCOPE)


def test_every_vault_write_is_refused_read_only_and_touches_nothing(ro: tuple[Memory, Vault]) -> None:
    _, v = ro
    before, log = _tree(v.root), v.log()
    calls = [
        lambda: v.write_note("people/alice/x.md", "# X\n", person="alice", why="w"),
        lambda: v.request_promotion("people/alice/a.md", "alice"),
        lambda: v.promote("people/alice/a.md", "pt_whatever"),
        lambda: v.apply_suggestions(dry_run=False),
        lambda: v.index(),
        lambda: v.extract_claims("people/alice/a.md", remember=True),
    ]
    for call in calls:
        with pytest.raises(ReadOnlyError) as err:
            call()
        assert err.value.code == "read_only"
    assert _tree(v.root) == before and v.log() == log
    # reads still work
    assert v.apply_suggestions(dry_run=True).dry_run
    assert v.extract_claims("people/alice/a.md")[0].item_id is None
    assert v.index_status().notes == 2


def test_a_read_only_vault_on_a_missing_folder_creates_nothing(tmp_path: Path, open_mem: Any) -> None:
    open_mem().close()
    mem = open_mem(read_only=True)
    v = Vault(tmp_path / "nowhere", memory=mem, scope=SCOPE)
    assert not (tmp_path / "nowhere").exists()
    with pytest.raises(ReadOnlyError):
        v.write_note("people/alice/x.md", "# X\n", person="alice", why="w")
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_read_only_vault_write_tools_answer_read_only(ro: tuple[Memory, Vault], anyio_backend: str) -> None:
    mem, v = ro
    before = _tree(v.root)
    async with Client(build_server(mem, vault=v.root), mode="legacy", raise_exceptions=True) as client:
        for name, args in [
            ("vault_write_note", {"path": "people/alice/x.md", "text": "# X\n", "person": "alice", "why": "w"}),
            ("vault_promote", {"path": "people/alice/a.md", "token": "pt_x"}),
            ("vault_apply_suggestions", {"dry_run": False}),
            ("vault_index", {}),
            ("vault_extract_claims", {"path": "people/alice/a.md", "remember": True}),
        ]:
            result = await client.call_tool(name, {"scope": SCOPE, **args})
            doc = json.loads(result.content[0].text)  # type: ignore[union-attr]
            assert result.is_error and doc["code"] == "read_only", (name, doc)
    assert _tree(v.root) == before


def test_cli_read_only_vault_writes_exit_1_read_only(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE, tmp_path / "v")
    db = str(tmp_path / "m.db")
    head = ["--db", db, "--embedder", "hash", "--scope", SCOPE]
    vault_opt = ["vault", "--vault", str(tmp_path / "v")]
    assert CliRunner().invoke(cli, [*head, *vault_opt, "index"], env=ENV).exit_code == 0
    seed = ["write", "people/alice/y.md", "--person", "alice", "--why", "w"]
    write_ok = CliRunner().invoke(cli, [*head, *vault_opt, *seed], env=ENV, input="# Y\n")
    assert write_ok.exit_code == 0, write_ok.output
    v_root = tmp_path / "v"
    before, log = _tree(v_root), git_log(v_root)
    for args, stdin in [
        (["write", "people/alice/x.md", "--person", "alice", "--why", "w"], "# X\n"),
        (["request-promotion", "people/alice/y.md", "--person", "alice"], None),
        (["promote", "people/alice/y.md", "pt_x"], None),
        (["suggest", "--apply"], None),
        (["index"], None),
        (["claims", "people/alice/y.md", "--remember"], None),
    ]:
        r = CliRunner().invoke(cli, ["--read-only", *head, *vault_opt, *args], env=ENV, input=stdin)
        assert r.exit_code == 1 and "error[read_only]" in r.output, (args, r.output)
    assert _tree(v_root) == before and git_log(v_root) == log


def git_log(root: Path) -> str:
    return subprocess.run(["git", "-C", str(root), "log", "--format=%H"], capture_output=True, text=True).stdout
