"""Claims whose validity has not started are not current truth (outside tester, finding 9).

Reproduced on main: ``revise(bob, "Carol is the CEO", valid_from=2099)`` and then ``recall("who
is the CEO")`` answered Bob *and* Carol, and ``list()`` showed Carol: current truth left out only
claims whose validity had ended. Now "what is true now" (``list()``, ``recall()``, ``context()``)
holds a claim only from its ``valid_from`` on — by the Memory's clock, never the wall clock, and
including a claim that starts exactly now. Such a claim stays readable with ``valid_at`` in its
period, by id, in ``history()`` and with ``include_closed``; ``summary()`` counts it apart;
``contradictions()`` still lists its conflicts; a dream pass neither forgets nor demotes it (it
cannot have been used yet); and a statement true now does not corroborate it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from reverie import ManualClock, Memory
from reverie.cli import cli
from reverie.dream import DreamConfig

S = "team:f"
Y2099 = datetime(2099, 1, 1, tzinfo=UTC)
CLEAN_ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}


def _ceo(mem: Memory, clock: ManualClock, start: datetime) -> tuple[str, str]:
    bob = mem.remember("Bob is the CEO", scope=S)
    clock.advance(minutes=1)
    carol = mem.revise(bob.id, "Carol is the CEO", scope=S, valid_from=start)
    return bob.id, carol.id


def _texts(mem: Memory, **kwargs: Any) -> list[str]:
    return sorted(i.text for i in mem.list(scope=S, **kwargs).items)


def _recalled(mem: Memory, query: str, **kwargs: Any) -> list[str]:
    return [h.item.text for h in mem.recall(query, scope=S, **kwargs)]


def test_the_tester_case_a_ceo_from_2099_is_not_the_ceo_now(any_mem: Memory, clock: ManualClock) -> None:
    bob, carol = _ceo(any_mem, clock, Y2099)
    assert _texts(any_mem) == ["Bob is the CEO"]
    assert _recalled(any_mem, "who is the CEO") == ["Bob is the CEO"]
    assert "Carol" not in any_mem.context("who is the CEO", scope=S)
    # still there: in its period, by id, in history, with closed and future claims
    assert _texts(any_mem, valid_at=datetime(2099, 6, 1, tzinfo=UTC)) == ["Carol is the CEO"]
    assert _recalled(any_mem, "who is the CEO", valid_at=datetime(2099, 6, 1, tzinfo=UTC)) == ["Carol is the CEO"]
    assert any_mem.get(carol, scope=S).status == "live"
    assert [v.id for v in any_mem.history(carol, scope=S).versions] == [bob, carol]
    assert _texts(any_mem, include_closed=True) == ["Bob is the CEO", "Carol is the CEO"]


def test_the_memory_clock_decides_and_a_claim_starting_now_is_current(any_mem: Memory, clock: ManualClock) -> None:
    # START is 2025: by the wall clock this start is long past, by the Memory's clock it is a week ahead.
    start = clock.now() + timedelta(days=7)
    _ceo(any_mem, clock, start)
    assert _texts(any_mem) == ["Bob is the CEO"]
    clock.set(start - timedelta(microseconds=1))
    assert _texts(any_mem) == ["Bob is the CEO"]
    clock.set(start)  # valid from exactly now: current; Bob's validity ended exactly now: not
    assert _texts(any_mem) == ["Carol is the CEO"]
    assert _recalled(any_mem, "who is the CEO") == ["Carol is the CEO"]
    assert "Carol is the CEO" in any_mem.context("who is the CEO", scope=S)


def test_a_claim_remembered_for_later_appears_when_it_starts(any_mem: Memory, clock: ManualClock) -> None:
    start = clock.now() + timedelta(days=3)
    any_mem.remember("The dentist appointment is at noon", scope=S, valid_from=start)
    now = any_mem.remember("The dentist is Dr Ames", scope=S, valid_from=clock.now())  # starts exactly now
    assert _texts(any_mem) == [now.text]
    assert _recalled(any_mem, "dentist appointment") == [now.text]
    clock.advance(days=3)
    assert _texts(any_mem) == ["The dentist appointment is at noon", now.text]


def test_summary_counts_believed_claims_outside_their_validity_apart(any_mem: Memory, clock: ManualClock) -> None:
    _ceo(any_mem, clock, clock.now() + timedelta(days=7))  # Bob until then, Carol from then
    any_mem.remember("Alice has a cold", scope=S, valid_to=clock.now() + timedelta(days=1))
    clock.advance(days=2)  # the cold is over; Carol has not started
    summary = any_mem.summary(scope=S)
    assert (summary["current"], summary["not_yet_valid"], summary["ended"]) == (3, 1, 1), summary
    assert len(any_mem.list(scope=S).items) == summary["current"] - summary["not_yet_valid"] - summary["ended"]


def test_contradictions_still_list_a_conflict_with_a_claim_not_yet_valid(any_mem: Memory, clock: ManualClock) -> None:
    a = any_mem.remember("The office is in Leeds", scope=S)
    b = any_mem.remember("The office is in York", scope=S, valid_from=clock.now() + timedelta(days=30))
    edge = any_mem.link(b.id, a.id, "contradicts", scope=S)
    assert [c.edge_id for c in any_mem.contradictions(scope=S)] == [edge.id]


def test_a_statement_true_now_does_not_corroborate_a_claim_not_yet_valid(any_mem: Memory, clock: ManualClock) -> None:
    start = clock.now() + timedelta(days=7)
    _, carol = _ceo(any_mem, clock, start)
    now = any_mem.remember("Carol is the CEO", scope=S)
    assert now.id != carol and now.is_current and any_mem.get(carol, scope=S).evidence_count == 1
    assert "Carol is the CEO" in _texts(any_mem)
    # a statement of the same period (or a later start) is the same claim
    again = any_mem.remember("Carol is the CEO", scope=S, valid_from=start + timedelta(days=1))
    assert again.id == carol and again.evidence_count == 2


def test_a_dream_pass_neither_demotes_nor_forgets_a_claim_not_yet_valid(any_mem: Memory, clock: ManualClock) -> None:
    later = any_mem.remember("The keynote is on the main stage", scope=S, valid_from=clock.now() + timedelta(days=365))
    idle = any_mem.remember("The lobby has a plant", scope=S)
    clock.advance(days=90)
    report = any_mem.dream(scope=S, config=DreamConfig(keep_budget=0))
    assert any_mem.get(later.id, scope=S).is_current and any_mem.get(later.id, scope=S).tier == "active"
    assert not any_mem.get(idle.id, scope=S).is_current  # the control: an idle current claim goes
    reasons = [s["reason"] for s in report.to_dict()["spared"] if s["id"] == later.id]
    assert reasons and all("not valid until" in r for r in reasons), report.to_dict()["spared"]


def test_cli_list_leaves_out_a_claim_valid_from_2099(tmp_path: Path) -> None:
    db = tmp_path / "reverie.db"

    def cli_json(*args: str) -> Any:
        head = ["--db", str(db), "--embedder", "hash", "--scope", S, "--json"]
        result = CliRunner().invoke(cli, [*head, *args], env=CLEAN_ENV)
        assert result.exit_code == 0, (result.output, result.exception)
        return json.loads(result.stdout)

    cli_json("remember", "Bob is the CEO")
    cli_json("remember", "Carol is the CEO", "--valid-from", "2099-01-01")
    assert [i["text"] for i in cli_json("list")["items"]] == ["Bob is the CEO"]
    then = sorted(i["text"] for i in cli_json("list", "--valid-at", "2099-06-01")["items"])
    assert then == ["Bob is the CEO", "Carol is the CEO"]  # Bob's claim has no end
    assert cli_json("summary")["not_yet_valid"] == 1
