"""The words that weaken a statement: one vocabulary for the two places that read hedges.

``conflict`` lowers the confidence of a contradiction between hedged claims; the conversation
miner proposes a hedged statement as a hypothesis, not a firm claim. Both read the same words so
that what the miner calls a guess is what conflict detection calls one. Kept in ``model`` (pure
text, no I/O) because ``conversation`` may not import ``conflict`` (DESIGN.md, layout).
"""

from __future__ import annotations

#: Words that weaken a claim ("Dana probably lives in Lisbon", "Omar might move").
HEDGES = frozenset({"probably", "maybe", "perhaps", "likely", "possibly", "apparently", "reportedly", "might", "seems"})
#: Adverbs that say a claim is hearsay, not what the speaker knows ("Supposedly, the office moves").
HEARSAY_ADVERBS = frozenset({"apparently", "reportedly", "supposedly", "allegedly"})
