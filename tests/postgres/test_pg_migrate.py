"""``reverie migrate``: a store with history, dismissals, contradictions and dream runs copied SQLite →
PostgreSQL → SQLite passes doctor each time and answers recall identically."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from reverie import ManualClock, Memory
from reverie.cli import cli
from strategies import START, state_of

QUERIES = ["what is Alice allergic to", "tea", "where does Bob live", "Lisbon move", "bees"]


def _fill(mem: Memory, clock: ManualClock) -> None:
    a = mem.remember("Alice is allergic to peanuts", scope="s", key="alice.allergy", value="peanuts")
    mem.remember("Alice is not allergic to peanuts", scope="s", key="alice.allergy", value="none")  # contradiction
    tea = mem.remember("Bob likes green tea", scope="s")
    clock.advance(days=3)
    mem.revise(tea.id, "Bob likes black tea", scope="s")
    bees = mem.remember("Bob keeps bees in Lisbon", scope="s")
    mem.remember("Bob lives in Porto", scope="s", key="bob.city", value="Porto")
    mem.dismiss(mem.remember("Bob lives on the moon", scope="s").id, scope="s")
    mem.link(a.id, bees.id, type="about", scope="s")
    mem.remember("Carol moved to Lisbon", scope="other")
    for k in range(12):
        mem.remember(f"Bob drinks tea at {k} o'clock with honey from his bees", scope="s")
    clock.advance(days=10)
    mem.dream(scope="s")
    mem.recall("tea", scope="s")  # a recorded use


def _answers(mem: Memory) -> list[list[tuple[str, float]]]:
    return [[(h.item.id, h.score) for h in mem.recall(q, scope="s", record_use=False)] for q in QUERIES]


def test_migrate_sqlite_to_postgres_and_back_keeps_every_answer(tmp_path: Path, pg_url: str) -> None:
    clock = ManualClock(START)
    src = tmp_path / "src.db"
    with Memory(src, embedder="hash", clock=clock, seed=1) as mem:
        _fill(mem, clock)
        before, answers = state_of(mem, "s"), _answers(mem)
        runs = mem.dream_runs(scope="s")
        assert mem.contradictions(scope="s") and mem.store.tombstones("s")
    result = CliRunner().invoke(cli, ["migrate", str(src), pg_url])
    assert result.exit_code == 0, result.output
    assert "doctor ok" in result.output
    with Memory(pg_url, embedder="hash", clock=clock) as pg:
        assert state_of(pg, "s") == before
        assert _answers(pg) == answers
        assert pg.dream_runs(scope="s") == runs
        assert pg.doctor().ok
    back = tmp_path / "back.db"
    result = CliRunner().invoke(cli, ["--json", "migrate", pg_url, str(back)])
    assert result.exit_code == 0, result.output
    with Memory(back, embedder="hash", clock=clock) as lite:
        assert state_of(lite, "s") == before
        assert _answers(lite) == answers
        assert lite.doctor().ok


def test_migrate_into_a_store_that_holds_data_is_refused(tmp_path: Path, pg_url: str) -> None:
    with Memory(tmp_path / "a.db", embedder="hash") as a:
        a.remember("one", scope="s")
    with Memory(pg_url, embedder="hash") as b:
        b.remember("two", scope="s")
    result = CliRunner().invoke(cli, ["migrate", str(tmp_path / "a.db"), pg_url])
    assert result.exit_code != 0 and "already holds a store" in result.output
    with Memory(pg_url, embedder="hash") as b:
        assert [i.text for i in b.list(scope="s").items] == ["two"]


def _plans(mem: Memory) -> tuple[list[str], list[tuple[str, str, str]], list[str], list[str], list[tuple[str, str]]]:
    """The scopes, and ``plans``'s intents, tasks, conversations and whole log (ids, types, order)."""
    return (
        mem.scopes(),
        [(i.id, i.label, i.status) for i in mem.intents.list(scope="plans")],
        [t.id for t in mem.tasks.list(scope="plans")],
        [c.id for c in mem.conversations(scope="plans")],
        [(e.id, e.type) for e in mem.events(scope="plans")],
    )


def test_migrate_both_ways_keeps_a_scope_holding_intents_and_a_conversation_but_no_item(
    tmp_path: Path, pg_url: str
) -> None:
    """Regression (outside probe): only the scopes holding items were copied, so such a scope was lost."""
    src = tmp_path / "src.db"
    with Memory(src, embedder="hash") as mem:
        mem.remember("Alice is allergic to peanuts", scope="s")
        intent = mem.intents.create("Ship the billing report", scope="plans")
        mem.tasks.create("Draft the summary table", scope="plans", intent=intent)
        mem.conversation("support-42", scope="plans")
        before = _plans(mem)
    assert before[1] and before[2] and before[3] == ["support-42"] and len(before[4]) == 3
    back = tmp_path / "back.db"
    for a, b in ((str(src), pg_url), (pg_url, str(back))):
        result = CliRunner().invoke(cli, ["migrate", a, b])
        assert result.exit_code == 0, result.output
        assert "2 scopes" in result.output and "doctor ok" in result.output, result.output
        with Memory(b, embedder="hash") as copy:
            assert _plans(copy) == before
            assert copy.doctor().ok
