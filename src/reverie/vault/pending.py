"""Changes nobody committed: a person's work in progress, which no agent write may take.

A note whose text on disk or in git's index differs from its last commit (``GitRepo.pending``)
holds work the agent did not make, most likely a person's edit. Renaming over it destroys it;
committing it puts the person's words in the history under the agent's name. So ``write_note``
refuses such a note (``VaultConflictError``, with the way to go on), and ``apply_suggestions``
leaves it alone and says why. This module holds those words and the suggestions' filter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path


def conflict_message(rel: str, kind: str, root: Path) -> str:
    """Why ``write_note`` refused ``rel`` and how to go on (the person's change is never touched)."""
    what = {
        "new": "is a new note not committed yet",
        "deleted": "was deleted and the deletion is not committed yet",
    }.get(kind, "has changes not committed yet (edited since its last commit)")
    discard = (
        "delete the file and unstage it"
        if kind == "new"
        else f"git -C {root} restore --source=HEAD --staged --worktree -- {rel}"
    )
    return (
        f"{rel} {what}: most likely a person's edit in progress (or an interrupted write), so the agent "
        f"wrote nothing rather than destroy it or commit it under its own name. Ask the person to commit "
        f"it under their name (git -C {root} add -- {rel}; git -C {root} commit -- {rel}) or discard it "
        f"({discard}), then read the note again and write on top"
    )


def hold_back(
    plan: Mapping[str, str], target_of: Callable[[str], str], pending: Callable[[list[str]], dict[str, str]]
) -> dict[str, str]:
    """The planned suggestions to leave alone: path → why.

    An orphan with a change nobody committed is its author's (the agent's commit would carry it).
    An orphan whose link names a note never committed is held back too: that note's path and title
    would enter the history, under the agent's name, before its author commits it.
    """
    targets = {p: target_of(text) for p, text in plan.items()}
    busy = pending(sorted(set(plan) | set(targets.values())))
    out: dict[str, str] = {}
    for p in sorted(plan):
        if p in busy:
            what = "is a new note not committed yet" if busy[p] == "new" else f"has changes not committed ({busy[p]})"
            out[p] = (
                f"{p} {what}: left alone so that work stays its author's and out of the agent's "
                "commit; run again after they commit or discard it"
            )
        elif busy.get(targets[p]) == "new":
            out[p] = (
                f"its suggested link points at {targets[p]}, a note not committed yet: left alone so that note "
                "is not named in a commit before its author commits it; run again after they do"
            )
    return out
