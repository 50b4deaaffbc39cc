"""What a manual ``supersedes`` (or ``derived_from``) link means (outside tester, finding 10).

Reproduced on main: ``link(a, b, "supersedes")`` then ``link(b, a, "supersedes")`` were both
accepted — each claim "superseded" the other, both stayed live, and ``history()`` showed an
unrelated claim as a version. ``derived_from`` cycles were accepted too.

The rule now: ``a supersedes b`` means b is replaced by a. If b is current it is closed as
superseded by a, exactly as ``resolve`` keeping a would close it; if b is already closed the
link only records that a replaced it. A closed claim cannot replace a current one, and a link
that would close a loop (b already supersedes a, directly or through other versions; a is
already among b's sources) is refused with ``invalid_input``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from reverie import AlreadyClosedError, InvalidInputError, ManualClock, Memory
from reverie.cli import cli
from reverie.http import create_app

CLEAN_ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}

S = "team:c"


def _pair(mem: Memory) -> tuple[str, str]:
    a = mem.remember("Alpha claim about pumps", scope=S)
    b = mem.remember("Beta claim about valves", scope=S)
    return a.id, b.id


def _state(mem: Memory) -> list[tuple[str, str, bool]]:
    """Every item's status and every edge's type and openness: what a refused link must leave alone."""
    items = mem.list(scope=S, include_closed=True, limit=100).items
    edges = mem.edges(scope=S, include_closed=True)
    return sorted((i.id, i.status, i.is_current) for i in items) + sorted((e.id, e.type, e.is_current) for e in edges)


def test_a_supersedes_cycle_is_refused(any_mem: Memory) -> None:
    a, b = _pair(any_mem)
    any_mem.link(a, b, "supersedes", scope=S)
    before = _state(any_mem)
    with pytest.raises(InvalidInputError) as info:
        any_mem.link(b, a, "supersedes", scope=S)
    assert info.value.code == "invalid_input" and "cycle" in info.value.message, info.value.message
    assert a in info.value.message and b in info.value.message
    assert _state(any_mem) == before


def test_a_supersedes_cycle_through_revisions_is_refused(any_mem: Memory, clock: ManualClock) -> None:
    v1 = any_mem.remember("The pump runs at 40 rpm", scope=S)
    clock.advance(minutes=1)
    v2 = any_mem.revise(v1.id, "The pump runs at 45 rpm", scope=S)
    clock.advance(minutes=1)
    v3 = any_mem.revise(v2.id, "The pump runs at 50 rpm", scope=S)
    for src, dst in ((v1.id, v3.id), (v1.id, v2.id), (v2.id, v3.id)):  # each would loop back
        with pytest.raises(InvalidInputError, match="cycle"):
            any_mem.link(src, dst, "supersedes", scope=S)
    assert [i.id for i in any_mem.list(scope=S).items] == [v3.id]


def test_superseding_a_live_claim_closes_it_like_resolve(any_mem: Memory) -> None:
    a, b = _pair(any_mem)
    conflict = any_mem.link(a, b, "contradicts", scope=S)
    edge = any_mem.link(a, b, "supersedes", scope=S, author="ops", authority=0.4, meta={"ticket": 7})
    assert (edge.type, edge.src, edge.dst, edge.author, edge.authority, edge.meta) == (
        "supersedes",
        a,
        b,
        "ops",
        0.4,
        {"ticket": 7},
    )
    assert any_mem.get(b, scope=S).status == "superseded" and any_mem.get(a, scope=S).status == "live"
    assert [i.id for i in any_mem.list(scope=S).items] == [a]
    assert [h.item.id for h in any_mem.recall("claim about valves", scope=S)] != [b]
    assert [v.id for v in any_mem.history(a, scope=S).versions] == [a, b]
    assert conflict.id not in {e.id for e in any_mem.edges(scope=S)}  # its open conflict closed with it
    assert any_mem.contradictions(scope=S) == []
    assert any_mem.link(a, b, "supersedes", scope=S).id == edge.id  # idempotent, as every link


def test_a_rebuild_replays_a_supersedes_link(any_mem: Memory) -> None:
    a, b = _pair(any_mem)
    any_mem.link(a, b, "supersedes", scope=S, author="ops", meta={"ticket": 7})
    before = (_state(any_mem), [(e.author, e.meta) for e in any_mem.edges(scope=S)])
    any_mem.rebuild()
    assert (_state(any_mem), [(e.author, e.meta) for e in any_mem.edges(scope=S)]) == before


def test_a_closed_claim_cannot_supersede_a_live_one(any_mem: Memory) -> None:
    a, b = _pair(any_mem)
    any_mem.forget(a, scope=S)
    before = _state(any_mem)
    with pytest.raises(AlreadyClosedError) as info:
        any_mem.link(a, b, "supersedes", scope=S)
    assert "forgotten" in info.value.message and "revise" in info.value.message, info.value.message
    assert _state(any_mem) == before


def test_superseding_a_closed_claim_records_the_lineage_only(any_mem: Memory) -> None:
    a, b = _pair(any_mem)
    any_mem.forget(b, scope=S)
    any_mem.link(a, b, "supersedes", scope=S)
    assert any_mem.get(b, scope=S).status == "forgotten" and any_mem.get(a, scope=S).status == "live"
    assert [v.id for v in any_mem.history(a, scope=S).versions] == [a, b]


@pytest.mark.parametrize("through_parents", [False, True])
def test_a_derived_from_cycle_is_refused(any_mem: Memory, through_parents: bool) -> None:
    a, b = _pair(any_mem)
    if through_parents:
        b = any_mem.remember("Gamma derived from alpha", scope=S, parents=[a]).id
    else:
        any_mem.link(b, a, "derived_from", scope=S)
    before = _state(any_mem)
    with pytest.raises(InvalidInputError) as info:
        any_mem.link(a, b, "derived_from", scope=S)
    assert "cycle" in info.value.message and a in info.value.message and b in info.value.message
    assert _state(any_mem) == before


def test_a_longer_derived_from_cycle_is_refused(any_mem: Memory) -> None:
    a = any_mem.remember("Alpha base fact", scope=S).id
    b = any_mem.remember("Beta from alpha", scope=S, parents=[a]).id
    c = any_mem.remember("Gamma from beta", scope=S).id
    any_mem.link(c, b, "derived_from", scope=S)
    with pytest.raises(InvalidInputError, match="cycle"):
        any_mem.link(a, c, "derived_from", scope=S)
    any_mem.link(c, a, "derived_from", scope=S)  # a shortcut, no loop: fine


def test_other_edge_types_may_run_both_ways(any_mem: Memory) -> None:
    a, b = _pair(any_mem)
    for kind in ("supports", "about"):
        any_mem.link(a, b, kind, scope=S)
        any_mem.link(b, a, kind, scope=S)
    assert {e.type for e in any_mem.edges(scope=S)} == {"supports", "about"}


def test_http_refuses_a_cycle_as_bad_input(mem: Memory) -> None:
    a, b = _pair(mem)
    mem.link(a, b, "supersedes", scope=S)
    with TestClient(create_app(mem), base_url="http://127.0.0.1") as client:
        sent = client.post(f"/v1/scopes/{S}/edges", json={"src": b, "dst": a, "type": "supersedes"})
    assert sent.status_code == 400 and sent.json()["code"] == "invalid_input", sent.text
    assert "cycle" in sent.json()["error"]


def test_export_then_import_replays_a_supersedes_link(tmp_path: Path) -> None:
    db = tmp_path / "reverie.db"

    def cli_json(scope: str, *args: str, input: str | None = None) -> Any:
        head = ["--db", str(db), "--embedder", "hash", "--scope", scope, "--json"]
        result = CliRunner().invoke(cli, [*head, *args], env=CLEAN_ENV, input=input)
        assert result.exit_code == 0, (result.output, result.exception)
        return json.loads(result.stdout)

    a = cli_json(S, "remember", "Alpha claim about pumps")["item"]["id"]
    b = cli_json(S, "remember", "Beta claim about valves")["item"]["id"]
    cli_json(S, "link", a, b, "supersedes", "--meta", '{"ticket": 7}')
    dump = CliRunner().invoke(cli, ["--db", str(db), "--scope", S, "export"], env=CLEAN_ENV).stdout
    report = cli_json("team:copy", "import", "-", input=dump)
    assert report["failed"] == [] and report["skipped"] == {}, report
    copy_a, copy_b = report["ids"][a], report["ids"][b]
    assert [i["id"] for i in cli_json("team:copy", "list")["items"]] == [copy_a]
    edges = cli_json("team:copy", "show", copy_a)["edges"]
    found = [(e["type"], e["src"], e["dst"], e["meta"]) for e in edges]
    assert found == [("supersedes", copy_a, copy_b, {"ticket": 7})]


def _two_edged_slice(mem: Memory, kind: str) -> dict[str, Any]:
    """A slice of two live claims linked ``kind`` both ways, as an older build could export."""
    a, b = _pair(mem)
    data = mem.export_slice(scope=S).to_dict()
    for n, (src, dst) in enumerate(((a, b), (b, a))):
        edge_id = f"01900000-0000-7000-8000-00000000000{n}"
        data["edges"].append({"id": edge_id, "type": kind, "src": src, "dst": dst, "recorded_at": data["exported_at"]})
    return data


def test_a_slice_whose_edges_loop_is_an_invalid_slice(any_mem: Memory) -> None:
    data = _two_edged_slice(any_mem, "derived_from")
    with pytest.raises(InvalidInputError) as info:
        any_mem.import_slice(data, scope="team:copy")
    assert info.value.code == "invalid_slice" and "cycle" in info.value.message, info.value.message
    assert any_mem.list(scope="team:copy").items == []


def test_a_slice_keeps_the_status_it_states_for_a_superseded_target(any_mem: Memory) -> None:
    data = _two_edged_slice(any_mem, "supersedes")
    data["edges"].pop()  # one way only: a supersedes b, both live where exported (an older build's link)
    report = any_mem.import_slice(data, scope="team:copy")
    assert {i.status for i in any_mem.list(scope="team:copy", include_closed=True).items} == {"live"}
    assert [e["reason"] for e in report.edges_skipped] == [
        "its target is current here, and a supersedes link would replace it (the slice keeps it live)"
    ]
