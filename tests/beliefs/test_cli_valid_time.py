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


def _beliefs(db: Path, scope: str) -> list[tuple[str, str, Any, Any]]:
    head = ["--db", str(db), "--embedder", "hash", "--scope", scope, "--json"]
    out = CliRunner().invoke(cli, [*head, "list", "--include-closed"], env=CLEAN_ENV)
    items = json.loads(out.stdout)["items"]
    # a forget closes validity at the (wall-clock) time of the call: not comparable across the copy
    return sorted(
        (i["text"], i["status"], i["valid_from"], i["valid_to"] if i["status"] == "live" else None) for i in items
    )


def test_export_import_replays_a_change_in_the_world_and_closed_contradictions(tmp_path: Path) -> None:
    """Regression: import replayed a ``valid_from`` revise as a correction, and the ``edge.unlinked`` of a
    contradiction a forget had already closed failed as "already unlinked"."""
    db = tmp_path / "reverie.db"
    old = _json(db, "remember", "Alice works at Acme", "--valid-from", "2024-01-01")["item"]["id"]
    _json(db, "revise", old, "Alice works at Globex", "--valid-from", "2026-03-01")
    a = _json(db, "remember", "Carol is on call")["item"]["id"]
    b = _json(db, "remember", "Dan is on call")["item"]["id"]
    _json(db, "link", a, b, "contradicts")
    _json(db, "forget", a)
    dump = tmp_path / "alice.jsonl"
    _json(db, "export", "--out", str(dump))
    head = ["--db", str(db), "--embedder", "hash", "--scope", "user:copy", "--json"]
    done = CliRunner().invoke(cli, [*head, "import", str(dump)], env=CLEAN_ENV)
    report = json.loads(done.stdout)
    assert report["failed"] == []
    assert _beliefs(db, "user:copy") == _beliefs(db, "user:alice")
