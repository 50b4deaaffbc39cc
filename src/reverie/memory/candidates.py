"""Turning a caller's claim (keywords, a dict or a ``Candidate``) into a checked ``Remember``.

Why apart from the write capability: the same boundary checks serve ``remember``,
``remember_many``, ``remember_manual`` / ``remember_system`` and the dream pass's gists, so a
gist can never carry a field a caller could not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reverie.errors import InvalidInputError, LimitExceededError
from reverie.limits import Limits
from reverie.model import commands as cmd
from reverie.model.clock import ensure_aware
from reverie.model.item import SOURCES, Candidate, Provenance
from reverie.model.validate import (
    SCORE_NAMES,
    check_id,
    check_key,
    check_kind,
    check_meta,
    check_score,
    check_tags,
    check_text,
    check_unicode,
    check_value,
)
from reverie.model.visibility import check_visibility

#: Every field a claim may carry: ``Candidate``'s fields plus the four score shortcuts.
CANDIDATE_FIELDS = frozenset(Candidate.__dataclass_fields__) | {"authority", "confidence", "importance", "durability"}
_PROVENANCE_FIELDS = ("origin", "ref", "locator", "event_id")


def build_remember(
    c: Candidate | Mapping[str, Any], scope: str, source_ok: Sequence[str], limits: Limits
) -> cmd.Remember:
    """Check every field of one claim and build its command; ``source`` must be in ``source_ok``."""
    data = candidate_fields(c)
    unknown = set(data) - CANDIDATE_FIELDS
    if unknown:  # a typo ("tag=") must not be dropped silently
        raise InvalidInputError(
            f"unknown field(s) {', '.join(sorted(map(str, unknown)))}; "
            f"a claim has {', '.join(sorted(CANDIDATE_FIELDS))}"
        )
    source = data.get("source", "observed")
    if source not in source_ok:
        raise InvalidInputError(
            f"source {source!r} is not allowed here; use one of {', '.join(source_ok)} "
            "('manual' and 'system' only through remember_manual / remember_system)"
        )
    scores = _scores(data)  # the checks run in this order: the first error found is the one raised
    parents = tuple(check_id(p, "parent") for p in (data.get("parents") or ()))
    if len(parents) > limits.max_parents:
        raise LimitExceededError(f"{len(parents)} parents; the limit is {limits.max_parents}")
    provenance = _provenance(data, limits)
    valid_from = ensure_aware(data["valid_from"], "valid_from") if data.get("valid_from") else None
    valid_to = ensure_aware(data["valid_to"], "valid_to") if data.get("valid_to") else None
    if valid_from and valid_to and valid_to <= valid_from:
        raise InvalidInputError("valid_to must be after valid_from")
    author = data.get("author")
    if author is not None:
        check_unicode(check_text(author, limits, "author"), "author")
    return cmd.Remember(
        scope=scope,
        text=check_text(data.get("text"), limits),
        kind=check_kind(data.get("kind", "observation")),
        source=source,
        key=check_key(data.get("key"), limits),
        value=check_value(data.get("value"), limits),
        author=author,
        tags=check_tags(data.get("tags"), limits),
        meta=check_meta(data.get("meta"), limits),
        parents=parents,
        provenance=provenance,
        scores=scores,
        valid_from=valid_from,
        valid_to=valid_to,
        visibility=check_visibility(data.get("visibility")),
    )


def _scores(data: Mapping[str, Any]) -> dict[str, float]:
    scores: dict[str, float] = {}
    if data.get("scores") is not None and not isinstance(data["scores"], Mapping):
        raise InvalidInputError("scores must be a dict such as {'importance': 0.8}")
    for name, v in (data.get("scores") or {}).items():
        if name not in SCORE_NAMES:
            raise InvalidInputError(f"unknown score {name!r}; scores are {', '.join(SCORE_NAMES)}")
        scores[name] = check_score(name, v)
    for name in ("authority", "confidence", "importance", "durability"):
        if data.get(name) is not None:
            scores[name] = check_score(name, data[name])
    return scores


def _provenance(data: Mapping[str, Any], limits: Limits) -> Provenance:
    prov = data.get("provenance")
    if prov is None:
        return Provenance()
    if not isinstance(prov, Provenance):
        if not isinstance(prov, Mapping):
            raise InvalidInputError("provenance must be a Provenance or a dict with origin/ref/locator")
        prov = Provenance.from_dict(dict(prov))
    check_provenance(prov, data["provenance"], limits)
    if prov.source is not None and data.get("source") != "imported":
        raise InvalidInputError("provenance.source records an imported claim's original source; only imports set it")
    return prov


def candidate_fields(c: Candidate | Mapping[str, Any]) -> dict[str, Any]:
    """A claim given as a ``Candidate``, a dict or a bare string, as a plain dict of fields."""
    if isinstance(c, Candidate):
        return {name: getattr(c, name) for name in c.__dataclass_fields__}
    if isinstance(c, Mapping):
        return dict(c)
    if isinstance(c, str):
        return {"text": c}
    raise InvalidInputError(f"each batch entry must be a Candidate, a dict or a string, got {type(c).__name__}")


def check_provenance(prov: Provenance, given: object, limits: Limits) -> None:
    """Provenance is structured: known fields only, each a storable string (or None)."""
    if isinstance(given, Mapping):
        unknown = set(given) - set(_PROVENANCE_FIELDS)
        if unknown:
            raise InvalidInputError(
                f"unknown provenance field(s) {', '.join(sorted(map(str, unknown)))}; use origin, ref, locator"
            )
        values = [given.get(name) for name in _PROVENANCE_FIELDS]
    else:
        values = [getattr(prov, name) for name in _PROVENANCE_FIELDS]
    for name, v in zip(_PROVENANCE_FIELDS, values, strict=True):
        if v is not None:
            check_text(v, limits, f"provenance.{name}")
    if prov.source is not None and prov.source not in SOURCES:
        raise InvalidInputError(f"provenance.source must be one of {', '.join(SOURCES)}")


def check_version(v: object) -> int | None:
    """An ``expected_version`` argument: None, or a positive int."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise InvalidInputError("expected_version must be a positive int")
    return v
