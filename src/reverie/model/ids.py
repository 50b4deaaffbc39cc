"""Time-ordered ids (UUIDv7, RFC 9562) so ids sort by creation time in every index."""

from __future__ import annotations

import os
import random
import threading
import uuid
from collections.abc import Callable
from datetime import datetime


class IdFactory:
    """Makes uuid7 strings from the injected clock's time.

    ``seed`` makes the random bits reproducible (tests, replays); without it they come from
    the OS so ids made by separate processes never collide. A counter in the 12-bit
    ``rand_a`` field keeps ids strictly increasing within one millisecond.
    """

    def __init__(self, seed: int | None = None) -> None:
        self._rng: Callable[[int], int]
        if seed is None:
            self._rng = lambda bits: int.from_bytes(os.urandom((bits + 7) // 8), "big") & ((1 << bits) - 1)
        else:
            r = random.Random(seed)
            self._rng = r.getrandbits
        self._lock = threading.Lock()
        self._last_ms = -1
        self._counter = 0

    def new(self, now: datetime) -> str:
        ms = int(now.timestamp() * 1000)
        with self._lock:
            if ms <= self._last_ms:
                ms = self._last_ms
                self._counter += 1
                if self._counter >= 1 << 12:
                    ms += 1
                    self._counter = 0
            else:
                self._counter = 0
            self._last_ms = ms
            rand_b = self._rng(62)
            counter = self._counter
        value = (ms & ((1 << 48) - 1)) << 80
        value |= 0x7 << 76
        value |= counter << 64
        value |= 0b10 << 62
        value |= rand_b
        return str(uuid.UUID(int=value))


def is_id(text: object) -> bool:
    """True for a canonical lower-case UUID string (any version)."""
    if not isinstance(text, str) or len(text) != 36:
        return False
    try:
        return str(uuid.UUID(text)) == text
    except ValueError:
        return False
