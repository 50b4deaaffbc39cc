"""A recap (and a history) is readable from a read-only store: computed as the idle release would
write it, marked ``written=False``, and nothing is written — the gap left open in issue #15.

Before: ``mem.recap`` released the idle conversation first, a write, so it raised ``ReadOnlyError``
on every read-only face.
"""

from __future__ import annotations

import hashlib
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from reverie import ManualClock, Memory, ReadOnlyError

SCOPE = "user:alice"


def fingerprint(db: Path) -> dict[str, str]:
    """The bytes of the store and its WAL (an empty WAL holds nothing)."""
    out = {}
    for suffix in ("", "-wal"):
        f = Path(str(db) + suffix)
        if f.exists() and f.stat().st_size:
            out[suffix or "db"] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def seed(db: Path, clock: ManualClock) -> None:
    """``old`` released (its recap written), then ``new`` left open, still active at the clock's time."""
    with Memory(db, embedder="hash", clock=clock, seed=1) as mem:
        mem.conversation("old", scope=SCOPE).add("We fixed the boiler on Monday.", speaker="Alice")
        clock.advance(hours=1)
        assert mem.recap(scope=SCOPE) is not None  # releases "old"
        conv = mem.conversation("new", scope=SCOPE, history_chars=150)
        conv.add("We chose the blue tiles for the kitchen.", speaker="Alice")
        for i in range(4):
            conv.add(f"Reply number {i}: the blue tiles arrive on Friday morning.", speaker="Bot", role="assistant")


def test_recap_on_a_read_only_store_computes_the_idle_recap_and_writes_nothing(tmp_path: Path) -> None:
    db, clock = tmp_path / "m.db", ManualClock()
    seed(db, clock)
    later = ManualClock(clock.now() + timedelta(hours=1))
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    before = fingerprint(db)
    with Memory(db, embedder="hash", clock=later, read_only=True) as ro:
        shown = ro.recap(scope=SCOPE)
        old = ro.recap(scope=SCOPE, conversation="old")
        one = ro.recap(scope=SCOPE, conversation="new")
    assert fingerprint(db) == before
    with Memory(copy, embedder="hash", clock=ManualClock(later.now())) as rw:
        written = rw.recap(scope=SCOPE)  # what a writable open writes at the same time
    assert shown is not None and written is not None and old is not None
    assert (shown.conversation, shown.written, written.written) == ("new", False, True)
    assert (shown.text, shown.session, shown.messages, shown.at) == (
        written.text,
        written.session,
        written.messages,
        written.at,
    )
    assert one == shown
    assert (old.conversation, old.written) == ("old", True) and "boiler" in old.text


def test_recap_on_a_read_only_store_before_the_idle_time_is_the_last_written_one(tmp_path: Path) -> None:
    db, clock = tmp_path / "m.db", ManualClock()
    seed(db, clock)
    with Memory(db, embedder="hash", clock=ManualClock(clock.now() + timedelta(minutes=5)), read_only=True) as ro:
        shown = ro.recap(scope=SCOPE)
        assert ro.recap(scope=SCOPE, conversation="new") is None
    assert shown is not None and (shown.conversation, shown.written) == ("old", True)


def test_history_and_state_on_a_read_only_store_show_the_release_without_writing(tmp_path: Path) -> None:
    db, clock = tmp_path / "m.db", ManualClock()
    seed(db, clock)
    before = fingerprint(db)
    with Memory(db, embedder="hash", clock=ManualClock(clock.now() + timedelta(hours=1)), read_only=True) as ro:
        conv = ro.conversation("new", scope=SCOPE, create=False, history_chars=150)
        assert conv.history() == [] and conv.state().released
        assert len(conv.entries()) == 5  # no recap was written
    assert fingerprint(db) == before


def test_a_history_summary_on_a_read_only_store_is_shown_unwritten(tmp_path: Path) -> None:
    db, clock = tmp_path / "m.db", ManualClock()
    seed(db, clock)
    before = fingerprint(db)
    with Memory(db, embedder="hash", clock=ManualClock(clock.now()), read_only=True) as ro:
        hist = ro.conversation("new", scope=SCOPE, create=False, history_chars=150).history()
    assert fingerprint(db) == before
    assert hist[0].kind == "summary" and hist[0].id == "" and "blue tiles" in hist[0].text
    with Memory(db, embedder="hash", clock=ManualClock(clock.now())) as rw:
        again = rw.conversation("new", scope=SCOPE, create=False, history_chars=150).history()
    assert again[0].id and (again[0].text, again[0].meta) == (hist[0].text, hist[0].meta)
    assert [e.id for e in again[1:]] == [e.id for e in hist[1:]]


def test_opening_an_existing_conversation_on_a_read_only_store_reads_it(tmp_path: Path) -> None:
    """Regression (outside tester, finding 15): ``conversation(id)`` with its default ``create=True``
    raised ``ReadOnlyError`` for a conversation that exists (it ran an "open", a write even when it
    resumes), so Python could not read what ``reverie --read-only conversation history`` shows."""
    db, clock = tmp_path / "m.db", ManualClock()
    seed(db, clock)
    before = fingerprint(db)
    with Memory(db, embedder="hash", clock=ManualClock(clock.now()), read_only=True) as ro:
        conv = ro.conversation("new", scope=SCOPE)
        assert conv.messages()[0].text == "We chose the blue tiles for the kitchen."
        assert not conv.state().released and conv.history()
        assert ro.conversation("old", scope=SCOPE).state().released
    assert fingerprint(db) == before


def test_a_new_conversation_on_a_read_only_store_is_still_refused(tmp_path: Path) -> None:
    db, clock = tmp_path / "m.db", ManualClock()
    seed(db, clock)
    before = fingerprint(db)
    ro = Memory(db, embedder="hash", clock=ManualClock(clock.now()), read_only=True)
    with ro, pytest.raises(ReadOnlyError):
        ro.conversation("never-opened", scope=SCOPE)
    assert fingerprint(db) == before
