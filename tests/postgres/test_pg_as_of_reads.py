"""PostgreSQL's point-in-time reads: the log's index (schema 6) and one ranking of current and closed rows.

Why: replaying an item for ``get(id, as_of=T)`` / ``recall(as_of=T)`` found its events by testing
every payload of the scope (``strpos``), once per replayed item; schema 6 indexes each payload's
UUID strings, and the store still applies its exact test to the events the index names. The
first test holds that to the scan's answer for every item of a store with revisions, forgets, a
purge and uses. The second pins the lexical leg of history / ``as_of`` recall: current and closed
rows ranked as one collection (their statistics summed) score as a scope holding the same texts,
all current, does (it ranked the two sets each on its own statistics, so their scores did not
compare; ``tests/recall/test_history_lexical_one_ranking.py`` is the SQLite twin).
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from reverie import ManualClock, Memory
from reverie.store.postgres.schema import SCHEMA_VERSION
from reverie.store.postgres.store import _ABOUT_ITEM, _EVENTS
from strategies import START

S = "u"


def test_events_of_an_item_are_the_scans_events(pg_url: str) -> None:
    clock = ManualClock(START)
    with Memory(pg_url, embedder="hash", clock=clock, seed=0) as mem:
        a = mem.remember("The deploy note says tuesday", scope=S, importance=0.9)
        b = mem.remember("The budget note says berlin", scope=S)
        c = mem.remember("The printer note says green", scope=S, parents=[a.id])
        clock.advance(hours=1)
        mem.set_scores(a.id, scope=S, importance=0.1)
        a2 = mem.revise(a.id, "The deploy note says friday", scope=S)
        mem.recall("note", scope=S)  # a use
        clock.advance(hours=1)
        mem.forget(b.id, scope=S)
        mem.forget(c.id, scope=S, purge=True)
        a3 = mem.revise(a2.id, "The deploy note says quiet", scope=S)
        mem.set_tiers({a3.id: "durable", b.id: "subconscious"}, scope=S)  # one event, a list of ids
        ids = [i.id for i in mem.list(scope=S, include_closed=True, limit=100).items]
        got = {i: [e.to_dict() for e in mem.store.events(S, item_id=i, limit=10_000)] for i in ids}
    assert len(ids) >= 4
    scan = f"{_EVENTS} WHERE scope = %s AND strpos(payload, %s) > 0 AND {_ABOUT_ITEM} ORDER BY seq"  # nosec B608
    with psycopg.connect(pg_url) as conn:
        for item_id in ids:
            rows = conn.execute(scan, [S, item_id, *[item_id] * _ABOUT_ITEM.count("%s")]).fetchall()
            assert [e["seq"] for e in got[item_id]] == [r[0] for r in rows], item_id
            assert rows  # every item has at least the event that made it
        names = [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'events'")]
    assert "events_by_ref" in names


TEXTS = [
    "The deploy note says tuesday",
    "The budget note says berlin",
    "The printer note says green and green",
    "The office note says seven",
    "A long note about the deploy window, the printer queue and the office plants in berlin",
    "Nothing to see here",
]
MATCHES = ['"note"', '"note" OR "berlin"', '"green" OR "note" OR "printer"', '"deploy note"', '"note" AND "berlin"']


def _by_text(mem: Memory, scope: str, match: str) -> list[tuple[str, float]]:
    hits = mem.store.lexical(scope, match, limit=100, current_only=False)
    texts = {i.id: i.text for i in mem.list(scope=scope, include_closed=True, limit=100).items}
    return [(texts[i], s) for i, s in hits]


def test_closed_and_current_rows_share_one_bm25(pg_url: str, tmp_path: Path) -> None:
    clock = ManualClock(START)
    with Memory(pg_url, embedder="hash", clock=clock, seed=0) as mem:
        made = [mem.remember(t, scope=S) for t in TEXTS[:4]]
        clock.advance(hours=1)
        t = clock.now()
        clock.advance(hours=1)
        mem.revise(made[0].id, TEXTS[4], scope=S)
        mem.forget(made[1].id, scope=S)
        mem.remember(TEXTS[5], scope=S)
        for text in TEXTS:
            mem.remember(text, scope="one")  # the oracle: the same texts, all current, in a scope of their own
        for m in MATCHES:
            got, want = _by_text(mem, S, m), _by_text(mem, "one", m)
            assert [x for x, _ in got] == [x for x, _ in want], m
            assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12), m
        then = mem.recall("note", scope=S, k=10, as_of=t, mode="lexical", record_use=False)
        assert {h.item.id for h in then} == {i.id for i in made}


def test_a_schema_5_database_gains_the_log_index_in_place(pg_url: str) -> None:
    with Memory(pg_url, embedder="hash") as mem:
        a = mem.remember("The deploy note says tuesday", scope=S)
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("DROP INDEX events_by_ref")
        c.execute("DROP FUNCTION reverie_event_refs(text)")
        c.execute("UPDATE settings SET v = '5' WHERE k = 'schema_version'")
    with Memory(pg_url, embedder="hash") as mem:
        assert [e.type for e in mem.store.events(S, item_id=a.id)] == ["memory.remembered"]
    with psycopg.connect(pg_url) as c:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        assert c.execute("SELECT count(*) FROM pg_indexes WHERE indexname = 'events_by_ref'").fetchone() == (1,)
