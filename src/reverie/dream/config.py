"""``DreamConfig``: every threshold one dream pass uses, in one frozen, validated object.

Why one object: a pass must be reproducible from (store, clock, config), so nothing it
decides may come from a module global or the environment. Defaults were chosen on the hash
embedder and short agent memories (see ``tests/dream``); each field says what it gates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from reverie.errors import InvalidInputError


@dataclass(frozen=True, slots=True)
class DreamConfig:
    """Thresholds for one pass. All scores are in [0, 1]; ages are in days."""

    # -- near-duplicates (step 2) and the state-toggle guard (step 3) ----------------------
    #: Cosine of the stored vectors at or above which two items may be near-duplicates.
    dup_dense: float = 0.75
    #: Jaccard overlap of the "frame" tokens (words minus stop words, negators, toggle words
    #: and numbers) at or above which two items may be near-duplicates. Both must hold.
    dup_lexical: float = 0.8
    #: A prefix token shared by more items than this is skipped by the similarity join
    #: (bounds the pairs a vocabulary of only very common words could create; reported).
    max_token_group: int = 2000
    #: Items recorded within this many days get ``Memory.detect_conflicts`` re-run (the write
    #: path runs it after the commit, so a crash in between loses it). Off (0) by default:
    #: items that skipped detection (``detect_conflicts=False``) carry the
    #: ``conflicts_unchecked`` flag and are checked anyway, so this only covers that crash.
    recheck_days: float = 0.0
    #: At most this many checks per pass (flagged items oldest first, then recent ones newest
    #: first); the rest keep their flag for the next pass. One check costs a few ms.
    recheck_max: int = 200
    # -- applying -----------------------------------------------------------------------------
    #: Actions per write transaction (each in its own savepoint). Bounds how long a pass holds
    #: the write lock and how long ``Memory.close()`` waits: it stops the pass between batches.
    apply_batch: int = 2000
    #: Seconds the scope's lease lasts; the pass renews it between batches.
    lease_seconds: float = 300.0
    # -- cluster-triggered consolidation (step 7) ------------------------------------------
    #: A topic cluster is consolidated into a gist only once it has at least this many members.
    cluster_min_size: int = 3
    # -- hubs (step 4) ----------------------------------------------------------------------
    #: Probe queries drawn (evenly, in id order) from the scope's own item texts.
    hub_probes: int = 64
    #: Top-k per leg (dense and lexical) that a probe's "matches" are read from.
    hub_k: int = 10
    #: An item in the top-k of more than this share of probes matches "almost every query".
    hub_share: float = 0.75
    #: Below this many current items every item is in every top-k: hubs are not defined.
    hub_min_items: int = 50
    #: Also probe the full-text leg (one FTS query per probe); dense is always probed.
    hub_lexical: bool = True
    # -- protection, keep-budget (step 5) and tiers (step 6) -------------------------------
    #: Current items to keep in the scope; None = no budget.
    keep_budget: int | None = None
    #: Keep-score weights of (value, salience, recency); never access count alone. Learned
    #: value and recency both come from use, so salience outweighs the two together: a cold
    #: critical fact then survives on the blend, not only on the protection threshold
    #: (bench/dream_retention.py: "blend only" rows).
    keep_weight_value: float = 0.25
    keep_weight_salience: float = 0.60
    keep_weight_recency: float = 0.15
    #: Recency halves every this many days since the item was last used (or recorded).
    recency_half_life_days: float = 30.0
    #: Items at or above this salience are never forgotten or demoted by a pass.
    protect_salience: float = 0.75
    #: Items that at least this many current items rest on (children via ``parents``,
    #: ``derived_from`` / ``supports`` edges; see ``dependents``) are not forgotten or demoted
    #: while they do; 0 turns the rule off. 1, because one child is already a cascade: the
    #: forget would flag it ``stale_derived`` and demote it. It cannot pin a scope for good —
    #: the leaves stay forgettable, and a parent whose children are gone is ordinary again.
    protect_dependents: int = 1
    #: An active item unused for this long, with at most ``low_use_max`` uses, is demoted.
    stale_after_days: float = 30.0
    low_use_max: int = 1
    # -- importance settling (step 9) -------------------------------------------------------
    #: Importance of each processed item is multiplied by this, once per pass ...
    settle_factor: float = 0.9
    #: ... and never taken below this floor.
    importance_floor: float = 0.1
    #: The report lists this many items from the top of the thinking queue ...
    attention_k: int = 10
    #: ... and counts them as processed: they settle, so the queue rotates to newer items.
    settle_attended: bool = True

    def __post_init__(self) -> None:
        unit = ("dup_dense", "dup_lexical", "hub_share", "protect_salience", "settle_factor", "importance_floor")
        for name in unit:
            _check_unit(name, getattr(self, name))
        for name in ("keep_weight_value", "keep_weight_salience", "keep_weight_recency"):
            _check_unit(name, getattr(self, name))
        if self.dup_lexical <= 0.0:
            raise InvalidInputError("DreamConfig.dup_lexical must be > 0 (a zero overlap threshold pairs everything)")
        for name in ("max_token_group", "cluster_min_size", "hub_probes", "hub_k", "hub_min_items", "apply_batch"):
            _check_int(name, getattr(self, name), minimum=1)
        _check_int("low_use_max", self.low_use_max, minimum=0)
        _check_int("recheck_max", self.recheck_max, minimum=0)
        _check_int("protect_dependents", self.protect_dependents, minimum=0)
        if isinstance(self.recheck_days, bool) or not isinstance(self.recheck_days, int | float):
            raise InvalidInputError(f"DreamConfig.recheck_days must be a number of days, got {self.recheck_days!r}")
        if not math.isfinite(self.recheck_days) or self.recheck_days < 0:
            raise InvalidInputError(f"DreamConfig.recheck_days must be >= 0, got {self.recheck_days!r}")
        _check_int("attention_k", self.attention_k, minimum=0)
        if self.cluster_min_size < 2:
            raise InvalidInputError("DreamConfig.cluster_min_size must be >= 2: a cluster of one is not a duplicate")
        if self.keep_budget is not None:
            _check_int("keep_budget", self.keep_budget, minimum=0)
        for name in ("recency_half_life_days", "stale_after_days", "lease_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
                raise InvalidInputError(f"DreamConfig.{name} must be a positive number of days, got {value!r}")

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form, included in every report so a plan names the thresholds it used."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _check_unit(name: str, value: object) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not 0.0 <= float(value) <= 1.0:  # type: ignore[arg-type]
        raise InvalidInputError(f"DreamConfig.{name} must be a number in [0, 1], got {value!r}")


def _check_int(name: str, value: object, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInputError(f"DreamConfig.{name} must be an int >= {minimum}, got {value!r}")


__all__ = ["DreamConfig"]
