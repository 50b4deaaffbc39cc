"""Promises of ``import_slice`` that guard the home store against what a slice carries back.

- **A purge here stays a purge** (outside probe 2, #7): a message purged at home while a sandbox
  worked on its copy does not come back through the sandbox's later turns — not in a later turn's
  memory (its context is re-derived with the message left out, as a purge at home re-writes it),
  not in a claim that borrowed a name from it, not as the person only it named.
- **A record's moves are bounded** (#12): an intent or task carrying more moves than
  ``Limits.max_record_moves`` is refused ``limit_exceeded`` naming the bound,
  as every ``Limits`` bound in a slice; nothing is written.
- **Concurrent imports of one slice apply it once** (#17): processes importing the same slice
  into one scope at once end as two sequential imports do — one set of records, evidence counted
  once, no ``version_conflict`` for a conversation.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reverie import Limits, Memory
from reverie.errors import LimitExceededError
from reverie.testing import make_memory

HOME, SANDBOX = "user:alice", "task:x"
WORKER = Path(__file__).with_name("slice_import_worker.py")


def _home_text(mem: Memory, scope: str) -> str:
    items = [i.text for i in mem.list(scope=scope, include_closed=True, limit=1000).items]
    msgs = [m.text for m in mem.conversation("c1", scope=scope, create=False).messages()]
    return json.dumps(items + msgs + [str(e) for e in mem.events(scope=scope)])


def _sandbox_turn_then_purge(turn: str, *, noted: bool = True, home_goes_on: bool = False) -> tuple[Memory, Memory]:
    """Home says a secret, hands the conversation to a sandbox that adds ``turn`` and closes it,
    then home purges the secret (``home_goes_on``: home adds a turn first, so the two diverge)."""
    main, _ = make_memory()
    sandbox, _ = make_memory(seed=5)
    conv = main.conversation("c1", scope=HOME)
    secret = conv.add("My sister Zorvina lives in Porto", speaker="Alice", role="user")
    if noted:
        conv.add("Noted", speaker="Bot", role="assistant")
    sandbox.import_slice(main.export_slice(scope=HOME, include_conversations=True).to_json(), scope=SANDBOX)
    sc = sandbox.conversation("c1", scope=SANDBOX, create=False)
    sc.add(turn, speaker="Alice", role="user")
    sc.close()
    if home_goes_on:
        conv.add("Home went on meanwhile", speaker="Bob", role="user")  # both went on: a conflict
    conv.purge(secret.id)
    return main, sandbox


def test_a_message_purged_at_home_does_not_come_back_through_a_sandbox_turn() -> None:
    main, sandbox = _sandbox_turn_then_purge("She also has a cat called Fluff")
    assert "Zorvina" not in _home_text(main, HOME)

    rep = main.import_slice(sandbox.export_slice(scope=SANDBOX, include_conversations=True).to_json(), scope=HOME)

    assert "Zorvina" not in _home_text(main, HOME)
    assert any(s.get("reason") == "purged here" for s in rep.skipped)
    # The sandbox's turn itself came home, its memory quoting only what home still holds.
    later = [m for m in main.conversation("c1", scope=HOME, create=False).messages() if "Fluff" in m.text]
    assert len(later) == 1
    memories = [i for i in main.list(scope=HOME).items if i.meta.get("message") == later[0].id]
    assert len(memories) == 1
    assert "She also has a cat called Fluff" in memories[0].text and "Porto" not in memories[0].text


def test_a_purge_at_home_leaves_untouched_what_the_sandbox_says_on_its_own() -> None:
    main, sandbox = _sandbox_turn_then_purge("My colleague Omar lives in Lisbon", noted=False)

    main.import_slice(sandbox.export_slice(scope=SANDBOX, include_conversations=True).to_json(), scope=HOME)

    text = _home_text(main, HOME)
    assert "Zorvina" not in text and "Porto" not in text
    assert "Omar" in text and "Lisbon" in text


def test_a_copy_under_a_new_name_leaves_the_purged_message_out_too() -> None:
    main, sandbox = _sandbox_turn_then_purge("She also has a cat called Fluff", home_goes_on=True)

    sent = sandbox.export_slice(scope=SANDBOX, include_conversations=True).to_json()
    rep = main.import_slice(sent, scope=HOME, on_conflict="reid")

    assert rep.conversations == {"c1": "c1~2"}
    copy = [m.text for m in main.conversation("c1~2", scope=HOME, create=False).messages()]
    assert "She also has a cat called Fluff" in copy and not any("Zorvina" in t for t in copy)
    items = [i.text for i in main.list(scope=HOME, include_closed=True, limit=1000).items]
    assert not any("Zorvina" in t or "Porto" in t for t in items)
    assert "Zorvina" not in json.dumps([str(e) for e in main.events(scope=HOME)])


def _agenda_slice(mem: Memory, pairs: int, source: str = "s:a") -> dict:
    g = mem.intents.create("goal", scope=source)
    t = mem.tasks.create("do", scope=source, intent=g)
    mem.tasks.start(t, scope=source)
    d = json.loads(mem.export_slice(scope=source, include_intents=True, include_tasks=True).to_json())
    task = d["sections"]["tasks"][0]
    at = task["moves"][0]["at"]
    task["moves"] += [{"move": "fail", "reason": "r", "at": at}, {"move": "retry", "reason": "", "at": at}] * pairs
    return d


def test_a_task_with_more_moves_than_the_limit_is_refused_and_nothing_is_written() -> None:
    mem, _ = make_memory(limits=Limits(max_record_moves=20))
    d = _agenda_slice(mem, 10)  # start + 20 moves = 21
    before = len(mem.events(scope="s:b"))
    with pytest.raises(LimitExceededError) as err:
        mem.import_slice(d, scope="s:b")
    assert "max_record_moves" in err.value.message and "21" in err.value.message
    assert len(mem.events(scope="s:b")) == before
    assert mem.tasks.list(scope="s:b") == []
    ok = _agenda_slice(mem, 5, "s:other")  # within the bound: imported
    assert len(mem.import_slice(ok, scope="s:c").records_created) == 2


def test_the_default_limit_refuses_the_probes_four_thousand_moves() -> None:
    mem, _ = make_memory()
    with pytest.raises(LimitExceededError, match="max_record_moves"):
        mem.import_slice(_agenda_slice(mem, 2000), scope="s:b")


@pytest.fixture(params=["sqlite", "postgres"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The store the importers share: a SQLite file, then a fresh PostgreSQL database (``pg_url``)."""
    if request.param == "sqlite":
        return str(tmp_path / "m.db")
    return str(request.getfixturevalue("pg_url"))


def _run_concurrently(tmp_path: Path, db: str, slice_path: Path, scope: str, n: int = 3) -> list[dict]:
    go = tmp_path / f"go-{scope.replace(':', '_')}"
    readies = [tmp_path / f"ready-{scope.replace(':', '_')}-{k}" for k in range(n)]
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), db, str(slice_path), scope, str(r), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in readies
    ]
    deadline = time.monotonic() + 60
    while not all(r.exists() for r in readies) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(json.loads(out.strip().splitlines()[-1]))
    return outs


@pytest.mark.slow
def test_concurrent_imports_of_one_slice_apply_it_once(tmp_path: Path, shared: str) -> None:
    db = shared
    with Memory(db, embedder="hash") as m:
        c = m.conversation("c1", scope="src:a")
        c.add("My sister Dana lives in Porto", speaker="Alice", role="user")
        c.close()
        g = m.intents.create("goal", scope="src:a")
        m.tasks.create("t", scope="src:a", intent=g)
        for i in range(20):
            m.remember(f"fact {i} about widgets", scope="src:a")
        plain = m.export_slice(scope="src:a", include_intents=True, include_tasks=True).to_json()
        talk = m.export_slice(scope="src:a", include_conversations=True).to_json()
    (tmp_path / "plain.json").write_text(plain)
    (tmp_path / "talk.json").write_text(talk)

    outs = _run_concurrently(tmp_path, db, tmp_path / "plain.json", "home:a")
    assert all("error" not in o for o in outs), outs
    assert sorted(o["records"] for o in outs) == [0, 0, 2]
    with Memory(db, embedder="hash") as m:
        assert len(m.intents.list(scope="home:a")) == 1
        assert len(m.tasks.list(scope="home:a")) == 1
        assert {i.evidence_count for i in m.list(scope="home:a", limit=1000).items} == {1}

    outs = _run_concurrently(tmp_path, db, tmp_path / "talk.json", "home:b")
    assert all("error" not in o for o in outs), outs
    assert sorted(o["created"] > 0 for o in outs) == [False, False, True]
    with Memory(db, embedder="hash") as m:
        assert len(m.conversation("c1", scope="home:b", create=False).messages()) == 1
        assert {i.evidence_count for i in m.list(scope="home:b", limit=1000).items} == {1}
