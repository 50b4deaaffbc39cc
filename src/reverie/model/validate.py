"""Boundary validation: every public entry point funnels its input through these.

Each check raises an ``InvalidInputError`` subclass whose message names the field, what was
wrong and how to fix it — and runs before anything is written, so a refused input leaves the
store untouched.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from reverie.errors import InvalidInputError, InvalidScopeError, LimitExceededError
from reverie.limits import Limits
from reverie.model.ids import is_id
from reverie.model.json_numbers import held_float
from reverie.model.textform import strip_format
from reverie.model.values import Value, amount, value_text

# Always used with ``fullmatch``: ``re.match`` with ``$`` also accepts a trailing "\n", which
# let "user:alice\n" become a scope of its own (and "observation\n" a kind).
SCOPE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/\-]*")
KEY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:\-/]*")
KIND_RE = re.compile(r"[a-z][a-z0-9_\-]{0,39}")
SCORE_NAMES = ("authority", "confidence", "importance", "durability", "value")
INT64_MAX = 2**63 - 1
"""The largest integer SQLite stores or binds; a larger Python int raised ``OverflowError`` there."""
_T = TypeVar("_T")


def shown(value: object, width: int = 60) -> str:
    """``repr(value)`` cut to ``width`` characters, for refusal messages.

    Why not ``repr`` or ``str``: both raise ``ValueError`` for an int past 4300 digits, so the
    message refusing ``k=10**5000`` crashed while being written (issue #14). Such an int is
    described by its size instead.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * width:
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def not_one_of(value: object, choices: Iterable[object]) -> str:
    """The words refusing a value outside a closed set: "must be one of a, b, got 'x'".

    One wording for ``Memory``'s checks and the MCP schema checker, so a bad ``mode`` or
    ``contradictions`` reads the same through Python, the CLI, HTTP and MCP (each face used to
    refuse it with its own schema's words; ``tests/test_face_options.py``).
    """
    return f"must be one of {', '.join(str(c) for c in choices)}, got {shown(value, 40)}"


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else ``InvalidInputError`` naming ``name`` and the choices."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidInputError(f"{name} {not_one_of(value, choices)}")
    return value


#: What an empty ``check_text`` field should have held, where "the <field>" would not say it.
_WHAT = {"text": "the claim", "query": "the query (the words to search for)"}


def check_text(text: object, limits: Limits, field: str = "text") -> str:
    """Non-empty, well-formed Unicode, no NUL, within the size limit. Returned unchanged."""
    if not isinstance(text, str):
        raise InvalidInputError(f"{field} must be a string, got {type(text).__name__}")
    if not text.strip():
        # Named for the field: "query is empty; give the claim …" sent a caller of recall looking for a claim.
        raise InvalidInputError(f"{field} is empty; give {_WHAT.get(field, 'the ' + field)} as non-blank text")
    check_unicode(text, field)
    if len(text) > limits.max_text_chars:
        raise LimitExceededError(
            f"{field} has {len(text)} characters; the limit is {limits.max_text_chars} "
            "(split it, or raise Limits.max_text_chars)"
        )
    return text


def check_unicode(text: str, field: str) -> None:
    """Refuse what cannot be stored byte-exact: NUL and lone surrogates."""
    if "\x00" in text:
        raise InvalidInputError(f"{field} contains a NUL character (\\x00); remove it")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{field} contains a lone surrogate at position {exc.start}; it is not valid Unicode text"
        ) from None


def check_scope(scope: object, limits: Limits) -> str:
    if not isinstance(scope, str) or not scope:
        raise InvalidScopeError("scope is required: a non-empty string such as 'user:alice'")
    if len(scope) > limits.max_scope_chars:  # a Limits bound: LimitExceededError, like every other
        raise LimitExceededError(
            f"scope is {len(scope)} characters; the limit is Limits.max_scope_chars ({limits.max_scope_chars}): "
            "use a shorter scope name"
        )
    if not SCOPE_RE.fullmatch(scope):
        raise InvalidScopeError(
            f"scope {scope[:60]!r} is malformed: use letters, digits and _ . : @ / - "
            "starting with a letter or digit (e.g. 'user:alice' or 'team:acme/project-x')"
        )
    return scope


def check_id(item_id: object, field: str = "id") -> str:
    if not is_id(item_id):
        raise InvalidInputError(f"{field} {shown(item_id)} is not a reverie id (a lower-case UUID string)")
    assert isinstance(item_id, str)
    return item_id


def check_kind(kind: object) -> str:
    if not isinstance(kind, str) or not KIND_RE.fullmatch(kind):
        raise InvalidInputError(
            f"kind {shown(kind)} is malformed: lower-case letters, digits, _ or -, up to 40 characters "
            "(known kinds: observation, assertion, hypothesis, policy, trait, episodic, semantic, …)"
        )
    return kind


def check_key(key: object, limits: Limits) -> str | None:
    if key is None:
        return None
    if isinstance(key, str) and len(key) > limits.max_key_chars:
        raise LimitExceededError(
            f"key {key[:60]!r}… is {len(key)} characters; the limit is Limits.max_key_chars "
            f"({limits.max_key_chars}): use a shorter dotted subject"
        )
    if not isinstance(key, str) or not key or not KEY_RE.fullmatch(key):
        raise InvalidInputError(
            f"key {shown(key)} is malformed: a dotted subject such as 'alice.allergy' "
            f"(letters, digits, _ . : - /, up to {limits.max_key_chars} characters)"
        )
    return key


def check_value(value: object, limits: Limits) -> Value | None:
    """A slot value as given: a string, or a finite int or float (kept as that type, ``model.values``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InvalidInputError(f"value must be a string or number, got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        # Stored as the text "nan" / "inf", it was a value nobody stated (and corroborated every other one).
        raise InvalidInputError(
            f"value is {value}; JSON has no NaN or infinity: give a finite number, or the reading as a string"
        )
    if isinstance(value, int):
        check_int(value, limits, "value")
    text = value_text(value)
    check_unicode(text, "value")
    if len(text) > limits.max_text_chars:
        raise LimitExceededError(f"value is longer than Limits.max_text_chars ({limits.max_text_chars})")
    return value


def check_int(value: int, limits: Limits, where: str) -> None:
    """Refuse an integer of more than ``Limits.max_int_digits`` digits, naming ``where``.

    Tested by magnitude, never by converting: ``str`` of a long int is quadratic, and refuses past
    Python's process-wide ``sys.get_int_max_str_digits()`` with advice meant for the host program.
    """
    if abs(value) >= _ten_to(limits.max_int_digits):
        raise LimitExceededError(
            f"{where} is an integer of more than {limits.max_int_digits} digits; the limit is "
            f"Limits.max_int_digits ({limits.max_int_digits}): send a number that long as a string"
        )


@functools.lru_cache(maxsize=8)
def _ten_to(digits: int) -> int:
    return int(10**digits)  # int ** int is typed Any (a negative power is a float)


def check_count(value: object, field: str, *, default: int, limits: Limits) -> int:
    """A count such as ``k`` or a page ``limit``; ``None`` (not given) is ``default`` clamped to ``max_k``.

    Why only the default is clamped: the default is reverie's choice, so a caller who lowers
    ``Limits.max_k`` below it must still be able to call ``recall(q, scope=s)`` without knowing
    it. An explicit value is the caller's request; shrinking it silently would hide a mistake,
    so one above the bound is refused.
    """
    if value is None:
        return min(default, limits.max_k)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"{field} must be a positive int (at most {limits.max_k}), got {shown(value)}")
    if value > limits.max_k:
        raise LimitExceededError(
            f"{field} is {shown(value)}; the limit is Limits.max_k ({limits.max_k}): ask for fewer "
            "(list pages on with its cursor) or raise Limits.max_k"
        )
    return value


def check_score(name: str, score: object) -> float:
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise InvalidInputError(f"{name} must be a number in [0, 1], got {type(score).__name__}")
    try:
        f = float(score)
    except OverflowError:  # an int such as 10**5000: no float holds it
        raise InvalidInputError(f"{name} must be in [0, 1], got an integer too large for a float") from None
    if math.isnan(f) or not 0.0 <= f <= 1.0:
        raise InvalidInputError(f"{name} must be in [0, 1], got {score!r}")
    return f


def check_tags(tags: object, limits: Limits, field: str = "tags") -> tuple[str, ...]:
    """A list of distinct non-blank strings (also used for ``flags``, which obey the same rules)."""
    one = field.rstrip("s")
    if tags is None:
        return ()
    if isinstance(tags, str) or not isinstance(tags, Iterable):
        raise InvalidInputError(f"{field} must be a list of strings, e.g. {field}=['a', 'b']")
    out: dict[str, None] = {}  # ordered set: O(1) de-duplication, first occurrence wins
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip():
            raise InvalidInputError(f"each {one} must be a non-blank string, got {shown(tag)}")
        check_unicode(tag, one)
        if len(tag) > limits.max_tag_chars:
            raise LimitExceededError(
                f"{one} {tag[:30]!r}… is {len(tag)} characters; the limit is Limits.max_tag_chars "
                f"({limits.max_tag_chars})"
            )
        out[tag] = None
        if len(out) > limits.max_tags:  # refuse as soon as the bound is crossed, not after reading all
            raise LimitExceededError(
                f"more than {limits.max_tags} distinct {field} given; the limit is {limits.max_tags}"
            )
    return tuple(out)


def check_meta(meta: object, limits: Limits) -> dict[str, Any]:
    """A JSON object that round-trips exactly: finite numbers, str keys, bounded size and depth."""
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise InvalidInputError(f"meta must be a JSON object (dict), got {type(meta).__name__}")
    _check_json(meta, limits, depth=1, path="meta")
    try:
        encoded = json.dumps(meta, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"meta is not JSON-serialisable: {exc}") from None
    if len(encoded.encode("utf-8")) > limits.max_meta_bytes:
        raise LimitExceededError(f"meta is larger than Limits.max_meta_bytes ({limits.max_meta_bytes} bytes)")
    result: dict[str, Any] = json.loads(encoded)
    return result


def _check_json(value: object, limits: Limits, depth: int, path: str) -> None:
    # Depth counts containers only: a scalar inside the deepest allowed object is still allowed.
    if isinstance(value, Mapping | list | tuple) and depth > limits.max_meta_depth:
        raise LimitExceededError(f"{path} nests deeper than Limits.max_meta_depth ({limits.max_meta_depth})")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidInputError(f"{path} has a non-string key {shown(k)}; JSON object keys must be strings")
            check_unicode(k, f"{path} key")
            _check_json(v, limits, depth + 1, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_json(v, limits, depth + 1, f"{path}[{i}]")
    elif isinstance(value, str):
        check_unicode(value, path)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(f"{path} is {value}; JSON has no NaN or infinity")
    elif isinstance(value, int) and not isinstance(value, bool):
        check_int(value, limits, path)
    elif value is not None and not isinstance(value, bool):
        raise InvalidInputError(f"{path} has a {type(value).__name__}; meta holds only JSON values")


def check_reason(reason: object) -> str:
    if reason is None:
        return ""
    if not isinstance(reason, str):
        raise InvalidInputError("reason must be a string")
    check_unicode(reason, "reason")
    if len(reason) > 2000:
        raise LimitExceededError("reason is longer than 2000 characters")
    return reason


def load_json(text: str, what: str, error: type[InvalidInputError] = LimitExceededError) -> Any:
    """``json.loads`` that refuses nesting past the interpreter's recursion limit with ``error``,
    and a key repeated in one object or a number no float holds with ``InvalidInputError``
    (``unique_keys``, ``held_float``).

    ``json.loads("[" * 3000)`` raises ``RecursionError``, which is no ``ValueError``, so every
    caller's "not valid JSON" handler let it through as a crash (issue #14). Syntax errors stay
    ``ValueError`` for the caller to word. Why not count the brackets first: that is a pass in
    Python over every byte of every import line, for a case the decoder already detects.
    """
    try:
        return json.loads(
            text,
            parse_int=_json_int,
            parse_float=functools.partial(held_float, what=what),
            object_pairs_hook=unique_keys(what),
        )
    except RecursionError:
        raise error(
            f"{what} is JSON nested too deeply to read (thousands of levels); "
            "real data nests a few levels (meta at most Limits.max_meta_depth)"
        ) from None
    except _LongInt as exc:
        # Python's own ValueError here said "Exceeds the limit … for integer string conversion",
        # and callers worded every ValueError as "not JSON": a valid document sent people hunting a typo.
        raise error(
            f"{what} holds an integer of {exc.digits} digits, longer than a number can be read "
            f"({sys.get_int_max_str_digits()} digits); no score, count or value is that long"
        ) from None


def unique_keys(what: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """A ``json`` ``object_pairs_hook`` refusing a key repeated in one object, naming it and ``what``.

    The one rule of every face that reads JSON (an HTTP body or ``?where=``, the CLI's ``--meta``,
    an import): ``{"kind": "policy", "kind": "secret"}`` is refused, never read as its last key.
    JSON readers disagree on which of two equal keys counts, so a proxy or a log that read the
    first would have seen another request than the one run (outside tester, finding 19).
    """

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) == len(pairs):  # the common case, at C speed
            return out
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise InvalidInputError(
                    f"{what} has the key {key!r} twice in one object; JSON readers disagree on which one "
                    "counts, so send each key once"
                )
            seen.add(key)
        raise AssertionError("unreachable: fewer keys than pairs means one repeats")

    return hook


class _LongInt(Exception):
    """An integer literal past ``sys.get_int_max_str_digits()`` in a JSON text (``load_json``)."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _json_int(text: str) -> int:
    limit = sys.get_int_max_str_digits()
    digits = len(text.lstrip("-"))
    if limit and digits > limit:
        raise _LongInt(digits)
    return int(text)


def check_seq(seq: object, field: str = "after_seq") -> int:
    """A position in the event log: a non-negative int SQLite can compare with (at most 2**63 - 1)."""
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= INT64_MAX:
        raise InvalidInputError(
            f"{field} must be a non-negative int of at most 2**63 - 1 (the seq of the last event you saw), "
            f"got {shown(seq, 40)}"
        )
    return seq


def check_numbers(value: object, cls: type[_T], field: str, bound: float = 64.0) -> _T:
    """An options dataclass (``Weights``) whose every field is a number within ±``bound``; ``None`` is ``cls()``.

    Why: ``recall(weights={"trust": 0.5})`` died with ``AttributeError`` deep in scoring, a NaN
    weight silently made every score NaN, and ``sharpness=-400`` overflowed ``relevance ** sharpness``
    (found by tests/security/test_input_properties.py). ±64 is far past any useful weight (the
    defaults are at most 8) and keeps every score finite. Taking ``cls`` keeps the model free of
    recall's types.
    """
    if value is None:
        return cls()
    if not isinstance(value, cls):
        hint = f" (build one from it: {cls.__name__}(**that_dict))" if isinstance(value, Mapping) else ""
        raise InvalidInputError(f"{field} must be a reverie.{cls.__name__}, got {type(value).__name__}{hint}")
    for f in dataclasses.fields(value):  # type: ignore[arg-type]
        v = getattr(value, f.name)
        if isinstance(v, bool) or not isinstance(v, int | float) or not _finite(v) or not -bound <= v <= bound:
            raise InvalidInputError(f"{field}.{f.name} must be a number within ±{bound:g}, got {shown(v, 40)}")
    return value


MIN_INTERVAL_SECONDS = 1.0
"""The shortest schedule for repeated dream passes: below it a pass loop spins (``--every 1e-9s``
ran 892 passes in 6 s), and no consolidation needs to run more than once a second."""
MAX_INTERVAL_SECONDS = 365 * 86400.0
"""The longest: a year. Longer is no schedule, and ``inf`` or 10**17 days overflowed ``sleep``."""


def check_interval(seconds: object, field: str = "interval") -> float:
    """Seconds between scheduled passes, within ``MIN_INTERVAL_SECONDS`` .. ``MAX_INTERVAL_SECONDS``."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise InvalidInputError(f"{field} must be a number of seconds, got {type(seconds).__name__}")
    value = float(seconds) if _finite(seconds) else math.inf
    if not MIN_INTERVAL_SECONDS <= value <= MAX_INTERVAL_SECONDS:  # False for NaN too
        raise InvalidInputError(
            f"{field} is {shown(seconds, 40)} seconds; give between {MIN_INTERVAL_SECONDS:g} s and "
            f"{MAX_INTERVAL_SECONDS:g} s (1s to 365d)"
        )
    return value


def _finite(v: int | float) -> bool:
    try:
        return math.isfinite(v)
    except OverflowError:  # an int beyond every float
        return False


def normalise_text(text: str) -> str:
    """The equivalence form of a claim: NFKC, case-folded, whitespace collapsed, end punctuation off.

    Invisible format characters (``textform.strip_format``: zero-width space, soft hyphen, BOM...)
    go first: "Bob likes\u200b red" is the dismissed "Bob likes red", not a new value.

    Two claims with the same normal form corroborate each other instead of duplicating, and a
    dismissed value is matched on this form so re-extraction cannot bring it back.
    """
    folded = unicodedata.normalize("NFKC", strip_format(text)).casefold()
    collapsed = " ".join(folded.split())
    return collapsed.rstrip(" .!?;,")


def fingerprints(text: str, key: str | None, value: Value | None) -> tuple[str, ...]:
    """The value-level identities of a claim: its normalised text, and key=value when keyed.

    A value that is a number (``values.amount``: 1024, 1024.0, "1024.00") has a second one,
    ``kn:``, under its canonical amount, so every spelling of one number meets every other in
    corroboration, dismissal and echoes. ``kv:`` keeps the spelling as before: fingerprints and
    tombstones written by earlier versions still match it (their ``kn:`` rows come with a rebuild).
    """
    prints = ["t:" + normalise_text(text)]
    if key is not None and value is not None:
        prints.append(f"kv:{key.casefold()}={normalise_text(value_text(value))}")
        number = amount(value)
        if number is not None:
            prints.append(f"{AMOUNT_PRINT}{key.casefold()}={number}")
    return tuple(prints)


#: Prefix of the fingerprint a numeric value has under its canonical amount (``fingerprints``).
AMOUNT_PRINT = "kn:"


def current_print(fp: str) -> str:
    """``fp``, a fingerprint as an earlier version stored it, in today's form.

    Before format characters were dropped (``strip_format`` in ``normalise_text``), a text with a
    zero-width space or soft hyphen inside kept it in its print: ``t:bob likes\u200b red``. Such a
    print is normalised again (``t:`` text, the value of ``kv:``), so a tombstone or a log's
    dismiss event of that time meets the claim's print today. A print without a format character
    is returned as it is (today's prints never hold one), and so is a seal (``sealed:``: a digest
    of the old print, which cannot be recomputed) and an amount (``kn:``).
    """
    if fp.isascii() or strip_format(fp) == fp:
        return fp
    if fp.startswith("t:"):
        return "t:" + normalise_text(fp[2:])
    if fp.startswith("kv:") and "=" in fp:
        key, _, value = fp[3:].partition("=")
        return f"kv:{key}={normalise_text(value)}"
    return fp
