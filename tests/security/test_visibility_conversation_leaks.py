"""A conversation a principal may not see, and the owner's words about a message narrowed away from
it, never reach that principal through the log (outside probe 4, findings 2 and 3).

- A conversation opened for ``agent:a`` only was hidden from ``agent:b`` by ``conversations()`` and
  ``scopes()``, yet ``b.events()`` and ``reverie --principal agent:b export`` carried its
  ``conversation.opened`` event: its name, when it was opened, and its audience.
- Narrowing a message re-writes the later turn's memory that quoted it: the purge of that public
  memory was logged with the owner's reason for the narrowing, shown to every principal although the
  ``conversation.visibility_set`` event carrying it is hidden from them.

Every test runs on a real SQLite file; the CLI export runs the real CLI.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reverie import Memory

sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))  # the CLI suite's runner (tests/ has no packages)

from cli_support import Cli

SCOPE = "user:alice"


def _log(mem: Memory, principal: str) -> str:
    return json.dumps([e.to_dict() for e in mem.as_principal(principal).events(scope=SCOPE, limit=10_000)])


def test_a_hidden_conversation_is_not_in_an_outsiders_log(mem: Memory) -> None:
    hidden = mem.conversation("acquire-zqzentrox", scope=SCOPE, visibility=["agent:a"])
    hidden.add("We will acquire Zentrox next week.", speaker="Alice", role="user")
    mem.conversation("pub", scope=SCOPE).add("Hello", speaker="Alice")
    assert "zqzentrox" not in _log(mem, "agent:b")
    assert "zqzentrox" in _log(mem, "agent:a")  # its audience still reads it
    assert "zqzentrox" in json.dumps([e.to_dict() for e in mem.events(scope=SCOPE, limit=10_000)])


def test_a_scope_holding_only_a_hidden_conversation_gives_an_outsider_an_empty_log(mem: Memory) -> None:
    mem.conversation("layoffs-zq2027", scope=SCOPE, visibility=["agent:a"]).add("the list", speaker="HR")
    outsider = mem.as_principal("agent:b")
    assert SCOPE not in outsider.scopes()
    assert outsider.events(scope=SCOPE) == []


def test_cli_export_as_an_outsider_leaves_out_a_hidden_conversation(tmp_path: Path) -> None:
    run = Cli(tmp_path / "r.db")
    hidden = ("acquire-zqzentrox", "We buy Zentrox.", "--conversation-visible-to", "agent:a")
    run.json("--create", "conversation", "add", *hidden)  # only `remember`/`import` create a store unasked
    run.json("conversation", "add", "pub", "Hello there.")
    outsider = run.ok("--principal", "agent:b", "export").stdout
    assert "zqzentrox" not in outsider.lower() and "Hello there." in outsider
    assert "zqzentrox" in run.ok("--principal", "agent:a", "export").stdout


def test_the_owners_reason_for_narrowing_a_message_is_not_shown_to_an_outsider(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    first = conv.add("Bob's salary is 120k.", speaker="Alice")
    conv.add("Nice weather.", speaker="Alice")
    conv.set_visibility(first.id, ["agent:a"], reason="contains zqsecret salary")
    assert "zqsecret" not in _log(mem, "agent:b")
    assert "120k" not in _log(mem, "agent:b")
    # The owner keeps the reason, on the change itself.
    owner = [e for e in mem.events(scope=SCOPE, limit=10_000) if e.type == "conversation.visibility_set"]
    assert [e.payload["reason"] for e in owner] == ["contains zqsecret salary"]
