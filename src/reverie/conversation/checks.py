"""Boundary checks for the conversation wing: each bad input gets its own clear error, before any write."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from reverie.errors import InvalidInputError, LimitExceededError
from reverie.limits import Limits
from reverie.model.clock import ensure_aware
from reverie.model.conversation import ROLES
from reverie.model.validate import check_meta, check_text, check_unicode

#: Longest conversation id, speaker name and tool name.
MAX_NAME_CHARS = 200
#: The largest ``args`` a tool-call record keeps (JSON bytes): a record says *that* a tool ran
#: and how, never what it returned, so a blob this large is a mistake (a payload pasted in).
MAX_TOOL_ARGS_BYTES = 8_000
MAX_TOOL_DETAIL_CHARS = 2_000
TOOL_STATUSES = ("ok", "error", "timeout", "cancelled", "denied")
#: Keys of a message's recallable memory's ``meta`` that the wing sets itself (``slice_origin``:
#: an imported entry's origin id, set by ``import_slice`` only, so a caller cannot forge one).
RESERVED_META = frozenset({"conversation", "message", "turn", "session", "role", "speaker", "slice_origin"})


def check_name(value: object, field: str) -> str:
    """A name (conversation id, speaker, tool): a non-blank string, bounded, with no control or format characters.

    Why refuse control characters: a speaker name is printed in every recallable text, history
    line and recap; a newline or an escape sequence in it would forge lines there.
    """
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{field} is empty; give a non-blank name")
    check_unicode(value, field)
    if len(value) > MAX_NAME_CHARS:
        raise LimitExceededError(f"{field} has {len(value)} characters; the limit is {MAX_NAME_CHARS}")
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf")), None)
    if bad is not None:
        raise InvalidInputError(
            f"{field} {value[:40]!r} contains the control character U+{ord(bad):04X}; names are plain text"
        )
    return value


def check_role(role: object) -> str:
    """A message's role: one of ``ROLES``. A message has no ``tool`` role (a tool's run is a tool-call
    record: that it ran, never its output), so asking for one says where it goes."""
    if role not in ROLES:
        hint = "; record that a tool ran with tool_call (never its output)" if role == "tool" else ""
        raise InvalidInputError(f"role must be one of {', '.join(ROLES)}, got {role!r}{hint}")
    assert isinstance(role, str)
    return role


def check_message_text(text: object, limits: Limits) -> str:
    """A message: non-blank text within ``Limits.max_text_chars`` (``LimitExceededError`` above it)."""
    return check_text(text, limits, "message text")


def check_at(at: datetime | None, now: datetime, limits: Limits) -> datetime:
    """A message's time: ``now`` if None, else an aware time no later than ``now`` plus
    ``Limits.max_clock_skew_seconds``.

    Why a bound in the future: messages are appended in time order, so one dated 2099 would make
    every later message with a real time "before the previous message" (issue #15). A few minutes
    are allowed for a sender whose clock runs a little ahead of this one.
    """
    if at is None:
        return now
    when = ensure_aware(at, "at")
    skew = limits.max_clock_skew_seconds
    if when > now + timedelta(seconds=skew):
        raise InvalidInputError(
            f"message time {when.isoformat()} is in the future: the clock's now is {now.isoformat()} and a "
            f"message may be dated at most {skew} s after it (Limits.max_clock_skew_seconds = {skew}, room for "
            "clock skew); give the time the message was really said, or leave at out for now"
        )
    return when


def check_imported_at(at: datetime, now: datetime, limits: Limits, where: str) -> None:
    """Refuse an imported message dated past ``now`` plus ``Limits.max_clock_skew_seconds`` (a
    slice or an export from a store whose clock ran ahead, or a time stored before the bound).

    Why refuse by default: the conversation would then refuse every live message until the clock
    passes it (messages are appended in time order). The message says the two ways on: wait, or
    import with ``allow_future`` (the times are kept; a purge of those messages releases the bound).
    """
    skew = limits.max_clock_skew_seconds
    if at <= now + timedelta(seconds=skew):
        return
    raise InvalidInputError(
        f"{where} is dated {at.isoformat()}, but the clock's now is {now.isoformat()} and a message may be "
        f"dated at most {skew} s after it (Limits.max_clock_skew_seconds = {skew}): imported, it would make "
        "the conversation refuse every live message until the clock passes it. Nothing was imported. If the "
        "sender's clock ran ahead, import again once this clock passes "
        f"{(at - timedelta(seconds=skew)).isoformat()}, or import with allow_future=True (CLI --allow-future) "
        "to keep the messages as dated (purge them to take live messages before then)"
    )


def check_message_meta(meta: Mapping[str, Any] | None, limits: Limits) -> dict[str, Any]:
    checked = check_meta(meta, limits)
    clash = sorted(RESERVED_META & set(checked))
    if clash:
        raise InvalidInputError(f"meta key(s) {', '.join(clash)} are set by reverie on a message's memory; rename them")
    return checked


def check_tool_args(args: Mapping[str, Any] | None, limits: Limits) -> dict[str, Any]:
    checked = check_meta(args, limits)
    size = len(json.dumps(checked, ensure_ascii=False).encode("utf-8"))
    if size > MAX_TOOL_ARGS_BYTES:
        raise LimitExceededError(
            f"tool call args are {size} bytes of JSON; the limit is {MAX_TOOL_ARGS_BYTES}: record what was "
            "asked (ids, parameters), not the data itself"
        )
    return checked


def check_status(status: object) -> str:
    if status not in TOOL_STATUSES:
        raise InvalidInputError(f"status must be one of {', '.join(TOOL_STATUSES)}, got {status!r}")
    assert isinstance(status, str)
    return status


def check_detail(detail: object) -> str:
    if detail is None:
        return ""
    if not isinstance(detail, str):
        raise InvalidInputError("detail must be a string")
    check_unicode(detail, "detail")
    if len(detail) > MAX_TOOL_DETAIL_CHARS:
        raise LimitExceededError(f"detail has {len(detail)} characters; the limit is {MAX_TOOL_DETAIL_CHARS}")
    return detail
