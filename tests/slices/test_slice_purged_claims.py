"""A claim purged at home does not come back through a slice merge as a system copy made elsewhere.

Regression: a slice merge recognised a purged claim only by its origin (the slice's copy of it is
skipped, ``"purged here"``). A copy the *sandbox's* system made of it — a dream gist listing it as a
parent, a pattern linked to it by ``derived_from``, quoting its words — has an origin home never
saw, so it was imported, words and all, after home had purged them. A purge at home erases exactly
such copies (``model.redact.purge_set``); the merge now leaves them out the same way, transitively,
and keeps what a caller wrote in its own words (as a purge at home keeps it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reverie import Memory

HOME, SANDBOX = "team:home", "task:box"
SECRET = "Zorvina's passport number is X4471."


def _home_text(mem: Memory) -> str:
    items = mem.list(scope=HOME, include_closed=True, limit=1000).items
    return " ".join(i.text for i in items)


def _sandbox_copies_then_home_purges(mem: Memory, open_mem: Any, tmp_path: Path) -> tuple[Memory, Any]:
    secret = mem.remember(SECRET, scope=HOME, source="user_stated")
    mem.remember("Zorvina travels to Porto in May.", scope=HOME)
    sandbox: Memory = open_mem(tmp_path / "sandbox.db")
    got = sandbox.import_slice(mem.export_slice(scope=HOME).to_json(), scope=SANDBOX)
    there = got.ids[secret.id]
    gist = sandbox.remember_system(f"Gist: {SECRET}", scope=SANDBOX, parents=[there])
    sandbox.remember_system(f"Recap of the gist: {gist.text}", scope=SANDBOX, parents=[gist.id])
    pattern = sandbox.remember_system("Pattern: Zorvina's passport number is …", scope=SANDBOX)
    sandbox.link(pattern.id, there, "derived_from", scope=SANDBOX)
    sandbox.remember("Someone asked about a passport today.", scope=SANDBOX, parents=[there])  # its own words
    mem.forget(secret.id, scope=HOME, purge=True)
    assert "X4471" not in _home_text(mem)
    return sandbox, sandbox.export_slice(scope=SANDBOX).to_json()


def test_regression_a_system_copy_of_a_claim_purged_at_home_stays_out_of_a_merge(
    mem: Memory, open_mem: Any, tmp_path: Path
) -> None:
    _, handed = _sandbox_copies_then_home_purges(mem, open_mem, tmp_path)
    report = mem.import_slice(handed, scope=HOME)
    text = _home_text(mem)
    assert "X4471" not in text and "passport number" not in text
    assert sum(1 for s in report.skipped if s["reason"] == "purged here") == 4  # the claim, gist, recap, pattern
    assert "Someone asked about a passport today." in text  # a caller's own words stay, as a purge keeps them
    assert "Zorvina travels to Porto in May." in text


def test_a_system_item_in_its_own_words_still_comes_home(mem: Memory, open_mem: Any, tmp_path: Path) -> None:
    sandbox, _ = _sandbox_copies_then_home_purges(mem, open_mem, tmp_path)
    there = next(i for i in sandbox.list(scope=SANDBOX).items if i.text == SECRET)
    sandbox.remember_system("Travel documents are kept in the blue folder.", scope=SANDBOX, parents=[there.id])
    mem.import_slice(sandbox.export_slice(scope=SANDBOX).to_json(), scope=HOME)
    text = _home_text(mem)
    assert "blue folder" in text and "X4471" not in text


def test_a_system_copy_of_a_claim_left_out_for_a_purged_message_stays_out_too(
    mem: Memory, open_mem: Any, tmp_path: Path
) -> None:
    """The sandbox mined "Zorvina also has a cat" from a turn after a message home then purged; the
    merge leaves that claim out (it borrowed the purged name), and now its gist as well."""
    conv = mem.conversation("c1", scope=HOME)
    secret = conv.add("My sister Zorvina lives in Porto", speaker="Alice")
    sandbox: Memory = open_mem(tmp_path / "sandbox.db")
    sandbox.import_slice(mem.export_slice(scope=HOME, include_conversations=True).to_json(), scope=SANDBOX)
    sc = sandbox.conversation("c1", scope=SANDBOX, create=False)
    sc.add("She also has a cat called Fluff", speaker="Alice")
    sc.close()
    mined = [i for i in sandbox.list(scope=SANDBOX).items if "Zorvina" in i.text and i.meta.get("message_id")]
    assert mined, [i.text for i in sandbox.list(scope=SANDBOX).items]
    sandbox.remember_system(f"Gist: {mined[0].text}", scope=SANDBOX, parents=[mined[0].id])
    conv.purge(secret.id)
    mem.import_slice(sandbox.export_slice(scope=SANDBOX, include_conversations=True).to_json(), scope=HOME)
    assert "Zorvina" not in _home_text(mem)
