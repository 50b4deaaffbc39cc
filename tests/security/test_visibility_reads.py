"""Issue #14.8, one read path per test: a claim visible only to some principals never reaches others.

Each test would fail on the code before visibility existed (no ``visibility=``, no principal).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import ManualClock, Memory, NotFoundError
from reverie.errors import InvalidInputError, NotPermittedError
from strategies import START

from .kit import dump

SCOPE = "team:ops"


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "vis.db", embedder="hash", clock=ManualClock(START), seed=3)
    yield m
    m.close()


def test_recall_never_returns_a_claim_hidden_from_the_principal(mem: Memory) -> None:
    mem.remember("the deploy key rotates on mondays", scope=SCOPE)
    secret = mem.remember("the deploy key is hunter2zq", scope=SCOPE, visibility=["agent:ops"])
    other = mem.as_principal("agent:intern")
    hits = other.recall("deploy key hunter2zq", scope=SCOPE, k=10, record_use=False)
    assert secret.id not in {h.item.id for h in hits}
    assert "hunter2zq" not in dump([h.item.to_dict() for h in hits])
    assert "hunter2zq" not in other.context("deploy key hunter2zq", scope=SCOPE)
    assert secret.id in {h.item.id for h in mem.as_principal("agent:ops").recall("hunter2zq", scope=SCOPE)}


def test_hidden_better_matches_do_not_crowd_visible_ones_out_of_the_lexical_pool(mem: Memory) -> None:
    for n in range(30):
        mem.remember(f"quokka quokka quokka private {n}", scope=SCOPE, visibility=["agent:ops"])
    public = mem.remember("a quokka was seen", scope=SCOPE)
    hits = mem.as_principal("agent:intern").recall("quokka", scope=SCOPE, k=1, mode="lexical", record_use=False)
    assert [h.item.id for h in hits] == [public.id]


def test_get_and_writes_on_a_hidden_claim_say_not_found_as_for_an_absent_id(mem: Memory) -> None:
    secret = mem.remember("salary band is 7", scope=SCOPE, visibility=["user:hr"])
    other = mem.as_principal("agent:intern")
    with pytest.raises(NotFoundError) as hidden:
        other.get(secret.id, scope=SCOPE)
    assert str(hidden.value) == f"no item {secret.id} in scope {SCOPE!r}"
    for write in (
        lambda: other.revise(secret.id, "salary band is 9", scope=SCOPE),
        lambda: other.forget(secret.id, scope=SCOPE),
        lambda: other.set_visibility(secret.id, scope=SCOPE, visibility=None),
        lambda: other.remember("child", scope=SCOPE, parents=[secret.id]),
    ):
        with pytest.raises(NotFoundError):
            write()
    assert mem.get(secret.id, scope=SCOPE).text == "salary band is 7"  # nothing changed


def test_restating_a_hidden_claim_does_not_corroborate_it(mem: Memory) -> None:
    secret = mem.remember("the vault code is 4417", scope=SCOPE, visibility=["user:hr"])
    mine = mem.as_principal("agent:intern").remember("the vault code is 4417", scope=SCOPE)
    assert mine.id != secret.id
    assert mem.get(secret.id, scope=SCOPE).evidence_count == 1


def test_a_contradiction_with_a_hidden_claim_is_not_shown(mem: Memory) -> None:
    public = mem.remember("the launch is on friday", scope=SCOPE)
    secret = mem.remember("the launch slipped to june zqslip", scope=SCOPE, visibility=["user:ceo"])
    mem.link(public.id, secret.id, type="contradicts", scope=SCOPE)
    other = mem.as_principal("agent:intern")
    assert other.contradictions(scope=SCOPE) == []
    assert other.edges(scope=SCOPE, include_closed=True) == []
    hits = other.recall("launch", scope=SCOPE, record_use=False)
    assert all(secret.id not in dump(h.to_dict() if hasattr(h, "to_dict") else str(h)) for h in hits)
    assert len(mem.contradictions(scope=SCOPE)) == 1


def test_history_events_and_summary_leave_out_hidden_claims(mem: Memory) -> None:
    mem.remember("public fact", scope=SCOPE)
    secret = mem.remember("merger with zqacme", scope=SCOPE, visibility=["user:ceo"])
    mem.forget(secret.id, scope=SCOPE, reason="zqacme fell through")
    other = mem.as_principal("agent:intern")
    assert "zqacme" not in dump([e.to_dict() for e in other.events(scope=SCOPE)])
    summary = other.summary(scope=SCOPE)
    assert (summary["current"], summary["forgotten"]) == (1, 0)
    assert mem.summary(scope=SCOPE)["forgotten"] == 1


def test_set_visibility_is_an_event_and_hides_every_version(mem: Memory) -> None:
    v1 = mem.remember("the office is in zqlyon", scope=SCOPE)
    v2 = mem.revise(v1.id, "the office is in zqparis", scope=SCOPE)
    mem.set_visibility(v2.id, scope=SCOPE, visibility=["user:hr"], reason="relocation is confidential")
    assert mem.events(scope=SCOPE)[-1].type == "memory.visibility_set"
    other = mem.as_principal("agent:intern")
    for version in (v1, v2):
        with pytest.raises(NotFoundError):
            other.get(version.id, scope=SCOPE)
    assert other.list(scope=SCOPE, include_closed=True).items == []
    mem.set_visibility(v2.id, scope=SCOPE, visibility=None)
    assert other.get(v2.id, scope=SCOPE).text == "the office is in zqparis"


def test_dream_gists_merge_only_claims_of_one_audience(mem: Memory) -> None:
    for n in range(4):
        mem.remember("the staging database restarts nightly at two", scope=SCOPE, author=f"a{n}")
        mem.remember(
            "the staging database restarts nightly at two", scope=SCOPE, author=f"b{n}", visibility=["agent:ops"]
        )
    mem.dream(scope=SCOPE)
    gists = [i for i in mem.list(scope=SCOPE, limit=100).items if i.meta.get("dream") == "gist"]
    for gist in gists:
        assert {mem.get(p, scope=SCOPE).visibility for p in gist.parents} == {gist.visibility}


def test_a_principal_writing_a_restricted_claim_stays_in_its_audience(mem: Memory) -> None:
    mine = mem.as_principal("agent:a").remember("note", scope=SCOPE, visibility=["agent:b"])
    assert mine.visibility == ("agent:a", "agent:b")


def test_operator_operations_are_refused_to_a_principal(mem: Memory) -> None:
    other = mem.as_principal("agent:intern")
    with pytest.raises(NotPermittedError):
        other.doctor()
    assert mem.doctor().ok


def test_bad_visibility_and_principal_are_clear_errors_that_store_nothing(mem: Memory) -> None:
    for bad in ("agent:a", ["has space"], [""], [1]):
        with pytest.raises(InvalidInputError):
            mem.remember("x", scope=SCOPE, visibility=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        mem.as_principal("no spaces please")
    assert mem.list(scope=SCOPE).items == []


def test_a_schema_4_file_opens_with_every_item_visible_to_everyone(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "old.db"
    with Memory(db, embedder="hash") as m:
        item = m.remember("older claim", scope=SCOPE)
    conn = sqlite3.connect(db)
    conn.execute("DROP INDEX items_restricted")
    conn.execute("ALTER TABLE items DROP COLUMN visibility")
    conn.execute("UPDATE settings SET v = '4' WHERE k = 'schema_version'")
    conn.commit()
    conn.close()
    with Memory(db, embedder="hash") as m:
        assert m.as_principal("agent:x").get(item.id, scope=SCOPE).visibility is None
