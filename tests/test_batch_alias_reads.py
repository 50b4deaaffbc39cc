"""A batched write reads the scope's alias groups once, not once per item.

Regression: ``Writes._after_write`` ran write-time detection item by item, and each run re-read
the alias edges (``edges_by_type(scope, "alias")``) — 1,000 reads for a batch of 1,000. Detection
adds only ``contradicts`` edges, so the groups cannot change within one batch's detection. The
store is the real SQLite store, subclassed only to count the alias reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reverie import Memory
from reverie.model.item import Edge
from reverie.store.sqlite import SQLiteStore

SCOPE = "team:acme"


class CountingSQLite(SQLiteStore):
    alias_reads = 0

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        if type == "alias":
            self.alias_reads += 1
        found: list[Edge] = super().edges_by_type(scope, type, include_closed=include_closed)
        return found


def test_a_batch_reads_the_alias_groups_once_and_still_honours_them(tmp_path: Path) -> None:
    store: Any = CountingSQLite(tmp_path / "a.db")
    with Memory(store=store, embedder="hash") as mem:
        nyc = mem.remember("NYC", scope=SCOPE)
        city = mem.remember("New York City", scope=SCOPE)
        mem.link(nyc.id, city.id, "alias", scope=SCOPE)
        mem.remember("Ada lives in NYC.", scope=SCOPE)
        store.alias_reads = 0
        batch = [{"text": f"Note {i} about the garden."} for i in range(40)] + [{"text": "Ada lives in New York City."}]
        mem.remember_many(batch, scope=SCOPE)
        assert store.alias_reads == 1
        assert mem.contradictions(scope=SCOPE) == []  # the alias still makes the two cities one
        mem.remember_many([{"text": "Ada lives in Boston."}], scope=SCOPE)
        assert any("Boston" in (a.a.text + a.b.text) for a in mem.contradictions(scope=SCOPE))
