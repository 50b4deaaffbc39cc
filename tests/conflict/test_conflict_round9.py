"""Round 9 readings: clipped words, a place of one event, a return on a date, building phases.

What must hold:
- a clipped word is the word it clips ("repo" / "repository", "prod" / "production", "app" /
  "application"), so the same attribute said with either still meets;
- "took place in <Place>" says where one event was, as "was hosted in" / "was held in" do;
- a return from somewhere on a calendar date pins one date, as "arrives on" does;
- "construction" is building: "built in 1871" and "construction was completed in 1880" give one
  event two dates; a start of construction is another moment of it, and stays silent.
- "X still does Y" against "X stopped doing Y" (simple past): the activity cannot both go on and
  have stopped;
- plain synonyms meet: "valid until" / "expires", "generated" / "produced", "stores" / "keeps",
  "family doctor" / "GP", "eldest" / "firstborn", "conducted by" / "conductor".
Look-alikes stay silent: two events of the same name in different years, a habit on weekdays,
two returns told in the past, another phase of the same work.
"""

from __future__ import annotations

import pytest
from conflict_pairs import conflicts_both_ways, silent_both_ways


@pytest.mark.parametrize(
    ("a", "b", "axis"),
    [
        ("The billing repository has about 40 open pull requests.", "The billing repo has over 400 open pull requests.",
         "numeric"),
        ("The web app uses 2 GB of memory in production.", "In prod, the web application uses 6 GB of memory.",
         "numeric"),
        ("The Nordic Chess Open took place in Oslo last year.", "Last year's Nordic Chess Open was hosted in Bergen.",
         "entity"),
        ("The Alder Summit was held in Lyon in 2022.", "The Alder Summit took place in Nantes in 2022.", "entity"),
        ("The Corran charter was signed in Lisbon.", "The signing of the Corran charter took place in Porto.",
         "entity"),
        ("Marit returns from her sabbatical on 3 February.", "Marit returns from her sabbatical on 9 April.",
         "temporal"),
        ("The Osen viaduct was built in 1871.", "Construction of the Osen viaduct was completed in 1880.", "temporal"),
        ("Ilse still teaches piano at the conservatory.", "Ilse stopped teaching piano at the conservatory in 2021.",
         "polarity"),
        ("Pavel still volunteers at the food bank.", "Pavel gave up volunteering at the food bank last winter.",
         "polarity"),
        ("The Quill Street lease expires in 2029.", "The Quill Street lease is valid until 2033.", "temporal"),
        ("The weekly invoice batch is generated at 04:00.", "The weekly invoice batch is produced at 19:00.",
         "temporal"),
        ("The audit service stores its events in Kafka.", "The audit service keeps its events in RabbitMQ only.",
         "entity"),
        ("Tamsin's family doctor is Dr. Varga.", "Tamsin's GP is Dr. Holloway.", "entity"),
        ("Odile's eldest daughter is named Clea.", "Odile's firstborn daughter is called Maren.", "entity"),
        ("The Harwell choir is conducted by Mr. Ibsen.", "The Harwell choir's conductor is Ms. Laine.", "entity"),
        # The doer of a verb holds the role its noun names.
        ("Marek's team lead is Ilona Berg.", "Tomas Wren leads Marek's team.", "entity"),
        # Units spelled out: "megabytes", "tonnes".
        ("The nightly audit export is about 4 MB.", "The nightly audit export weighs in at roughly 300 megabytes.",
         "numeric"),
        ("The Vesta crane lifts 12 tonnes.", "The Vesta crane lifts 40,000 kg.", "numeric"),
        # One first event said as a verb and as a noun; "nightly" is "every night".
        ("Ines first moved to Leeds in 2011.", "Ines's first move to Leeds was in 2014.", "temporal"),
        ("The nightly billing export is generated at 22:00.", "The billing export is produced every night at 05:00.",
         "temporal"),
        # One wedding, said as "got married" and as "the wedding".
        ("Lior and Ana got married on 2 May 2020.", "Lior and Ana's wedding took place in August 2020.", "temporal"),
        # "blocks" denies what "allowed" permits.
        ("Anonymous uploads to the media bucket are allowed.", "The media bucket blocks all anonymous uploads.",
         "polarity"),
        # A head count said as a count of people and as a bare number of the same relation.
        ("The Brennan clinic employs about 90 people.", "The Brennan clinic has a headcount of 240.", "numeric"),
        ("The Oriel theatre holds 600 people.", "The Oriel theatre's capacity is 1,100.", "numeric"),
        # A bare number of exactly the attribute the other claim measures, in its unit.
        ("Ivo's resting heart rate is 52.", "Ivo has a resting pulse of 77 beats per minute.", "numeric"),
        # A value named a minimum is a lower bound, as "at least" is; a rule gives one bound.
        ("Pins on the staff terminal must be at least 6 digits.",
         "The minimum pin length on the staff terminal is 4 digits.", "numeric"),
        # "every Sunday" restricts to the days "on Sundays" does.
        ("The Gallan pool is open on Sundays.", "The Gallan pool is closed every Sunday.", "polarity"),
    ],
)  # fmt: skip
def test_round9_conflicts(a: str, b: str, axis: str) -> None:
    conflicts_both_ways(a, b, axis)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Another phase of the same work: both may hold.
        ("The Osen viaduct was built in 1871.", "Construction of the Osen viaduct started in 1866."),
        ("The Osen viaduct was built in 1871.", "Work on the Osen viaduct began in 1866."),
        # Two events of one name in two years: two places.
        ("The Alder Summit took place in Lyon in 2022.", "The Alder Summit took place in Nantes in 2023."),
        # A habit on weekdays, and returns told in the past: several occasions.
        ("Marit returns from the gym on Mondays.", "Marit returns from the gym on Thursdays."),
        ("Marit returned from Oslo on 3 February.", "Marit returned from Oslo on 9 April."),
        # The same value said with the clipped word: no conflict.
        ("The billing repo has about 40 open pull requests.",
         "The billing repository has roughly 40 open pull requests."),
        # Another thing that only shares a clipped word.
        ("The billing repo has 40 open issues.", "The billing app has 400 open issues."),
        # A stop that was undone or was brief; another activity stopped; a stop against "still" of another.
        ("Ilse still teaches piano.", "Ilse stopped teaching piano in 2019 but started again in 2021."),
        ("Ilse still teaches piano.", "Ilse stopped teaching violin in 2019."),
        ("Ilse still teaches piano.", "Ilse stopped teaching piano for two months last year."),
        ("Ilse still teaches piano.", "Ilse's sister stopped teaching piano in 2019."),
        ("The bus still stops at Elm Road.", "The bus stopped at the depot at 9 pm."),
        # A phrase of the same synonym, with another subject or occasion.
        ("The weekly invoice batch is generated at 04:00.", "The monthly invoice batch is produced at 19:00."),
        ("Odile's eldest daughter is named Clea.", "Odile's youngest daughter is called Maren."),
        # A capacity in things other than people may be another capacity (a car park).
        ("The Oriel stadium holds 600 cars.", "The Oriel stadium's capacity is 1,100."),
        ("The Oriel theatre holds 600 people.", "The Oriel theatre's capacity is 600."),
        # The same number in the other's unit; a unit with an offset is not guessed.
        ("Ivo's resting heart rate is 77.", "Ivo has a resting pulse of 77 beats per minute."),
        ("The kiln temperature is 900.", "The kiln temperature is 1,200 °F."),
        # The same minimum twice; a minimum against a maximum; a reading under the day's maximum.
        ("Pins on the staff terminal must be at least 6 digits.",
         "The minimum pin length on the staff terminal is 6 digits."),
        ("The maximum temperature in Oslo on Monday was 21 °C.", "The temperature in Oslo on Monday was 17 °C."),
        ("The minimum stay at the Ferro hostel is 2 nights.", "The maximum stay at the Ferro hostel is 14 nights."),
        ("The maximum temperature in Tromsø on Monday was 12 °C.", "On Monday at noon Tromsø measured 9 °C."),
        # Other days, or a restricted claim against a plain one.
        ("The Gallan pool is open on Sundays.", "The Gallan pool is closed every Monday."),
        ("The Gallan pool is open.", "The Gallan pool is closed every Sunday."),
        # Another event of the same thing, a place inside the other, and two dated signings.
        ("The Corran charter was signed in Lisbon.", "The Corran charter was drafted in Porto."),
        ("The Corran charter was signed in Lisbon.", "The Corran charter was signed in Portugal."),
        ("The Corran charter was signed in Lisbon in 1990.", "The Corran charter was signed in Porto in 1992."),
        # A doer of another thing, or of another verb.
        ("Marek's team lead is Ilona Berg.", "Tomas Wren leads the design review."),
        ("Marek's manager is Ilona Berg.", "Tomas Wren manages Marek's budget."),
        # "blocks" as a noun of distance; a block of another thing.
        ("The clinic is two blocks from the station.", "The clinic is allowed near the station."),
        ("Anonymous uploads to the media bucket are allowed.", "The media bucket blocks all anonymous downloads."),
        # Moves without "first" may be two moves; another report of the day.
        ("Ines moved to Leeds in 2011.", "Ines moved to Leeds in 2014."),
        ("The nightly billing export is generated at 22:00.", "The morning billing export is produced at 05:00."),
        # A wedding's anniversary, and a marriage without a date.
        ("Lior and Ana got married in 2020.", "Lior and Ana's wedding anniversary is in August."),
        ("Lior is married to Ana.", "Lior's wedding was in 2020."),
        # The same amount in two spellings.
        ("The nightly audit export is about 2 GB.", "The nightly audit export is roughly 2,000 megabytes."),
        ("The Vesta crane lifts 12 tonnes.", "The Vesta crane lifts 12,000 kg."),
        # Where something happened, and where someone lives: two relations.
        ("The Alder Summit took place in Lyon.", "The Alder Summit's organiser lives in Nantes."),
    ],
)  # fmt: skip
def test_round9_look_alikes_stay_silent(a: str, b: str) -> None:
    silent_both_ways(a, b)
