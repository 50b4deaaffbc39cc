"""Properties: byte-exact storage, exact JSON, backend equivalence and replayable projections.

- Arbitrary Unicode text and JSON meta round-trip exactly through a real SQLite file (and
  survive close + reopen); what cannot be stored exactly is refused with ``InvalidInputError``.
- A Hypothesis state machine drives a SQLite file and the in-memory reference store with the
  same commands, the same clock and the same id seed, and after every step checks that every
  read agrees (items, edges, tombstones, summary, the event log) and that both refused the same
  commands with the same error class. One of its rules rebuilds every projection from the log
  and checks nothing visible changed.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

import pg_server
from reverie import History, InvalidInputError, ManualClock, Memory, ReverieError
from reverie.model.item import EDGE_TYPES, TIERS
from reverie.store.reference import ReferenceStore
from strategies import OTHER_SCOPE, SCOPE, START, json_meta, state_of, storable_text

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _assert_same_json(a: Any, b: Any) -> None:
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert sorted(a) == sorted(b)
        for k in a:
            _assert_same_json(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_same_json(x, y)
    else:
        assert a == b or (a != a and b != b)


# -- byte-exact text ------------------------------------------------------------------------------


@FAST
@given(texts=st.lists(storable_text(), min_size=1, max_size=4))
def test_unicode_text_round_trips_byte_exact_through_sqlite_file(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "text.db"
        stored: list[tuple[str, str, str]] = []
        with Memory(path, embedder="hash", clock=ManualClock(START), seed=1, durability="fast") as mem:
            for n, text in enumerate(texts):
                scope = f"s{n}"  # one scope each: equal normal forms must not corroborate here
                tag = text[:100] if text[:100].strip() else "t"
                item = mem.remember(text, scope=scope, author=text, key="k", value=text, tags=[tag], meta={text: text})
                assert (item.text, item.author, item.value, item.tags, item.meta) == (
                    text,
                    text,
                    text,
                    (tag,),
                    {text: text},
                )
                assert mem.get(item.id, scope=scope).text.encode("utf-8") == text.encode("utf-8")
                stored.append((scope, item.id, text))
        with Memory(path, embedder="hash", clock=ManualClock(START)) as again:
            for scope, item_id, text in stored:
                item = again.get(item_id, scope=scope)
                assert item.text.encode("utf-8") == text.encode("utf-8")
                assert (item.author, item.value, item.meta) == (text, text, {text: text})
                assert [i.text for i in again.list(scope=scope).items] == [text]
            assert again.doctor().ok


@FAST
@given(
    text=storable_text(50),
    bad=st.sampled_from(["\x00", "\ud800", "\udfff", "\udbff\udbff"]),
    at=st.integers(min_value=0, max_value=50),
)
def test_text_with_nul_or_lone_surrogate_is_refused(text: str, bad: str, at: int) -> None:
    poisoned = text[:at] + bad + text[at:]
    with Memory(":memory:", embedder="hash", clock=ManualClock(START)) as mem:
        for call in (
            lambda: mem.remember(poisoned, scope=SCOPE),
            lambda: mem.remember("fine", scope=SCOPE, tags=[poisoned]),
            lambda: mem.remember("fine", scope=SCOPE, meta={"k": poisoned}),
            lambda: mem.remember("fine", scope=SCOPE, key="k", value=poisoned),
            lambda: mem.remember_many(["fine", poisoned], scope=SCOPE),
        ):
            with pytest.raises(InvalidInputError) as info:
                call()
            assert type(info.value) is InvalidInputError and info.value.message
        assert mem.events(scope=SCOPE) == [] and mem.scopes() == []


@FAST
@given(blank=st.text(st.sampled_from(" \t\n\r\x0b\x0c\u00a0\u2003\u3000\u2028"), max_size=10))
def test_blank_text_is_refused(blank: str) -> None:
    with Memory(":memory:", embedder="hash") as mem:
        with pytest.raises(InvalidInputError):
            mem.remember(blank, scope=SCOPE)
        assert mem.scopes() == []


# -- exact JSON meta ----------------------------------------------------------------------------------


@FAST
@given(meta=json_meta())
def test_json_meta_round_trips_exactly_through_sqlite_file(meta: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "meta.db"
        with Memory(path, embedder="hash", clock=ManualClock(START), durability="fast") as mem:
            item = mem.remember("carrier", scope=SCOPE, meta=meta)
            _assert_same_json(item.meta, meta)
            _assert_same_json(mem.get(item.id, scope=SCOPE).meta, meta)
        with Memory(path, embedder="hash") as again:
            _assert_same_json(again.get(item.id, scope=SCOPE).meta, meta)
            [event] = again.events(scope=SCOPE)
            _assert_same_json(event.payload["item"]["meta"], meta)


@FAST
@given(meta=json_meta())
def test_json_meta_round_trips_exactly_through_reference_store(meta: dict[str, Any]) -> None:
    with Memory(store=ReferenceStore(), embedder="hash") as mem:
        item = mem.remember("carrier", scope=SCOPE, meta=meta)
        _assert_same_json(mem.get(item.id, scope=SCOPE).meta, meta)


# -- SQLite and the reference store behave identically ----------------------------------------------------

# Few distinct claims (three spellings of one), so corroboration, tombstones and rewording into
# another claim's words happen often.
TEXTS = ["Alice likes tea", "alice likes tea.", "ALICE  LIKES TEA!", "Bob likes coffee", "The sky is blue", "Dan runs"]
KEYED = [None, None, ("alice.drink", "tea"), ("alice.drink", "coffee"), ("carol.age", "30")]
SCOPES = [SCOPE, SCOPE, SCOPE, OTHER_SCOPE]  # mostly one scope, so commands interact
PICK = st.tuples(st.booleans(), st.integers(min_value=0, max_value=1_000))


class Outcome:
    """What one call did on one backend: a value (as plain data) or an error class."""

    def __init__(self, fn: Any, mem: Memory) -> None:
        self.value: Any = None
        self.error: type[BaseException] | None = None
        try:
            self.value = fn(mem)
        except ReverieError as exc:
            self.error = type(exc)

    def plain(self) -> Any:
        v = self.value
        if isinstance(v, History):
            return [x.to_dict() for x in v.versions], [e.to_dict() for e in v.events]
        if isinstance(v, list):
            return [x.to_dict() if hasattr(x, "to_dict") else x for x in v]
        return v.to_dict() if hasattr(v, "to_dict") else v


class SQLiteMatchesReference(RuleBasedStateMachine):
    """The same commands on a SQLite file and on the reference store give the same reads.

    Rules pick their target from the current state (``PICK``: mostly a current item, sometimes
    any item including closed ones, and now and then an item of the other scope), so most
    commands act on something that exists and interact with each other.
    """

    def __init__(self) -> None:
        super().__init__()
        self._tmp = tempfile.TemporaryDirectory()
        self.path = Path(self._tmp.name) / "machine.db"
        self.clock = ManualClock(START)
        self.ref_store = ReferenceStore()
        self.lite = self._open_lite()
        self.ref = Memory(store=self.ref_store, embedder="hash", clock=self.clock, seed=0)

    def _open_lite(self) -> Memory:
        return Memory(self.path, embedder="hash", clock=self.clock, seed=0, durability="fast")

    def both(self, fn: Any) -> Any:
        lite, ref = Outcome(fn, self.lite), Outcome(fn, self.ref)
        note(f"-> {lite.error.__name__ if lite.error else lite.plain()!r}")
        assert lite.error == ref.error, (lite.error, ref.error)
        assert lite.plain() == ref.plain()
        return lite.value

    def pick(self, choice: tuple[bool, int], scope: str = SCOPE) -> str:
        """An item id from the current state (both backends hold the same ones)."""
        live_only, n = choice
        pool = [i.id for i in self.lite.list(scope=scope, include_closed=not live_only, limit=1000).items]
        if not pool:
            pool = [i.id for i in self.lite.list(scope=scope, include_closed=True, limit=1000).items]
        return pool[n % len(pool)] if pool else "00000000-0000-7000-8000-000000000000"

    # -- rules ------------------------------------------------------------------------------------

    @rule(
        text=st.sampled_from(TEXTS),
        keyed=st.sampled_from(KEYED),
        scope=st.sampled_from(SCOPES),
        parent=st.one_of(st.none(), PICK),
    )
    def remember(self, text: str, keyed: tuple[str, str] | None, scope: str, parent: tuple[bool, int] | None) -> None:
        key, value = keyed or (None, None)
        parents = [self.pick(parent, scope)] if parent is not None else []
        self.both(lambda m: m.remember(text, scope=scope, key=key, value=value, parents=parents))

    @rule(texts=st.lists(st.sampled_from(TEXTS), min_size=1, max_size=3))
    def remember_many(self, texts: list[str]) -> None:
        self.both(lambda m: m.remember_many(texts, scope=SCOPE))

    @rule(choice=PICK, text=st.sampled_from(TEXTS), scope=st.sampled_from(SCOPES))
    def revise(self, choice: tuple[bool, int], text: str, scope: str) -> None:
        item_id = self.pick(choice)
        self.both(lambda m: m.revise(item_id, text, scope=scope))

    @rule(choice=PICK, scope=st.sampled_from(SCOPES))
    def forget(self, choice: tuple[bool, int], scope: str) -> None:
        item_id = self.pick(choice, scope)
        self.both(lambda m: m.forget(item_id, scope=SCOPE))

    @rule(choice=PICK)
    def dismiss(self, choice: tuple[bool, int]) -> None:
        item_id = self.pick(choice)
        self.both(lambda m: m.dismiss(item_id, scope=SCOPE))

    @rule(text=st.sampled_from(TEXTS), keyed=st.sampled_from(KEYED))
    def undismiss(self, text: str, keyed: tuple[str, str] | None) -> None:
        if keyed is None:
            self.both(lambda m: m.undismiss(text, scope=SCOPE))
        else:
            self.both(lambda m: m.undismiss(scope=SCOPE, key=keyed[0], value=keyed[1]))

    @rule(src=PICK, dst=PICK, type=st.sampled_from(EDGE_TYPES), dst_scope=st.sampled_from(SCOPES))
    def link(self, src: tuple[bool, int], dst: tuple[bool, int], type: str, dst_scope: str) -> None:
        a, b = self.pick(src), self.pick(dst, dst_scope)
        self.both(lambda m: m.link(a, b, type, scope=SCOPE))

    @rule(n=st.integers(0, 100))
    def unlink(self, n: int) -> None:
        edges = self.lite.edges(scope=SCOPE, include_closed=True)
        if edges:
            edge_id = edges[n % len(edges)].id
            self.both(lambda m: m.unlink(edge_id, scope=SCOPE))

    @rule(
        choice=PICK,
        op=st.sampled_from(["scores", "tier", "tiers", "manual", "durable", "flag", "use"]),
        tier=st.sampled_from(TIERS),
        score=st.sampled_from([0.0, 0.3, 1.0]),
    )
    def curate(self, choice: tuple[bool, int], op: str, tier: str, score: float) -> None:
        item_id = self.pick(choice)
        calls = {
            "scores": lambda m: m.set_scores(item_id, scope=SCOPE, importance=score),
            "tier": lambda m: m.set_tier(item_id, tier, scope=SCOPE),
            # a bulk move naming a closed or absent item must refuse as a whole on both backends
            "tiers": lambda m: m.set_tiers(
                {item_id: tier, self.pick((not choice[0], choice[1])): "durable"}, scope=SCOPE
            ),
            "manual": lambda m: m.promote(item_id, scope=SCOPE, to="manual"),
            "durable": lambda m: m.promote(item_id, scope=SCOPE, to="durable"),
            "flag": lambda m: m.flag(item_id, scope=SCOPE, add=["hub"]),
            "use": lambda m: m.record_use(SCOPE, [(item_id, 1.0)], "query"),
        }
        self.both(calls[op])

    @rule(action=st.sampled_from(["pause", "resume", "resume"]), scope=st.sampled_from([SCOPE, OTHER_SCOPE]))
    def learning(self, action: str, scope: str) -> None:
        if action == "pause":
            self.both(lambda m: m.pause_learning(scope))
        else:
            self.both(lambda m: m.resume_learning(scope))

    @rule(choice=PICK, back=st.sampled_from([0, 1, 1_000, 86_400_000]))
    def read_the_past(self, choice: tuple[bool, int], back: int) -> None:
        item_id = self.pick(choice)
        when = self.clock.now() - timedelta(milliseconds=back)
        self.both(lambda m: m.history(item_id, scope=SCOPE))
        self.both(lambda m: m.get(item_id, scope=SCOPE, as_of=when))

    @rule(delta=st.sampled_from([timedelta(0), timedelta(milliseconds=1), timedelta(seconds=1), timedelta(days=1)]))
    def tick(self, delta: timedelta) -> None:
        self.clock.advance(delta)

    @rule()
    def reopen(self) -> None:
        # Close the file and open it again; the reference side gets a new Memory over the same
        # store. Both restart their seeded id factories, so the clock moves to a fresh
        # millisecond first (a restarted seeded factory at an old millisecond repeats ids).
        self.clock.advance(seconds=1)
        self.lite.close()
        self.lite = self._open_lite()
        self.ref = Memory(store=self.ref_store, embedder="hash", clock=self.clock, seed=0)

    @rule()
    def rebuild(self) -> None:
        for mem in (self.lite, self.ref):
            before = [state_of(mem, s) for s in (SCOPE, OTHER_SCOPE)]
            mem.rebuild()
            assert [state_of(mem, s) for s in (SCOPE, OTHER_SCOPE)] == before
            assert mem.doctor().ok, mem.doctor().problems

    # -- invariants ---------------------------------------------------------------------------------

    @invariant()
    def reads_agree(self) -> None:
        for scope in (SCOPE, OTHER_SCOPE):
            assert state_of(self.lite, scope) == state_of(self.ref, scope)
        assert self.lite.scopes() == self.ref.scopes()

    @invariant()
    def indexes_agree_with_records(self) -> None:
        report = self.lite.doctor()
        assert report.ok, report.problems

    def teardown(self) -> None:
        self.lite.close()
        self.ref.close()
        self._tmp.cleanup()


SQLiteMatchesReference.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],  # "explain" costs minutes
)
test_sqlite_matches_reference = SQLiteMatchesReference.TestCase


class PostgresMatchesReference(SQLiteMatchesReference):
    """The same machine with a fresh PostgreSQL database in place of the SQLite file."""

    def __init__(self) -> None:
        self._db, self.url = pg_server.shared().fresh()
        super().__init__()

    def _open_lite(self) -> Memory:
        return Memory(self.url, embedder="hash", clock=self.clock, seed=0)

    def teardown(self) -> None:
        super().teardown()
        pg_server.shared().drop(self._db)


def test_postgres_matches_reference(pg: pg_server.PgServer) -> None:
    # Fewer runs than SQLite's (each opens a database on the server); the same rules and checks.
    run_state_machine_as_test(
        PostgresMatchesReference,
        settings=settings(
            SQLiteMatchesReference.TestCase.settings, max_examples=10, phases=[Phase.explicit, Phase.generate]
        ),
    )


# -- rebuild is a fixed point ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(["remember", "revise", "forget", "dismiss", "undismiss", "link", "use", "tier", "tiers"]),
            st.sampled_from(TEXTS),
            st.integers(0, 20),
            st.integers(0, 20),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_rebuild_from_log_yields_identical_projections(ops: list[tuple[str, str, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock(START)
        with Memory(Path(tmp) / "r.db", embedder="hash", clock=clock, seed=3, durability="fast") as mem:
            ids: list[str] = []
            for op, text, i, j in ops:
                clock.advance(seconds=1)
                pick = (lambda n: ids[n % len(ids)]) if ids else None
                try:
                    if op == "remember" or pick is None:
                        ids.append(mem.remember(text, scope=SCOPE, parents=ids[-1:]).id)
                    elif op == "revise":
                        ids.append(mem.revise(pick(i), text, scope=SCOPE).id)
                    elif op == "forget":
                        mem.forget(pick(i), scope=SCOPE)
                    elif op == "dismiss":
                        mem.dismiss(pick(i), scope=SCOPE)
                    elif op == "undismiss":
                        mem.undismiss(text, scope=SCOPE)
                    elif op == "link":
                        mem.link(pick(i), pick(j), "supports", scope=SCOPE)
                    elif op == "use":
                        mem.record_use(SCOPE, [(pick(i), 0.5)], text)
                    elif op == "tier":
                        mem.set_tier(pick(i), TIERS[j % 3], scope=SCOPE)
                    elif op == "tiers":
                        mem.set_tiers({pick(i): TIERS[j % 3], pick(j): TIERS[i % 3]}, scope=SCOPE, reason=text)
                except ReverieError:
                    pass
            before = state_of(mem)
            vectors_before = mem.store.vectors(SCOPE, current_only=False)
            mem.rebuild()
            assert state_of(mem) == before
            ids_after, mat_after = mem.store.vectors(SCOPE, current_only=False)
            assert sorted(ids_after) == sorted(vectors_before[0])
            assert mat_after.shape == vectors_before[1].shape
            assert mem.doctor().ok
        with Memory(Path(tmp) / "r.db", embedder="hash") as again:
            assert state_of(again) == before
