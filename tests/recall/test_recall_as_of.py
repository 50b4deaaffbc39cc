"""``recall(as_of=T)`` answers with each item as it stood at T, on every backend and face.

Regression (outside probe, finding 3): a point-in-time recall found the right candidates but
ranked and returned them as they are *now* — today's importance and authority decided the order,
and a claim revised after T came back ``superseded`` with a ``closed_at`` later than T — while
``get(id, as_of=T)`` (which replays the item's events up to T) was right. The two "what did we
believe then" reads must agree: every hit is ``get(hit.id, as_of=T)``, and nothing that was not
believed at T (created later, closed before, purged) is ever in the answer.
"""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from as_of_script import Op, play, scripts
from click.testing import CliRunner
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from mcp import Client

from reverie import ManualClock, Memory, ReverieError
from reverie.cli import cli
from reverie.http import create_app
from reverie.mcp import build_server
from reverie.model.item import Item
from reverie.model.redact import PURGED_FLAG, REDACTED
from reverie.store.reference import ReferenceStore
from strategies import START

S = "u"


def _ids(hits: list[Any]) -> list[str]:
    return [h.item.id for h in hits]


def _swapped_scores(mem: Memory, clock: ManualClock) -> tuple[Item, Item, datetime]:
    """The probe's scene: Tuesday trusted and important, Thursday not; swapped a day after T1."""
    tuesday = mem.remember("The deploy window is Tuesday", scope=S, importance=0.95, authority=0.9)
    thursday = mem.remember("The deploy window is Thursday", scope=S, importance=0.05, authority=0.1)
    clock.advance(days=1)
    t1 = clock.now()
    clock.advance(days=1)
    mem.set_scores(tuesday.id, scope=S, importance=0.05, authority=0.1)
    mem.set_scores(thursday.id, scope=S, importance=0.95, authority=0.9)
    return tuesday, thursday, t1


def _assert_as_they_stood(mem: Memory, hits: list[Any], when: datetime) -> None:
    for h in hits:
        assert h.item == mem.get(h.item.id, scope=S, as_of=when)
        assert h.item.believed_at(when)


def test_recall_as_of_ranks_by_the_scores_items_had_then(any_mem: Memory, clock: ManualClock) -> None:
    tuesday, thursday, t1 = _swapped_scores(any_mem, clock)
    then = any_mem.recall("deploy window", scope=S, as_of=t1, record_use=False)
    assert _ids(then) == [tuesday.id, thursday.id]
    assert then[0].item.scores.importance == 0.95 and then[0].item.scores.authority == 0.9
    assert then[0].why["importance"] == 0.95
    _assert_as_they_stood(any_mem, then, t1)
    now = any_mem.recall("deploy window", scope=S, record_use=False)
    assert _ids(now) == [thursday.id, tuesday.id]  # today's answer is the other way round


def test_recall_as_of_reports_a_later_revision_as_not_yet_made(any_mem: Memory, clock: ManualClock) -> None:
    paris = any_mem.remember("Alice lives in Paris", scope=S)
    clock.advance(days=1)
    t2 = clock.now()
    clock.advance(days=1)
    berlin = any_mem.revise(paris.id, "Alice lives in Berlin", scope=S)
    hits = any_mem.recall("where does Alice live", scope=S, as_of=t2, record_use=False)
    assert _ids(hits) == [paris.id]
    assert hits[0].item.status == "live" and hits[0].item.closed_at is None
    _assert_as_they_stood(any_mem, hits, t2)
    assert _ids(any_mem.recall("where does Alice live", scope=S, record_use=False)) == [berlin.id]


def test_recall_as_of_sees_validity_as_it_was_believed(any_mem: Memory, clock: ManualClock) -> None:
    """A change in the world learned after T (revise with a ``valid_from`` before T) did not end
    the old claim at T: then we believed it, open-ended."""
    acme = any_mem.remember("Alice works at Acme", scope=S, valid_from=START - timedelta(days=400))
    clock.advance(days=10)
    t = clock.now()
    clock.advance(days=1)
    any_mem.revise(acme.id, "Alice works at Globex", scope=S, valid_from=START + timedelta(days=5))
    hits = any_mem.recall("where does Alice work", scope=S, as_of=t, record_use=False)
    assert _ids(hits) == [acme.id]
    assert hits[0].item.valid_to is None
    _assert_as_they_stood(any_mem, hits, t)


def test_recall_as_of_never_returns_later_or_purged_items(any_mem: Memory, clock: ManualClock) -> None:
    kept = any_mem.remember("The wifi password is hunter2", scope=S)
    purged = any_mem.remember("The wifi password is swordfish", scope=S)
    gone = any_mem.remember("The wifi password is opensesame", scope=S)
    clock.advance(days=1)
    any_mem.forget(gone.id, scope=S)  # closed before T: not believed then
    clock.advance(days=1)
    t = clock.now()
    clock.advance(days=1)
    later = any_mem.remember("The wifi password is letmein", scope=S)
    any_mem.forget(purged.id, scope=S, purge=True)
    any_mem.forget(kept.id, scope=S)  # closed after T: believed then, and live then
    hits = any_mem.recall("wifi password", scope=S, as_of=t, record_use=False)
    assert _ids(hits) == [kept.id]
    assert hits[0].item.status == "live"
    _assert_as_they_stood(any_mem, hits, t)
    assert later.id in _ids(any_mem.recall("wifi password", scope=S, as_of=clock.now(), record_use=False))


def test_recall_as_of_filters_on_authority_as_it_was(any_mem: Memory, clock: ManualClock) -> None:
    tuesday, _, t1 = _swapped_scores(any_mem, clock)
    hits = any_mem.recall("deploy window", scope=S, as_of=t1, min_authority=0.5, record_use=False)
    assert _ids(hits) == [tuesday.id]


def test_recall_as_of_flags_only_conflicts_open_then(any_mem: Memory, clock: ManualClock) -> None:
    tea = any_mem.remember("Bob drinks green tea every morning", scope=S)
    coffee = any_mem.remember("Bob drinks black coffee every morning", scope=S)
    clock.advance(days=1)
    t = clock.now()
    clock.advance(days=1)
    any_mem.link(tea.id, coffee.id, "contradicts", scope=S)
    now = any_mem.recall("what does Bob drink every morning", scope=S, record_use=False)
    assert all(h.contradicted_by for h in now)
    then = any_mem.recall("what does Bob drink every morning", scope=S, as_of=t, record_use=False)
    assert sorted(_ids(then)) == sorted([tea.id, coffee.id])
    assert all(h.contradicted_by == () for h in then)


def test_recall_as_of_is_a_look_at_the_past_and_records_no_use(any_mem: Memory, clock: ManualClock) -> None:
    """An audit of what was believed is not a use of today's memory: no value, decay or graduation
    moves because someone looked at the past (``context`` with ``as_of`` neither)."""
    tuesday, thursday, t1 = _swapped_scores(any_mem, clock)
    hits = any_mem.recall("deploy window", scope=S, as_of=t1)
    assert hits and not any(h.why["counts_as_use"] for h in hits)
    any_mem.context("deploy window", scope=S, as_of=t1)
    for item in (tuesday, thursday):
        assert any_mem.get(item.id, scope=S).use_count == 0
    assert any(h.why["counts_as_use"] for h in any_mem.recall("deploy window", scope=S))


# -- every face ------------------------------------------------------------------------------------


def _seeded_file(path: Path) -> tuple[str, str, str]:
    """The probe's scene on a SQLite file; the ids (Tuesday, Thursday) and T1 as ISO-8601."""
    clock = ManualClock(START)
    with Memory(path, embedder="hash", clock=clock, seed=0) as mem:
        tuesday, thursday, t1 = _swapped_scores(mem, clock)
    return tuesday.id, thursday.id, t1.isoformat()


def _order_and_importance(hits: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """(id, importance) of each hit; MCP's hits are the item's fields themselves, flat."""
    items = [h.get("item", h) for h in hits]
    return [(i["id"], i["scores"]["importance"]) for i in items]


def test_cli_recall_as_of_answers_as_items_stood_then(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    tuesday, thursday, t1 = _seeded_file(db)
    head = ["--db", str(db), "--embedder", "hash", "--scope", S, "--json"]
    env = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
    result = CliRunner().invoke(cli, [*head, "recall", "deploy window", "--as-of", t1], env=env)
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)["hits"]
    assert _order_and_importance(hits) == [(tuesday, 0.95), (thursday, 0.05)]
    assert hits[0]["item"]["status"] == "live"


def test_http_recall_as_of_answers_as_items_stood_then(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    tuesday, thursday, t1 = _seeded_file(db)
    with Memory(db, embedder="hash") as mem, TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        r = client.post(f"/v1/scopes/{S}/recall", json={"query": "deploy window", "as_of": t1})
        assert r.status_code == 200, r.text
        assert _order_and_importance(r.json()["hits"]) == [(tuesday, 0.95), (thursday, 0.05)]


def test_mcp_recall_as_of_answers_as_items_stood_then(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    tuesday, thursday, t1 = _seeded_file(db)

    async def call(mem: Memory) -> dict[str, Any]:
        async with Client(build_server(mem), mode="legacy", raise_exceptions=True) as client:
            result = await client.call_tool("recall", {"query": "deploy window", "scope": S, "as_of": t1})
        assert not result.is_error, result.content
        payload: dict[str, Any] = json.loads(result.content[0].text)
        return payload

    with Memory(db, embedder="hash") as mem:
        hits = anyio.run(call, mem)["hits"]
    assert _order_and_importance(hits) == [(tuesday, 0.95), (thursday, 0.05)]


# -- property: recall as of T agrees with get as of T -----------------------------------------------

SCRIPTS = scripts(("remember", "remember", "set_scores", "revise", "forget", "purge"), max_size=14)


def _believed_then(mem: Memory, item_id: str, when: datetime) -> bool:
    try:
        return mem.get(item_id, scope=S, as_of=when).believed_at(when)
    except ReverieError:
        return False


def _check_agrees_with_get(mem: Memory, times: list[datetime]) -> None:
    """Every hit is ``get(id, as_of=T)`` and was believed at T; nothing purged ever comes back; and
    every item believed at T is found by a word all of them share. (SQLite used to rank its current
    and history full-text tables each on its own statistics, so a word in every current row scored
    ~0 beside a history row and the lexical floor dropped it: ``store/sqlite/fts_union.py``.)
    """
    rows = mem.list(scope=S, include_closed=True, limit=100).items
    every = [i.id for i in rows]
    purged = {i.id for i in rows if PURGED_FLAG in i.flags}  # a purge erases every version of the claim
    assert purged or all(i.text != REDACTED for i in rows)
    for when in times:
        hits = mem.recall("note", scope=S, k=50, as_of=when, mode="lexical", record_use=False)
        assert not purged & set(_ids(hits))
        _assert_as_they_stood(mem, hits, when)
        expected = {i for i in every if i not in purged and _believed_then(mem, i, when)}
        assert set(_ids(hits)) == expected, when
        hybrid = mem.recall("deploy note tuesday", scope=S, k=5, as_of=when, record_use=False)
        assert not purged & set(_ids(hybrid))
        _assert_as_they_stood(mem, hybrid, when)


PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(script=SCRIPTS)
def test_recall_as_of_agrees_with_get_as_of_on_sqlite(script: list[Op]) -> None:
    clock = ManualClock(START)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "p.db", embedder="hash", clock=clock, seed=0, durability="fast") as mem,
    ):
        _check_agrees_with_get(mem, play(mem, clock, script, S, between=True))


@PROPERTY
@given(script=SCRIPTS)
def test_recall_as_of_agrees_with_get_as_of_on_the_reference_store(script: list[Op]) -> None:
    clock = ManualClock(START)
    with Memory(store=ReferenceStore(), embedder="hash", clock=clock, seed=0) as mem:
        _check_agrees_with_get(mem, play(mem, clock, script, S, between=True))
