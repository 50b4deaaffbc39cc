"""A gist whose every source was corrected leaves current truth (outside probe, finding 4).

Reproduced on main: after a person revised every "Alice drinks green tea …" variant a dream pass
had consolidated, recall's only hit was the gist "Alice drinks green tea every morning
(consolidated)" (the corrections stayed in the subconscious tier the members had been demoted
to), and the next pass only flagged the gist ``stale_derived``: ``context()`` still gave the
green-tea line next to the correction. Now the write that retracts a gist's last standing source
(revise, dismiss, resolve, a supersedes link) forgets the gist in the same transaction, with the
reason in its history; a correction is a use, so it lands in the active tier; and a pass forgets
a gist it finds with no standing source (one written before this rule, or imported so).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from reverie import ManualClock, Memory
from reverie.cli import cli

from .kit import S

GREEN = (
    "Alice drinks green tea every morning",
    "Alice drinks green tea every morning at home",
    "Every morning Alice drinks green tea",
    "Alice drinks green tea each morning",
)
COFFEE = "Alice drinks black coffee every morning"
QUESTION = "what does Alice drink in the morning"


def _consolidated(mem: Memory, clock: ManualClock) -> tuple[list[str], str]:
    """The gist's sources (the variants the pass consolidated) and the gist."""
    for t in GREEN:
        mem.remember(t, scope=S)
    clock.advance(days=90)
    gists = [o.created for o in mem.dream(scope=S).outcomes if o.created]
    assert len(gists) == 1 and gists[0] is not None
    sources = list(mem.get(gists[0], scope=S).parents)
    assert len(sources) >= 2
    return sources, gists[0]


def test_correcting_every_source_of_a_gist_forgets_it_at_once(mem: Memory, clock: ManualClock) -> None:
    ids, gist = _consolidated(mem, clock)
    for i in ids:
        assert mem.get(gist, scope=S).is_current  # a source still stands until the last correction
        mem.revise(i, COFFEE, scope=S)
    others = [i for i in mem.list(scope=S).items if "green tea" in i.text]
    for other in others:  # the variant the pass left out of the gist: corrected too
        if other.id != gist:
            mem.revise(other.id, COFFEE, scope=S)
    closed = mem.get(gist, scope=S)
    assert closed.status == "forgotten"
    events = [e for e in mem.events(scope=S) if e.type == "memory.forgotten" and e.payload["id"] == gist]
    assert len(events) == 1 and "corrected" in events[0].payload["reason"]
    hits = [h.item.text for h in mem.recall(QUESTION, scope=S, record_use=False)]
    assert hits and hits[0] == COFFEE
    clock.advance(days=1)
    mem.dream(scope=S)
    context = mem.context(QUESTION, scope=S)
    assert COFFEE in context and "green tea" not in context


def test_a_gist_with_one_standing_source_stays(mem: Memory, clock: ManualClock) -> None:
    ids, gist = _consolidated(mem, clock)
    for i in ids[:-1]:
        mem.revise(i, COFFEE, scope=S)
    assert mem.get(gist, scope=S).is_current
    mem.dismiss(ids[-1], scope=S, reason="never true")
    assert mem.get(gist, scope=S).status == "forgotten"


def test_pruned_sources_are_evidence_not_premises_the_gist_stands(mem: Memory, clock: ManualClock) -> None:
    ids, gist = _consolidated(mem, clock)
    for i in ids[:-1]:
        mem.forget(i, scope=S, reason="pruned")
    mem.revise(ids[-1], COFFEE, scope=S)
    assert mem.get(gist, scope=S).is_current  # the forgotten members still said it


def test_a_change_in_the_world_leaves_the_gist_to_its_period(mem: Memory, clock: ManualClock) -> None:
    ids, gist = _consolidated(mem, clock)
    for i in ids:
        mem.revise(i, COFFEE, scope=S, valid_from=clock.now())
    assert mem.get(gist, scope=S).is_current  # the members stay believed, valid until now


def test_a_pass_forgets_a_gist_left_without_a_standing_source(mem: Memory, clock: ManualClock) -> None:
    a = mem.remember("Bob parks on level two", scope=S)
    b = mem.remember("Bob parks on the second level", scope=S)
    for x in (a, b):
        mem.revise(x.id, "Bob parks on level four", scope=S)
    # a gist written before the rule (or imported so): its sources were already corrected
    gist = mem.remember_system(
        "Bob parks on level two (consolidated)", scope=S, parents=[a.id, b.id], meta={"dream": "gist"}
    )
    report = mem.dream(scope=S)
    assert gist.id in report.ids("provenance", "applied")
    assert mem.get(gist.id, scope=S).status == "forgotten"


def test_export_import_keeps_the_gist_closed(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "g.db"
    with Memory(path, embedder="hash", clock=clock, seed=0) as mem:
        ids, gist = _consolidated(mem, clock)
        for i in ids:
            mem.revise(i, COFFEE, scope=S)
        before = sorted(i.text for i in mem.list(scope=S).items)
        assert mem.get(gist, scope=S).status == "forgotten"
    env = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
    run = CliRunner().invoke(cli, ["--db", str(path), "--embedder", "hash", "--scope", S, "export"], env=env)
    assert run.exit_code == 0, run.stderr
    copy = "user:copy"
    args = ["--db", str(path), "--embedder", "hash", "--scope", copy, "--json", "import", "-"]
    out = CliRunner().invoke(cli, args, env=env, input=run.stdout)
    assert out.exit_code == 0, json.loads(out.stdout)["failed"]
    assert json.loads(out.stdout)["failed"] == []
    with Memory(path, embedder="hash", clock=clock) as mem:
        current = sorted(i.text for i in mem.list(scope=copy).items)
        assert current == before and COFFEE in current
        assert not [t for t in current if "(consolidated)" in t]


def test_a_slice_with_the_corrections_and_the_gist_imports_it_closed(
    mem: Memory, clock: ManualClock, open_db: Callable[..., Memory]
) -> None:
    ids, gist = _consolidated(mem, clock)
    fixes = [mem.revise(i, COFFEE, scope=S).id for i in ids]
    handed = mem.export_slice(scope=S, memory_ids=[gist, *ids, *fixes]).to_json()
    other = open_db("other")
    report = other.import_slice(handed, scope=S)
    copy = report.ids[gist]
    assert other.get(copy, scope=S).status == "forgotten"
    assert [i.text for i in other.list(scope=S).items] == [COFFEE]
