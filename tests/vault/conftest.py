"""Fixtures for the vault tests: a fresh vault and the sample vault, over the suite's ``mem``
(a real SQLite file, the hash embedder, doctored after each test) with the clock at ``NOW``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from vault_support import NOW, SAMPLE, SCOPE, commit_as_people

from reverie import ManualClock, Memory
from reverie.vault import Vault


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def vault(tmp_path: Path, mem: Memory) -> Vault:
    return Vault(tmp_path / "wiki", memory=mem, scope=SCOPE)


@pytest.fixture
def sample(tmp_path: Path, mem: Memory) -> Vault:
    """The sample vault copied to a temporary folder (the repository's copy is never a git repo),
    committed as its people keep it: the agent never commits a note nobody committed."""
    shutil.copytree(SAMPLE, tmp_path / "sample-vault")
    v = Vault(tmp_path / "sample-vault", memory=mem, scope=SCOPE)
    commit_as_people(v)
    return v
