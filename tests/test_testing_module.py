"""``reverie.testing``: the helpers users test their own code with, exercised as users would."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from reverie import ManualClock, Memory
from reverie.testing import EPOCH, claim, conversation, dream_host, make_memory, remember_all

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_runs_as_written() -> None:
    block = re.search(r"### Testing code that uses reverie.*?```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None, "the README's testing example is missing"
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), "README example", "exec"), namespace)  # asserts inside the example
    mem = namespace["mem"]
    assert isinstance(mem, Memory)
    mem.close()


def test_make_memory_is_in_memory_hash_and_on_its_clock() -> None:
    mem, clock = make_memory()
    with mem:
        assert isinstance(clock, ManualClock) and clock.now() == EPOCH
        assert mem.embedder.name.startswith("hash")
        first = mem.remember("Alice likes tea", scope="s")
        assert first.recorded_at == EPOCH
        clock.advance(days=2)
        assert mem.remember("Bob likes coffee", scope="s").recorded_at == EPOCH.replace(day=EPOCH.day + 2)


def test_make_memory_ids_are_reproducible() -> None:
    def ids() -> list[str]:
        mem, _ = make_memory(seed=3)
        with mem:
            return [i.id for i in remember_all(mem, ["a one", "b two", "c three"], scope="s")]

    assert ids() == ids()


def test_claim_builds_a_candidate_for_remember_many() -> None:
    mem, _ = make_memory()
    with mem:
        stored = mem.remember_many([claim("Alice is vegan", kind="trait", importance=0.8)], scope="s")
        assert stored[0].kind == "trait" and stored[0].scores.importance == 0.8


def test_conversation_is_deterministic_ordered_and_alternating() -> None:
    turns = conversation(("Ana", "Ben"), exchanges=4)
    assert turns == conversation(("Ana", "Ben"), exchanges=4)
    assert [t.speaker for t in turns] == ["Ana", "Ben"] * 4
    assert all(a.at < b.at for a, b in itertools.pairwise(turns))
    with pytest.raises(ValueError, match="two speakers"):
        conversation(("Ana",))


def test_fixture_memory_is_ready_and_checked(reverie_mem: Memory, reverie_clock: ManualClock) -> None:
    reverie_mem.remember("The build server is ci-3", scope="team")
    reverie_clock.advance(days=1)
    assert reverie_mem.recall("build server", scope="team")[0].item.text == "The build server is ci-3"


def test_dream_host_drives_the_pass_phases() -> None:
    from reverie.dream import apply, plan

    mem, clock = make_memory()
    with mem:
        remember_all(mem, ["Had a chat about the weather"] * 1 + ["Lunch was fine"], scope="s")
        clock.advance(days=90)
        report = plan(dream_host(mem), scope="s")
        assert report.dry_run and report.count("tier") == 2
        apply(dream_host(mem), report)
        assert mem.summary(scope="s")["subconscious"] == 2
