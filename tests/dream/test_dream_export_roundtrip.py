"""export → import after dream passes is lossless (issue #13, item 8).

Regression: a dream gist quotes one of its members verbatim, so replaying it as a plain remember
corroborated that member instead of creating the gist, and the gist's ``derived_from`` edge then
failed with "an edge needs two different items (src == dst)" — the copy lost an item.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reverie import ManualClock, Memory
from reverie.cli import cli

from .kit import START, S, seed

ENV = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
COPY = "user:alice-copy"


def _cli(path: Path, *args: str, input: str | None = None) -> str:
    result = CliRunner().invoke(cli, ["--db", str(path), "--embedder", "hash", *args], env=ENV, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout


def _state(mem: Memory, scope: str) -> dict[str, object]:
    """What must survive the round trip, ids replaced by texts."""
    items = mem.list(scope=scope, include_closed=True, limit=1000).items
    text = {i.id: i.text for i in items}
    current = sorted((i.text, i.tier, i.kind) for i in items if i.is_current)
    closed = sorted((i.text, i.status) for i in items if not i.is_current)
    edges = sorted({(text[e.src], e.type, text[e.dst]) for e in mem.edges(scope=scope)})
    parents = sorted((i.text, tuple(sorted(text[p] for p in i.parents))) for i in items if i.parents)
    return {
        "current": current,
        "closed": closed,
        "edges": edges,
        "parents": parents,
        "tombstones": mem.summary(scope=scope)["tombstones"],
    }


def test_export_after_dream_passes_imports_losslessly(tmp_path: Path) -> None:
    path = tmp_path / "d.db"
    clock = ManualClock(START)
    with Memory(path, embedder="hash", clock=clock, seed=0) as mem:
        scope = seed(mem, clock)
        mem.dismiss(scope.remark, scope=S, reason="not a belief")
        first = mem.dream(scope=S)
        assert first.count("consolidate") >= 1 and first.count("tier") >= 1  # gists and demotions to replay
        clock.advance(days=40)
        mem.dream(scope=S)
        before = _state(mem, S)
    dump = _cli(path, "--scope", S, "export")
    report = json.loads(_cli(path, "--scope", COPY, "--json", "import", "-", input=dump))
    assert report["failed"] == [], report["failed"]
    with Memory(path, embedder="hash", clock=clock) as mem:
        assert _state(mem, COPY) == before
        gists = [i for i in mem.list(scope=COPY, limit=1000).items if i.provenance.origin == "dream"]
        assert gists and all(i.source == "imported" and i.provenance.source == "system" for i in gists)
        # the copy refuses what the source dismissed
        assert mem.summary(scope=COPY)["dismissed"] == 1


def test_import_keeps_who_set_an_importance(tmp_path: Path) -> None:
    # Outside probe, finding 11: the replay re-issued every memory.scores_set through set_scores,
    # which states the importance, so items the dream pass had settled came in flagged
    # importance_stated and never settled again. A person's set_scores still comes in stated.
    path = tmp_path / "d.db"
    clock = ManualClock(START)
    with Memory(path, embedder="hash", clock=clock, seed=0) as mem:
        conv = mem.conversation("c1", scope=S)
        conv.add("My sister Dana lives in Porto.", speaker="Alice", role="user")
        conv.close()
        mine = mem.remember("The standup moved to ten", scope=S)
        mem.set_scores(mine.id, scope=S, importance=0.9, reason="a person says it matters")
        clock.advance(days=60)
        mem.dream(scope=S)
        by_text = {i.text: i for i in mem.list(scope=S, limit=1000).items}
        dana = by_text["Dana"]  # a person item the pass settled (a system set_scores)
        assert dana.scores.importance < 0.5 and "importance_stated" not in dana.flags
        before = {t: (round(i.scores.importance, 6), "importance_stated" in i.flags) for t, i in by_text.items()}
    dump = _cli(path, "--scope", S, "export")
    report = json.loads(_cli(path, "--scope", COPY, "--json", "import", "-", input=dump))
    assert report["failed"] == [], report["failed"]
    with Memory(path, embedder="hash", clock=clock) as mem:
        after = {
            i.text: (round(i.scores.importance, 6), "importance_stated" in i.flags)
            for i in mem.list(scope=COPY, limit=1000).items
        }
        assert after == before
        assert after[mine.text] == (0.9, True)
