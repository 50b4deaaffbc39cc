"""How ``reverie serve`` runs the app under uvicorn: a request deadline and JSON errors at the wire.

Two things happen before the ASGI app sees a request, so the app's guard cannot handle them:

* **A request that never finishes arriving.** uvicorn closes *idle* keep-alive connections but
  has no deadline for a request in progress: a client that sends half a header block (or half
  a body, or one byte every few seconds — slowloris) holds its connection, a file descriptor
  and, for a body, a worker thread forever. ``DeadlineProtocol`` gives every request
  ``request_timeout`` seconds from its first byte (or from the connection's opening) to arrive
  completely; then it answers ``408`` and closes. Only *arrival* is timed: once the request is
  in, the work may take as long as it takes.
* **Bytes that are not HTTP/1.1.** A malformed request line, a ``Content-Length`` that is not
  a number, an oversized header block: h11 refuses them and uvicorn answered ``400`` in plain
  text. Here the body is the documented ``{"code", "error", "status"}`` shape with the same
  security headers as every other response.

The protocol subclasses uvicorn's pure-Python h11 implementation (what uvicorn picks when
``httptools`` is not installed, as here), so both servers parse requests the same way.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from reverie.http.security import SECURITY_HEADERS

#: Seconds a request may take to arrive (line, headers and body) before the server gives up.
REQUEST_TIMEOUT = 30.0
#: Seconds an idle keep-alive connection stays open between requests (uvicorn's own default).
KEEP_ALIVE = 5
#: Seconds a refused connection is kept half-open, reading and discarding what the client still
#: sends: closing with unread bytes makes the kernel send a reset, which destroys the answer
#: before the client reads it (a "lingering close", as HTTP servers do).
LINGER = 2.0
#: h11 states of the client's side while its request is still arriving.
_ARRIVING = (h11.IDLE, h11.SEND_BODY)

BAD_REQUEST = (
    "the request is not valid HTTP/1.1 (a malformed request line or header, a Content-Length that is "
    "not one number, or headers over 16 KiB); send a well-formed request"
)


def wire_error(status: int, reason: str, code: str, text: str) -> bytes:
    """A complete ``Connection: close`` response in the error shape, as bytes for the transport."""
    body = json.dumps({"code": code, "error": text, "status": status}).encode()
    head = [
        f"HTTP/1.1 {status} {reason}".encode(),
        b"content-type: application/json",
        f"content-length: {len(body)}".encode(),
        b"connection: close",
        *(name + b": " + value for name, value in SECURITY_HEADERS),
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a per-request arrival deadline and JSON 400s (see the module)."""

    request_timeout: float = REQUEST_TIMEOUT
    _deadline: asyncio.TimerHandle | None = None
    _lingering = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection that never sends a byte is held to the same deadline

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # the answer is sent; what still arrives is read only to be dropped
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first bytes of the next request on a keep-alive connection
        super().data_received(data)
        if self.conn.their_state not in _ARRIVING:
            self._disarm()  # the request is in (or the connection is done with): stop timing

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """h11 refused the bytes: answer in the error shape (uvicorn's own text is plain)."""
        self._disarm()
        if not self.transport.is_closing():
            self._refuse(wire_error(400, "Bad Request", "bad_request", BAD_REQUEST))

    def _refuse(self, response: bytes) -> None:
        """Send ``response``, then close without losing it to a reset (see ``LINGER``)."""
        self.transport.write(response)
        self._lingering = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(LINGER, self.transport.close)
        else:
            self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        """Answer 408 unless a response already started, release a waiting endpoint, close."""
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle if self.conn.their_state is h11.SEND_BODY else None
        if cycle is not None:
            cycle.disconnected = True  # the endpoint reading the body gets http.disconnect
            cycle.message_event.set()
        if cycle is not None and cycle.response_started:
            self.transport.close()  # mid-response: no room for another status line
            return
        text = (
            f"the request did not arrive completely within {self.request_timeout:g} seconds; "
            "send the whole request at once"
        )
        self._refuse(wire_error(408, "Request Timeout", "request_timeout", text))


def protocol(request_timeout: float = REQUEST_TIMEOUT) -> type[DeadlineProtocol]:
    """``DeadlineProtocol`` with its deadline set (uvicorn builds the protocol from a class)."""
    if not request_timeout > 0:
        raise ValueError("request_timeout must be a positive number of seconds")
    return type("DeadlineProtocol", (DeadlineProtocol,), {"request_timeout": float(request_timeout)})


def options(request_timeout: float = REQUEST_TIMEOUT) -> dict[str, Any]:
    """The uvicorn settings ``serve`` uses (also for ``uvicorn.Config`` in tests).

    No ``Server`` header and no proxy headers (a client cannot claim another address); no
    WebSocket support (no route needs it, so an upgrade request is plain HTTP).
    """
    return {
        "http": protocol(request_timeout),
        "ws": "none",
        "server_header": False,
        "proxy_headers": False,
        "timeout_keep_alive": KEEP_ALIVE,
    }


def config(app: Any, *, request_timeout: float = REQUEST_TIMEOUT, **kwargs: Any) -> Any:
    """A ``uvicorn.Config`` for ``app`` with ``options`` (``kwargs``: host, port, log_level…)."""
    import uvicorn

    return uvicorn.Config(app, **options(request_timeout), **kwargs)
