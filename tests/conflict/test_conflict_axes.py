"""Each axis detects its own kind of disagreement and stays quiet on look-alikes.

The sentences here are written for the tests, not copied from the benchmark data, so they
also check that the rules generalise past the pairs they were tuned on.
"""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, Conflict, detect


def _detect(a: str, b: str) -> Conflict | None:
    return detect(Claim(a), Claim(b))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Nadia is allergic to latex.", "Nadia is not allergic to latex."),
        ("The cron job deletes stale sessions.", "The cron job doesn't delete stale sessions."),
        ("Ivan never works on Sundays.", "Ivan works on Sundays."),
        ("Zoe can swim.", "Zoe cannot swim."),
        ("The search feature is enabled.", "The search feature is disabled."),
        ("Leo likes jazz.", "Leo dislikes jazz."),
        ("The admin panel is public.", "The admin panel is private."),
        ("The nightly build is passing.", "The nightly build is failing."),
        ("The data volume is encrypted.", "The data volume is unencrypted."),
        ("The queue is empty.", "The queue is full."),
        ("Guest checkout is allowed.", "Guest checkout is forbidden."),
    ],
)
def test_polarity_contradictions_are_detected(a: str, b: str) -> None:
    found = _detect(a, b)
    assert found is not None and found.axis == "polarity"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Nadia is allergic to latex.", "Nadia is not allergic to pollen."),  # different object
        ("The search feature is enabled.", "The search feature is not disabled."),  # double negation
        ("Leo dislikes jazz.", "Leo does not like jazz."),  # same polarity, two ways
        ("The door is not locked.", "The door is unlocked."),
        ("Leo likes jazz.", "Leo's brother dislikes jazz."),  # different subject
        ("The search feature is enabled on web.", "The search feature is disabled on mobile."),
        ("Zoe can swim.", "Zoe cannot ski."),
    ],
)
def test_polarity_look_alikes_are_not_conflicts(a: str, b: str) -> None:
    assert _detect(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The request quota is 200 calls per hour.", "The request quota is 800 calls per hour."),
        ("Ravi has 4 siblings.", "Ravi has 2 siblings."),
        ("The lock timeout is 10 seconds.", "The lock timeout is 10 minutes."),
        ("The image cache holds 2 GB.", "The image cache holds 200 MB."),
        ("The SLA target is between 99.5% and 99.9%.", "The SLA target is 98%."),
        ("The waiting time is about 20 minutes.", "The waiting time is about 2 hours."),
        ("The bus holds at most 40 people.", "The bus holds 55 people."),
        ("The pipeline runs on Python 3.11.", "The pipeline runs on Python 3.12."),
        ("Mina has three cats.", "Mina has five cats."),
    ],
)
def test_numeric_contradictions_are_detected(a: str, b: str) -> None:
    found = _detect(a, b)
    assert found is not None and found.axis == "numeric"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The lock timeout is 2 minutes.", "The lock timeout is 120 seconds."),  # unit conversion
        ("The image cache holds 1 GB.", "The image cache holds 1000 MB."),
        ("The image cache holds 1 GB.", "The image cache holds 1024 MB."),  # binary vs decimal
        ("The waiting time is about 20 minutes.", "The waiting time is 21 minutes."),  # approximation
        ("The SLA target is between 99.5% and 99.9%.", "The SLA target is 99.7%."),  # range
        ("The bus holds at least 40 people.", "The bus holds 55 people."),  # bound
        ("Ravi has 4 siblings.", "Ravi has 2 sisters."),  # different things counted
        ("The free quota is 200 calls per hour.", "The paid quota is 800 calls per hour."),
        ("The quota is 100 calls per minute.", "The quota is 6,000 calls per hour."),  # rate conversion
        ("Mina has 2 kids.", "Mina has two children."),  # synonyms and number words
        ("The pool is 25 meters long.", "The pool is 2500 cm long."),
    ],
)
def test_numeric_look_alikes_are_not_conflicts(a: str, b: str) -> None:
    assert _detect(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Hugo lives in Madrid.", "Hugo lives in Seville."),
        ("The on-call engineer today is Priti.", "The on-call engineer today is Sam."),
        ("Nadia works at Stripe.", "Nadia works at Adyen."),
        ("The docs site is hosted on Netlify.", "The docs site is hosted on Vercel."),
        ("Ivan's manager is Olga.", "Ivan's manager is Petra."),
        ("The default branch is trunk.", "The default branch is master."),
        ("The cache backend is Redis.", "The cache backend is Memcached."),
        ("Our cat is called Miso.", "Our cat is called Tofu."),
        ("Olga is the release captain.", "Petra is the release captain."),
    ],
)
def test_entity_contradictions_are_detected(a: str, b: str) -> None:
    found = _detect(a, b)
    assert found is not None and found.axis == "entity"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Hugo lives in Madrid.", "Ana lives in Seville."),  # different subject
        ("Hugo lives in Madrid.", "Hugo lives in Madrid, Spain."),  # refinement
        ("Hugo likes Madrid.", "Hugo likes Seville."),  # not a single-valued slot
        ("Hugo speaks Catalan.", "Hugo speaks Basque."),
        ("Hugo visited Porto.", "Hugo visited Lisbon."),
        ("The docs site is hosted on GCP.", "The docs site is hosted on Google Cloud Platform."),
        ("Ivan's manager is Olga Petrova.", "Ivan's manager is Olga."),
        ("The cache is fast.", "The cache is reliable."),  # adjectives, not values
    ],
)
def test_entity_look_alikes_are_not_conflicts(a: str, b: str) -> None:
    assert _detect(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The board meeting is on June 4.", "The board meeting is on June 11."),
        ("The visa expires in 2026.", "The visa expires in 2028."),
        ("The demo day is on Tuesday.", "The demo day is on Friday."),
        ("The office closes at 6 pm.", "The office closes at 8 pm."),
        ("The backup runs before the vacuum job.", "The backup runs after the vacuum job."),
        ("The smoke tests run before the canary.", "The canary runs before the smoke tests."),
        ("Lena graduated in 2015.", "Lena graduated in 2017."),
    ],
)
def test_temporal_contradictions_are_detected(a: str, b: str) -> None:
    found = _detect(a, b)
    assert found is not None and found.axis == "temporal"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The board meeting is in June.", "The board meeting is on June 4."),  # refinement
        ("The board meeting is on June 4.", "The board meeting is on 4 June."),  # format
        ("The office closes at 6 pm.", "The office closes at 18:00."),
        ("The backup runs before the vacuum job.", "The vacuum job runs after the backup."),  # converse
        ("Lena swims on Mondays.", "Lena swims on Fridays."),  # recurring activity, not one date
        ("The board meeting is on Monday.", "The board meeting is on June 4."),  # unknown year
        ("The office closes at 6 pm on weekdays.", "The office closes at 2 pm on Saturdays."),
        ("The audit is in Q3.", "The audit is in August."),
    ],
)
def test_temporal_look_alikes_are_not_conflicts(a: str, b: str) -> None:
    assert _detect(a, b) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Hugo lived in Madrid.", "Hugo lives in Seville."),  # tense: a change over time
        ("The quota was 100 calls per hour.", "The quota is 500 calls per hour."),
        ("In 2018 Hugo lived in Madrid.", "In 2022 Hugo lived in Seville."),  # dated situations
        ("Hugo no longer lives in Madrid.", "Hugo lives in Seville."),  # consistent
        ("The limit is not 100.", "The limit is 500."),  # a negated value and another value agree
    ],
)
def test_changes_over_time_and_consistent_pairs_are_not_conflicts(a: str, b: str) -> None:
    assert _detect(a, b) is None
