"""Property: for random conversations with random per-message audiences (and random later audience
changes), no reader ever sees a token unique to a message it may not see — not in recall, list,
context, the log, the archive, history, the recap, people or the claims extracted (on SQLite files
and the reference store).

Each message carries a token of its own ("Zq<n>…") in a sentence the rules mine ("I live in …",
"My sister … joined", then a pronoun sentence that borrows the sister's name), so a leak through a
context window, a recap, a summary, an extracted claim or a borrowed name shows as that token.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from reverie import Memory
from reverie.model.visibility import may_see
from reverie.store.reference import ReferenceStore
from reverie.testing import ManualClock

SCOPE = "team:ops"
READERS = ("agent:a", "agent:b", "agent:c")
AUDIENCES: tuple[tuple[str, ...] | None, ...] = (None, ("agent:a",), ("agent:b",), ("agent:a", "agent:b"))
SHAPES = ("I live in {t}", "My sister {t} joined the team", "She just bought a bike from {t}", "We talked about {t}")

messages = st.lists(
    st.tuples(st.sampled_from(SHAPES), st.sampled_from(AUDIENCES), st.sampled_from(("alice", "bob"))),
    min_size=2,
    max_size=7,
)
changes = st.lists(st.tuples(st.integers(0, 6), st.sampled_from(AUDIENCES)), max_size=2)


def _token(n: int) -> str:
    return "Zq" + "abcdefgh"[n] + "vorn"


def _everything(mem: Memory, reader: str) -> str:
    view = mem.as_principal(reader)
    parts: list[Any] = [
        [i.to_dict() for i in view.list(scope=SCOPE, include_closed=True, limit=1000).items],
        [e.to_dict() for e in view.events(scope=SCOPE, limit=10_000)],
        [h.item.to_dict() for h in view.recall("live sister bike talked team", scope=SCOPE, k=50)],
        view.context("live sister bike talked team", scope=SCOPE),
        [(p.name, p.aliases) for p in view.people(scope=SCOPE)],
        [h.text for h in view.archive_search("team", scope=SCOPE)],
    ]
    recap = view.recap(scope=SCOPE)
    parts.append(recap.text if recap is not None else "")
    for state in view.conversations(scope=SCOPE):
        conv = view.conversation(state.id, scope=SCOPE, create=False, history_chars=300)
        parts += [[e.to_dict() for e in conv.entries()], [e.to_dict() for e in conv.history()]]
    return json.dumps(parts, default=str).casefold()


def _run(mem: Memory, said: list[tuple[str, tuple[str, ...] | None, str]], moves: list[Any], close_at: int) -> None:
    conv = mem.conversation("chat-1", scope=SCOPE, history_chars=300)
    ids = []
    for n, (shape, audience, speaker) in enumerate(said):
        msg = conv.add(shape.format(t=_token(n)), speaker=speaker, visibility=list(audience) if audience else None)
        ids.append(msg.id)
        if n == close_at:
            conv.close()
    for n, audience in moves:
        if n < len(ids):
            conv.set_visibility(ids[n], list(audience) if audience else None)
            said[n] = (said[n][0], audience, said[n][2])
    conv.close()
    for reader in READERS:
        seen = _everything(mem, reader)
        for n, (_, audience, _) in enumerate(said):
            if not may_see(audience or (), reader):
                assert _token(n).casefold() not in seen, (reader, n, audience)


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(said=messages, moves=changes, close_at=st.integers(0, 6))
def test_no_reader_sees_a_token_of_a_message_it_may_not_see_reference(said: Any, moves: Any, close_at: int) -> None:
    note(f"{said} {moves} {close_at}")
    mem = Memory(store=ReferenceStore(), embedder="hash", clock=ManualClock(), seed=0)
    try:
        _run(mem, list(said), moves, close_at)
    finally:
        mem.close()


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(said=messages, moves=changes, close_at=st.integers(0, 6))
def test_no_reader_sees_a_token_of_a_message_it_may_not_see_sqlite(
    tmp_path_factory: Any, said: Any, moves: Any, close_at: int
) -> None:
    note(f"{said} {moves} {close_at}")
    path: Path = tmp_path_factory.mktemp("msgvis") / "m.db"
    mem = Memory(path, embedder="hash", clock=ManualClock(), seed=0)
    try:
        _run(mem, list(said), moves, close_at)
        assert mem.doctor().problems == []
    finally:
        mem.close()
