"""A public person's name record tells nothing of a restricted message through its purge.

Leftover of outside probe 4 (findings 3 and 13): a message's purge also purges the names only it
spoke for (``conversation.forget_people``), with the owner's reason. A *public* name — enrolled
from a public message, reused by a restricted one — could end up vouched for only by the
restricted message's claims: after the public message was purged, ``agent:b`` still saw the
person (so some hidden claim named them), and the restricted message's purge then purged the
public name with the owner's reason, which every principal read in its ``memory.purged`` event.
Now a name no longer vouched for by anything some of its readers may see is narrowed to those
who may see what still vouches for it, and a name's purge or narrowing carries reverie's words,
not the owner's, whenever some of its readers may not see the message. Real SQLite files.
"""

from __future__ import annotations

import json
from pathlib import Path

from reverie import Memory

SCOPE = "user:alice"
SECRET = "SECRET-REASON nurse"


def _events_text(view: Memory) -> str:
    return json.dumps([e.payload for e in view.events(scope=SCOPE)], default=str)


def test_a_public_name_only_a_restricted_message_vouches_for_is_hidden_and_purged_quietly(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "p.db", embedder="hash")
    conv = mem.conversation("c", scope=SCOPE)
    public = conv.add("My cousin Zorvina Quell lives in Rome.", speaker="Bert", role="user")
    hidden = conv.add("Zorvina Quell is a nurse.", speaker="Alice", role="user", visibility=["agent:a"])
    conv.close()
    b, a = mem.as_principal("agent:b"), mem.as_principal("agent:a")
    assert "Zorvina Quell" in {p.name for p in b.people(scope=SCOPE)}

    conv.purge(public.id, reason="public purge")
    # Nothing agent:b may see names her any more: she is no person of its view (before: she stayed,
    # telling it a hidden claim named her); agent:a still sees her and the claim it may see.
    assert "Zorvina Quell" not in {p.name for p in b.people(scope=SCOPE)}
    assert [c.text for c in a.person("Zorvina Quell", scope=SCOPE).claims] == ["Zorvina Quell is a nurse."]

    conv.purge(hidden.id, reason=SECRET)
    assert "SECRET" not in _events_text(b)
    assert "SECRET" in _events_text(mem)  # the owner's own log keeps it
    assert "Zorvina Quell" not in {p.name for p in mem.people(scope=SCOPE)}
    mem.close()


def test_a_public_names_purge_never_carries_a_restricted_messages_reason(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "q.db", embedder="hash")
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My cousin Zorvina Quell lives in Rome.", speaker="Bert", role="user")
    conv.close()
    # The owner purges the public claims themselves (not the message): the public name stays, with
    # no claim to vouch for it.
    for claim in mem.person("Zorvina Quell", scope=SCOPE).claims:
        mem.forget(claim.id, scope=SCOPE, reason="claims purged", purge=True)
    other = mem.conversation("d", scope=SCOPE)
    hidden = other.add("Zorvina Quell is a nurse.", speaker="Alice", role="user", visibility=["agent:a"])
    other.close()
    b = mem.as_principal("agent:b")
    other.purge(hidden.id, reason=SECRET)
    assert "SECRET" not in _events_text(b)
    assert "SECRET" in _events_text(mem)
    mem.close()


def test_narrowing_the_public_message_narrows_a_name_only_restricted_claims_still_speak_for(
    tmp_path: Path,
) -> None:
    mem = Memory(tmp_path / "r.db", embedder="hash")
    conv = mem.conversation("c", scope=SCOPE)
    public = conv.add("My cousin Zorvina Quell lives in Rome.", speaker="Bert", role="user")
    conv.add("Zorvina Quell is a nurse.", speaker="Alice", role="user", visibility=["agent:a"])
    conv.close()
    b, a = mem.as_principal("agent:b"), mem.as_principal("agent:a")
    conv.set_visibility(public.id, ["agent:a"], reason="SECRET-REASON family")
    assert "Zorvina Quell" not in {p.name for p in b.people(scope=SCOPE)}
    assert "SECRET" not in _events_text(b)
    assert sorted(c.text for c in a.person("Zorvina Quell", scope=SCOPE).claims) == [
        "Zorvina Quell is Bert's cousin.",
        "Zorvina Quell is a nurse.",
        "Zorvina Quell lives in Rome.",
    ]
    mem.close()
