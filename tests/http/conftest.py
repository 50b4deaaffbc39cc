"""Fixtures for the HTTP face: an app over a real SQLite ``Memory`` (hash embedder), driven
in-process by Starlette's ``TestClient``. Every client is closed by its fixture, and the
``Memory`` by the suite's ``memories`` registry (which also runs ``doctor()`` on it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_helpers import BASE

from reverie import Memory
from reverie.http import create_app


@pytest.fixture
def make_client(mem: Memory) -> Iterator[Callable[..., TestClient]]:
    """Factory: ``make_client(token=..., allowed_hosts=...)`` → an entered TestClient."""
    opened: list[TestClient] = []

    def factory(**kwargs: Any) -> TestClient:
        client = TestClient(create_app(mem, **kwargs), base_url=BASE, raise_server_exceptions=False)
        client.__enter__()
        opened.append(client)
        return client

    yield factory
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()
