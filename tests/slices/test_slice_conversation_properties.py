"""Round-trip property of the ``conversations`` section: any conversation history (messages, tool
calls, idle releases, closes, purges) exported and imported into an empty store reads the same up
to ids and numbering; importing it again, or bringing the copy home, writes nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.model.redact import REDACTED
from reverie.slice import Slice
from strategies import START

SCOPE, OTHER = "user:alice", "task:copy"
WORDS = ("lisbon", "tiles", "boiler", "flight", "garden", "Dana", "Omar", "booked", "moved", "likes")
SPEAKERS = (("Alice", "user"), ("Bob", "user"), ("Bot", "assistant"), (None, "system"))

steps = st.lists(
    st.one_of(
        st.tuples(st.just("say"), st.sampled_from(SPEAKERS), st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)),
        st.tuples(st.just("tool"), st.sampled_from(("search", "book")), st.sampled_from(("ok", "error"))),
        st.tuples(st.just("wait"), st.integers(0, 90)),
        st.tuples(st.just("release")),
        st.tuples(st.just("close")),
        st.tuples(st.just("purge"), st.integers(0, 20)),
    ),
    min_size=1,
    max_size=14,
)


def _play(mem: Memory, clock: ManualClock, script: list[tuple[Any, ...]]) -> None:
    for name in ("c", "d"):
        conv = mem.conversation(name, scope=SCOPE, history_chars=120)
        for step in script:
            if step[0] == "say":
                (speaker, role), words = step[1], step[2]
                conv.add(" ".join(words).capitalize() + ".", speaker=speaker, role=role)
                conv.history()  # a summary once the session outgrows 120 characters
            elif step[0] == "tool":
                conv.tool_call(step[1], args={"q": step[1]}, status=step[2])
            elif step[0] == "wait":
                clock.advance(minutes=step[1])
            elif step[0] == "release":
                conv.release()
            elif step[0] == "close":
                conv.close()
            else:
                said = [m for m in conv.messages() if m.text != REDACTED]
                if said:
                    conv.purge(said[step[1] % len(said)].id)
        script = script[::-1]  # a second, different conversation


def _said(mem: Memory, scope: str) -> dict[str, list[tuple[Any, ...]]]:
    """Each conversation's entries as they read, ids and numbering aside (purged ones never travel)."""
    out = {}
    for c in mem.conversations(scope=scope):
        rows = []
        for e in mem.conversation(c.id, scope=scope, create=False).entries():
            if e.text == REDACTED:
                continue
            meta = {k: v for k, v in e.meta.items() if k not in ("slice_origin", "from", "upto")}
            rows.append((e.kind, e.text, e.at, e.speaker, e.role, meta))
        out[c.id] = rows
    return out


def _numbered(mem: Memory, scope: str) -> None:
    """Positions 1..n, turns 1..m in order, each memory naming its message, each span inside the conversation."""
    store: Any = mem.store
    for c in mem.conversations(scope=scope):
        entries = store.conversation_entries(scope, c.id)
        assert [e.position for e in entries] == list(range(1, len(entries) + 1))
        turns = [e.turn for e in entries if e.kind == "message"]
        assert turns == list(range(1, len(turns) + 1))
        for e in entries:
            if e.covers is not None:
                assert e.covers[0] >= 1 and e.covers[1] < e.position, e
        messages = {e.id for e in entries if e.kind == "message" and e.text != REDACTED}
        for item in mem.list(scope=scope, limit=1000).items:
            if item.meta.get("conversation") == c.id and "message" in item.meta:
                assert item.meta["message"] in messages


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(script=steps)
def test_conversations_round_trip_and_come_home_without_writing(script: list[tuple[Any, ...]]) -> None:
    clock = ManualClock(START)
    with (
        Memory(":memory:", embedder="hash", clock=clock, seed=1) as src,
        Memory(":memory:", embedder="hash", clock=clock, seed=2) as dst,
    ):
        _play(src, clock, script)
        sl = src.export_slice(scope=SCOPE, include_conversations=True)
        report = dst.import_slice(Slice.from_json(sl.to_json()), scope=OTHER)
        assert not report.conflicts
        assert _said(dst, OTHER) == _said(src, SCOPE)
        _numbered(dst, OTHER)
        events = len(dst.events(scope=OTHER, limit=100_000))
        again = dst.import_slice(sl, scope=OTHER)
        assert again.created == [] and len(dst.events(scope=OTHER, limit=100_000)) == events
        home_events = len(src.events(scope=SCOPE, limit=100_000))
        home = src.import_slice(dst.export_slice(scope=OTHER, include_conversations=True), scope=SCOPE)
        assert home.created == [] and not home.conflicts
        assert len(src.events(scope=SCOPE, limit=100_000)) == home_events
        assert dst.doctor().ok
