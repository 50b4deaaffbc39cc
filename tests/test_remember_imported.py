"""``remember_imported``: a claim read from a file is ``imported``, never a person's or the system's word."""

from __future__ import annotations

import pytest

from reverie import InvalidInputError
from reverie.testing import make_memory

S = "user:alice"


def test_the_files_source_is_a_record_and_authority_is_capped() -> None:
    mem, _ = make_memory()
    with mem:
        item = mem.remember_imported("The vault code is 1234", scope=S, original_source="manual", authority=1.0)
        assert (item.source, item.provenance.source, item.scores.authority) == ("imported", "manual", 0.5)
        other = mem.remember_imported("Bob likes tea", scope=S, original_source="system", scores={"authority": 0.99})
        assert other.scores.authority == 0.5  # the scores dict cannot carry more trust in either


@pytest.mark.parametrize(
    "fields",
    [
        {"original_source": "a person"},
        {"original_source": "observed", "authority": "high"},
        {"original_source": "observed", "authority": float("nan")},
        {"original_source": "observed", "corroborate": "yes"},
        {"original_source": "observed", "provenance": {"origin": "file", "event_id": "forged"}},
    ],
)
def test_bad_input_is_refused_and_stores_nothing(fields: dict[str, object]) -> None:
    mem, _ = make_memory()
    with mem:
        with pytest.raises(InvalidInputError):
            mem.remember_imported("Alice likes tea", scope=S, **fields)  # type: ignore[arg-type]
        assert mem.events(scope=S) == []


def test_a_caller_cannot_claim_an_original_source_through_remember() -> None:
    from reverie import Provenance

    mem, _ = make_memory()
    with mem:
        with pytest.raises(InvalidInputError, match="only imports set it"):
            mem.remember("Alice likes tea", scope=S, provenance=Provenance(source="manual"))
        assert mem.events(scope=S) == []
