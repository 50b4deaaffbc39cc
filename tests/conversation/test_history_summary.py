"""History: recent entries verbatim, everything older than the threshold folded into one summary."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.model import events as ev

SCOPE = "user:alice"


def _fill(conv: object, n: int) -> None:
    for i in range(n):
        conv.add(f"Turn {i}: the budget for project {i} is {i * 100} euros.", speaker="Alice" if i % 2 else "Bob")  # type: ignore[attr-defined]


def test_under_the_threshold_the_history_is_verbatim(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE, history_chars=10_000)
    _fill(conv, 10)
    assert [e.kind for e in conv.history()] == ["message"] * 10


def test_over_the_threshold_older_entries_become_one_summary(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE, history_chars=400)
    _fill(conv, 30)
    hist = conv.history()
    assert hist[0].kind == "summary" and all(e.kind == "message" for e in hist[1:])
    assert sum(len(e.text) for e in hist[1:]) <= 400
    assert hist[-1].text.startswith("Turn 29:")  # the newest is always kept
    start, upto = hist[0].covers or (0, 0)
    assert (start, upto + 1) == (1, hist[1].position)  # the summary stands for exactly what is not shown
    assert all(line.split(": ", 1)[0] in ("Alice", "Bob") for line in hist[0].text.splitlines())


def test_a_summary_is_an_event_and_is_not_rewritten_on_every_read(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE, history_chars=400)
    _fill(conv, 30)
    conv.history()
    conv.history()
    conv.add("one more short line", speaker="Alice")
    conv.history()
    summaries = [e for e in mem.events(scope=SCOPE) if e.type == ev.SUMMARIZED]
    assert len(summaries) == 1


def test_the_default_threshold_is_60000_characters(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    assert conv.history_chars == 60_000


@settings(max_examples=15, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=300), min_size=1, max_size=25), threshold=st.integers(100, 900)
)
def test_history_never_shows_more_than_the_threshold_plus_one_summary(sizes: list[int], threshold: int) -> None:
    mem = Memory(":memory:", embedder="hash", clock=ManualClock(), seed=0)
    conv = mem.conversation("c", scope=SCOPE, history_chars=threshold)
    for i, n in enumerate(sizes):
        conv.add(("word " * n)[:n].strip() or "w", speaker="A")
        hist = conv.history()
        shown = [e for e in hist if e.kind != "summary"]
        assert shown and shown[-1].turn == i + 1  # the newest message is always there
        assert sum(len(e.text) for e in shown) <= max(threshold, len(shown[-1].text))
        assert [e.kind for e in hist].count("summary") <= 1
        positions = [e.position for e in shown]
        assert positions == sorted(positions)
    mem.close()
