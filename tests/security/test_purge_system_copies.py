"""Finding 3 (issue #14): a copy reverie itself made of the purged claim is purged with it.

A dream pass consolidates near-duplicates into a gist whose text is its most salient member's,
verbatim. Purging that member left the gist holding the text: the system's own copy of erased
content. Now a ``source="system"`` item that lists a purged version among its parents and
quotes its text is erased in the same purge (and named in the event's ``copies``); items a
caller wrote, or system items in their own words, keep their text and are named in ``kept``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reverie import ManualClock, Memory
from reverie.model.redact import REDACTED

from .kit import everything_readable, found_on_disk

SCOPE = "user:alice"
KEY = "Kx5Gist"
NEAR = (
    f"Alice prefers {KEY} tea in the morning",
    f"In the morning Alice prefers {KEY} tea",
    f"Alice prefers {KEY} tea every morning",
)


def _purged_event(mem: Memory) -> dict[str, object]:
    return next(e.payload for e in mem.events(scope=SCOPE) if e.type == "memory.purged")


def _dream_gist(mem: Memory, clock: ManualClock) -> tuple[list[str], str, str]:
    """Three near-duplicates and a pass; returns (member ids, gist id, representative id)."""
    members = [mem.remember(t, scope=SCOPE, kind="episodic").id for t in NEAR]
    clock.advance(days=40)
    report = mem.dream(scope=SCOPE)
    created = [o.created for o in report.outcomes if o.created]
    assert len(created) == 1, report.outcomes
    gist = mem.get(str(created[0]), scope=SCOPE)
    assert gist.source == "system" and sorted(gist.parents) == sorted(members)
    return members, gist.id, str(gist.meta["representative"])


def test_purge_erases_a_dream_gist_quoting_the_purged_claim(
    open_mem: Callable[..., Memory], tmp_path: Path, clock: ManualClock
) -> None:
    db = tmp_path / "gist.db"
    for mem in (open_mem(db), open_mem(reference=True)):
        members, gist_id, rep = _dream_gist(mem, clock)
        quoted = mem.get(rep, scope=SCOPE).text
        assert mem.get(gist_id, scope=SCOPE).text.startswith(quoted)  # the test can fail: the gist quotes it
        mem.forget(rep, scope=SCOPE, reason="erasure request", purge=True)
        gist = mem.get(gist_id, scope=SCOPE)
        assert (gist.text, gist.tags, gist.meta, gist.is_current) == (REDACTED, (), {}, False)
        assert gist.parents == tuple(sorted(members)) and gist.source == "system"  # provenance stays
        payload = _purged_event(mem)
        assert payload["copies"] == [gist_id] and gist_id in payload["ids"]  # type: ignore[operator]
        assert quoted.casefold() not in everything_readable(mem, SCOPE)
        hits = mem.recall(f"{KEY} tea morning", scope=SCOPE, include_history=True, record_use=False)
        assert quoted not in [h.item.text for h in hits]
        others = sorted(set(members) - {rep})
        assert [mem.get(i, scope=SCOPE).text != REDACTED for i in others] == [True, True]
        mem.rebuild()
        assert mem.get(gist_id, scope=SCOPE).text == REDACTED
    assert found_on_disk(db, [quoted]) == {}


def test_purge_of_a_member_the_gist_does_not_quote_keeps_the_gist_and_lists_it(
    open_mem: Callable[..., Memory], tmp_path: Path, clock: ManualClock
) -> None:
    for mem in (open_mem(tmp_path / "gist.db"), open_mem(reference=True)):
        members, gist_id, rep = _dream_gist(mem, clock)
        other = min(set(members) - {rep})
        text = mem.get(gist_id, scope=SCOPE).text
        mem.forget(other, scope=SCOPE, purge=True)
        assert mem.get(gist_id, scope=SCOPE).text == text
        assert _purged_event(mem)["kept"] == [gist_id] and _purged_event(mem)["copies"] == []


def test_purge_keeps_a_callers_child_that_quotes_it_and_names_it_in_the_event(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    """The caller wrote it: only the caller can say whether it is the same secret (purge it too)."""
    for mem in (open_mem(tmp_path / "child.db"), open_mem(reference=True)):
        parent = mem.remember(f"the wifi password is {KEY}", scope=SCOPE)
        child = mem.remember(f"as noted: the wifi password is {KEY}", scope=SCOPE, parents=[parent.id])
        own = mem.remember_system("a password was rotated", scope=SCOPE, parents=[parent.id])
        mem.forget(parent.id, scope=SCOPE, purge=True)
        assert mem.get(child.id, scope=SCOPE).text == f"as noted: the wifi password is {KEY}"
        assert mem.get(own.id, scope=SCOPE).text == "a password was rotated"
        assert _purged_event(mem)["kept"] == sorted([child.id, own.id])


def test_a_system_copy_a_person_vouched_for_is_theirs_kept_and_named(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    """Promoted to manual, a copy is a person's claim: like a caller's child it is kept and listed."""
    for mem in (open_mem(tmp_path / "vouched.db"), open_mem(reference=True)):
        parent = mem.remember(f"the wifi password is {KEY}", scope=SCOPE)
        copy = mem.remember_system(f"the wifi password is {KEY} (consolidated)", scope=SCOPE, parents=[parent.id])
        mem.promote(copy.id, scope=SCOPE, reason="checked it")
        mem.forget(parent.id, scope=SCOPE, purge=True)
        assert KEY in mem.get(copy.id, scope=SCOPE).text
        assert copy.id in _purged_event(mem)["kept"]


def test_purge_follows_a_copy_of_a_copy(open_mem: Callable[..., Memory], tmp_path: Path) -> None:
    db = tmp_path / "chain.db"
    for mem in (open_mem(db), open_mem(reference=True)):
        root = mem.remember(f"the safe combination is {KEY}", scope=SCOPE)
        copy = mem.remember_system(f"the safe combination is {KEY} (summary)", scope=SCOPE, parents=[root.id])
        copy2 = mem.remember_system(f"the safe combination is {KEY} (summary) again", scope=SCOPE, parents=[copy.id])
        mem.forget(root.id, scope=SCOPE, purge=True)
        assert [mem.get(i, scope=SCOPE).text for i in (copy.id, copy2.id)] == [REDACTED, REDACTED]
        assert _purged_event(mem)["copies"] == sorted([copy.id, copy2.id])
        assert KEY.casefold() not in everything_readable(mem, SCOPE)
    assert found_on_disk(db, [KEY]) == {}
