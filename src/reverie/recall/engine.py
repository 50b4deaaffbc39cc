"""Recall: lexical + dense legs → RRF → visibility filters → relevance × value × decay → hits.

Each stage is a small function; ``recall`` wires them and records *why* every hit ranked
where it did. Reading order: ``recall`` → ``_candidates`` → ``_visible`` → ``_score`` →
``_contradictions`` → ``_diversify``; then the one bounded corrective pass.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, Protocol, get_args, runtime_checkable

import numpy as np

from reverie.errors import InvalidInputError, LimitExceededError
from reverie.limits import Limits
from reverie.model.item import Edge, Item
from reverie.model.query import Filter, ValidAt
from reverie.model.valid_reads import stands
from reverie.recall import signals
from reverie.recall.decay import DEFAULT_DECAY, DecayPolicy, decay_factor, effective_age_days, trust_factor
from reverie.recall.fusion import FusedHit, rrf
from reverie.recall.normalize import fts_query, tokenize
from reverie.store.protocol import Store
from reverie.store.replay import believed_states, item_at

Mode = Literal["hybrid", "lexical", "dense"]
ContradictionMode = Literal["surface", "filter"]
#: The choices of ``mode`` and ``contradictions``, for the checks and for every face's schema.
MODES: tuple[str, ...] = get_args(Mode)
CONTRADICTION_MODES: tuple[str, ...] = get_args(ContradictionMode)

#: The candidate pool per leg ``Memory.recall`` gives ``k`` hits: ``max(POOL_MIN, POOL_PER_K · k)``.
POOL_MIN = 100
POOL_PER_K = 5


#: The largest pool per leg a ``where`` filter widens to (``_run_filtered``): a filter admitting
#: fewer than ``k`` of the legs' best 20,000 candidates answers with those it admits.
FILTER_POOL_MAX = 20_000
#: Each widening multiplies the pool by this (100 → 400 → 1,600 → 6,400 → 20,000).
FILTER_POOL_GROWTH = 4


def default_pool(k: int) -> int:
    """The pool of a recall of ``k`` hits whose caller built no ``RecallOptions``."""
    return max(POOL_MIN, POOL_PER_K * k)


def max_pool(limits: Limits) -> int:
    """The largest ``RecallOptions.pool`` a caller may ask for: the pool of the largest ``k``
    (``Limits.max_k``), so options never reach further than the keyword arguments can.

    Why a bound at all: each leg returns up to ``pool`` candidates and the scorer may read all
    of them (four times as many on the corrective pass), so an unbounded pool reads and scores
    the whole scope in one call.
    """
    return default_pool(limits.max_k)


def check_pool(pool: object, limits: Limits) -> int:
    """A caller's ``RecallOptions.pool``: a positive int no larger than ``max_pool(limits)``."""
    bound = max_pool(limits)
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < 1:
        raise InvalidInputError(f"pool must be a positive int (candidates per leg, at most {bound}), got {pool!r}")
    if pool > bound:
        raise LimitExceededError(
            f"pool is {pool}; the limit is {bound}, the pool of k = Limits.max_k ({limits.max_k}): "
            "ask for a smaller pool or raise Limits.max_k"
        )
    return pool


@dataclass(frozen=True, slots=True)
class Weights:
    """How much each signal bends relevance: factor = (1 − w) + w · signal, so w=0 ignores it."""

    trust: float = 0.3
    importance: float = 0.2
    value: float = 0.2
    decay: float = 1.0
    hub_penalty: float = 0.5
    #: Relevance = (fused / best fused) ** sharpness. RRF scores of neighbouring ranks differ by
    #: ~1.6 % (k=60), so without sharpening the priors above would override relevance outright;
    #: with it they reorder near-ties but cannot lift a weak match over a strong one.
    sharpness: float = 8.0


@dataclass(frozen=True, slots=True)
class Neighbours:
    """Sequences of items (the turns of a conversation) whose members lend each other relevance.

    ``meta[group]`` names the sequence and ``meta[position]`` (an int) orders it. After fusion,
    each visible candidate's fused score gains ``before`` × the fused score of the visible
    candidate just before it in its sequence and ``after`` × that of the one just after it
    (nothing when that neighbour is not a candidate, so no extra read is made). Why: in a
    dialogue the answer often sits next to the turn that shares the question's words ("What
    genre is your screenplay?" → "A mix of drama and romance!"). Items without both meta keys
    neither give nor take. ``why["neighbour_bonus"]`` records the gain.
    """

    group: str = "session"
    position: str = "turn"
    before: float = 0.0
    after: float = 0.5

    def __post_init__(self) -> None:
        for name in ("before", "after"):
            _check_weight(f"Neighbours.{name}", getattr(self, name))


@dataclass(frozen=True, slots=True)
class RecallOptions:
    k: int = 10
    mode: Mode = "hybrid"
    where: Filter | None = None
    as_of: datetime | None = None
    #: Valid time: only claims true in the world at this time (``ValidAt``); with ``as_of``, among
    #: what was believed then, else among what is believed now.
    valid_at: datetime | None = None
    include_history: bool = False
    tiers: tuple[str, ...] = ("active", "durable")
    contradictions: ContradictionMode = "surface"
    weights: Weights = field(default_factory=Weights)
    rrf_k: int = 60
    leg_weights: Mapping[str, float] | None = None
    pool: int = 100
    #: Lexical hits scoring below this fraction of the best bm25 matched only on near-zero-IDF
    #: words (e.g. a name that is in every memory of the scope): they are not lexical evidence.
    lexical_floor: float = 0.1
    min_authority: float = 0.0
    confidence_floor: float = 0.3
    diversity_author: float = 0.0
    diversity_parent: float = 0.0
    decay: DecayPolicy = DEFAULT_DECAY
    self_correct: bool = True
    #: The answer is weak (one corrective pass runs) when its top score is below this ...
    weak_below: float = 0.0
    #: ... or when its strongest hit's strength (``reverie.recall.signals``: the legs' scores of
    #: it over their best, averaged over the legs) is below this: the best candidates the legs
    #: saw were hidden by a filter the corrective pass relaxes. 0 turns it off.
    weak_strength: float = 0.5
    #: Multiply the score of an item written by an author the query is about by ``1 + author_boost``
    #: (``why["author_named"]`` records it). For conversational memory: "What did Caroline
    #: research?" prefers what Caroline said over what was said *to* her. 0 (the default) turns it off.
    author_boost: float = 0.0
    #: The authors the query is about. ``None`` (the default): every author the query text names
    #: (all tokens of the author string, folded as full-text search folds them, are query tokens).
    #: A caller that knows its participants can take their names out of the query text
    #: (``reverie.recall.expand.split_authors``) and pass them here instead.
    authors: tuple[str, ...] | None = None
    #: Let items that form sequences lend relevance to their neighbours (see ``Neighbours``).
    #: ``None`` (the default) turns it off.
    neighbours: Neighbours | None = None
    #: People hook (h-people, ``reverie.conversation.people.recall_hook``): the claims about the
    #: person a query names by a relation ("Alice's sister") score × (1 + ``about_boost``);
    #: ``why["about_person"]`` records it. Empty / 0 (the defaults) turn it off.
    about_items: frozenset[str] = frozenset()
    about_boost: float = 0.0
    #: People hook (h-people): meta keys naming the message an item comes from (a message's memory
    #: has ``meta["message"]``, a claim mined from it ``meta["message_id"]``). Of the candidates with
    #: one source only the best stays in the answer, so a claim and its message do not take two of
    #: the k slots; ``why["same_source_folded"]`` counts the others. Empty (the default): off.
    same_source: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_weight("RecallOptions.author_boost", self.author_boost)
        _check_weight("RecallOptions.about_boost", self.about_boost)
        _check_weight("RecallOptions.weak_strength", self.weak_strength)


def _check_weight(name: str, value: float) -> None:
    """A boost or spread weight must be a finite number >= 0 (a negative one would invert it)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value < float("inf"):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


@dataclass(frozen=True, slots=True)
class Hit:
    """One recalled item, its final score and how it got there (``why``)."""

    item: Item
    score: float
    why: dict[str, Any]
    contradicted_by: tuple[str, ...] = ()

    @property
    def asserted(self) -> bool:
        """False when confidence is below the floor: surface it, but do not state it as fact."""
        return bool(self.why.get("asserted", True))


def recall(
    store: Store,
    scope: str,
    query: str,
    query_vector: np.ndarray | None,
    opts: RecallOptions,
    now: datetime,
) -> tuple[list[Hit], dict[str, Any]]:
    """Run the first pass and, if it came back weak, exactly one corrective pass.

    Weak: empty, or a confidence (its strongest hit's strength, ``reverie.recall.signals``)
    under ``weak_strength`` — the legs' best candidates were not in the answer, typically
    because a filter hid them. Returns the hits and a trace (which pass won, each pass's
    confidence). The corrective pass widens the candidate pool and drops the soft trust floor
    (and lets subconscious items in), never scope, visibility or ``as_of``; its answer replaces
    the first only if its confidence is strictly higher. Each hit's ``why["counts_as_use"]``
    says whether recording use should count it (``signals.counts_as_use``; never with ``as_of``).

    With ``as_of`` every candidate is ranked and returned as it stood then (``store.replay``),
    and ``now`` becomes ``as_of`` (if earlier) for decay and trust: the answer a recall at that
    time would have given from what was believed then.
    """
    if opts.as_of is not None:
        now = min(now, opts.as_of)
    first = _run_filtered(store, scope, query, query_vector, opts, now, pass_name="first")
    trace: dict[str, Any] = {"passes": 1, "used": "first", "confidence": _confidence(first)}
    if not opts.self_correct or not _weak(first, opts):
        return _mark_use(first, opts), trace
    wider = replace(
        opts,
        pool=opts.pool * 4,
        min_authority=0.0,
        tiers=tuple(dict.fromkeys((*opts.tiers, "subconscious"))),
    )
    second = _run_filtered(store, scope, query, query_vector, wider, now, pass_name="corrective")
    trace["passes"] = 2
    trace["corrective_confidence"] = _confidence(second)
    if _better(second, first):
        trace["used"] = "corrective"
        trace["confidence"] = trace["corrective_confidence"]
        return _mark_use(second, opts), trace
    return _mark_use(first, opts), trace


def _confidence(hits: Sequence[Hit]) -> float:
    return signals.confidence([h.why for h in hits])


def _weak(hits: Sequence[Hit], opts: RecallOptions) -> bool:
    """Empty, a top score under ``weak_below``, or a confidence under ``weak_strength``."""
    if not hits:
        return True
    return hits[0].score < opts.weak_below or _confidence(hits) < opts.weak_strength


def _better(new: Sequence[Hit], old: Sequence[Hit]) -> bool:
    """Strictly better by the measure that called the answer weak: a higher confidence (any
    answer beats an empty one). Equal confidence keeps the first answer, so the corrective
    pass can never make an answer worse by that measure."""
    if not new:
        return False
    return not old or _confidence(new) > _confidence(old) + 1e-12


def _mark_use(hits: list[Hit], opts: RecallOptions) -> list[Hit]:
    """Record in each hit's ``why`` whether it counts as a use (``signals.counts_as_use``).

    A point-in-time recall (``as_of``) is a look at the past, never a use: its hits are what was
    believed then (perhaps superseded or forgotten since), and counting them would reinforce
    value, reset decay and graduate memories today because someone audited history.
    """
    best = max((float(h.why.get("fused", 0.0)) for h in hits), default=0.0)
    for h in hits:
        h.why[signals.COUNTS_AS_USE] = opts.as_of is None and signals.counts_as_use(h.why, best)
    return hits


def _run_filtered(
    store: Store,
    scope: str,
    query: str,
    qvec: np.ndarray | None,
    opts: RecallOptions,
    now: datetime,
    pass_name: str,
) -> list[Hit]:
    """``_run``, and with a ``where`` filter again on a wider pool while it admits fewer than ``k``
    candidates and a leg was cut at the pool (it has more): ×``FILTER_POOL_GROWTH`` up to
    ``FILTER_POOL_MAX``.

    Why: the legs rank the whole scope and the filter is applied to their best ``pool``, so in a
    scope whose other claims use the query's words the claims a filter admits sat below the cut
    and a filtered recall answered nothing (outside probe 5, #3: the one claim by "Zed", holding
    every query word, was not found with ``where=Q.author("Zed")``). Pushing every filter into
    each backend's full-text and vector queries would also work for current truth, but not for
    ``as_of``, whose filter applies to each item's state then. Ranks stay the legs' unfiltered
    ranks, so an answer the first pool already filled is unchanged.
    """
    hits, cut = _run(store, scope, query, qvec, opts, now, pass_name)
    pool = opts.pool
    while opts.where is not None and cut and len(hits) < opts.k and pool < FILTER_POOL_MAX:
        if opts.as_of is None and store.count(scope, opts.where) <= len(hits):
            break  # the filter admits no other row at all (the count is of every version: a bound)
        pool = min(pool * FILTER_POOL_GROWTH, FILTER_POOL_MAX)
        hits, cut = _run(store, scope, query, qvec, replace(opts, pool=pool), now, pass_name)
    return hits


def _run(
    store: Store,
    scope: str,
    query: str,
    qvec: np.ndarray | None,
    opts: RecallOptions,
    now: datetime,
    pass_name: str,
) -> tuple[list[Hit], bool]:
    """One pass: the hits, and whether a leg was cut at the pool (it had more candidates)."""
    # valid_at reads forgotten versions too (model.valid_reads), which current-only legs never return
    history = opts.include_history or opts.as_of is not None or opts.valid_at is not None
    rankings, shares, cut = _candidates(store, scope, query, qvec, opts, current_only=not history)
    fused = rrf(rankings, k=opts.rrf_k, weights=opts.leg_weights)
    best = fused[0].score if fused else 1.0
    named = _AuthorMatcher(query, opts.authors) if opts.author_boost > 0 else None
    if opts.neighbours is None and _prunable(opts):
        scored = _score_top(store, scope, fused, best, named, opts, now, pass_name)
    else:
        visible = _visible_candidates(store, scope, fused, opts, now)
        bonus: dict[str, float] = {}
        if opts.neighbours is not None:
            bonus = _neighbour_bonus(visible, opts.neighbours)
            best = max([best, *(f.score + bonus.get(f.id, 0.0) for f, _ in visible)])
        scored = [_hit(item, f, bonus.get(f.id, 0.0), best, named, opts, now, pass_name) for f, item in visible]
    for h in scored:
        signals.annotate(h.why, h.item.id, shares, opts.leg_weights)
    scored.sort(key=lambda h: (-h.score, h.item.id))
    if opts.same_source:
        scored = _fold_same_source(scored, opts.same_source, opts.about_items, _revisions(store, scope, scored))
    if opts.contradictions == "surface":  # flags only, never reorders: look up edges for the answer alone
        return _contradictions(store, scope, _diversify(scored, opts)[: opts.k], opts), cut
    scored = _contradictions(store, scope, scored, opts)
    return _diversify(scored, opts)[: opts.k], cut


def _revisions(store: Store, scope: str, hits: Sequence[Hit]) -> frozenset[str]:
    """Ids of the hits that supersede an earlier version (made by ``revise``). Only items past
    version 1 can be: the edges of those few are read, not of every hit."""
    return frozenset(
        h.item.id
        for h in hits
        if h.item.version > 1
        and any(e.type == "supersedes" and e.src == h.item.id for e in store.edges(scope, h.item.id))
    )


def _fold_same_source(
    scored: list[Hit], keys: Sequence[str], about: frozenset[str], revisions: frozenset[str] = frozenset()
) -> list[Hit]:
    """Best first: keep one hit per source (``RecallOptions.same_source``) and count the rest.

    The one kept is the best, except that a claim about the person the query names
    (``about_items``) stands for its source in the best one's place: a question about Dana is
    answered by the claim about Dana rather than by the message it was mined from. A revised
    claim (``revisions``) is a source of its own: a correction no longer says what the message
    said, and folding it into the message answered with the corrected-away words.
    """
    at: dict[str, int] = {}
    out: list[Hit] = []
    for h in scored:
        source = next((str(v) for k in keys if (v := h.item.meta.get(k)) is not None), None)
        if source is None or h.item.id in revisions:
            out.append(h)
            continue
        if source not in at:
            at[source] = len(out)
            out.append(h)
            continue
        first = out[at[source]]
        why = {**first.why, "same_source_folded": int(first.why.get("same_source_folded", 0)) + 1}
        if h.item.id in about and first.item.id not in about:
            why = {**h.why, "same_source_folded": why["same_source_folded"], "score_of_source": first.item.id}
            out[at[source]] = replace(h, score=first.score, why=why)
        else:
            out[at[source]] = replace(first, why=why)
    return out


def _visible_candidates(
    store: Store, scope: str, fused: Sequence[FusedHit], opts: RecallOptions, now: datetime
) -> list[tuple[FusedHit, Item]]:
    items = store.get_many(scope, [f.id for f in fused])
    if opts.as_of is not None:  # each as it stood then: scores, status, validity, closed_at
        items = _states_then(store, scope, items, opts.as_of, opts.valid_at is not None)
    out: list[tuple[FusedHit, Item]] = []
    for f in fused:
        item = items.get(f.id)
        if item is not None and _visible(item, opts, now) and item.scores.authority >= opts.min_authority:
            out.append((f, item))
    return out


def _hit(
    item: Item,
    f: FusedHit,
    extra: float,
    best: float,
    named: _AuthorMatcher | None,
    opts: RecallOptions,
    now: datetime,
    pass_name: str,
) -> Hit:
    """Score one candidate: ``_score``, plus the neighbour bonus and the author boost when on."""
    hit = _score(item, f.score + extra, (f.score + extra) / best, f.ranks, opts, now, pass_name)
    if extra:
        hit.why["neighbour_bonus"] = round(extra, 6)
    if named is not None and named(item.author):
        hit = replace(hit, score=hit.score * (1 + opts.author_boost), why={**hit.why, "author_named": True})
    if opts.about_boost and item.id in opts.about_items:  # people hook (h-people)
        hit = replace(hit, score=hit.score * (1 + opts.about_boost), why={**hit.why, "about_person": True})
    return hit


def _prunable(opts: RecallOptions) -> bool:
    """Is the answer simply the k best scores? Not with diversity (it re-ranks by what was already
    chosen) or ``contradictions="filter"`` (it drops hits), nor if relevance could grow as the
    fused score falls (negative sharpness)."""
    return (
        opts.diversity_author <= 0
        and opts.diversity_parent <= 0
        and not opts.same_source  # a folded hit's place is taken by one further down
        and opts.contradictions == "surface"
        and opts.weights.sharpness >= 0
    )


def _factor_ceiling(opts: RecallOptions) -> float:
    """The largest factor ``_hit`` can multiply relevance by. Every signal (decay, trust, importance,
    value) is in [0, 1] (scores are validated to [0, 1]; decay and trust never exceed them), so each
    ``(1 − w) + w · signal`` is at most ``max(1, 1 − w)``."""
    w = opts.weights
    ceiling = 1.0
    for weight in (w.decay, w.trust, w.importance, w.value):
        ceiling *= max(1.0, 1.0 - weight)
    return ceiling * max(1.0, w.hub_penalty) * (1.0 + opts.author_boost) * (1.0 + opts.about_boost)


def _score_top(
    store: Store,
    scope: str,
    fused: Sequence[FusedHit],
    best: float,
    named: _AuthorMatcher | None,
    opts: RecallOptions,
    now: datetime,
    pass_name: str,
) -> list[Hit]:
    """Score candidates best-fused first, a chunk at a time, and stop once none left can reach the top k.

    Why: reading and scoring an item costs ~0.1 ms and the two legs return up to ``2 · pool``
    candidates, most of which cannot make the answer: relevance is (fused / best) ** sharpness,
    so a candidate's score is at most that times ``_factor_ceiling``, and it only falls down the
    fused list. The answer is the same as scoring every candidate (ties included: a candidate
    whose bound equals the k-th score is still read).
    """
    ceiling = _factor_ceiling(opts) * (1 + 1e-9)  # headroom for rounding in the factor product
    sharp = opts.weights.sharpness
    chunk = max(2 * opts.k, 20)
    scored: list[Hit] = []
    top: list[float] = []  # min-heap of the k best scores so far
    start = 0
    while start < len(fused):
        part = fused[start : start + chunk]
        start += len(part)
        for f, item in _visible_candidates(store, scope, part, opts, now):
            hit = _hit(item, f, 0.0, best, named, opts, now, pass_name)
            scored.append(hit)
            (heapq.heappush if len(top) < opts.k else heapq.heappushpop)(top, hit.score)
        if start < len(fused) and len(top) >= opts.k and (fused[start].score / best) ** sharp * ceiling < top[0]:
            break
    return scored


class _AuthorMatcher:
    """Is the query about this author? Listed in ``authors``, or (when ``authors`` is None) named
    in the query: every token of the author is a query token."""

    def __init__(self, query: str, authors: Sequence[str] | None) -> None:
        self._listed = frozenset(authors) if authors is not None else None
        self._query = frozenset(tokenize(query)) if authors is None else frozenset()
        self._seen: dict[str, bool] = {}

    def __call__(self, author: str | None) -> bool:
        if not author:
            return False
        if self._listed is not None:
            return author in self._listed
        if author not in self._seen:
            tokens = tokenize(author)
            self._seen[author] = bool(tokens) and self._query.issuperset(tokens)
        return self._seen[author]


def _neighbour_bonus(visible: Sequence[tuple[FusedHit, Item]], nb: Neighbours) -> dict[str, float]:
    """Each visible candidate's gain from its visible neighbours' fused scores (see ``Neighbours``)."""
    at: dict[tuple[str, int], float] = {}
    keys: dict[str, tuple[str, int]] = {}
    for f, item in visible:
        group, position = item.meta.get(nb.group), item.meta.get(nb.position)
        if group is None or isinstance(position, bool) or not isinstance(position, int):
            continue
        key = (json.dumps(group, sort_keys=True), position)
        keys[f.id] = key
        at[key] = f.score
    out: dict[str, float] = {}
    for item_id, (group_key, position) in keys.items():
        gain = nb.before * at.get((group_key, position - 1), 0.0) + nb.after * at.get((group_key, position + 1), 0.0)
        if gain > 0:
            out[item_id] = gain
    return out


def _candidates(
    store: Store,
    scope: str,
    query: str,
    qvec: np.ndarray | None,
    opts: RecallOptions,
    *,
    current_only: bool,
) -> tuple[dict[str, list[str]], dict[str, dict[str, float]], bool]:
    """Each leg's ranking, each leg's shares (``signals``) of the candidates it ranked, and
    whether a leg was cut at ``opts.pool`` (a wider pool would give it more candidates).

    A leg that ran but matched nothing still has an (empty) entry in the shares: its silence
    counts against every hit's strength. A leg that could not run (no query terms, no vector)
    has none.
    """
    rankings: dict[str, list[str]] = {}
    shares: dict[str, dict[str, float]] = {}
    cut = False
    if opts.mode in ("hybrid", "lexical"):
        match = fts_query(query)
        if match is not None:
            hits = store.lexical(scope, match, limit=opts.pool, current_only=current_only)
            cut = len(hits) >= opts.pool
            floor = hits[0][1] * opts.lexical_floor if hits else 0.0
            kept = [(i, s) for i, s in hits if s >= floor]
            rankings["lexical"] = [i for i, _ in kept]
            shares["lexical"] = signals.shares_of(kept)
    if opts.mode in ("hybrid", "dense") and qvec is not None:
        # A store with an ANN index answers large scopes itself (current truth only: history and
        # as_of stay exact); None means "below its threshold", and the exact scan below runs.
        ranked = store.nearest(scope, qvec, limit=opts.pool) if current_only and isinstance(store, _Nearest) else None
        if ranked is not None:
            shares["dense"] = signals.rank_shares(ranked, opts.rrf_k)
            cut = cut or len(ranked) >= opts.pool
        else:
            ids, mat = store.vectors(scope, current_only=current_only)
            scored = _top_dense_scored(ids, mat, qvec, opts.pool) if ids else []
            ranked = [i for i, _ in scored]
            shares["dense"] = signals.shares_of(scored)
            cut = cut or len(ids) > opts.pool
        rankings["dense"] = ranked
    return rankings, shares, cut


@runtime_checkable
class _Nearest(Protocol):
    """A store that can answer dense search approximately (``SQLiteStore`` with its IVF index)."""

    def nearest(self, scope: str, query: np.ndarray, *, limit: int) -> list[str] | None: ...


def _top_dense(ids: Sequence[str], mat: np.ndarray, qvec: np.ndarray, n: int) -> list[str]:
    """Exact cosine top-n (rows are unit vectors), vectorised; ties break by position (= id order).

    ``einsum`` rather than ``mat @ q``: the scan is memory-bound (154 MB per query at 100k × 384
    float32) and numpy's einsum loop streams it about twice as fast as OpenBLAS's sgemv here
    (10 vs 19 ms at 100k, one thread), uses no BLAS thread pool, and computes each row the same
    way wherever it sits in the matrix (sgemv's blocking does not), so equal vectors tie exactly.
    """
    return [i for i, _ in _top_dense_scored(ids, mat, qvec, n)]


def _top_dense_scored(ids: Sequence[str], mat: np.ndarray, qvec: np.ndarray, n: int) -> list[tuple[str, float]]:
    """``_top_dense`` with each id's cosine (the dense leg's share is cosine over the best)."""
    sims = np.einsum("ij,j->i", mat, np.asarray(qvec, dtype=np.float32))
    n = min(n, len(ids))
    part = np.argpartition(-sims, n - 1)[:n] if n < len(ids) else np.arange(len(ids))
    order = part[np.lexsort((part, -sims[part]))]
    return [(ids[i], float(sims[i])) for i in order if sims[i] > 0.0]


def _states_then(
    store: Store, scope: str, rows: Mapping[str, Item], when: datetime, forgotten: bool
) -> dict[str, Item]:
    """Each candidate as it stood at ``when`` among those believed then (``believed_states``); with
    ``forgotten`` (a ``valid_at`` read) also those forgotten by then, whose validity the forget
    closed but which still answer for a time before it (``model.valid_reads``)."""
    states = believed_states(store, scope, rows, when)
    if forgotten:
        for item_id, row in rows.items():
            if item_id in states or not stands(row) or row.closed_at is None or row.closed_at > when:
                continue
            state = item_at(store, scope, item_id, when)
            if state is not None:
                states[item_id] = state
    return states


def _visible(item: Item, opts: RecallOptions, now: datetime) -> bool:
    """Current truth by default; a point in time with ``as_of``; everything with ``include_history``.

    ``valid_at`` asks valid time on top: record time is then ``as_of`` (or now), and the item must
    be valid at ``valid_at`` instead of at that record time; a forgotten item still answers for a
    time before its forget closed its validity (``model.valid_reads.stands``).
    """
    if opts.as_of is not None:
        if opts.valid_at is None and not item.believed_at(opts.as_of):
            return False
        if opts.valid_at is not None and not (_recorded_by(item, opts.as_of) or _forgotten_by(item, opts.as_of)):
            return False
    elif not opts.include_history:
        if opts.valid_at is None and not (item.is_current and _valid_now(item, now)):
            return False
        if opts.valid_at is not None and not stands(item):
            return False
    if opts.valid_at is not None and not ValidAt(opts.valid_at).matches(item):
        return False
    # Tiers describe where an item sits *now*; a point-in-time or history query is about what was
    # believed, so the current tier does not hide it.
    if item.tier not in opts.tiers and not opts.include_history and opts.as_of is None:
        return False
    return opts.where is None or opts.where.matches(item)


def _valid_now(item: Item, now: datetime) -> bool:
    """Current truth's valid-time test (``Memory.list``'s too): started by now, not yet ended."""
    if item.valid_from is not None and item.valid_from > now:
        return False
    return item.valid_to is None or item.valid_to > now


def _forgotten_by(item: Item, when: datetime) -> bool:
    """Recorded by ``when`` and forgotten by then: its closed validity still answers ``valid_at``."""
    return item.recorded_at <= when and not item.is_current and stands(item)


def _recorded_by(item: Item, when: datetime) -> bool:
    """Believed at ``when`` in record time alone: recorded by then and not yet closed."""
    return item.recorded_at <= when and (item.closed_at is None or item.closed_at > when)


def _score(
    item: Item,
    fused: float,
    relative: float,
    ranks: Mapping[str, int],
    opts: RecallOptions,
    now: datetime,
    pass_name: str,
) -> Hit:
    w = opts.weights
    rule = opts.decay.rule_for(item.kind)
    age = effective_age_days(now=now, recorded_at=item.recorded_at, last_used_at=item.last_used_at, rule=rule)
    decay = decay_factor(rule, age_days=age, durability=item.scores.durability)
    seen = item.last_seen_at or item.recorded_at
    trust = trust_factor(
        item.scores.authority,
        evidence_age_days=max(0.0, (now - seen).total_seconds() / 86400),
        policy=opts.decay,
    )
    factor = (
        ((1 - w.decay) + w.decay * decay)
        * ((1 - w.trust) + w.trust * trust)
        * ((1 - w.importance) + w.importance * item.scores.importance)
        * ((1 - w.value) + w.value * item.scores.value)
    )
    hub = "hub" in item.flags
    if hub:
        factor *= w.hub_penalty
    asserted = item.scores.confidence >= opts.confidence_floor
    why: dict[str, Any] = {
        "pass": pass_name,
        "lexical_rank": ranks.get("lexical"),
        "dense_rank": ranks.get("dense"),
        "fused": round(fused, 6),
        "decay": round(decay, 4),
        "age_days": round(age, 2),
        "trust": round(trust, 4),
        "importance": item.scores.importance,
        "value": item.scores.value,
        "confidence": item.scores.confidence,
        "asserted": asserted,
        "hub_penalty": hub,
        "filters": _filters_passed(opts),
    }
    relevance = relative**w.sharpness
    why["relevance"] = round(relevance, 6)
    return Hit(item=item, score=relevance * factor, why=why)


def _filters_passed(opts: RecallOptions) -> list[str]:
    out = ["scope"]
    if opts.as_of is not None:
        out.append("as_of")
    elif not opts.include_history:
        out.append("current_truth")
    if opts.valid_at is not None:
        out.append("valid_at")
    out.append("tiers:" + ",".join(opts.tiers))
    if opts.where is not None:
        out.append("where")
    if opts.min_authority > 0:
        out.append(f"authority>={opts.min_authority}")
    return out


def _support(item: Item) -> float:
    manual = 2.0 if item.source == "manual" else 1.0
    return float(item.scores.authority * (1 + np.log1p(item.evidence_count)) * manual)


def _contradictions(store: Store, scope: str, hits: list[Hit], opts: RecallOptions) -> list[Hit]:
    """Flag hits that a current ``contradicts`` edge ties to another hit; ``filter`` keeps the stronger.

    With ``as_of``, the edges open at that time (linked by then, not yet unlinked) instead.
    """
    by_id = {h.item.id: h for h in hits}
    pairs: dict[str, set[str]] = {}
    when = opts.as_of
    for h in hits:
        for e in store.edges(scope, h.item.id, include_closed=when is not None):
            if e.type != "contradicts" or (when is not None and not _open_at(e, when)):
                continue
            other = e.dst if e.src == h.item.id else e.src
            pairs.setdefault(h.item.id, set()).add(other)
    if not pairs:
        return hits
    out: list[Hit] = []
    for h in hits:
        others = tuple(sorted(pairs.get(h.item.id, ())))
        if opts.contradictions == "filter":
            rivals = [by_id[o] for o in others if o in by_id]
            if any((_support(r.item), r.item.id) > (_support(h.item), h.item.id) for r in rivals):
                continue
        out.append(replace(h, contradicted_by=others) if others else h)
    return out


def _open_at(edge: Edge, when: datetime) -> bool:
    """Was ``edge`` in force at ``when`` (record time)?"""
    return edge.recorded_at <= when and (edge.closed_at is None or edge.closed_at > when)


def _diversify(hits: list[Hit], opts: RecallOptions) -> list[Hit]:
    """Greedy re-rank: a hit sharing an author / parent with one already chosen is penalised."""
    if opts.diversity_author <= 0 and opts.diversity_parent <= 0:
        return hits
    chosen: list[Hit] = []
    pool = list(hits)
    authors: set[str] = set()
    parents: set[str] = set()
    while pool:
        best_i, best_s = 0, -1.0
        for i, h in enumerate(pool):
            s = h.score
            if h.item.author and h.item.author in authors:
                s *= 1 - opts.diversity_author
            if parents.intersection(h.item.parents):
                s *= 1 - opts.diversity_parent
            if s > best_s:
                best_i, best_s = i, s
        h = pool.pop(best_i)
        chosen.append(replace(h, score=best_s, why={**h.why, "diversity_adjusted": best_s != h.score}))
        if h.item.author:
            authors.add(h.item.author)
        parents.update(h.item.parents)
    return chosen
