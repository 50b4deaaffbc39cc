"""Helpers shared by the vault tests."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reverie.vault import Vault

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "sample-vault"
MANIFEST: dict[str, Any] = json.loads((SAMPLE / "MANIFEST.json").read_text())
NOW = datetime.fromisoformat(MANIFEST["checked_at"]).astimezone(UTC)
SCOPE = "team:lantern"


def write(v: Vault, rel: str, text: str) -> Path:
    """A note written the way a person writes one: straight to disk, no commit."""
    full = v.root / rel
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text, encoding="utf-8")
    return full


def git(v: Vault, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(v.root), *args], capture_output=True, text=True, check=True)
    return done.stdout


def commit_as_people(v: Vault, *paths: str, message: str = "people's notes") -> None:
    """Commit ``paths`` (default: everything) the way a person does, under their own name."""
    where = list(paths) or ["."]
    git(v, "add", "-A", "--", *where)
    git(v, "-c", "user.name=Alice Human", "-c", "user.email=alice@example.com", "commit", "-qm", message, "--", *where)


def snapshot(v: Vault) -> dict[str, bytes]:
    """Every file of the working tree (not .git) by path: to prove a refused call changed nothing."""
    return {
        p.relative_to(v.root).as_posix(): p.read_bytes()
        for p in sorted(v.root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }
