"""Fixtures for tests/degrade: an embedder that can be switched off, and a real loopback
embedding server (tests/embed/embed_fake_server.py) that can be stopped mid-run."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from degrade_embedders import SwitchableEmbedder

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "embed"))

from embed_fake_server import FakeServer


@pytest.fixture
def switchable() -> SwitchableEmbedder:
    return SwitchableEmbedder()


@pytest.fixture
def embed_server() -> Iterator[FakeServer]:
    server = FakeServer()
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(OSError):  # already stopped by the test
            server.stop()
