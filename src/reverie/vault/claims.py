"""Claim-like sentences in a note, with line numbers; optionally remembered as claims.

A sentence is claim-like when it states something (a verb from a short list of stating verbs,
or a number), has 4-40 words and is not a question. Rule-based on purpose: the same note
always yields the same claims. Remembered claims carry provenance to the note and the line
(``origin="vault"``, ``ref="<vault>:<path>"``, ``locator="line N"``) and go through
``remember_checked``, so a note that contradicts memory gets the same ``contradicts`` links,
reasons and alerts as any other claim (``mem.contradictions``). A sentence whose value was
dismissed is skipped with the reason (``ExtractedClaim.skipped``) and the others are written, as
a conversation's extraction does: a tombstone must not stop the rest of the note.

A note is one source: reading it again, or a sentence it repeats, is not new evidence. A claim
this note already stated (a current claim with its ``meta.note`` and the same words) is
reported, not remembered again, and a sentence repeated in one note is remembered once, so
``evidence_count`` grows only when *another* source states the same thing. A claim another
note (or source) made and this note corroborated is remembered with ``count_once``: the core
knows this note (provenance ``vault:<vault>:<path>``) already counted for it and records the
re-read as ``memory.restated``, evidence unchanged (``reverie.model.evidence``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reverie.errors import DismissedValueError
from reverie.memory import Contradiction
from reverie.model.item import Item, Provenance
from reverie.model.query import Q, parse_sort
from reverie.vault.parse import Note

if TYPE_CHECKING:
    from reverie.memory import Memory

_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[])")
_LINK = re.compile(r"!?\[\[([^\[\]\n|]+)(?:\|([^\[\]\n]+))?\]\]")
_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_STATING_WORDS = """is are was were
    be been has have had uses use runs run takes needs lives works costs holds starts begins
    ends must should will shall can cannot never always contains includes requires means causes improves reduces
    increases lowers raises depends helps prevents stores keeps returns supports moved owns leads"""
_STATING = frozenset(_STATING_WORDS.split())


@dataclass(frozen=True, slots=True)
class ExtractedClaim:
    """One claim-like sentence of ``note`` at ``line``; ``item_id``/``conflicts`` once remembered;
    ``skipped``: why it was not remembered (its value was dismissed), as conversation extraction says it."""

    note: str
    line: int
    text: str
    item_id: str | None = None
    conflicts: tuple[Contradiction, ...] = ()
    skipped: str | None = None


def extract(note: Note) -> list[ExtractedClaim]:
    """The claim-like sentences of ``note``'s body (not headings, code, or block quotes of code)."""
    out: list[ExtractedClaim] = []
    in_code = False
    for n, line in enumerate(note.body.split("\n"), start=note.body_line):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or line.lstrip().startswith(("#", "|", "<!--", ">")):
            continue
        plain = _LINK.sub(lambda m: m.group(2) or m.group(1), _MARK.sub("", line)).replace("**", "").strip()
        for sentence in _SENTENCE.split(plain):
            s = sentence.strip()
            if _claim_like(s):
                out.append(ExtractedClaim(note.path, n, s))
    return out


def _claim_like(s: str) -> bool:
    ws = s.lower().rstrip(".!").split()
    if not 4 <= len(ws) <= 40 or s.endswith(("?", ":")):
        return False
    return any(w.strip(",;") in _STATING for w in ws) or any(c.isdigit() for c in s)


def remember(mem: Memory, scope: str, vault: str, claims: list[ExtractedClaim]) -> list[ExtractedClaim]:
    """Remember each claim (source ``observed``, kind ``assertion``) and say what it contradicts.

    Claims the same note already stated are not counted again (see the module docstring).
    """
    out = []
    stated = _stated(mem, scope, vault, {c.note for c in claims})
    seen: dict[tuple[str, str], str] = {}
    for c in claims:
        known = seen.get((c.note, c.text)) or stated.get((c.note, c.text))
        if known is not None:
            seen[(c.note, c.text)] = known
            out.append(ExtractedClaim(c.note, c.line, c.text, known))
            continue
        try:
            result = mem.remember_checked(
                c.text,
                scope=scope,
                kind="assertion",
                source="observed",
                author="vault",
                meta={"vault": vault, "note": c.note, "line": c.line},
                provenance=Provenance(origin="vault", ref=f"{vault}:{c.note}", locator=f"line {c.line}"),
                count_once=True,  # the note (vault:path) is one source, whichever note made the claim
            )
        except DismissedValueError as exc:  # a tombstone: this sentence is skipped, the rest still written
            out.append(ExtractedClaim(c.note, c.line, c.text, skipped=f"{exc.code}: {exc.message}"))
            continue
        seen[(c.note, c.text)] = result.item.id
        out.append(ExtractedClaim(c.note, c.line, c.text, result.item.id, result.conflicts))
    return out


def _stated(mem: Memory, scope: str, vault: str, notes: set[str]) -> dict[tuple[str, str], str]:
    """(note, words) → id of the current claims these notes already stated (one store query each)."""
    out: dict[tuple[str, str], str] = {}
    for note in notes:
        where = Q.kind("assertion") & Q.meta("vault", vault) & Q.meta("note", note) & Q.status("live")
        items: list[Item] = mem.store.query(scope, where & Q.ongoing(mem.clock.now()), parse_sort(None), limit=2**62)
        out.update(((note, it.text), it.id) for it in items)
    return out
