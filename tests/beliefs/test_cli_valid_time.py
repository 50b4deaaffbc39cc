"""The CLI face of valid time: ``revise --valid-from``, ``list`` / ``recall`` / ``show --valid-at``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from reverie.cli import cli

CLEAN_ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}


def _json(db: Path, *args: str) -> Any:
    head = ["--db", str(db), "--embedder", "hash", "--scope", "user:alice", "--json"]
    result = CliRunner().invoke(cli, [*head, *args], env=CLEAN_ENV)
    assert result.exit_code == 0, (result.output, result.exception)
    return json.loads(result.stdout)


def test_cli_revise_valid_from_then_ask_valid_at(tmp_path: Path) -> None:
    db = tmp_path / "reverie.db"
    old = _json(db, "remember", "Alice works at Acme", "--valid-from", "2024-01-01")["item"]["id"]
    new = _json(db, "revise", old, "Alice works at Globex", "--valid-from", "2026-03-01")["item"]
    assert new["valid_from"].startswith("2026-03-01")
    then = _json(db, "list", "--valid-at", "2025-06-01")["items"]
    assert [i["id"] for i in then] == [old]
    hits = _json(db, "recall", "Alice works", "--valid-at", "2025-06-01")["hits"]
    assert [h["item"]["id"] for h in hits] == [old]
    shown = _json(db, "show", new["id"], "--valid-at", "2025-06-01")
    assert shown["item"]["id"] == old
