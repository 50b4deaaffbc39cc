"""Fixtures for the intent and task tests."""

from __future__ import annotations

from typing import Any

import pytest
from agenda_kit import state_of


@pytest.fixture
def snapshot() -> Any:
    return state_of
