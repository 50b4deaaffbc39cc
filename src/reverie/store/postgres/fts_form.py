"""Bring a database's ``tsvector`` documents to the current ``fts_tokens.index_form`` (schema 7).

As ``store.sqlite.fts_form``: before schema 7 an item's ``tsv`` (and a message's, in
``conv_entries``) held the tokens of the text as written, so "東京で会議がある" was one lexeme and
"#1182" kept its "#". Rows whose text could tokenize differently now (any non-ASCII character
or a "#", in the text or the key / value / tags) get their ``tsv`` and ``ntok`` again; plain
ASCII rows are left alone. Read a page at a time (keyset on scope, id), inside the migration's
transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from reverie.model.conversation import Entry
from reverie.store.postgres import lexical
from reverie.store.sqlite.sql import SELECT_ITEM, row_to_item

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]

_PAGE = 2_000


def rewrite(q: Query, x: Callable[[str, Sequence[Any]], Any]) -> int:
    """Recompute the documents that may have changed; returns how many rows were rewritten."""
    changed = 0
    after = ("", "")
    while True:
        rows = q(SELECT_ITEM + " WHERE (scope, id) > (%s, %s) ORDER BY scope, id LIMIT %s", (*after, _PAGE))
        for row in rows:
            item = row_to_item(row)
            extra = lexical.item_extra(item)
            if _plain(item.text) and _plain(extra):
                continue
            doc, ntok = lexical.document(item.text, extra)
            x(
                "UPDATE items SET tsv = %s::tsvector, ntok = %s WHERE scope = %s AND id = %s",
                (doc, ntok, item.scope, item.id),
            )
            changed += 1
        if len(rows) < _PAGE:
            break
        last = row_to_item(rows[-1])
        after = (last.scope, last.id)
    after = ("", "")
    while True:
        found = q(
            "SELECT scope, id, entry FROM conv_entries WHERE kind = 'message' AND tsv IS NOT NULL "
            "AND (scope, id) > (%s, %s) ORDER BY scope, id LIMIT %s",
            (*after, _PAGE),
        )
        for scope, entry_id, entry in found:
            text = Entry.from_dict(json.loads(entry)).text
            if not _plain(text):
                x(
                    "UPDATE conv_entries SET tsv = %s::tsvector WHERE scope = %s AND id = %s",
                    (lexical.document(text)[0], scope, entry_id),
                )
                changed += 1
        if len(found) < _PAGE:
            break
        after = (found[-1][0], found[-1][1])
    return changed


def _plain(text: str) -> bool:
    """Does ``text`` tokenize as it did before schema 7 (ASCII with no "#")?"""
    return text.isascii() and "#" not in text
