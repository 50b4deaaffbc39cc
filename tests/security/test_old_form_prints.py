"""A store whose fingerprints and tombstones predate the Cf rule is brought to the current form on open.

Before it, "Bob likes\u200b red" was printed with its zero-width space (``tests/old_form.py``
writes such a file). After it, the same claim prints without, so in an older file a plain
"Bob likes red" did not corroborate the stored claim, and a dismissal recorded over the old
print refused neither spelling any more. Schema 8 recomputes every item's fingerprints from its
stored text and re-normalises each plain tombstone (a tombstone is the normalised text itself);
a rebuild does the same from the log's old dismiss events, and a purge seals an old-form print
like any other, so no plain value of the purged claim stays in the log or the tombstones.
A sealed tombstone keeps only a digest of the old print: it cannot be recomputed, and stays.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from old_form import rewrite_to_old_form
from reverie import DismissedValueError, Memory
from reverie.store.sqlite.schema import SCHEMA_VERSION

S = "user:a"
ZW = "Bob likes\u200b red"


def _as_old_form(db: Path) -> None:
    c = sqlite3.connect(db)
    rewrite_to_old_form(lambda sql, p: c.execute(sql, p).fetchall(), c.execute, "?")
    c.commit()
    c.close()


def _raw(db: Path, sql: str) -> list[tuple[object, ...]]:
    c = sqlite3.connect(db)
    try:
        return c.execute(sql).fetchall()
    finally:
        c.close()


def test_old_form_rows_are_what_the_old_code_wrote(tmp_path: Path) -> None:
    """The fixture itself: the file holds the zero-width space in its prints before the upgrade."""
    db = tmp_path / "old.db"
    with Memory(db, embedder="hash") as mem:
        mem.remember(ZW, scope=S)
    _as_old_form(db)
    assert _raw(db, "SELECT fp FROM fingerprints") == [("t:bob likes\u200b red",)]


def test_a_plain_restatement_corroborates_a_claim_stored_with_an_invisible_character(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Memory(db, embedder="hash") as mem:
        first = mem.remember(ZW, scope=S, key="bob.colour", value="re\u00adD")
    _as_old_form(db)
    with Memory(db, embedder="hash") as mem:
        again = mem.remember("Bob likes red", scope=S)
        assert again.id == first.id and again.evidence_count == 2
        by_value = mem.remember("Bob's colour", scope=S, key="bob.colour", value="red")
        assert by_value.id == first.id and by_value.evidence_count == 3
        assert mem.doctor().ok
    assert _raw(db, "SELECT v FROM settings WHERE k = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert not [fp for (fp,) in _raw(db, "SELECT fp FROM fingerprints") if "\u200b" in fp or "\u00ad" in fp]


def test_a_dismissal_recorded_in_the_old_form_refuses_both_spellings(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Memory(db, embedder="hash") as mem:
        mem.dismiss(mem.remember(ZW, scope=S).id, scope=S, reason="wrong")
    _as_old_form(db)
    assert _raw(db, "SELECT fp FROM tombstones") == [("t:bob likes\u200b red",)]
    with Memory(db, embedder="hash") as mem:
        for text in ("Bob likes red", ZW, "Bob likes\u2060 red."):
            with pytest.raises(DismissedValueError):
                mem.remember(text, scope=S)
        mem.rebuild()  # the log still holds the old print: the replay brings it to the current form too
        with pytest.raises(DismissedValueError):
            mem.remember("Bob likes red", scope=S)
        mem.undismiss("Bob likes red", scope=S)
        assert mem.remember("Bob likes red", scope=S).text == "Bob likes red"
        mem.rebuild()
        assert mem.remember("bob likes red", scope=S).evidence_count == 2


def test_purging_a_claim_dismissed_in_the_old_form_leaves_no_plain_print(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Memory(db, embedder="hash") as mem:
        wrong = mem.remember("Dora's PIN is 88\u200b31", scope=S)
        mem.dismiss(wrong.id, scope=S)
    _as_old_form(db)
    with Memory(db, embedder="hash") as mem:
        mem.forget(wrong.id, scope=S, purge=True)
        with pytest.raises(DismissedValueError):
            mem.remember("Dora's PIN is 8831", scope=S)
    for (payload,) in _raw(db, "SELECT payload FROM events"):
        # The words, in any form; not a bare "88", which a random id or a timestamp may hold.
        said = str(payload).lower()
        assert "pin is" not in said and "8831" not in said and "88\\u200b31" not in said, payload
        assert "88\u200b31" not in said, payload
    assert all(str(fp).startswith("sealed:") for (fp,) in _raw(db, "SELECT fp FROM tombstones"))
    with Memory(db, embedder="hash") as mem:
        mem.rebuild()
        with pytest.raises(DismissedValueError):
            mem.remember("dora's pin is 8831", scope=S)
