"""Corrections survive echoes (issue #13, item 1).

Reproduced on main: ``a = remember("Bob lives in Paris.", source="inferred")``, 30 days later
``revise(a.id, "Bob lives in Berlin.")``, 5 days later an extractor re-reads the old message and
remembers Paris again: a new live item was created, and recall could rank it first. Now the echo
is recorded as evidence on the superseded version (``memory.echoed``); only a stronger source or
an explicit later valid time brings the value back.
"""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from reverie import ManualClock, Memory

S = "user:bob"


def _corrected(mem: Memory, clock: ManualClock) -> tuple[str, str]:
    """Paris (inferred), corrected to Berlin 30 days later; the clock then moves 5 days on."""
    a = mem.remember("Bob lives in Paris.", scope=S, source="inferred", key="bob.city", value="Paris")
    clock.advance(days=30)
    b = mem.revise(a.id, "Bob lives in Berlin.", scope=S, value="Berlin")
    clock.advance(days=5)
    return a.id, b.id


def _current_texts(mem: Memory) -> list[str]:
    return sorted(i.text for i in mem.list(scope=S).items)


def test_echo_of_a_corrected_claim_is_evidence_on_the_superseded_version(any_mem: Memory, clock: ManualClock) -> None:
    old, new = _corrected(any_mem, clock)
    echo = any_mem.remember("Bob lives in Paris.", scope=S, source="inferred")
    assert echo.id == old  # the caller gets the superseded version back ...
    assert echo.status == "superseded" and not echo.is_current  # ... marked superseded ...
    assert "echoed" in echo.flags and echo.evidence_count == 2  # ... with the echo recorded on it
    assert _current_texts(any_mem) == ["Bob lives in Berlin."]
    assert [h.item.id for h in any_mem.recall("where does Bob live", scope=S)] == [new]


def test_echo_event_says_which_correction_it_echoes_and_why(any_mem: Memory, clock: ManualClock) -> None:
    old, new = _corrected(any_mem, clock)
    any_mem.remember("Bob lives in Paris.", scope=S, source="inferred")
    last = any_mem.events(scope=S)[-1]
    assert last.type == "memory.echoed"
    assert last.payload["id"] == old and last.payload["corrected_by"] == new
    assert last.payload["by_source"] == "inferred" and "does not outrank" in last.payload["reason"]
    assert last in any_mem.history(new, scope=S).events


def test_echo_in_other_case_and_punctuation_is_still_an_echo(any_mem: Memory, clock: ManualClock) -> None:
    old, _ = _corrected(any_mem, clock)
    for text in ("bob lives in paris", "BOB  LIVES IN PARIS!"):
        assert any_mem.remember(text, scope=S, source="observed").id == old
    assert any_mem.get(old, scope=S).evidence_count == 3
    assert _current_texts(any_mem) == ["Bob lives in Berlin."]


def test_echo_by_same_key_and_value_in_other_words_is_an_echo(any_mem: Memory, clock: ManualClock) -> None:
    old, _ = _corrected(any_mem, clock)
    echo = any_mem.remember("Bob's home town is Paris", scope=S, source="inferred", key="bob.city", value="paris")
    assert echo.id == old and echo.status == "superseded"
    assert _current_texts(any_mem) == ["Bob lives in Berlin."]


def test_echo_of_the_loser_of_a_resolved_conflict_stays_superseded(any_mem: Memory) -> None:
    paris = any_mem.remember("Carol is on call", scope=S, source="inferred")
    bob = any_mem.remember("Bob is on call", scope=S, source="user_stated")
    edge = any_mem.link(paris.id, bob.id, "contradicts", scope=S)
    any_mem.resolve(edge.id, keep=bob.id, scope=S)
    echo = any_mem.remember("Carol is on call.", scope=S, source="user_stated")
    assert echo.id == paris.id and echo.status == "superseded"
    assert _current_texts(any_mem) == ["Bob is on call"]


def test_a_person_reopens_what_an_inferred_revise_corrected(any_mem: Memory, clock: ManualClock) -> None:
    old, _ = _corrected(any_mem, clock)
    again = any_mem.remember_manual("Bob lives in Paris.", scope=S)
    assert again.id != old and again.is_current and again.source == "manual"
    assert _current_texts(any_mem) == ["Bob lives in Berlin.", "Bob lives in Paris."]


def test_a_source_no_stronger_than_a_users_word_does_not_reopen_a_correction(
    any_mem: Memory, clock: ManualClock
) -> None:
    a = any_mem.remember("Dan runs on Mondays", scope=S, source="user_stated")
    any_mem.revise(a.id, "Dan runs on Tuesdays", scope=S)
    assert any_mem.remember("Dan runs on Mondays", scope=S, source="user_stated").id == a.id
    assert any_mem.remember("Dan runs on Mondays", scope=S, source="observed").id == a.id


def test_a_valid_time_after_the_correction_reopens_it(any_mem: Memory, clock: ManualClock) -> None:
    old, _ = _corrected(any_mem, clock)
    stale = any_mem.remember(
        "Bob lives in Paris.", scope=S, source="inferred", valid_from=clock.now() - timedelta(days=60)
    )
    assert stale.id == old  # an old message's date is before the correction: still an echo
    moved_back = any_mem.remember("Bob lives in Paris.", scope=S, source="inferred", valid_from=clock.now())
    assert moved_back.id != old and moved_back.is_current


def test_echo_guard_survives_rebuild_and_reopen(open_mem: object, clock: ManualClock, db_path: Path) -> None:
    mem = Memory(db_path, embedder="hash", clock=clock, seed=0)
    old, _ = _corrected(mem, clock)
    mem.rebuild()
    assert mem.remember("Bob lives in Paris", scope=S, source="inferred").id == old
    mem.close()
    with Memory(db_path, embedder="hash", clock=clock, seed=1) as again:
        assert again.remember("bob lives in paris.", scope=S, source="observed").id == old
        assert again.doctor().ok


def test_purging_a_corrected_claim_erases_its_echo_guard(mem: Memory, clock: ManualClock, db_path: Path) -> None:
    old, new = _corrected(mem, clock)
    mem.forget(new, scope=S, purge=True)  # purges every version of the claim, the corrected one too
    rows = sqlite3.connect(db_path).execute("SELECT fp FROM fingerprints WHERE fp LIKE '%paris%'").fetchall()
    assert rows == []
    fresh = mem.remember("Bob lives in Paris.", scope=S, source="inferred")
    assert fresh.id != old and fresh.is_current  # nothing left to recognise it by


def test_export_import_carries_an_echo_onto_the_superseded_version(db_path: Path, clock: ManualClock) -> None:
    """Regression: the import skipped ``memory.echoed`` ("no public API to replay it"), so the copy
    lost the echo's evidence and flag — and with it the record that the correction was challenged."""
    import json

    from click.testing import CliRunner

    from reverie.cli import cli

    with Memory(db_path, embedder="hash", clock=clock, seed=0) as mem:
        old, _ = _corrected(mem, clock)
        mem.remember("Bob lives in Paris.", scope=S, source="inferred")
    env = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
    base = ["--db", str(db_path), "--embedder", "hash"]
    dump = CliRunner().invoke(cli, [*base, "--scope", S, "export"], env=env)
    assert dump.exit_code == 0, dump.stderr
    done = CliRunner().invoke(cli, [*base, "--scope", "user:copy", "--json", "import", "-"], env=env, input=dump.stdout)
    assert done.exit_code == 0, (done.stdout, done.stderr)
    report = json.loads(done.stdout)
    assert not any("echoed" in key for key in report["skipped"]), report["skipped"]
    assert report["items"].get("echoed") == 1, report["items"]
    with Memory(db_path, embedder="hash", clock=clock, seed=0) as mem:
        copies = mem.list(scope="user:copy", include_closed=True, limit=10).items
        current = [i.text for i in copies if i.is_current]
        echoed = [i for i in copies if "echoed" in i.flags]
        assert current == ["Bob lives in Berlin."]
        assert [(i.text, i.status, i.evidence_count) for i in echoed] == [("Bob lives in Paris.", "superseded", 2)]
        assert mem.get(old, scope=S).evidence_count == 2  # the source is untouched
