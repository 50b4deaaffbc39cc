"""Round-trip property: export → import into an empty store → export again gives the same slice
up to ids (and record times, which belong to each store); trust is capped on the first export,
so the second slice equals the first exactly once ids are mapped."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.model.item import KNOWN_KINDS
from reverie.slice import IMPORTED_AUTHORITY, Slice
from strategies import START

SCOPE, OTHER = "team:main", "team:copy"
SOURCES = ("user_stated", "observed", "inferred", "manual")
EDGE_TYPES = ("supports", "contradicts", "alias", "about", "derived_from")
score = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def populations(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 8))
    claims = []
    for i in range(n):
        claims.append(
            {
                "source": draw(st.sampled_from(SOURCES)),
                "kind": draw(st.sampled_from(KNOWN_KINDS)),
                "parents": sorted(draw(st.sets(st.integers(0, i - 1), max_size=2))) if i else [],
                "scores": draw(st.fixed_dictionaries({k: score for k in ("authority", "importance", "durability")})),
                "tags": draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=2)),
                "meta": draw(st.sampled_from([None, {"agent_id": "A"}, {"n": 3, "deep": {"x": [1, 2]}}])),
                "valid_days": draw(st.one_of(st.none(), st.integers(-30, 30))),
                "tier": draw(st.sampled_from(["active", "durable", "subconscious"])),
                "key": draw(st.sampled_from([None, f"k.{i}"])),
            }
        )
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from(EDGE_TYPES))))
    revise = draw(st.sets(st.integers(0, n - 1), max_size=2))
    forget = draw(st.sets(st.integers(0, n - 1), max_size=2))
    return {"claims": claims, "edges": edges, "revise": revise, "forget": forget}


def _build(mem: Memory, pop: dict[str, Any]) -> list[str]:
    ids: list[str] = []
    for i, c in enumerate(pop["claims"]):
        fields: dict[str, Any] = {
            "kind": c["kind"],
            "parents": [ids[p] for p in c["parents"]],
            "tags": c["tags"],
            "meta": c["meta"],
            "key": c["key"],
            "value": "v" if c["key"] else None,
            **c["scores"],
        }
        if c["valid_days"] is not None:
            fields["valid_from"] = START + timedelta(days=c["valid_days"])
        text = f"claim number {i} of the population"
        if c["source"] == "manual":
            item = mem.remember_manual(text, scope=SCOPE, **fields)
        else:
            item = mem.remember(text, scope=SCOPE, source=c["source"], **fields)
        if c["tier"] != "active":
            mem.set_tier(item.id, c["tier"], scope=SCOPE)
        ids.append(item.id)
    for a, b, kind in pop["edges"]:
        # derived_from only from a later claim to an earlier one, as parents run: a loop is refused
        if a != b and (kind != "derived_from" or a > b):
            mem.link(ids[a], ids[b], kind, scope=SCOPE, author="agent-b", authority=0.8)
    for i in sorted(pop["revise"]):
        ids.append(mem.revise(ids[i], f"revised claim {i} of the population", scope=SCOPE).id)
    for i in sorted(pop["forget"]):
        if mem.get(ids[i], scope=SCOPE).is_current:
            mem.forget(ids[i], scope=SCOPE)
    return ids


def _normal(sl: Slice, ids: dict[str, str]) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """The slice with its ids mapped through ``ids`` and the store-local record times dropped."""
    items = []
    for it in sl.items:
        d = it.to_dict()
        d.pop("recorded_at")
        d["id"] = ids.get(d["id"], d["id"])
        d["parents"] = [ids.get(p, p) for p in d["parents"]]
        items.append(d)
    edges = [
        (e.type, ids.get(e.src, e.src), ids.get(e.dst, e.dst), e.author, e.authority, repr(e.meta)) for e in sl.edges
    ]
    return sorted(items, key=lambda d: d["id"]), sorted(edges)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(pop=populations())
def test_export_import_export_gives_the_same_slice_up_to_ids(pop: dict[str, Any]) -> None:
    clock = ManualClock(START)
    with (
        Memory(":memory:", embedder="hash", clock=clock, seed=1, detect_conflicts=False) as src,
        Memory(":memory:", embedder="hash", clock=clock, seed=2, detect_conflicts=False) as dst,
    ):
        ids = _build(src, pop)
        first = src.export_slice(scope=SCOPE, memory_ids=ids)
        assert all(i.scores["authority"] <= IMPORTED_AUTHORITY for i in first.items)
        report = dst.import_slice(Slice.from_json(first.to_json()), scope=OTHER)
        assert len(report.created) == len(first.items) and not report.edges_skipped
        copies = [report.ids[i.id] for i in first.items]
        second = dst.export_slice(scope=OTHER, memory_ids=copies)
        back = {new: old for old, new in report.ids.items()}
        assert _normal(second, back) == _normal(first, {})
        assert dst.doctor().ok


JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _seeded_slice() -> dict[str, Any]:
    clock = ManualClock(START)
    with Memory(":memory:", embedder="hash", clock=clock, seed=3) as mem:
        a = mem.remember("Alice works at Acme", scope=SCOPE, tags=["work"], meta={"agent_id": "a"})
        b = mem.remember("Alice bikes to work", scope=SCOPE, parents=[a.id], key="alice.commute", value="bike")
        mem.link(b.id, a.id, "supports", scope=SCOPE, author="a")
        return mem.export_slice(scope=SCOPE).to_dict()


GOOD = _seeded_slice()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(
    where=st.sampled_from(["top", "item", "edge", "provenance", "scores"]),
    field=st.text(min_size=1, max_size=12) | st.sampled_from(sorted({*GOOD, *GOOD["items"][0], *GOOD["edges"][0]})),
    value=JSON_VALUES,
)
def test_a_mangled_slice_is_imported_or_refused_with_a_reverie_error_and_nothing_written(
    where: str, field: str, value: Any
) -> None:
    import copy
    import json

    from reverie import ReverieError

    data = copy.deepcopy(GOOD)
    target = {
        "top": data,
        "item": data["items"][1],
        "edge": data["edges"][0],
        "provenance": data["items"][0]["provenance"],
        "scores": data["items"][0]["scores"],
    }[where]
    target[field] = value
    clock = ManualClock(START)
    with Memory(":memory:", embedder="hash", clock=clock, seed=4) as mem:
        kept = mem.remember("Something already here", scope=OTHER)
        before = [e.to_dict() for e in mem.events(scope=OTHER)]
        for given_ in (data, json.dumps(data, allow_nan=True)):
            try:
                mem.import_slice(given_, scope=OTHER)
            except ReverieError as exc:
                assert exc.code and exc.message
                assert [e.to_dict() for e in mem.events(scope=OTHER)] == before
            else:
                assert mem.get(kept.id, scope=OTHER).is_current
            before = [e.to_dict() for e in mem.events(scope=OTHER)]
        assert mem.doctor().ok


# -- intents and tasks -----------------------------------------------------------------------------
@st.composite
def agendas(draw: st.DrawFn) -> dict[str, Any]:
    """Claims, intents (sub-intents, random allowed moves) and tasks (subtasks, random allowed moves)."""
    n_claims = draw(st.integers(1, 4))
    n_intents = draw(st.integers(1, 4))
    intents = [
        {
            "parent": draw(st.one_of(st.none(), st.integers(0, i - 1))) if i else None,
            "memory": draw(st.sets(st.integers(0, n_claims - 1), min_size=1, max_size=2)),
            "moves": draw(st.lists(st.integers(0, 3), max_size=3)),
            "priority": draw(st.sampled_from([0.1, 0.5, 0.9])),
        }
        for i in range(n_intents)
    ]
    tasks = [
        {
            "intent": draw(st.one_of(st.none(), st.integers(0, n_intents - 1))),
            "parent": draw(st.one_of(st.none(), st.integers(0, t - 1))) if t else None,
            "inputs": draw(st.sets(st.integers(0, n_claims - 1), min_size=1, max_size=2)),
            "outputs": draw(st.sets(st.integers(0, n_claims - 1), max_size=2)),
            "moves": draw(st.lists(st.integers(0, 3), max_size=5)),
        }
        for t in range(draw(st.integers(0, 4)))
    ]
    return {"claims": n_claims, "intents": intents, "tasks": tasks}


def _build_agenda(mem: Memory, pop: dict[str, Any]) -> list[str]:
    from reverie.model.agenda import INTENT_MOVES, TASK_MOVES, allowed_moves

    ids = [mem.remember(f"agenda claim {i}", scope=SCOPE).id for i in range(pop["claims"])]
    made: list[Any] = []
    for n, spec in enumerate(pop["intents"]):
        made.append(
            mem.intents.create(
                f"goal {n}",
                scope=SCOPE,
                priority=spec["priority"],
                parent=made[spec["parent"]] if spec["parent"] is not None else None,
                memory_ids=[ids[m] for m in sorted(spec["memory"])],
                reason=f"because {n}",
            )
        )
    tasks: list[Any] = []
    for n, spec in enumerate(pop["tasks"]):
        intent = made[spec["intent"]] if spec["intent"] is not None else None
        parent = tasks[spec["parent"]] if spec["parent"] is not None else None
        # Intents move only after every task exists, so each intent is still open here.
        tasks.append(
            mem.tasks.create(
                f"task {n}", scope=SCOPE, intent=intent, parent=parent, inputs=[ids[m] for m in sorted(spec["inputs"])]
            )
        )
        for k, pick in enumerate(spec["moves"]):
            t = mem.tasks.get(tasks[-1], scope=SCOPE)
            allowed = allowed_moves(TASK_MOVES, t.status)
            if allowed:
                move = allowed[pick % len(allowed)]
                outputs = [ids[m] for m in sorted(spec["outputs"])] if move == "complete" else []
                mem.tasks.transition(t, move, scope=SCOPE, reason=f"step {k}", outputs=outputs)
    for n, spec in enumerate(pop["intents"]):
        for k, pick in enumerate(spec["moves"]):
            it = mem.intents.get(made[n], scope=SCOPE)
            allowed = allowed_moves(INTENT_MOVES, it.status)
            if allowed:
                mem.intents.transition(it, allowed[pick % len(allowed)], scope=SCOPE, reason=f"move {k}")
    return ids


def _normal_agenda(sl: Slice, ids: dict[str, str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The intents and tasks sections with every id mapped through ``ids`` and the times dropped."""

    def norm(d: dict[str, Any]) -> dict[str, Any]:
        d = dict(d)
        d.pop("created_at")
        d["moves"] = [(m["move"], m["reason"]) for m in d["moves"]]
        for key in ("id", "origin_id", "parent", "intent"):
            if d.get(key) is not None:
                d[key] = ids.get(d[key], d[key])
        for key in ("memory_ids", "inputs", "outputs"):
            if key in d:
                d[key] = sorted(ids.get(m, m) for m in d[key])
        return d

    sections = sl.to_dict()["sections"]
    return (
        sorted((norm(d) for d in sections["intents"]), key=lambda d: d["id"]),
        sorted((norm(d) for d in sections["tasks"]), key=lambda d: d["id"]),
    )


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(pop=agendas())
def test_export_import_export_with_intents_and_tasks_gives_the_same_slice_up_to_ids(pop: dict[str, Any]) -> None:
    clock = ManualClock(START)
    with (
        Memory(":memory:", embedder="hash", clock=clock, seed=1, detect_conflicts=False) as src,
        Memory(":memory:", embedder="hash", clock=clock, seed=2, detect_conflicts=False) as dst,
    ):
        ids = _build_agenda(src, pop)
        first = src.export_slice(scope=SCOPE, memory_ids=ids, include_intents=True, include_tasks=True)
        assert first.intents is not None and len(first.intents) == len(pop["intents"])
        assert first.tasks is not None and len(first.tasks) == len(pop["tasks"])
        report = dst.import_slice(Slice.from_json(first.to_json()), scope=OTHER)
        assert not report.dropped_refs
        copies = [report.ids[i] for i in ids]
        second = dst.export_slice(scope=OTHER, memory_ids=copies, include_intents=True, include_tasks=True)
        back = {new: old for m in (report.ids, report.intents, report.tasks) for old, new in m.items()}
        assert _normal_agenda(second, back) == _normal_agenda(first, {})
        assert _normal(second, back) == _normal(first, {})
        assert dst.doctor().ok
