"""Idea-generation recipes: named ways to think over a vault with the tools beside them.

Each recipe names the vault calls it runs, so an agent can follow one step by step. Written
for reverie; they are prompts for a thinker, not algorithms.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IdeaMethod:
    """One recipe: its name, what it is for, its steps, the vault calls it uses."""

    name: str
    purpose: str
    steps: tuple[str, ...]
    tools: tuple[str, ...]


IDEA_METHODS: tuple[IdeaMethod, ...] = (
    IdeaMethod(
        "bridge-two-folders",
        "Find an idea where two areas of the vault touch without knowing it.",
        (
            "Pick a note you care about and run bridge_candidates on it.",
            "For the closest note in another folder, write one sentence saying what the two share.",
            "If the sentence surprises you, make it a new note linking both.",
        ),
        ("bridge_candidates", "relevant_notes"),
    ),
    IdeaMethod(
        "question-the-gap",
        "Turn what the vault does not know into the next thing to find out.",
        (
            "Ask coverage_gap with the question you would like the vault to answer.",
            "Take each missing sub-term and write the question it implies.",
            "Rank those questions by how much the answer would change a decision.",
        ),
        ("coverage_gap",),
    ),
    IdeaMethod(
        "revive-the-orphan",
        "Give an isolated note a reason to exist, or let it go.",
        (
            "Run find_gaps and take one isolated note.",
            "Read its suggested link in maintenance_report and ask what argument would connect them.",
            "Either write that argument into the note or mark it an archive candidate.",
        ),
        ("find_gaps", "maintenance_report"),
    ),
    IdeaMethod(
        "claim-collision",
        "Let the memory argue with the notes.",
        (
            "Run extract_claims on a note with remember=True.",
            "Read every conflict it reports against memory.",
            "For each, decide which side is out of date and write down why.",
        ),
        ("extract_claims", "contradictions"),
    ),
    IdeaMethod(
        "merge-the-echoes",
        "Near-duplicates are one idea written twice; the merge is often a third idea.",
        (
            "Take a near-duplicate cluster from maintenance_report.",
            "List what each version says that the others do not.",
            "Write one note that holds the union and the difference, and link the old ones to it.",
        ),
        ("maintenance_report",),
    ),
    IdeaMethod(
        "stale-then-now",
        "Compare what a stale note believed with what is believed now.",
        (
            "Pick a stale note from maintenance_report.",
            "Recall the memory on its title and list what has changed since its date.",
            "Write an update section dated today, keeping the old text as history.",
        ),
        ("maintenance_report", "relevant_notes"),
    ),
    IdeaMethod(
        "inversion",
        "State the opposite of a note's main claim and look for support.",
        (
            "Extract the claims of a note and pick the strongest.",
            "Negate it and run relevant_notes on the negation.",
            "If anything supports the negation, write the conditions under which each side holds.",
        ),
        ("extract_claims", "relevant_notes"),
    ),
)
