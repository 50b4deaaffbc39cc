"""A hidden claim's dismissal does not exist for a principal who may not see it (outside probe #2).

The owner dismissed a claim restricted to ``agent:a``. ``agent:b`` saw no item and no tombstone,
yet writing the same words raised ``DismissedValueError`` naming the hidden claim's id — and a
wrong guess was simply stored, so the refusal confirmed the hidden words. ``agent:b``'s
``undismiss(<guess>)`` was a second oracle (ok for the right words, ``not_found`` otherwise) and
lifted the tombstone of a claim it cannot see.

Now a tombstone holds only within the audience of the claim it came from (and for the owner):
a principal who may not see that claim writes the words as it writes any new text, and its
``undismiss`` of them is ``not_found``, exactly as for a value never dismissed. Run on every backend.
"""

from __future__ import annotations

import pytest

from reverie import DismissedValueError, Memory, NotFoundError

from .kit import dump

SCOPE = "team:x"
A, B = "agent:a", "agent:b"
SECRET = "Secret project name is Bluebird"
GUESS = "Secret project name is Redbird"


def _dismissed_hidden(mem: Memory) -> str:
    d = mem.remember(SECRET, scope=SCOPE, visibility=[A])
    mem.dismiss(d.id, scope=SCOPE, reason="wrong")
    return d.id


def test_a_principal_writes_a_hidden_dismissed_value_as_any_new_text(any_mem: Memory) -> None:
    hidden = _dismissed_hidden(any_mem)
    b = any_mem.as_principal(B)
    right, wrong = b.remember(SECRET, scope=SCOPE), b.remember(GUESS, scope=SCOPE)
    assert (right.status, right.evidence_count, right.visibility) == (wrong.status, wrong.evidence_count, None)
    assert hidden not in dump([right.to_dict(), wrong.to_dict()])
    assert b.summary(scope=SCOPE)["tombstones"] == 0
    assert hidden not in dump(b.store.tombstones(SCOPE))


def test_a_principal_who_sees_the_claim_and_the_owner_are_still_refused(any_mem: Memory) -> None:
    hidden = _dismissed_hidden(any_mem)
    for who in (any_mem, any_mem.as_principal(A)):
        with pytest.raises(DismissedValueError) as caught:
            who.remember(SECRET, scope=SCOPE)
        assert hidden in str(caught.value)  # they may see it: the message names it, as before
    assert any_mem.summary(scope=SCOPE)["tombstones"] >= 1


def test_a_principal_revising_to_a_hidden_dismissed_value_is_not_refused(any_mem: Memory) -> None:
    _dismissed_hidden(any_mem)
    b = any_mem.as_principal(B)
    mine = b.remember("Project name is unknown", scope=SCOPE)
    assert b.revise(mine.id, SECRET, scope=SCOPE).text == SECRET


def test_a_principal_cannot_lift_a_tombstone_it_cannot_see(any_mem: Memory) -> None:
    _dismissed_hidden(any_mem)
    before = any_mem.summary(scope=SCOPE)["tombstones"]
    b = any_mem.as_principal(B)
    answers = []
    for text in (GUESS, SECRET):
        with pytest.raises(NotFoundError) as caught:
            b.undismiss(text, scope=SCOPE)
        answers.append(str(caught.value))
    assert answers[0] == answers[1]  # the right guess reads exactly as a wrong one
    assert any_mem.summary(scope=SCOPE)["tombstones"] == before  # nothing lifted
    with pytest.raises(DismissedValueError):
        any_mem.remember(SECRET, scope=SCOPE)
    any_mem.as_principal(A).undismiss(SECRET, scope=SCOPE)  # its audience may lift it
    assert any_mem.remember(SECRET, scope=SCOPE).text == SECRET
