"""The dream pass: deterministic consolidation of one scope, with no LLM.

One pass reads a snapshot of the scope, plans logged changes with reasons, and applies them as
commands in atomic batches (a savepoint per action) against the versions it read, under a
cross-process lease on the scope (``lease``):

1. salience (``salience``) — from kind, confidence, evidence, authority; never decays
2. near-duplicates → a gist (``remember_system``) with ``derived_from`` edges; originals unchanged
3. a state-toggle guard: near-duplicates that disagree are linked ``contradicts``, never merged;
   items flagged ``conflicts_unchecked`` (written with detection off) are checked and unflagged
4. hubs — items matching almost every probe query — flagged ``hub`` (and unflagged when they stop)
5. a keep-budget: the lowest-value unprotected surplus is forgotten (validity closed); items
   other current items rest on (``dependents``) are protected like salient ones, and the
   report's ``spared`` list says which protection kept what
6. stale, low-use, unprotected items demoted to ``subconscious``
7. consolidation only for clusters of at least ``cluster_min_size``
8. derived items whose parents were retracted or contradicted: ``stale_derived``, demoted
9. importance of processed items settles with time (halves per half-life since the item last
   changed, floored; importance a person stated never settles), so newer items get attention
10. recurring temporal patterns among episodic / observation events become ``pattern`` items with
    ``derived_from`` edges to their support (``patterns``, ``pattern_step``)
11. bias alerts per scope and subject, kept in the pass's record for ``Memory.alerts`` (``bias``)

    from reverie.dream import dream, DreamConfig
    report = dream(mem, scope="user:alice", dry_run=True)
    print(report.to_dict()["actions"])
"""

from reverie.dream.config import DreamConfig
from reverie.dream.lease import scope_lease
from reverie.dream.queue import Cohort, QueueEntry, thinking_queue, value_by_cohort
from reverie.dream.report import STEPS, Action, DreamReport, Outcome
from reverie.dream.run import apply, dream, plan
from reverie.dream.salience import salience

__all__ = [
    "STEPS",
    "Action",
    "Cohort",
    "DreamConfig",
    "DreamReport",
    "Outcome",
    "QueueEntry",
    "apply",
    "dream",
    "plan",
    "salience",
    "scope_lease",
    "thinking_queue",
    "value_by_cohort",
]
