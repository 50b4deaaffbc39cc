"""Fingerprints and tombstones of an older store, brought to today's comparison form (schema 8).

Why: the comparison form of a claim (``validate.normalise_text``) dropped invisible format
characters (zero-width space, soft hyphen, BOM...) only from schema 7's release on; rows written
before kept them, so a plain re-statement did not corroborate a claim stored with one inside, and
a dismissal recorded over such a print refused neither spelling any more. Both backends run this
once, on the first writable open of a store below schema 8, inside the migration's transaction:

- **fingerprints** are derived rows: each item's are recomputed from its stored text, key and
  value, exactly as a write makes them (a current item's prints; a corrected version's ``was:``
  prints; none for a forgotten, dismissed or purged one), which is also what ``rebuild`` gives;
- **tombstones** hold the normalised text itself, so a plain one is normalised again
  (``validate.current_print``), as the projection does when a rebuild replays a dismiss event of
  that time. A sealed one (``sealed:``, a purge's digest of the old print) keeps only the hash:
  it cannot be recomputed and is left as it is. For a value that held a format character it no
  longer matches any spelling (every print today is made without it): README says to dismiss
  such a value again.
"""

from __future__ import annotations

from collections.abc import Iterable

from reverie.model.item import Item
from reverie.model.projection import superseded_prints
from reverie.model.validate import current_print, fingerprints


def item_prints(item: Item) -> tuple[str, ...]:
    """The fingerprint rows ``item`` has in a store written today."""
    if item.is_current:
        return fingerprints(item.text, item.key, item.value)
    return superseded_prints(item)


def tombstone_moves(rows: Iterable[tuple[str, str, str]]) -> list[tuple[str, str, str, str]]:
    """(scope, old key, new key, item) for each tombstone row whose key is not in today's form."""
    out = []
    for scope, fp, item_id in rows:
        new = current_print(fp)
        if new != fp:
            out.append((scope, fp, new, item_id))
    return out
