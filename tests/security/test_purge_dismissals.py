"""Finding 2 (issue #14): a purge must never change which values are dismissed.

dismiss → undismiss → remember → purge: the purge stripped the value's fingerprint from the
undismiss event (the fingerprint is the normalised text), so on replaying the rewritten log —
and in the tombstones the purge rewrote live — the *old* dismissal counted again and the value
was refused. Purging a dismissed claim, the other way round, dropped its tombstone, so the value
could be learned again. Now each purged fingerprint is replaced by its seal (a digest) in every
dismiss / undismiss event and tombstone: no plain value stays, and every dismissal holds.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from reverie import DismissedValueError, ManualClock, Memory, ReverieError
from reverie.model.redact import dismissal_keys
from reverie.model.validate import fingerprints
from reverie.store.reference import ReferenceStore
from strategies import START, state_of

from .kit import everything_readable, found_on_disk

SCOPE = "user:alice"
CANARY = "Dz4Dismissed9Val"
TEXT = f"the door code is {CANARY}"


def _backends(open_mem: Callable[..., Memory], tmp_path: Path) -> list[Memory]:
    return [open_mem(tmp_path / "dismiss.db"), open_mem(reference=True)]


def test_purge_after_undismiss_and_relearning_does_not_bring_the_old_dismissal_back(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    for mem in _backends(open_mem, tmp_path):
        first = mem.remember(TEXT, scope=SCOPE)
        mem.dismiss(first.id, scope=SCOPE)
        mem.undismiss(TEXT, scope=SCOPE)
        again = mem.remember(TEXT, scope=SCOPE)
        mem.forget(again.id, scope=SCOPE, purge=True)
        assert mem.store.tombstones(SCOPE) == []
        third = mem.remember(TEXT, scope=SCOPE)  # was: DismissedValueError from the first dismissal
        assert third.is_current
        mem.rebuild()
        assert mem.store.tombstones(SCOPE) == []


def test_purging_a_dismissed_claim_keeps_its_value_dismissed_without_keeping_the_value(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    mems = _backends(open_mem, tmp_path)
    for mem in mems:
        item = mem.remember(TEXT, scope=SCOPE)
        mem.dismiss(item.id, scope=SCOPE, reason=f"wrong: {CANARY}")
        mem.forget(item.id, scope=SCOPE, purge=True)
        assert CANARY.casefold() not in everything_readable(mem, SCOPE)
        if mem.store is mems[0].store:
            assert found_on_disk(tmp_path / "dismiss.db", [CANARY]) == {}
        for _ in range(2):
            with pytest.raises(DismissedValueError):
                mem.remember(TEXT, scope=SCOPE)
            mem.rebuild()
        mem.undismiss(TEXT, scope=SCOPE)  # the caller knows the value: lifting it still works
        assert mem.remember(TEXT, scope=SCOPE).is_current
        assert mem.store.tombstones(SCOPE) == []


# -- the property ------------------------------------------------------------------------------------------

#: Few values, so dismissals, undismissals, relearning and purges keep meeting the same value.
VALUES = ["Va1Qx one", "Vb2Qx two", "Vc3Qx three"]
OPS = ["remember", "dismiss", "undismiss", "revise", "forget", "purge"]


def _refused(mem: Memory) -> dict[str, bool]:
    """For each value: would ``remember`` refuse it as dismissed? (read from the tombstones)."""
    return {
        v: any(
            mem.store.tombstone(SCOPE, k) is not None for fp in fingerprints(v, None, None) for k in dismissal_keys(fp)
        )
        for v in VALUES
    }


def _drive(mem: Memory, clock: ManualClock, ops: list[tuple[str, int, int]]) -> list[dict[str, bool]]:
    """Apply ``ops``; after each purge, check that the dismissed values are what they were before it."""
    ids: list[str] = []
    seen: list[dict[str, bool]] = []
    for op, i, v in ops:
        clock.advance(seconds=1)
        value = VALUES[v % len(VALUES)]
        try:
            if op == "remember" or not ids:
                ids.append(mem.remember(value, scope=SCOPE).id)
            elif op == "dismiss":
                mem.dismiss(ids[i % len(ids)], scope=SCOPE)
            elif op == "undismiss":
                mem.undismiss(value, scope=SCOPE)
            elif op == "revise":
                ids.append(mem.revise(ids[i % len(ids)], value, scope=SCOPE).id)
            elif op == "forget":
                mem.forget(ids[i % len(ids)], scope=SCOPE)
            elif op == "purge":
                before = _refused(mem)
                mem.forget(ids[i % len(ids)], scope=SCOPE, purge=True)
                assert _refused(mem) == before
                seen.append(before)
        except ReverieError:
            pass
    return seen


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 9), st.integers(0, 2)), min_size=1, max_size=20))
def test_no_purge_changes_which_values_are_dismissed_on_either_backend_or_after_rebuild(
    ops: list[tuple[str, int, int]],
) -> None:
    note(repr(ops))
    with tempfile.TemporaryDirectory() as tmp:
        clocks = ManualClock(START), ManualClock(START)
        with (
            Memory(Path(tmp) / "d.db", embedder="hash", clock=clocks[0], seed=3, durability="fast") as lite,
            Memory(store=ReferenceStore(), embedder="hash", clock=clocks[1], seed=3) as ref,
        ):
            assert _drive(lite, clocks[0], ops) == _drive(ref, clocks[1], ops)
            live = state_of(lite)
            assert live == state_of(ref)
            refused = _refused(lite)
            for mem in (lite, ref):
                mem.rebuild()
                assert state_of(mem) == live and _refused(mem) == refused
            for value, dismissed in refused.items():  # the reducer reads the same: remember agrees
                try:
                    lite.remember(value, scope=SCOPE)
                    assert not dismissed, value
                except DismissedValueError:
                    assert dismissed, value
