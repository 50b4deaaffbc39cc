"""A dream pass plans from the whole scope or not at all (outside probe, 2026-12-02).

Planned from a principal's partial view, a pass changed the shared scope by what it could not
see: a visible claim derived from a hidden one looked orphaned (flagged ``stale_derived`` and
demoted, its reason naming the hidden parent's id), and a visible claim a hidden one derives
from looked unused (demoted, though the owner's pass spares it as load-bearing). So the pass is
an operator operation, like ``doctor``: refused to a principal, dry run included; a server that
serves as a principal runs its scheduled passes as the store's owner.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from reverie import ManualClock, Memory
from reverie.errors import NotPermittedError
from strategies import START

SCOPE = "team:v"


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "dream.db", embedder="hash", clock=ManualClock(START), seed=5)
    yield m
    m.close()


def test_a_principal_cannot_run_or_plan_a_pass_and_nothing_changes(mem: Memory) -> None:
    secret = mem.remember("The vault code is 8812", scope=SCOPE, visibility=["agent:ops"])
    child = mem.remember("Vault note derived from the code", scope=SCOPE, parents=[secret.id])
    before = mem.get(child.id, scope=SCOPE)
    view = mem.as_principal("agent:b")
    for dry_run in (True, False):
        with pytest.raises(NotPermittedError) as caught:
            view.dream(scope=SCOPE, dry_run=dry_run)
        assert secret.id not in str(caught.value)
    after = mem.get(child.id, scope=SCOPE)
    assert (after.flags, after.tier) == (before.flags, before.tier)
    assert mem.dream(scope=SCOPE, dry_run=True).to_dict()["actions"] == []  # the owner's pass: nothing to do


def test_a_principal_memory_opened_on_the_file_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    with Memory(path, embedder="hash", clock=ManualClock(START)) as owner:
        owner.remember("Public base fact about turbines", scope=SCOPE)
    with (
        Memory(path, embedder="hash", clock=ManualClock(START), principal="agent:b") as b,
        pytest.raises(NotPermittedError),
    ):
        b.dream(scope=SCOPE)


def test_a_server_serving_as_a_principal_dreams_as_the_owner(tmp_path: Path) -> None:
    from reverie.http.app import _dream_loop

    path = tmp_path / "s.db"
    clock = ManualClock(START)
    with Memory(path, embedder="hash", clock=clock) as owner:
        for _ in range(3):
            owner.remember("Alice drinks green tea every morning", scope=SCOPE)
    with Memory(path, embedder="hash", clock=clock, principal="agent:b") as served:

        async def one_round() -> None:
            task = asyncio.create_task(_dream_loop(served, 0.01))
            for _ in range(200):
                await asyncio.sleep(0.02)
                if served.as_principal("agent:b").store.inner.dream_runs(SCOPE, limit=1):
                    break
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(one_round())
        runs = served.store.inner.dream_runs(SCOPE, limit=5)
        assert runs, "the scheduled pass ran (as the owner) instead of failing as a principal"
