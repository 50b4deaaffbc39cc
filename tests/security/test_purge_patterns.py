"""Purging the events behind a dream-pass pattern purges the pattern too (outside probe #14).

A pattern item quotes its example event with the numbers cut out ("The secret zorbex deploy
failed on build …") and links its events by ``derived_from`` edges, not ``parents``. The purge's
rule for the system's copies read only ``parents`` and only verbatim quotes, so purging every
event left both patterns current with the events' words (18 copies of the canary in the file)
and a ``memory.purged`` event whose ``copies`` and ``kept`` were empty. Now a system item linked
to a purged claim by ``derived_from`` is one of its copies when it quotes it, numbers aside.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reverie import Memory, Q
from reverie.model.redact import REDACTED

from .kit import everything_readable, found_on_disk
from .pattern_kit import SCOPE, patterns, weekly_events
from .pattern_kit import dream_at as _dream

TOKEN = "Zorbexq"


def _events(mem: Memory, n: int = 14) -> list[str]:
    return weekly_events(mem, TOKEN, n)


def _patterns(mem: Memory, *, closed: bool = False) -> list[str]:
    return sorted(p.id for p in patterns(mem, closed=closed))


def _purged_payloads(mem: Memory) -> list[dict[str, object]]:
    return [e.payload for e in mem.events(scope=SCOPE, limit=10_000) if e.type == "memory.purged"]


def test_purging_every_event_erases_the_patterns_made_from_them(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    db = tmp_path / "patterns.db"
    for mem in (open_mem(db), open_mem(reference=True)):
        ids = _events(mem)
        _dream(mem)
        patterns = _patterns(mem)
        assert patterns  # the test can fail: the pass made them
        for i in ids:
            mem.forget(i, scope=SCOPE, reason="erasure", purge=True)
        for p in patterns:
            got = mem.get(p, scope=SCOPE)
            assert (got.text, got.meta, got.is_current) == (REDACTED, {}, False)
        first = _purged_payloads(mem)[0]
        assert first["copies"] == patterns and first["kept"] == []
        assert all(p["copies"] == [] and p["kept"] == [] for p in _purged_payloads(mem)[1:])  # erased already
        assert TOKEN.casefold() not in everything_readable(mem, SCOPE)
    mem = open_mem(db)
    mem.close()
    assert found_on_disk(db, [TOKEN]) == {}


def test_purging_one_event_erases_the_pattern_quoting_it_and_the_next_pass_rebuilds_it(any_mem: Memory) -> None:
    ids = _events(any_mem)
    _dream(any_mem)
    patterns = _patterns(any_mem)
    any_mem.forget(ids[3], scope=SCOPE, reason="erasure", purge=True)
    (payload,) = _purged_payloads(any_mem)
    assert payload["copies"] == patterns  # every event reads the same with its number cut out
    assert _patterns(any_mem) == []
    _dream(any_mem, weeks=17)
    rebuilt = any_mem.list(scope=SCOPE, where=Q.kind("pattern"), limit=100).items
    assert rebuilt and all(p.meta["pattern"]["total"] == 13 for p in rebuilt)


def test_a_pattern_in_its_own_words_is_kept_and_named(any_mem: Memory) -> None:
    """A system item linked by ``derived_from`` that does not quote the purged claim stays (``kept``)."""
    ids = _events(any_mem, 6)
    other = any_mem.remember_system("An unrelated system summary", scope=SCOPE)
    any_mem.link(other.id, ids[0], "derived_from", scope=SCOPE)
    any_mem.forget(ids[0], scope=SCOPE, reason="erasure", purge=True)
    (payload,) = _purged_payloads(any_mem)
    assert payload["copies"] == [] and payload["kept"] == [other.id]
    assert any_mem.get(other.id, scope=SCOPE).text == "An unrelated system summary"
