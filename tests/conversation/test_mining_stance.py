"""Sarcasm, questions put as statements, conditionals and quoted speech (helper mining33, session 33).

Generated messages showed the rules mining what the speaker did not assert:

- sarcasm: "I love Mondays /s" was written as "Alice loves Mondays /s.", "I love Mondays... NOT"
  and "I totally love Mondays. Not." as "Alice (totally) loves Mondays.";
- a question without its question mark: "Not sure whether Dana moved to Oslo." and "Wondering if
  Dana moved to Oslo." were facts about Dana;
- a condition: "I'll move to Berlin if I get the job." was a firm plan, "If Dana gets the job
  she'll move to Berlin." a firm plan about Dana ("If I get the job I'll move to Berlin" wrote
  nothing, and still does);
- quoted speech in single quotes or after "said:" ('Dana said: "I hate Mondays."' — taken for a
  line labelled with Dana's name) was not attributed to the one quoted.

Real SQLite store, public API.
"""

from __future__ import annotations

import pytest

from reverie import Memory
from reverie.conversation.hedging import HEDGED_CONFIDENCE

SCOPE = "user:alice"


def mined(mem: Memory, *lines: str) -> list[tuple[str, str, float]]:
    """(text, kind, confidence) of each claim a closed conversation of ``lines`` (by Alice) wrote."""
    conv = mem.conversation("c", scope=SCOPE)
    for line in lines:
        conv.add(line, speaker="Alice", role="user")
    closed = conv.close()
    assert closed.extraction is not None
    return [(c.text, c.kind, c.scores.confidence) for c in (mem.get(i, scope=SCOPE) for i in closed.extraction.claims)]


@pytest.mark.parametrize(
    "line",
    [
        "I love Mondays /s",
        "I love Mondays... NOT",
        "I love Mondays... not!",
        "I totally love Mondays. Not.",
        "Yeah right, I love Mondays.",
        "I love Mondays, said no one ever.",
    ],
)
def test_a_sarcastic_statement_is_no_claim(mem: Memory, line: str) -> None:
    assert mined(mem, line) == []


def test_sarcasm_takes_back_only_its_own_sentence(mem: Memory) -> None:
    got = mined(mem, "I live in Porto. I love Mondays. Not.", "I love Mondays.")
    assert [t for t, _, _ in got] == ["Alice lives in Porto.", "Alice loves Mondays."]


@pytest.mark.parametrize(
    "line",
    [
        "Not sure whether Dana moved to Oslo.",
        "Wondering if Dana moved to Oslo.",
        "I wonder whether Dana moved to Oslo.",
        "I was wondering if Dana moved to Oslo.",
        "I don't know if Dana moved to Oslo.",
    ],
)
def test_a_question_put_as_a_statement_is_no_claim(mem: Memory, line: str) -> None:
    assert mined(mem, line) == []


@pytest.mark.parametrize(
    ("line", "claim"),
    [
        ("I'll move to Berlin if I get the job.", "Alice will move to Berlin if Alice gets the job."),
        ("If Dana gets the job she'll move to Berlin.", "If Dana gets the job she'll move to Berlin."),
        ("I'd move to Berlin if I could.", "Alice would move to Berlin if Alice could."),
    ],
)
def test_a_conditional_claim_is_a_hypothesis_that_keeps_its_condition(mem: Memory, line: str, claim: str) -> None:
    assert mined(mem, line) == [(claim, "hypothesis", HEDGED_CONFIDENCE)]


def test_a_conditional_said_condition_first_about_the_speaker_still_writes_no_fact(mem: Memory) -> None:
    assert [k for _, k, _ in mined(mem, "If I get the job I'll move to Berlin")] in ([], ["hypothesis"])


@pytest.mark.parametrize(
    ("line", "claim"),
    [
        ("I asked if Dana could come.", "Alice asked if Dana could come."),
        ("I'll check if the shop is open.", "Alice will check if the shop is open."),
        ("I moved to Berlin in 2020.", "Alice moved to Berlin in 2020."),
        ("Even if it rains, I'm going hiking.", "Alice is going hiking."),
        ("I can swim if that's what you mean.", "Alice can swim if that's what you mean."),
    ],
)
def test_if_meaning_whether_is_no_condition(mem: Memory, line: str, claim: str) -> None:
    [(text, kind, confidence)] = mined(mem, line)
    assert (text, confidence) == (claim, 0.7) and kind != "hypothesis"


@pytest.mark.parametrize(
    "line", ["Dana said 'I hate Mondays'", 'Dana said: "I hate Mondays."', "Dana said, 'I hate Mondays.'"]
)
def test_quoted_speech_is_the_quoted_persons_claim_in_any_quotes(mem: Memory, line: str) -> None:
    assert [t for t, _, _ in mined(mem, line)] == ["Dana hates Mondays."]
    assert [c.text for c in mem.person("Dana", scope=SCOPE).claims] == ["Dana hates Mondays."]


def test_quoted_speech_of_an_unknown_she_is_never_the_speakers(mem: Memory) -> None:
    assert not [t for t, _, _ in mined(mem, "She said 'I hate Mondays'") if "Alice" in t]
