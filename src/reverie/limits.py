"""One ``Limits`` object: every size and count bound reverie enforces, in one place.

Every face (Python API, CLI, MCP, HTTP) checks input against the same object, so a bound is
never enforced on one path and forgotten on another. Defaults are generous for real agent
use and small enough that one bad request cannot exhaust memory.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on input. Exceeding one raises ``LimitExceededError`` naming the field.

    ``LimitExceededError`` is an ``InvalidInputError`` (code ``limit_exceeded``); that holds for the
    length of a key or a scope too, so "too big" is told apart from "malformed" by every face.
    ``max_k`` bounds every count a caller asks for (``k`` of recall, context and thinking_queue,
    ``limit`` of list, contradictions and dream_runs). A count left to its default is clamped to ``max_k``,
    so lowering it never breaks a call that relied on the defaults; an explicit count above it
    is refused. ``max_events`` bounds one page of ``Memory.events`` the same way (its default
    page of 1000 is clamped to it); it is separate from ``max_k`` because an export or a replica
    reads the log in pages far larger than any answer an agent asks for. ``max_int_digits`` bounds
    every integer (a ``value``, a number in ``meta``, any number in an HTTP body): converting one of
    thousands of digits to text is quadratic, and Python refuses past its own, process-wide bound.
    ``max_clock_skew_seconds`` is the one bound on a time, not a size: a conversation message may be
    dated at most this far after the ``Memory`` clock's now (room for a sender whose clock runs a
    little fast). A later time is a wrong time, not too much input, so it is refused with
    ``InvalidInputError`` (``invalid_input``); accepted, it would have held the conversation's time
    order there, refusing every later message with a real time (issue #15).
    ``max_claims_per_message`` bounds what extraction writes for one message (see the field).
    """

    max_text_chars: int = 32_000
    max_key_chars: int = 256
    max_scope_chars: int = 200
    max_meta_bytes: int = 64_000
    max_meta_depth: int = 8
    max_tags: int = 64
    max_tag_chars: int = 100
    max_parents: int = 256
    max_query_chars: int = 4_000
    max_k: int = 1_000
    max_batch: int = 10_000
    max_request_bytes: int = 8 * 1024 * 1024
    max_events: int = 100_000  # a field added in between would shift positional arguments: add new ones last
    #: Digits of the longest integer accepted anywhere (a ``value``, in ``meta``, in an HTTP body).
    #: 640 is the lowest bound Python itself may be set to (``sys.set_int_max_str_digits``), so
    #: this one, never the interpreter's, is what a caller meets; real data holds far fewer.
    max_int_digits: int = 640
    #: Seconds a message's ``at`` may lie after the clock's now (room for clock skew; ``CLOCK_SKEW_HELP``).
    max_clock_skew_seconds: int = 300
    #: Moves (start, fail, retry, pause, ...) one intent or task may make, live or carried by a
    #: slice. Each move rewrites the record as it stands, failures included, so the work grows with
    #: the square of the moves (a slice's replay of 4,001 moves held the file 53 s); a live record
    #: past it is refused its next move, so every record can also be imported from a slice.
    max_record_moves: int = 1_000
    #: Claims mined from one conversation message when its session is released (``conv.close()``,
    #: the idle timeout, ``extract()``). A message's claims are written under the file's write
    #: lock, about 10 ms each; one 32,000-character message gave ~1,700 and held every other
    #: writer out past the busy timeout (outside probe 2, finding 11). The claims past it are not
    #: written and are listed in the report's ``skipped`` (``limit_exceeded``), each with its text.
    max_claims_per_message: int = 200
    #: Recalls of one ``Memory`` whose use waits to be written because another writer held the
    #: lock (``reverie.memory.pending_uses``). Past it a recall waits for the lock as a write does.
    max_pending_uses: int = 1_000

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            # bool is an int to Python, but Limits(max_k=True) is a mistake, not a bound of 1.
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive int, got {value!r}")


DEFAULT_LIMITS = Limits()

#: How the faces' help names the future bound on a message's time: the bound is per ``Memory``
#: (its ``Limits``), while help text is written before any store is open, so it names the setting
#: and its default instead of a number that another setting would make false.
CLOCK_SKEW_HELP = (
    "the configured clock-skew bound (Limits.max_clock_skew_seconds, "
    f"default {DEFAULT_LIMITS.max_clock_skew_seconds} s)"
)

__all__ = ["CLOCK_SKEW_HELP", "DEFAULT_LIMITS", "Limits"]
