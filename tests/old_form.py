"""Fingerprints and tombstones as reverie wrote them before the comparison form dropped format characters.

Before the Cf rule (``textform.strip_format`` inside ``validate.normalise_text``) a claim's
normalised text kept its invisible characters: "Bob likes\u200b red" was printed
``t:bob likes\u200b red``. These helpers rewrite a store's rows (and its dismiss events) into
that old form, the way the old code wrote them, so the tests can open such a store.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from reverie.model.validate import normalise_text


def old_normalise(text: str) -> str:
    """``normalise_text`` as it was: NFKC, case-folded, spacing collapsed, end punctuation off (Cf kept)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split()).rstrip(" .!?;,")


def old_prints(text: str, key: str | None, value: str | None) -> list[str]:
    prints = ["t:" + old_normalise(text)]
    if key is not None and value is not None:
        prints.append(f"kv:{key.casefold()}={old_normalise(value)}")
    return prints


def to_old(fp: str, text: str, key: str | None, value: str | None) -> str:
    """The old spelling of ``fp``, one of the current prints of the claim (text, key, value)."""
    if fp == "t:" + normalise_text(text):
        return "t:" + old_normalise(text)
    if key is not None and value is not None and fp == f"kv:{key.casefold()}={normalise_text(value)}":
        return f"kv:{key.casefold()}={old_normalise(value)}"
    return fp


Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]
Exec = Callable[[str, Sequence[Any]], Any]


def rewrite_to_old_form(q: Query, x: Exec, mark: str) -> None:
    """Rewrite fingerprints, tombstones and dismiss / undismiss events to the old form.

    ``mark`` is the driver's parameter mark (``?`` for sqlite3, ``%s`` for psycopg).
    """
    m = mark
    items = {r[0]: r[1:] for r in q("SELECT id, text, key, value, status, closed_at FROM items", ())}
    x("DELETE FROM fingerprints", ())
    for item_id, (text, key, value, status, closed_at) in items.items():
        scope = q(f"SELECT scope FROM items WHERE id = {m}", (item_id,))[0][0]
        prefix = "" if closed_at is None else {"superseded": "was:"}.get(status)
        if prefix is None or text == "[purged]":
            continue
        for fp in old_prints(text, key, value):
            x(f"INSERT INTO fingerprints (scope, fp, item_id) VALUES ({m}, {m}, {m})", (scope, prefix + fp, item_id))
    for scope, fp, item_id in q("SELECT scope, fp, item_id FROM tombstones", ()):
        text, key, value = items[item_id][:3]
        old = to_old(fp, text, key, value)
        if old != fp:
            x(f"UPDATE tombstones SET fp = {m} WHERE scope = {m} AND fp = {m}", (old, scope, fp))
    for event_id, payload in q("SELECT id, payload FROM events WHERE type = 'memory.dismissed'", ()):
        p = json.loads(payload)
        text, key, value = items[p["id"]][:3]
        p["fingerprints"] = [to_old(fp, text, key, value) for fp in p["fingerprints"]]
        x(f"UPDATE events SET payload = {m} WHERE id = {m}", (json.dumps(p, ensure_ascii=False), event_id))
    x(f"UPDATE settings SET v = {m} WHERE k = 'schema_version'", ("7",))
