"""Helpers for testing code that uses reverie: a ready ``Memory``, a clock you move, factories.

    from reverie.testing import make_memory, ManualClock

    def test_my_agent_remembers() -> None:
        mem, clock = make_memory()
        my_agent(mem).handle("I'm allergic to peanuts")
        clock.advance(days=1)
        assert "peanuts" in mem.recall("allergies", scope="user:test")[0].item.text

With pytest, add ``pytest_plugins = ["reverie.testing"]`` to your ``conftest.py`` and take the
``reverie_mem`` fixture (an in-memory ``Memory``, hash embedder, ``ManualClock``, checked with
``doctor()`` after the test) and ``reverie_clock`` (that clock).

Why the hash embedder: it is deterministic and loads no model, so tests are fast and give the
same results on every machine; use ``embedder="minilm"`` when a test is about meaning.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from reverie.memory import Memory
from reverie.model.clock import ManualClock
from reverie.model.item import Candidate, Item

if TYPE_CHECKING:
    from reverie.dream.host import DreamHost

#: The instant every helper's clock starts at unless told otherwise (a Monday, UTC).
EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def make_memory(
    *, clock: ManualClock | None = None, path: str = ":memory:", seed: int = 0, **kwargs: Any
) -> tuple[Memory, ManualClock]:
    """A ready ``Memory`` (in memory, hash embedder, seeded ids) and the ``ManualClock`` it reads.

    Any other ``Memory`` argument may be given (``embedder="minilm"``, ``limits=…``,
    ``detect_conflicts=False``, a file ``path``).
    """
    clock = clock or ManualClock(EPOCH)
    kwargs.setdefault("embedder", "hash")
    return Memory(path, clock=clock, seed=seed, **kwargs), clock


def claim(text: str, **fields: Any) -> Candidate:
    """A ``Candidate`` with the given text and fields (for ``remember_many``).

    The score shortcuts ``remember`` takes (``importance=0.8``, …) are folded into ``scores``.
    """
    scores = dict(fields.pop("scores", None) or {})
    for name in ("authority", "confidence", "importance", "durability"):
        if name in fields:
            scores[name] = fields.pop(name)
    return Candidate(text=text, scores=scores, **fields)


def remember_all(mem: Memory, texts: Sequence[str], *, scope: str, **fields: Any) -> list[Item]:
    """Remember each text in order with the same fields; returns the stored items."""
    return [mem.remember(t, scope=scope, **fields) for t in texts]


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of a generated conversation: who said what, and when."""

    speaker: str
    text: str
    at: datetime
    role: str = "user"
    meta: dict[str, Any] = field(default_factory=dict)


_TOPICS = (
    ("I moved to {place} last {month}.", "Oh nice, how do you like {place}?"),
    ("My sister {name} is visiting next week.", "Say hi to {name} from me!"),
    ("I started learning {skill}.", "How is {skill} going so far?"),
    ("We adopted a dog called {pet}.", "{pet} is a lovely name for a dog."),
    ("I'm allergic to {food}, so no {food} for me.", "Noted: no {food} at dinner."),
)
_FILL = {
    "place": ("Lisbon", "Denver", "Osaka", "Tallinn"),
    "month": ("March", "June", "October"),
    "name": ("Dana", "Priya", "Mei"),
    "skill": ("the cello", "Rust", "pottery"),
    "pet": ("Biscuit", "Miso", "Juniper"),
    "food": ("peanuts", "shellfish", "kiwi"),
}


def conversation(
    speakers: Sequence[str] = ("Alice", "Bob"),
    *,
    exchanges: int = 5,
    start: datetime = EPOCH,
    gap: timedelta = timedelta(minutes=2),
) -> list[Turn]:
    """A small deterministic two-party chat: ``exchanges`` statement/reply pairs, ``gap`` apart.

    The first speaker states personal facts (a move, a relative, a skill, a pet, an allergy),
    the second replies; the same arguments give the same turns.
    """
    if len(speakers) != 2:
        raise ValueError("conversation() takes exactly two speakers")
    turns: list[Turn] = []
    clock = _times(start, gap)
    for i in range(exchanges):
        statement, reply = _TOPICS[i % len(_TOPICS)]
        values = {k: v[i % len(v)] for k, v in _FILL.items()}
        turns.append(Turn(speakers[0], statement.format(**values), next(clock)))
        turns.append(Turn(speakers[1], reply.format(**values), next(clock), role="assistant"))
    return turns


def _times(start: datetime, gap: timedelta) -> Iterator[datetime]:
    for n in itertools.count():
        yield start + n * gap


def dream_host(mem: Memory) -> DreamHost:
    """The facade's ``DreamHost``, for tests that drive the pass's phases (plan, apply, lease) one by one."""
    return mem._dreaming


try:  # the fixtures need pytest; everything above works without it
    import pytest
except ImportError:  # pragma: no cover - pytest is a test-time dependency
    pass
else:

    @pytest.fixture
    def reverie_clock() -> ManualClock:
        """A ``ManualClock`` at ``EPOCH``; move it with ``advance(days=…, seconds=…)``."""
        return ManualClock(EPOCH)

    @pytest.fixture
    def reverie_mem(reverie_clock: ManualClock) -> Iterator[Memory]:
        """An in-memory ``Memory`` on ``reverie_clock``; after the test, ``doctor()`` must pass."""
        mem, _ = make_memory(clock=reverie_clock)
        try:
            yield mem
            report = mem.doctor()
            assert report.ok, f"doctor() found index problems after the test: {report.problems}"
        finally:
            mem.close()
