"""Invariant: whatever edits happen between two index runs, the store then holds exactly one
current note item per readable note, with the note's text, and an immediate re-index writes nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.testing import make_memory
from reverie.vault import Vault, notes_filter
from reverie.vault.index import render
from reverie.vault.parse import parse_note

_NAMES = st.sampled_from(["a.md", "b.md", "x/c.md", "x/d.md", "y/e.md"])
_TEXT = st.text(alphabet="abc xyz\n#[]|-:", max_size=60)
_EDIT = st.one_of(st.tuples(st.just("write"), _NAMES, _TEXT), st.tuples(st.just("delete"), _NAMES, st.just("")))


@settings(max_examples=12, deadline=None)
@given(st.lists(st.lists(_EDIT, max_size=5), min_size=1, max_size=3))
def test_index_mirrors_the_folder_after_any_edits(rounds: list[list[tuple[str, str, str]]]) -> None:
    mem, _ = make_memory()
    with tempfile.TemporaryDirectory() as tmp:
        v = Vault(Path(tmp) / "v", memory=mem, scope="team:p")
        for edits in rounds:
            for op, name, text in edits:
                full = v.root / name
                if op == "write":
                    full.parent.mkdir(parents=True, exist_ok=True)
                    full.write_text(text)
                elif full.exists():
                    full.unlink()
            v.index()
            on_disk = {p.relative_to(v.root).as_posix(): p.read_text() for p in v.root.rglob("*.md")}
            items = mem.list(scope="team:p", where=notes_filter(v.name)).items
            assert sorted(i.meta["note"] for i in items) == sorted(on_disk)
            for i in items:
                want = render(parse_note(i.meta["note"], on_disk[i.meta["note"]]), v.name, mem.limits.max_text_chars)
                assert i.text == want
            assert v.index().touched == 0
    assert mem.doctor().ok
    mem.close()
