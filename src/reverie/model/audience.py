"""Whom the system's copies of a claim may show it to, once the claim's own audience is narrowed.

A dream gist (or any ``source="system"`` item) made from claims lists them in ``parents`` and
quotes its most salient member's text. It was written with its members' visibility (gists merge
only claims of equal visibility), but ``set_visibility`` on a member later left the gist as it
was: restricting a claim that a gist quoted kept its words — and, through the gist's
``parents`` and ``meta``, its id — in front of every principal the claim was now hidden from.

The rule, applied by the reducer to every system item made from the claim (listing one of its
versions in ``parents``, or linked to one by a ``derived_from`` edge as a dream-pass pattern names
its events; transitively, so a gist of gists too), when the claim's audience is set
to a list of principals: the copy keeps only the principals also in that list — a copy visible to
everyone gets the list itself. It never gains a principal: a copy's audience only ever shrinks,
so no write (a principal's included) can open a copy to someone who could not see it. Hence the
one case this cannot settle: a restricted copy whose audience shares no principal with the new
list keeps its own audience (there is no "nobody" to narrow it to). Those principals saw the claim
until then; restrict or purge the copy itself to take its words from them too.

Every system copy narrows, not only the one quoting the claim: a gist also counts its members
(``meta.members``) and takes their lowest trust, which would tell a principal that a member it
may not see exists. Widening a claim widens no copy: a copy is made from several claims and may
show them only to whom may see them all; the owner widens a copy with ``set_visibility`` itself.

Pure: the reads come in as functions (the reducer's ``StateView``; ``derived`` is the reducer's
``_made_from``: parents and the system's ``derived_from`` edges).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reverie.model.item import Item


@dataclass(frozen=True, slots=True)
class CopyAudience:
    """One system copy (``id``, the current version) whose versions ``ids`` get ``visibility``."""

    id: str
    ids: tuple[str, ...]
    visibility: tuple[str, ...]


def narrowed(copy: tuple[str, ...], source: tuple[str, ...]) -> tuple[str, ...]:
    """The audience a copy keeps when a claim it was made from is restricted to ``source``
    (``()`` is everyone): the principals in both, never one the copy did not have."""
    if not source:
        return copy
    if not copy:
        return source
    return tuple(sorted(set(copy) & set(source))) or copy


def copy_audiences(
    versions: Sequence[Item],
    visibility: tuple[str, ...],
    derived: Callable[[Sequence[str]], Sequence[Item]],
    claim: Callable[[str], Sequence[Item]],
) -> list[CopyAudience]:
    """The system copies made from ``versions`` (of a claim now visible to ``visibility``) whose
    audience narrows, and to what; a copy that narrows passes its new audience on to its own copies."""
    out: list[CopyAudience] = []
    done = {v.id for v in versions}
    frontier: list[tuple[Sequence[Item], tuple[str, ...]]] = [(versions, visibility)]
    while frontier:
        sources, audience = frontier.pop(0)
        for child in sorted(derived([s.id for s in sources]), key=lambda c: c.id):
            if child.source != "system" or child.id in done:
                continue
            mine = claim(child.id) or [child]
            done.update(v.id for v in mine)
            head = max(mine, key=lambda v: (v.is_current, v.recorded_at, v.id))  # the version a reader holds
            new = narrowed(head.audience, audience)
            if new != head.audience:
                out.append(CopyAudience(head.id, tuple(sorted(v.id for v in mine)), new))
                frontier.append((mine, new))
    return out


__all__ = ["CopyAudience", "copy_audiences", "narrowed"]
