"""Maintenance: what rots in a vault, and the one safe fix reverie applies (suggested links).

``report`` finds dead links, orphans (no note links to them), stale notes (dated before the
cut-off), near-duplicate clusters (word 3-shingle Jaccard, candidates from a bottom-k sketch so
it never compares every pair), archive candidates (stale *and* isolated), and a health score
(the largest connected component's share). Each orphan gets one suggested link: the note
closest to it by TF-IDF over words, found through an inverted index of its top terms.

``plan_suggestions`` is computed with reverie's own "Related (suggested)" blocks left out, so a
re-run proposes the same block again and rewriting it changes nothing (idempotent).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from reverie.vault.corpus import Corpus
from reverie.vault.graph import DeadLink, LinkGraph
from reverie.vault.parse import parse_note
from reverie.vault.words import jaccard, shingles, tfidf, words

BLOCK_START = "<!-- reverie:suggested-links -->"
BLOCK_END = "<!-- /reverie:suggested-links -->"
_BLOCK = re.compile(r"\n*" + re.escape(BLOCK_START) + r".*?" + re.escape(BLOCK_END) + r"\n?", re.S)
_SKETCH = 16
_BUCKET_CAP = 64  # a shingle shared by more notes than this is boilerplate, not a duplicate signal


@dataclass(frozen=True, slots=True)
class Suggestion:
    """Link ``orphan`` to ``target`` (``similarity``: TF-IDF cosine)."""

    orphan: str
    target: str
    similarity: float


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    notes: int
    dead_links: list[DeadLink]
    orphans: list[str]
    stale: list[str]
    near_duplicates: list[list[str]]
    archive_candidates: list[str]
    health: float
    suggestions: list[Suggestion]
    skipped: list[tuple[str, str]]
    problems: dict[str, list[str]]


def strip_block(text: str) -> str:
    """``text`` without reverie's suggested-links block (everything else byte for byte)."""
    return _BLOCK.sub("\n", text) if BLOCK_START in text else text


def report(corpus: Corpus, now: datetime, *, stale_days: int = 365, dup_threshold: float = 0.6) -> MaintenanceReport:
    g = corpus.graph
    orphans = [p for p in g.notes if not g.into[p]]
    cutoff = now - timedelta(days=stale_days)
    stale = [p for p in g.notes if corpus.dated(p) < cutoff]
    isolated = {p for p in g.notes if not g.neighbours(p)}
    return MaintenanceReport(
        notes=len(g.notes),
        dead_links=list(g.dead),
        orphans=orphans,
        stale=stale,
        near_duplicates=near_duplicates(corpus, dup_threshold),
        archive_candidates=[p for p in stale if p in isolated],
        health=round(g.health(), 4),
        suggestions=suggest(corpus, orphans, g),
        skipped=[(s.path, s.reason) for s in corpus.skipped],
        problems={p: got for p in corpus.notes if (got := corpus.problems(p, now))},
    )


def near_duplicates(corpus: Corpus, threshold: float) -> list[list[str]]:
    """Clusters of notes whose bodies share at least ``threshold`` of their 3-word shingles."""
    sh = {p: shingles(strip_block(n.body)) for p, n in corpus.notes.items()}
    buckets: dict[int, list[str]] = defaultdict(list)
    for p, s in sh.items():
        for v in sorted(s)[:_SKETCH]:
            buckets[v].append(p)
    parent = {p: p for p in sh}

    def find(p: str) -> str:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    shared: Counter[tuple[str, str]] = Counter()
    for members in buckets.values():
        if len(members) <= _BUCKET_CAP:
            shared.update((a, b) for i, a in enumerate(members) for b in members[i + 1 :])
    # Two notes sharing ``threshold`` of their shingles share about that share of their sketches:
    # only pairs sharing at least a quarter of the sketch are compared exactly (a cheap first cut).
    floor = max(1, int(_SKETCH * threshold / 4))
    for (a, b), n in sorted(shared.items()):
        if n >= floor and jaccard(sh[a], sh[b]) >= threshold:
            parent[find(b)] = find(a)
    groups: dict[str, list[str]] = defaultdict(list)
    for p in sh:
        groups[find(p)].append(p)
    return sorted((sorted(m) for m in groups.values() if len(m) > 1), key=lambda c: c[0])


def suggest(corpus: Corpus, orphans: list[str], graph: LinkGraph) -> list[Suggestion]:
    """For each orphan, the most similar other note it does not link to yet (None found: left out)."""
    vecs = tfidf({p: words(n.title + "\n" + strip_block(n.body)) for p, n in corpus.notes.items()})
    postings: dict[str, list[str]] = defaultdict(list)
    for p, v in vecs.items():
        for w in v:
            postings[w].append(p)
    out = []
    for o in orphans:
        top = sorted(vecs[o].items(), key=lambda kv: (-kv[1], kv[0]))[:12]
        scores: dict[str, float] = defaultdict(float)
        for w, weight in top:
            if len(postings[w]) > 200:  # too common to point anywhere
                continue
            for p in postings[w]:
                scores[p] += weight * vecs[p][w]
        linked = graph.out[o] | {o}
        ranked = sorted(((s, p) for p, s in scores.items() if p not in linked), key=lambda t: (-t[0], t[1]))
        if ranked and ranked[0][0] > 0:
            out.append(Suggestion(o, ranked[0][1], round(ranked[0][0], 4)))
    return out


def plan_suggestions(corpus: Corpus) -> dict[str, str]:
    """The new text of every orphan that gets a block: path → full text (blocks of its own replaced)."""
    bare = Corpus(skipped=corpus.skipped)
    for p, raw in corpus.raw.items():
        bare.raw[p] = raw
        bare.notes[p] = parse_note(p, strip_block(raw.text))
    g = bare.graph
    orphans = [p for p in g.notes if not g.into[p]]
    plan: dict[str, str] = {}
    for s in suggest(bare, orphans, g):
        target = bare.notes[s.target]
        name = target.path[:-3]
        label = f"|{target.title}" if target.title and target.title != target.stem else ""
        block = f"{BLOCK_START}\n## Related (suggested)\n\n- [[{name}{label}]]\n{BLOCK_END}\n"
        old = corpus.raw[s.orphan].text
        new = strip_block(old).rstrip("\n") + "\n\n" + block
        if new != old:
            plan[s.orphan] = new
    return plan
