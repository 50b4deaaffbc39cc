"""The stdin the SDK's stdio transport reads: the client's lines, each checked as raw text first.

The SDK parses every line itself (``stdio_server``) and keeps the last of a repeated key, and by
the time a message reaches the server the text is gone. So the transport is given its stdin
(``stdio_server(stdin=...)``, its public parameter; no SDK internals replaced): ``CheckedLines``
passes a line through unchanged unless it repeats a key (``repeated.refusal``), and answers that
one itself, through the transport's own write stream (one writer on the wire, no torn frames).

``wire_stdin`` keeps what the SDK does when it opens stdin itself and is skipped when given one:
fd 0 points at the null device while serving, and the client's lines are read through a private
duplicate, so a child process (a git hook run by a vault tool) or a handler reading stdin gets
EOF, never the client's requests.
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import AsyncIterable, Iterator
from contextlib import contextmanager
from typing import Protocol

import anyio
from mcp.shared.message import SessionMessage

from reverie.mcp.repeated import refusal

logger = logging.getLogger(__name__)


@contextmanager
def wire_stdin() -> Iterator[io.TextIOWrapper]:
    """The client's side of stdin as UTF-8 text (undecodable bytes replaced, as the SDK reads them),
    with fd 0 diverted to the null device until the block ends.

    The duplicate is never closed: a worker thread can still be blocked reading it when the
    transport stops (SIGTERM), and a descriptor closed under it could be reused by another file.
    """
    wire = os.dup(0)  # non-inheritable (PEP 446): no child holds the client's pipe
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        yield io.TextIOWrapper(os.fdopen(wire, "rb", closefd=False), encoding="utf-8", errors="replace")
    finally:
        os.dup2(wire, 0)


class Sends(Protocol):
    """The transport's write stream, as far as an answer needs it."""

    async def send(self, item: SessionMessage, /) -> None: ...


class CheckedLines:
    """Lines for the transport: each as read, but one repeating a key is answered here and skipped.

    ``answer_through`` gives it the transport's write stream once the transport has opened; a
    refusal read before that waits for it.
    """

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self._lines = aiter(lines)
        self._write: Sends | None = None
        self._ready = anyio.Event()

    def answer_through(self, write: Sends) -> None:
        self._write = write
        self._ready.set()

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await anext(self._lines)  # StopAsyncIteration at the client's EOF ends the transport
            found = refusal(line)
            if found is None:
                return line
            if found.reply is None:  # a notification or response: nothing to answer, so not run either
                logger.warning("dropped a JSON-RPC message without a request id: %s", found.message)
                continue
            await self._ready.wait()
            assert self._write is not None  # set with the event just awaited
            try:
                await self._write.send(SessionMessage(message=found.reply))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                raise StopAsyncIteration from None  # the server has stopped: no one to answer


__all__ = ["CheckedLines", "wire_stdin"]
