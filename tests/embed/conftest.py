"""Fixtures for tests/embed: real loopback HTTP servers (see embed_fake_server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from embed_fake_server import FakeServer


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    server = FakeServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def second_server() -> Iterator[FakeServer]:
    """Another origin (different port) on loopback, for cross-origin redirects."""
    server = FakeServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
