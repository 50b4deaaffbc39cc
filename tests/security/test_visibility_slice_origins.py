"""Importing a slice as a principal is no existence oracle for hidden claims (outside probe #12).

A slice item's ``origin_id`` (and ``id``) names the claim it was first recorded as; the import
keeps it in ``meta.slice_origin``. A principal that put a hidden claim's id there was refused
with ``not_found`` (the write named a hidden claim), while an unknown id imported normally: the
two answers told a hidden claim from a missing one. Now an origin naming a claim the importing
principal may not see is handled as an unknown one would be for the answer — the claim is
imported as a new claim of its own origin, never tied to the hidden one — and the owner's import
is unchanged. Run on every backend.
"""

from __future__ import annotations

import json
from typing import Any

from reverie import Memory
from reverie.slice import ORIGIN_META

S = "s"
A, B = "agent:a", "agent:b"


def _world(mem: Memory) -> tuple[str, str, dict[str, Any]]:
    """A claim hidden from ``agent:b``, a well-formed id unknown to ``S``, and a one-item slice template."""
    hidden = mem.remember("Layoffs planned for March", scope=S, visibility=[A]).id
    public = mem.remember("Public claim", scope=S).id
    unknown = mem.remember("throwaway", scope="elsewhere").id
    template = json.loads(mem.as_principal(B).export_slice(scope=S, memory_ids=[public]).to_json())
    return hidden, unknown, template


def _probe(template: dict[str, Any], guess: str, text: str) -> str:
    d = json.loads(json.dumps(template))
    d["items"][0].update(id=guess, origin_id=guess, text=text)
    return json.dumps(d)


def _shape(report: Any) -> dict[str, Any]:
    """The report without the fresh ids (which differ on every import)."""
    out = report.to_dict()
    return {k: (len(v) if isinstance(v, list | dict) else v) for k, v in out.items()}


def test_a_hidden_origin_imports_as_an_unknown_one_does(any_mem: Memory) -> None:
    hidden, unknown, template = _world(any_mem)
    b = any_mem.as_principal(B)
    first = b.import_slice(_probe(template, unknown, "Probe text one"), scope=S)
    second = b.import_slice(_probe(template, hidden, "Probe text two"), scope=S)
    assert _shape(first) == _shape(second) and len(second.created) == 1
    assert list(second.ids) == [hidden]  # the slice's own id, as the caller gave it: nothing more
    assert hidden not in json.dumps({k: v for k, v in second.to_dict().items() if k != "ids"})
    made = any_mem.get(second.ids[hidden], scope=S)  # the owner's read: not tied to the hidden claim
    assert made.meta.get(ORIGIN_META) != hidden and made.text == "Probe text two"
    assert any_mem.get(hidden, scope=S).text == "Layoffs planned for March"  # untouched


def test_an_intent_whose_origin_is_a_hidden_claim_imports_as_an_unknown_one(any_mem: Memory) -> None:
    hidden, unknown, _ = _world(any_mem)
    public = any_mem.remember("Claim the intent names", scope=S)
    any_mem.intents.create("Ship it", scope=S, memory_ids=[public.id])
    b = any_mem.as_principal(B)
    template = json.loads(b.export_slice(scope=S, memory_ids=[public.id], include_intents=True).to_json())
    shapes = []
    for guess in (unknown, hidden):
        d = json.loads(json.dumps(template))
        d["items"] = []
        d["sections"]["intents"][0].update(id=guess, origin_id=guess, label=f"probe {guess[-4:]}")
        shapes.append(_shape(b.import_slice(json.dumps(d), scope=S)))
    assert shapes[0] == shapes[1] and shapes[1]["records_created"] == 1


def test_a_conversation_entry_whose_origin_is_a_hidden_claim_imports_as_an_unknown_one(any_mem: Memory) -> None:
    hidden, unknown, _ = _world(any_mem)
    any_mem.conversation("c1", scope=S).add("hello there", speaker="Alice", role="user")
    b = any_mem.as_principal(B)
    template = json.loads(b.export_slice(scope=S, include_conversations=True).to_json())
    shapes = []
    for n, guess in enumerate((unknown, hidden)):
        d = json.loads(json.dumps(template))
        (talk,) = d["sections"]["conversations"]
        talk["id"] = f"probe-{n}"
        talk["entries"][0]["origin_id"] = guess
        shapes.append(_shape(b.import_slice(json.dumps(d), scope=S)))
    assert shapes[0] == shapes[1] and shapes[1]["conversations"] == 1


def test_the_owner_still_recognises_a_copy_of_its_restricted_claim(any_mem: Memory) -> None:
    hidden, _, template = _world(any_mem)
    report = any_mem.import_slice(_probe(template, hidden, "Layoffs planned for March"), scope=S)
    assert report.created == [] and report.ids[hidden] == hidden  # already here: skipped
