"""The recall capability: the best current memories for a query, and a prompt block of them.

Options are checked here (the boundary); ranking itself is ``reverie.recall``. The hits of an
answer that count as used (``reverie.recall.signals``: a leg ranked them well and they are not
far below the top) are reported to ``Usage``; ``context`` reports only the ones it packed.
"""

from __future__ import annotations

import builtins
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, cast

import numpy as np

from reverie.conversation.people.asked_in import AskedIn, prefer_spoken_of
from reverie.conversation.people.recall_hook import people_default
from reverie.errors import (
    EmbedderError,
    EmbedderMismatchError,
    InvalidInputError,
    InvalidQueryError,
    LimitExceededError,
)
from reverie.memory.core import Core
from reverie.memory.pattern_recall import with_patterns
from reverie.memory.usage import Usage
from reverie.model.clock import ensure_aware
from reverie.model.item import TIERS
from reverie.model.query import Filter
from reverie.model.validate import check_choice, check_count, check_numbers, check_score, check_text, shown
from reverie.recall.conversational import conversation_default
from reverie.recall.engine import (
    CONTRADICTION_MODES,
    MODES,
    ContradictionMode,
    Hit,
    Mode,
    RecallOptions,
    Weights,
    check_pool,
    default_pool,
)
from reverie.recall.engine import recall as run_recall
from reverie.recall.packing import PackCandidate, estimate_tokens, pack, render_context, render_line


class Retrieval:
    """``recall`` and ``context`` over one ``Core``, recording use through ``Usage``."""

    def __init__(self, core: Core, usage: Usage) -> None:
        self._core = core
        self._usage = usage

    def recall(
        self,
        query: str,
        *,
        scope: str,
        k: int | None = None,
        mode: str = "hybrid",
        where: Filter | None = None,
        as_of: datetime | None = None,
        include_history: bool = False,
        tiers: Sequence[str] = ("active", "durable"),
        contradictions: str = "surface",
        weights: Weights | None = None,
        diversity: Mapping[str, float] | None = None,
        min_authority: float = 0.0,
        record_use: bool = True,
        options: RecallOptions | None = None,
        valid_at: datetime | None = None,
    ) -> builtins.list[Hit]:
        """The best current memories for ``query``, each with ``score`` and ``why``.

        Full-text (FTS5 bm25) and dense legs fused by Reciprocal Rank Fusion, then ranked by relevance × value ×
        per-kind decay. Current truth only unless ``as_of`` (what we believed then: each hit is the item as it
        stood then, ``get(id, as_of=...)``, ranked as a recall then would have ranked it) or ``include_history``;
        ``valid_at=T`` keeps what was true in the world at T (valid time; combine with ``as_of`` for what we
        believed then about T); subconscious items only if ``tiers`` names them (and recalling one promotes it
        back). ``contradictions="surface"`` flags both sides of a conflict, ``"filter"`` keeps the
        better-supported one. ``diversity`` penalises hits sharing an ``author`` or ``parent``. When the answer
        is weak, one corrective pass runs (wider pool, no trust floor, the subconscious tier too) and replaces
        it only if strictly better. Each hit that counts as used (``why["counts_as_use"]``) records this query
        as ``last_used_query`` unless ``record_use=False``, ``as_of`` is given (a look at the past is not a use)
        or the store is open read-only (a read never writes). Recording never waits for another
        writer's lock: if one holds it, the use waits in this Memory (``Memory.pending_uses``) and is
        written later with this recall's time (``reverie.memory.pending_uses``).
        """
        args = {k: v for k, v in locals().items() if k not in ("self", "query", "scope")}
        return self._answer(query, scope, None, **args)

    def recall_in(self, query: str, *, scope: str, asked_in: AskedIn, **options: Any) -> builtins.list[Hit]:
        """``recall`` as asked in a conversation (``Conversation.recall``): a name in ``query`` that
        several people share prefers the one ``asked_in`` spoke of (``people.asked_in``)."""
        return self._answer(query, scope, asked_in, **options)

    def _answer(
        self,
        query: str,
        scope: str,
        asked_in: AskedIn | None,
        *,
        k: int | None = None,
        mode: str = "hybrid",
        where: Filter | None = None,
        as_of: datetime | None = None,
        include_history: bool = False,
        tiers: Sequence[str] = ("active", "durable"),
        contradictions: str = "surface",
        weights: Weights | None = None,
        diversity: Mapping[str, float] | None = None,
        min_authority: float = 0.0,
        record_use: bool = True,
        options: RecallOptions | None = None,
        valid_at: datetime | None = None,
    ) -> builtins.list[Hit]:
        core = self._core
        s = core.scope(scope)
        opts = (
            self._options(
                query,
                k,
                mode,
                where,
                as_of,
                include_history,
                tiers,
                contradictions,
                weights,
                diversity,
                min_authority,
            )
            if options is None
            else self._checked_options(query, options)
        )
        if valid_at is not None:
            opts = replace(opts, valid_at=ensure_aware(valid_at, "valid_at"))
        search = query
        if options is None:  # people hook (h-people): "Alice's sister" → the person; person records left out
            search, opts = people_default(core.store, s, search, opts, core.clock.now())
            if asked_in is not None:  # asked in a conversation: a shared name means the person it spoke of
                opts = prefer_spoken_of(core.store, s, search, opts, asked_in, core.clock.now())
        if options is None:  # conversation-aware default (h-conv): only on a scope that holds conversations
            search, opts = conversation_default(core.store, s, search, opts)
        qvec, opts, down = self._query_vector(search, opts)
        hits, trace = run_recall(core.store, s, search, qvec, opts, core.clock.now())
        extra: dict[str, Any] = {"passes": trace["passes"], "answer_from": trace["used"]}
        if down is not None:
            extra["dense"] = f"unavailable: {down}"
        hits = [replace(h, why={**h.why, **extra}) for h in hits]
        hits = with_patterns(core.store, s, query, hits, opts)  # h-patterns: "when" surfaces a pattern, members spread
        if record_use:
            self._record(s, hits, hits, query)
        return hits

    def _query_vector(self, search: str, opts: RecallOptions) -> tuple[np.ndarray | None, RecallOptions, str | None]:
        """The query's vector, or — in hybrid mode, when the embedder fails — none and the lexical leg alone.

        Graceful degradation (issue #13.7): recall still answers from full text, and each hit's
        ``why["dense"]`` says why the dense leg is missing. ``mode="dense"`` has no other leg, so
        it raises ``EmbedderError``; so does a mismatch of embedders (a configuration error).
        """
        if opts.mode not in ("hybrid", "dense"):
            return None, opts, None
        try:
            return self._core.checked_embedder().embed([search])[0], opts, None
        except EmbedderMismatchError:
            raise
        except EmbedderError as exc:
            if opts.mode == "dense":
                raise EmbedderError(
                    f"dense recall needs the embedder, which failed: {exc}; use mode='hybrid' (falls back to "
                    "full text) or mode='lexical'"
                ) from exc
            return None, replace(opts, mode="lexical"), str(exc)[:300]

    def _record(self, scope: str, answer: Sequence[Hit], chosen: Sequence[Hit], query: str) -> None:
        """Record use of the ``chosen`` hits that count as used (``why["counts_as_use"]``).

        Why not every hit: recall always returns up to ``k``, and a weak tail counted as used
        reinforced value, reset decay and graduated episodic memories that answered nothing.
        The weight is the hit's score over the answer's best, as before.
        """
        if self._core.read_only:  # a store opened for inspection: a read never writes
            return
        top = answer[0].score if answer and answer[0].score > 0 else 1.0
        uses = [(h.item.id, max(0.01, min(1.0, h.score / top))) for h in chosen if h.why.get("counts_as_use")]
        if uses:  # without waiting for another writer's lock (``pending_uses``)
            self._usage.record_recalled(scope, uses, query)

    def _checked_options(self, query: object, options: RecallOptions) -> RecallOptions:
        """Caller-built options pass the same checks as the keyword arguments, then are used as given.

        Regression: they used to skip them, so ``k=0`` gave an empty answer and ``k`` or the query had
        no bound, and ``pool`` (which the keyword path sets itself) was not checked at all
        (tests/recall/test_recall_options.py).
        """
        diversity = {"author": options.diversity_author, "parent": options.diversity_parent}
        checked = self._options(
            query,
            options.k,
            options.mode,
            options.where,
            options.as_of,
            options.include_history,
            options.tiers,
            options.contradictions,
            options.weights,
            diversity,
            options.min_authority,
        )
        check_pool(options.pool, self._core.limits)
        valid_at = ensure_aware(options.valid_at, "valid_at") if options.valid_at is not None else None
        return replace(options, as_of=checked.as_of, valid_at=valid_at)

    def _options(
        self,
        query: object,
        k: object,
        mode: object,
        where: object,
        as_of: datetime | None,
        include_history: bool,
        tiers: Sequence[str],
        contradictions: object,
        weights: Weights | None,
        diversity: Mapping[str, float] | None,
        min_authority: float,
    ) -> RecallOptions:
        limits = self._core.limits
        text = check_text(query, limits, "query")
        if len(text) > limits.max_query_chars:
            raise LimitExceededError(f"query is longer than Limits.max_query_chars ({limits.max_query_chars})")
        k = check_count(k, "k", default=10, limits=limits)  # None: 10, or max_k if lower
        checked_mode = cast(Mode, check_choice("mode", mode, MODES))
        checked_contradictions = cast(
            ContradictionMode, check_choice("contradictions", contradictions, CONTRADICTION_MODES)
        )
        if where is not None and not isinstance(where, Filter):
            raise InvalidQueryError("where must be a filter built with reverie.Q")
        check_tiers(tiers)
        div = dict(diversity or {})
        unknown = set(div) - {"author", "parent"}
        if unknown:
            raise InvalidInputError(f"diversity takes 'author' and 'parent' penalties, not {sorted(unknown)}")
        return RecallOptions(
            k=k,
            mode=checked_mode,
            where=where,
            as_of=ensure_aware(as_of, "as_of") if as_of is not None else None,
            include_history=bool(include_history),
            tiers=tuple(tiers),
            contradictions=checked_contradictions,
            weights=check_numbers(weights, Weights, "weights"),
            pool=default_pool(k),
            min_authority=check_score("min_authority", min_authority),
            diversity_author=check_score("diversity author", div.get("author", 0.0)),
            diversity_parent=check_score("diversity parent", div.get("parent", 0.0)),
        )

    def context(
        self,
        /,
        query: str,
        *,
        scope: str,
        budget_tokens: int = 800,
        k: int | None = None,
        **recall_args: Any,
    ) -> str:
        """Recall, then pack the best memories by score per token into ``budget_tokens``.

        Each memory is rendered with its kind, source and time, inside a block marked as
        stored data (not instructions), ready to put in a prompt. Use is recorded for the
        packed memories only (those that count as used), never for candidates left out.
        """
        if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 1:
            raise InvalidInputError("budget_tokens must be a positive int")
        k = check_count(k, "k", default=50, limits=self._core.limits)  # None: 50, or max_k if lower
        record = recall_args.pop("record_use", True)
        hits = self.recall(query, scope=scope, k=k, record_use=False, **recall_args)
        cands = []
        lines: dict[str, str] = {}
        for h in hits:
            at = h.item.valid_from or h.item.recorded_at
            line = render_line(h.item.text, kind=h.item.kind, source=h.item.source, at=at)
            if h.contradicted_by:
                line += " (contested)"
            if not h.asserted:
                line += " (low confidence)"
            lines[h.item.id] = line
            cands.append(PackCandidate(id=h.item.id, text=line, score=h.score, tokens=estimate_tokens(line)))
        packed = pack(cands, budget_tokens)
        if record:  # only what reached the prompt was used, not the 50 candidates behind it
            by_id = {h.item.id: h for h in hits}
            self._record(self._core.scope(scope), hits, [by_id[c.id] for c in packed], query)
        return render_context([lines[c.id] for c in packed])


def check_tiers(tiers: object) -> None:
    """``tiers`` must be a non-empty list of tier names; the refusal names the first wrong one."""
    if isinstance(tiers, str) or not isinstance(tiers, Collection) or not tiers:  # a set is fine, as before
        got = shown(tiers, 40)
    else:
        bad = [t for t in tiers if t not in TIERS]
        if not bad:
            return
        got = shown(bad[0], 40)
    raise InvalidInputError(f"tiers must be a non-empty list of {', '.join(TIERS)}, got {got}")
