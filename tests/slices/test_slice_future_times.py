"""A slice whose messages are dated past this clock's skew bound (a sender whose clock ran ahead).

Regression: ``import_slice`` appended a conversation's messages with their times unchecked, while a
live ``conv.add`` refuses one dated more than ``Limits.max_clock_skew_seconds`` after the clock's now:
the import left a conversation that refused every live message ("before the previous message")
until the clock caught up. Now the import refuses (``invalid_input`` naming the entry, its time, the
clock's now and the ways on; nothing written), and ``allow_future=True`` imports them as dated: the
conversation then takes live messages once the clock passes them or they are purged. Claims are
not bound: a claim may be valid from a future time (``valid_from``), here as in a live write.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from reverie import InvalidInputError, ManualClock, Memory

S = "team:ops"


def _export_from_a_clock_ahead(open_mem: Any, tmp_path: Path, clock: ManualClock, ahead: timedelta) -> Any:
    fast: Memory = open_mem(tmp_path / "fast.db", clock=ManualClock(clock.now() + ahead))
    conv = fast.conversation("boiler", scope=S)
    conv.add("The boiler was serviced today.", speaker="Alice")
    conv.add("It needs a new valve by June.", speaker="Bob")
    fast.remember("The new valve is fitted from June.", scope=S, valid_from=clock.now() + timedelta(days=60))
    return fast.export_slice(scope=S, include_conversations=True)


def test_regression_a_message_dated_past_the_skew_bound_is_refused_and_nothing_is_written(
    mem: Memory, open_mem: Any, tmp_path: Path, clock: ManualClock
) -> None:
    sl = _export_from_a_clock_ahead(open_mem, tmp_path, clock, timedelta(hours=2))
    first = sl.conversations[0].entries[0]
    with pytest.raises(InvalidInputError) as err:
        mem.import_slice(sl, scope=S)
    text = str(err.value)
    for part in (first.id, "'boiler'", first.at.isoformat(), clock.now().isoformat(), "allow_future=True"):
        assert part in text, (part, text)
    assert "Limits.max_clock_skew_seconds = 300" in text
    assert mem.store.events(S) == []


def test_allow_future_imports_them_as_dated_and_a_purge_lets_the_conversation_go_on(
    mem: Memory, open_mem: Any, tmp_path: Path, clock: ManualClock
) -> None:
    sl = _export_from_a_clock_ahead(open_mem, tmp_path, clock, timedelta(hours=2))
    report = mem.import_slice(sl, scope=S, allow_future=True)
    conv = mem.conversation("boiler", scope=S, create=False)
    assert [m.at for m in conv.messages()] == [e.at for e in sl.conversations[0].entries if e.kind == "message"]
    assert len(report.created) == 3
    with pytest.raises(InvalidInputError, match="purge"):
        conv.add("Did the valve arrive?", speaker="Alice")
    for m in conv.messages():
        conv.purge(m.id)
    assert conv.add("Did the valve arrive?", speaker="Alice").at == clock.now()


def test_messages_within_the_skew_bound_and_future_claims_import_as_before(
    mem: Memory, open_mem: Any, tmp_path: Path, clock: ManualClock
) -> None:
    sl = _export_from_a_clock_ahead(open_mem, tmp_path, clock, timedelta(seconds=120))
    report = mem.import_slice(sl, scope=S)
    assert len(report.created) == 3
    assert len(mem.conversation("boiler", scope=S, create=False).messages()) == 2


def test_allow_future_must_be_a_bool(mem: Memory, open_mem: Any, tmp_path: Path, clock: ManualClock) -> None:
    sl = _export_from_a_clock_ahead(open_mem, tmp_path, clock, timedelta(seconds=0))
    with pytest.raises(InvalidInputError, match="allow_future must be True or False"):
        mem.import_slice(sl, scope=S, allow_future="yes")  # type: ignore[arg-type]
