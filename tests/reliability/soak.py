"""Sizes and seeds for the reliability suite, read from the environment once per test.

``REVERIE_SOAK`` (default 1) multiplies every workload: ``scripts/soak`` sets it to 25, which
gives the issue's soak size (4 writers x 2,500 remembers per crash round). ``REVERIE_SEED``
(default 20250101) seeds every random choice, so a failure can be replayed exactly.
"""

from __future__ import annotations

import os


def soak() -> int:
    """The workload multiplier (>= 1)."""
    raw = os.environ.get("REVERIE_SOAK", "1")
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"REVERIE_SOAK must be a positive int, got {raw!r}") from None
    if value < 1:
        raise ValueError(f"REVERIE_SOAK must be a positive int, got {raw!r}")
    return value


def seed() -> int:
    """The base seed every test derives its random streams from."""
    return int(os.environ.get("REVERIE_SEED", "20250101"))
