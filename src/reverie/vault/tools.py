"""The thinking tools: relevant notes, coverage gaps, link gaps, bridges.

Each is a plain function over the memory (for recall, where value accrues with use) and the
vault as read now (``Corpus``, for excerpts, words and links); ``Vault`` exposes them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reverie.model.query import Q
from reverie.vault.corpus import Corpus
from reverie.vault.index import notes_filter, render
from reverie.vault.parse import Note
from reverie.vault.words import stem_match, words

if TYPE_CHECKING:
    from reverie.memory import Memory

_EXCERPT = 240
_LINKS = re.compile(r"!?\[\[[^\[\]\n|]*(?:\|([^\[\]\n]*))?\]\]")


@dataclass(frozen=True, slots=True)
class NoteHit:
    """A note recalled for a query: relevance × accrued value is ``score``; ``excerpt`` its best line."""

    path: str
    title: str
    score: float
    excerpt: str
    line: int | None
    item_id: str


@dataclass(frozen=True, slots=True)
class Coverage:
    """How well the vault answers ``question``: the top notes, a score, the unsupported sub-terms."""

    question: str
    notes: list[NoteHit]
    completeness: float
    terms: list[str]
    missing: list[str]
    supported_by: dict[str, str]


@dataclass(frozen=True, slots=True)
class Gaps:
    """Isolated notes (no links either way), under-linked ones (one link), thin folders."""

    isolated: list[str]
    under_linked: list[str]
    thin_folders: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Bridge:
    """A semantically close note in another folder with no link to or from the note asked about."""

    path: str
    title: str
    folder: str
    score: float


def as_dict(obj: Any) -> Any:
    """Any of these results as plain JSON-ready data (for the CLI and MCP faces)."""
    if hasattr(obj, "__dataclass_fields__"):
        return {k: as_dict(getattr(obj, k)) for k in obj.__dataclass_fields__ if not k.startswith("_")}
    if isinstance(obj, list | tuple):
        return [as_dict(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): as_dict(v) for k, v in obj.items()}
    return obj


def relevant_notes(
    mem: Memory,
    scope: str,
    vault: str,
    note_of: Callable[[str], Note | None],
    query: str,
    k: int = 5,
    *,
    record_use: bool = True,
) -> list[NoteHit]:
    """The notes best answering ``query`` (hybrid recall restricted to this vault's notes).

    ``note_of`` reads one note for its excerpt: only the hits are read, never the whole vault.
    """
    hits = mem.recall(query, scope=scope, k=k, where=notes_filter(vault), record_use=record_use)
    qwords = set(words(query))
    out = []
    for h in hits:
        path = str(h.item.meta.get("note"))
        excerpt, line = _excerpt(note_of(path), qwords, h.item.text)
        out.append(NoteHit(path, str(h.item.meta.get("title", path)), round(h.score, 6), excerpt, line, h.item.id))
    return out


def _excerpt(note: Note | None, qwords: set[str], fallback: str) -> tuple[str, int | None]:
    if note is None:
        return fallback[:_EXCERPT], None
    best, best_line, best_n = "", None, 0
    for n, line in enumerate(note.body.split("\n"), start=note.body_line):
        if line.lstrip().startswith("#"):  # the title already says what a heading says
            continue
        hit = len(qwords & set(words(line)))
        if hit > best_n:
            best, best_line, best_n = line.strip(), n, hit
    if best_line is None:  # no query word: the first text line
        for n, line in enumerate(note.body.split("\n"), start=note.body_line):
            if line.strip() and not line.lstrip().startswith("#"):
                return line.strip()[:_EXCERPT], n
        return note.title, None
    return best[:_EXCERPT], best_line


def coverage_gap(mem: Memory, scope: str, vault: str, corpus: Corpus, question: str, k: int = 5) -> Coverage:
    """Top notes for ``question``, and which of its content words no note in the vault supports.

    ``completeness`` is the share of the question's sub-terms (its content words, and "quoted
    phrases" as one term) that some note's prose contains — a ``[[link]]`` is a pointer, not
    support, so only its ``|label`` counts; a term is supported by a word sharing its root
    (``sleeping`` ~ ``sleep``). The top notes are asked first, then the whole vault.
    """
    top = relevant_notes(mem, scope, vault, corpus.notes.get, question, k, record_use=False)
    terms = _terms(question)
    prose = {p: n.title + "\n" + _LINKS.sub(lambda m: m.group(1) or "", n.body) for p, n in corpus.notes.items()}
    vocab = {p: set(words(t)) for p, t in prose.items()}
    texts = {p: t.lower() for p, t in prose.items()}
    order = [h.path for h in top] + sorted(p for p in corpus.notes if p not in {h.path for h in top})
    supported: dict[str, str] = {}
    for term in terms:
        for p in order:
            if p in vocab and (term in texts[p] if " " in term else stem_match(term, vocab[p])):
                supported[term] = p
                break
    missing = [t for t in terms if t not in supported]
    score = round(len(supported) / len(terms), 4) if terms else 1.0
    return Coverage(question, top, score, terms, missing, supported)


def _terms(question: str) -> list[str]:
    phrases = [p.lower().strip() for p in re.findall(r'"([^"]+)"', question) if p.strip()]
    rest = re.sub(r'"[^"]+"', " ", question)
    return list(dict.fromkeys([*phrases, *words(rest)]))


def find_gaps(corpus: Corpus, *, thin: int = 3) -> Gaps:
    """Isolated and under-linked notes, and folders holding fewer than ``thin`` notes."""
    g = corpus.graph
    degree = {p: len(g.neighbours(p)) for p in g.notes}
    folders = Counter(n.folder for n in corpus.notes.values())
    return Gaps(
        isolated=[p for p, d in degree.items() if d == 0],
        under_linked=[p for p, d in degree.items() if d == 1],
        thin_folders={f or ".": c for f, c in sorted(folders.items()) if c < thin},
    )


def bridge_candidates(mem: Memory, scope: str, vault: str, corpus: Corpus, path: str, k: int = 5) -> list[Bridge]:
    """Notes close in meaning (dense recall) in *other* folders, not linked either way."""
    note = corpus.notes[path]
    query = render(note, vault, mem.limits.max_query_chars)
    where = notes_filter(vault) & ~Q.meta("folder", note.folder)
    hits = mem.recall(query, scope=scope, k=min(mem.limits.max_k, 4 * k), mode="dense", where=where, record_use=False)
    linked = corpus.graph.neighbours(path) if path in corpus.graph.notes else set()
    out = []
    for h in hits:
        other = str(h.item.meta.get("note"))
        if other != path and other not in linked:
            folder = str(h.item.meta.get("folder", ""))
            out.append(Bridge(other, str(h.item.meta.get("title", other)), folder, round(h.score, 6)))
    return out[:k]
