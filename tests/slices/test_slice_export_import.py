"""``export_slice`` / ``import_slice`` on real stores: what a slice carries, how it lands, and
that an import is append-only (existing items never change) and all-or-nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reverie import InvalidInputError, LearningPausedError, Memory, NotFoundError, ReverieError
from reverie.errors import InvalidSliceError, SliceConflictError
from reverie.slice import IMPORTED_AUTHORITY, ORIGIN_META, VERSION, Slice

S, T = "team:main", "team:sandbox"


def _log(mem: Memory, scope: str) -> list[dict[str, Any]]:
    return [e.to_dict() for e in mem.events(scope=scope)]


def _state(mem: Memory, scope: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Everything an import could change: the log, every item (closed too) and every edge."""
    items = mem.list(scope=scope, include_closed=True, limit=mem.limits.max_k).items
    edges = mem.store.edges(scope, include_closed=True)
    return _log(mem, scope), [i.to_dict() for i in items], sorted((e.to_dict() for e in edges), key=str)


def test_export_carries_the_asked_items_their_parents_aliases_and_contradictions(mem: Memory) -> None:
    root = mem.remember("Alice works at Acme", scope=S, source="user_stated")
    child = mem.remember("Alice commutes to Acme by bike", scope=S, parents=[root.id])
    alias = mem.remember("A. works at Acme Corp", scope=S)
    mem.link(root.id, alias.id, "alias", scope=S)
    rival = mem.remember("Alice commutes by car", scope=S)
    mem.link(child.id, rival.id, "contradicts", scope=S)
    outsider = mem.remember("Bob likes tea", scope=S)
    mem.link(outsider.id, child.id, "supports", scope=S)

    sl = mem.export_slice(scope=S, memory_ids=[child.id])
    assert {i.id for i in sl.items} == {root.id, child.id, alias.id, rival.id}
    assert {(e.type, e.src, e.dst) for e in sl.edges} == {
        ("alias", root.id, alias.id),
        ("contradicts", child.id, rival.id),
    }  # the supports edge leads outside the slice: left out
    bare = mem.export_slice(
        scope=S, memory_ids=[child.id], include_parents=False, include_aliases=False, include_contradictions=False
    )
    assert [i.id for i in bare.items] == [child.id]
    assert bare.items[0].parents == (root.id,)  # kept: an importer may already hold the parent


def test_export_writes_nothing_and_refuses_unknown_ids(mem: Memory) -> None:
    item = mem.remember("Alice works at Acme", scope=S)
    before = _state(mem, S)
    mem.export_slice(scope=S)
    with pytest.raises(NotFoundError):
        mem.export_slice(scope=S, memory_ids=[item.id, "01900000-0000-7000-8000-000000000000"])
    assert mem.export_slice(scope=S, include_intents=True, include_tasks=True).intents == ()
    with pytest.raises(NotFoundError):  # another scope's id is not found, as every read
        mem.export_slice(scope="team:other", memory_ids=[item.id])
    assert _state(mem, S) == before


def test_an_imported_claim_is_imported_with_its_source_in_provenance_and_capped_trust(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    src = open_mem(tmp_path / "a.db")
    manual = src.remember_manual("The deploy freeze starts Friday", scope=S, importance=0.9, tags=["ops"])
    derived = src.remember(
        "No deploys this weekend",
        scope=S,
        kind="derivation",
        source="inferred",
        parents=[manual.id],
        provenance={"origin": "conversation", "ref": "chat-7", "locator": "turn-3"},
        meta={"agent_id": "planner"},
    )
    src.link(derived.id, manual.id, "supports", scope=S, author="planner", authority=0.9)
    sl = src.export_slice(scope=S, memory_ids=[derived.id])

    dst = open_mem(tmp_path / "b.db")
    report = dst.import_slice(sl.to_json(), scope=T)
    assert len(report.created) == 2 and not report.corroborated and not report.conflicts
    copy_manual = dst.get(report.ids[manual.id], scope=T)
    copy = dst.get(report.ids[derived.id], scope=T)
    assert copy_manual.source == "imported" and copy_manual.provenance.source == "manual"
    assert copy_manual.scores.authority == IMPORTED_AUTHORITY  # a person's word does not travel as trust
    assert copy_manual.scores.importance == 0.9 and copy_manual.tags == ("ops",)
    assert copy.provenance.source == "inferred" and copy.scores.authority == 0.4  # below the cap: kept
    assert (copy.provenance.origin, copy.provenance.ref, copy.provenance.locator) == (
        "conversation",
        "chat-7",
        "turn-3",
    )
    assert copy.parents == (copy_manual.id,) and copy.kind == "derivation"
    assert copy.meta == {"agent_id": "planner", ORIGIN_META: derived.id}
    (edge,) = [e for e in dst.edges(copy.id, scope=T) if e.type == "supports"]
    assert (edge.src, edge.dst, edge.author, edge.authority) == (copy.id, copy_manual.id, "planner", 0.5)
    assert report.edges == {sl.edges[0].id: edge.id}


def test_importing_the_same_slice_twice_changes_nothing_the_second_time(any_mem: Memory) -> None:
    a = any_mem.remember("Alice works at Acme", scope=S)
    any_mem.remember("Alice commutes by bike", scope=S, parents=[a.id])
    sl = any_mem.export_slice(scope=S)
    any_mem.import_slice(sl, scope=T)
    before = _state(any_mem, T)
    again = any_mem.import_slice(sl, scope=T)
    assert not again.created and not again.corroborated
    assert [s["reason"] for s in again.skipped] == ["already here", "already here"]
    assert _state(any_mem, T) == before


def test_importing_into_the_exporting_scope_recognises_its_own_items(mem: Memory) -> None:
    a = mem.remember("Alice works at Acme", scope=S)
    before = _state(mem, S)
    report = mem.import_slice(mem.export_slice(scope=S), scope=S)
    assert report.ids == {a.id: a.id} and not report.created
    assert _state(mem, S) == before  # not even a corroboration: it is the same claim


def test_an_equivalent_claim_of_other_origin_is_corroborated_not_duplicated(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    src, dst = open_mem(tmp_path / "a.db"), open_mem(tmp_path / "b.db", seed=1)
    src.remember("Alice works at Acme", scope=S)
    mine = dst.remember("Alice works at Acme", scope=T)
    report = dst.import_slice(src.export_slice(scope=S), scope=T)
    assert report.corroborated == [mine.id] and not report.created
    assert dst.get(mine.id, scope=T).evidence_count == 2


# -- conflicts ----------------------------------------------------------------------------------
def _diverged(mem: Memory) -> tuple[Slice, str]:
    """A slice whose claim this scope already holds (same origin) in other words."""
    a = mem.remember("The launch is on Monday", scope=S)
    data = mem.export_slice(scope=S).to_dict()
    data["items"][0]["text"] = "The launch is on Tuesday"
    data["items"][0]["id"] = "01900000-0000-7000-8000-0000000000aa"  # a copy elsewhere: its own id
    return Slice.from_dict(data), a.id


def test_on_conflict_report_refuses_and_writes_nothing(mem: Memory) -> None:
    sl, mine = _diverged(mem)
    before = _state(mem, S)
    with pytest.raises(SliceConflictError) as info:
        mem.import_slice(sl, scope=S)  # "report" is the default
    assert info.value.code == "slice_conflict" and "on_conflict='skip'" in info.value.message
    assert info.value.conflicts == [{"id": sl.items[0].id, "target": mine, "reason": info.value.conflicts[0]["reason"]}]
    assert _state(mem, S) == before


def test_on_conflict_skip_keeps_ours_and_reid_imports_theirs_as_a_new_claim(any_mem: Memory) -> None:
    sl, mine = _diverged(any_mem)
    before = _state(any_mem, S)
    skipped = any_mem.import_slice(sl, scope=S, on_conflict="skip")
    assert skipped.conflicts[0]["target"] == mine and not skipped.created
    assert _state(any_mem, S) == before
    reid = any_mem.import_slice(sl, scope=S, on_conflict="reid")
    (new_id,) = reid.created
    new = any_mem.get(new_id, scope=S)
    assert new.text == "The launch is on Tuesday" and ORIGIN_META not in new.meta  # a claim of its own now
    assert any_mem.get(mine, scope=S).text == "The launch is on Monday"  # ours never changed


def test_a_value_dismissed_here_stays_dismissed(mem: Memory) -> None:
    a = mem.remember("Alice likes jazz", scope=S)
    sl = mem.export_slice(scope=S)
    other = mem.remember("Alice likes jazz", scope=T)
    mem.dismiss(other.id, scope=T)
    report = mem.import_slice(sl, scope=T)
    assert report.skipped == [{"id": a.id, "target": "", "reason": "its value is dismissed in this scope"}]
    assert mem.list(scope=T).items == []


# -- closed items ----------------------------------------------------------------------------------
def test_closed_items_arrive_closed_a_revision_as_a_supersede(any_mem: Memory) -> None:
    old = any_mem.remember("The office is in Leeds", scope=S)
    new = any_mem.revise(old.id, "The office is in York", scope=S)
    gone = any_mem.remember("The office cat is called Tom", scope=S)
    any_mem.forget(gone.id, scope=S)
    any_mem.forget(new.id, scope=S)  # a superseder closed later must still replay as one
    sl = any_mem.export_slice(scope=S, memory_ids=[old.id, new.id, gone.id])
    report = any_mem.import_slice(sl, scope=T)
    status = {i: any_mem.get(report.ids[i], scope=T).status for i in (old.id, new.id, gone.id)}
    assert status == {old.id: "superseded", new.id: "forgotten", gone.id: "forgotten"}
    (edge,) = [e for e in any_mem.store.edges(T, include_closed=True) if e.type == "supersedes"]
    assert (edge.src, edge.dst) == (report.ids[new.id], report.ids[old.id])


def test_a_failure_half_way_through_the_write_leaves_the_scope_as_it_was(any_mem: Memory) -> None:
    a = any_mem.remember("The office is in Leeds", scope=S)
    b = any_mem.remember("The office is in York", scope=S)
    data = any_mem.export_slice(scope=S).to_dict()
    for n, (src, dst) in enumerate(((b.id, a.id), (a.id, b.id))):  # each supersedes the other: the second fails
        data["items"][n]["status"] = "superseded"
        data["edges"].append(
            {"id": f"01900000-0000-7000-8000-00000000000{n}", "type": "supersedes", "src": src, "dst": dst,
             "recorded_at": data["exported_at"]}
        )  # fmt: skip
    keep = any_mem.remember("Something already here", scope=T)
    before = _state(any_mem, T)
    with pytest.raises(Exception) as info:
        any_mem.import_slice(data, scope=T)
    assert getattr(info.value, "code", None) == "already_closed"
    assert _state(any_mem, T) == before and any_mem.get(keep.id, scope=T).is_current


def test_a_paused_scope_refuses_the_import(mem: Memory) -> None:
    mem.remember("Alice works at Acme", scope=S)
    sl = mem.export_slice(scope=S)
    mem.pause_learning(T)
    before = _state(mem, T)
    with pytest.raises(LearningPausedError):
        mem.import_slice(sl, scope=T)
    assert _state(mem, T) == before


# -- bad slices --------------------------------------------------------------------------------------
def _good(mem: Memory) -> dict[str, Any]:
    a = mem.remember("Alice works at Acme", scope=S)
    b = mem.remember("Alice commutes by bike", scope=S, parents=[a.id])
    mem.link(b.id, a.id, "supports", scope=S)
    return mem.export_slice(scope=S).to_dict()


def _future(d: dict[str, Any]) -> None:
    d["version"] = VERSION + 1


def _manual(d: dict[str, Any]) -> None:
    d["items"][0]["source"] = "manual"


def _trusted(d: dict[str, Any]) -> None:
    d["items"][0]["scores"]["authority"] = 1.0


def _duplicate(d: dict[str, Any]) -> None:
    d["items"][1]["id"] = d["items"][0]["id"]


def _dangling_edge(d: dict[str, Any]) -> None:
    d["edges"][0]["dst"] = "01900000-0000-7000-8000-000000000000"


def _cycle(d: dict[str, Any]) -> None:
    d["items"][0]["parents"] = [d["items"][1]["id"]]


def _unknown_section(d: dict[str, Any]) -> None:
    d["sections"] = {"messages": [{"text": "ship it"}]}


def _unknown_field(d: dict[str, Any]) -> None:
    d["items"][0]["authority"] = 0.3


def _not_a_slice(d: dict[str, Any]) -> None:
    d["format"] = "something.else"


def _bad_time(d: dict[str, Any]) -> None:
    d["items"][0]["valid_from"] = "yesterday"


def _too_long(d: dict[str, Any]) -> None:
    d["items"][0]["text"] = "x" * 1_000_000


@pytest.mark.parametrize(
    ("spoil", "code", "words"),
    [
        (_future, "invalid_slice", "newer than this reverie reads"),
        (_manual, "invalid_slice", "never forge 'manual'"),
        (_trusted, "invalid_slice", "trust does not travel"),
        (_duplicate, "invalid_slice", "appears twice"),
        (_dangling_edge, "invalid_slice", "not in the slice"),
        (_cycle, "invalid_slice", "its own ancestor"),
        (_unknown_section, "invalid_slice", "carries messages"),
        (_unknown_field, "invalid_slice", "unknown field(s) authority"),
        (_not_a_slice, "invalid_slice", "not a reverie slice"),
        (_bad_time, "invalid_slice", "ISO-8601"),
        (_too_long, "limit_exceeded", "slice item"),
    ],
)
def test_a_bad_slice_gets_a_clear_error_and_writes_nothing(
    mem: Memory, spoil: Callable[[dict[str, Any]], None], code: str, words: str
) -> None:
    data = _good(mem)
    spoil(data)
    before = _state(mem, T)
    for given in (data, json.dumps(data)):
        with pytest.raises(InvalidInputError) as info:
            mem.import_slice(given, scope=T)
        assert info.value.code == code and words in info.value.message, info.value.message
    assert _state(mem, T) == before


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", '{"format": "reverie.slice"}', "[" * 5000])
def test_text_that_is_no_slice_is_refused(mem: Memory, text: str) -> None:
    with pytest.raises(InvalidSliceError):
        mem.import_slice(text, scope=T)
    assert _log(mem, T) == []


def test_on_conflict_must_be_one_of_the_modes(mem: Memory) -> None:
    with pytest.raises(InvalidInputError, match="on_conflict must be one of report, skip, reid"):
        mem.import_slice(_good(mem), scope=T, on_conflict="overwrite")


def test_a_slice_round_trips_through_json_exactly(mem: Memory) -> None:
    sl = Slice.from_dict(_good(mem))
    assert Slice.from_json(sl.to_json()) == sl
    assert sl.format == "reverie.slice" and sl.version == 1


class _DownEmbedder:
    """The hash embedder's name and size, failing every call (a model whose files vanished)."""

    def __init__(self) -> None:
        from reverie.embed import HashEmbedder

        self._inner = HashEmbedder()
        self.name, self.dim = self._inner.name, self._inner.dim

    def embed(self, texts: Any) -> Any:
        from reverie.errors import EmbedderError

        raise EmbedderError("model files are missing (test)")


def test_an_import_while_the_embedder_fails_stores_the_claims_pending_their_vectors(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    src = open_mem(tmp_path / "a.db")
    src.remember("Alice works at Acme", scope=S)
    dst = open_mem(tmp_path / "b.db", embedder=_DownEmbedder())
    report = dst.import_slice(src.export_slice(scope=S), scope=T)
    (item,) = [dst.get(i, scope=T) for i in report.created]
    assert "vector_pending" in item.flags  # stored anyway; the next good write or dream fills the vector


def test_a_store_opened_read_only_exports_but_refuses_an_import(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    with Memory(path, embedder="hash") as mem:
        mem.remember("Alice works at Acme", scope=S)
    with Memory(path, embedder="hash", read_only=True) as ro:
        sl = ro.export_slice(scope=S)
        with pytest.raises(ReverieError) as info:
            ro.import_slice(sl, scope=T)
        assert info.value.code == "read_only"
        assert ro.list(scope=T).items == []
