"""Random scripts of writes for the as_of property tests: one player, so the tests that compare
as_of reads (against ``get``, against the log scan without ``event_refs``) play the same writes.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import strategies as st

from reverie import ManualClock, Memory, ReverieError

NOUNS = ("deploy", "budget", "office", "printer")
WORDS = ("tuesday", "friday", "berlin", "green", "seven", "quiet")
#: (op, which item, word, importance, authority, minutes to advance after it)
Op = tuple[str, int, int, float, float, int]


def scripts(names: tuple[str, ...], max_size: int) -> st.SearchStrategy[list[Op]]:
    """Scripts of 1 to ``max_size`` writes drawn from ``names`` (see ``play`` for what each does)."""
    return st.lists(
        st.tuples(
            st.sampled_from(names),
            st.integers(0, 7),
            st.integers(0, len(WORDS) - 1),
            st.floats(0, 1),
            st.floats(0, 1),
            st.integers(0, 180),
        ),
        min_size=1,
        max_size=max_size,
    )


def play(mem: Memory, clock: ManualClock, script: list[Op], scope: str, *, between: bool = False) -> list[datetime]:
    """Run the script; the times to ask about: before the first step and after each (``between``:
    also a second before each step's successor, while the clock has moved on)."""
    made: list[str] = []
    times = [clock.now() - timedelta(minutes=1)]
    for n, (op, which, word, importance, authority, minutes) in enumerate(script):
        target = made[which % len(made)] if made else None
        text = f"The {NOUNS[which % len(NOUNS)]} note says {WORDS[word]}"
        try:
            if op == "remember" or target is None:
                made.append(mem.remember(text, scope=scope, importance=importance, authority=authority).id)
            elif op == "set_scores":
                mem.set_scores(target, scope=scope, importance=importance, authority=authority)
            elif op == "revise":
                made.append(mem.revise(target, f"{text} now {n}", scope=scope).id)
            elif op == "forget":
                mem.forget(target, scope=scope)
            elif op == "use":
                mem.recall(text, scope=scope)
            elif op == "tiers":
                mem.set_tiers({target: ("durable", "subconscious", "active")[word % 3]}, scope=scope)
            else:
                mem.forget(target, scope=scope, purge=True)
        except ReverieError:
            pass  # a closed target: refused, and nothing was written
        times.append(clock.now())
        clock.advance(minutes=minutes)
        if between:
            times.append(clock.now() - timedelta(seconds=1))
    return times
