"""Issue #14.10: what a real uvicorn server does with requests that are slow, stalled or not HTTP.

Each test runs the app exactly as ``reverie serve`` does (``reverie.http.server``) on a free
loopback port and talks to it over a raw socket, because the interesting cases — half a
request, a Content-Length that is not a number, a line that is not a request line — never
reach the ASGI app and cannot be sent by an HTTP client library.

Regressions: a connection that sent half a request was held open forever (uvicorn has no
request timeout, only an idle keep-alive one); uvicorn's own 400s were plain text, not the
documented ``{"code", "error", "status"}``.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from reverie import Memory
from reverie.http import create_app
from reverie.http.security import CSP

from .http_sec_helpers import V1, serving

TIMEOUT = 0.5  # the server's request timeout in these tests (the default is 30 s)
#: How long the client waits before calling the server stuck: many times the timeout, so a slow
#: machine does not fail the test, yet a server without a timeout does.
PATIENCE = 8.0


@pytest.fixture
def port(mem: Memory) -> Iterator[int]:
    with serving(create_app(mem), request_timeout=TIMEOUT) as p:
        yield p


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    sock.settimeout(PATIENCE)
    return sock


def read_until_closed(sock: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and how long that took."""
    start = time.monotonic()
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        pytest.fail(f"the server kept the connection open for {PATIENCE} s (received {data[:200]!r})")
    except ConnectionResetError:
        pass
    return data, time.monotonic() - start


def parse(raw: bytes) -> tuple[int, dict[str, str], Any]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, json.loads(body[: int(headers["content-length"])])


def assert_json_error(raw: bytes, status: int, code: str) -> dict[str, Any]:
    got, headers, body = parse(raw)
    assert got == status, raw[:300]
    assert headers["content-type"].startswith("application/json")
    assert headers["x-content-type-options"] == "nosniff" and headers["content-security-policy"] == CSP
    assert set(body) == {"code", "error", "status"} and body["status"] == status and body["code"] == code
    return dict(body)


def test_half_sent_request_headers_are_closed_within_the_timeout(port: int) -> None:
    with connect(port) as sock:
        sock.sendall(f"GET {V1}/summary HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
        raw, took = read_until_closed(sock)
    body = assert_json_error(raw, 408, "request_timeout")
    assert "seconds" in body["error"]
    assert took < PATIENCE / 2


def test_half_sent_body_is_closed_within_the_timeout(port: int, mem: Memory, caplog: pytest.LogCaptureFixture) -> None:
    with connect(port) as sock:
        sock.sendall(
            f"POST {V1}/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            'Content-Length: 100\r\n\r\n{"text": '.encode()
        )
        raw, took = read_until_closed(sock)
    assert_json_error(raw, 408, "request_timeout")
    assert took < PATIENCE / 2
    assert mem.scopes() == []
    # the endpoint waiting for the body was released quietly, not logged as a crash
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []


def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    with connect(port) as sock:
        raw, took = read_until_closed(sock)
    assert raw == b"" or parse(raw)[0] == 408
    assert took < PATIENCE / 2


def test_dripping_bytes_does_not_extend_the_deadline(port: int) -> None:
    """Slowloris: one header byte at a time, each well inside any idle timeout."""
    request = f"GET {V1}/summary HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: {'a' * 200}\r\n\r\n".encode()
    start = time.monotonic()
    with connect(port) as sock:
        try:
            for i in range(len(request)):
                sock.sendall(request[i : i + 1])
                if select.select([sock], [], [], TIMEOUT / 10)[0]:
                    break  # the server answered: stop dripping
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed on us: the point
        raw, _ = read_until_closed(sock)
    assert time.monotonic() - start < PATIENCE
    assert parse(raw)[0] == 408


def test_a_request_that_arrives_in_time_is_answered_however_long_it_runs(
    port: int, mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timeout bounds how long a request takes to *arrive*, not how long the work takes."""
    real = mem.summary

    def slow(**kwargs: Any) -> dict[str, Any]:
        time.sleep(TIMEOUT * 2)
        return real(**kwargs)

    monkeypatch.setattr(mem, "summary", slow)
    with connect(port) as sock:
        sock.sendall(f"GET {V1}/summary HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        raw, _ = read_until_closed(sock)
    status, _, body = parse(raw)
    assert status == 200 and body["scope"] == "user:alice"


def test_keep_alive_requests_each_get_a_fresh_deadline(port: int) -> None:
    request = f"GET {V1}/summary HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    with connect(port) as sock:
        for _ in range(2):
            sock.sendall(request)
            data = b""
            while b"learning_paused" not in data:
                data += sock.recv(65536)
            assert data.startswith(b"HTTP/1.1 200")
            time.sleep(TIMEOUT * 1.2)  # longer than the request timeout, shorter than keep-alive (5 s)


@pytest.mark.parametrize(
    "raw",
    [
        b"POST /v1/scopes/x/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n",
        b"POST /v1/scopes/x/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
        b"THIS IS NOT HTTP\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBroken header line\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 20_000,  # over 16 KiB, still unfinished
    ],
    ids=["content-length-not-a-number", "two-content-lengths", "not-a-request-line", "no-colon", "huge-header"],
)
def test_malformed_requests_get_the_json_error_shape(port: int, raw: bytes) -> None:
    with connect(port) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(raw)  # the server may answer and close before all of it is written
        response, _ = read_until_closed(sock)
    body = assert_json_error(response, 400, "bad_request")
    assert "HTTP" in body["error"]


def test_the_server_stops_cleanly_while_a_refused_client_stays_connected(
    mem: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    with serving(create_app(mem), request_timeout=TIMEOUT) as port, connect(port) as sock:
        sock.sendall(b"THIS IS NOT HTTP\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 400")
        # leave the socket open while the server shuts down (serving's exit checks it stops)
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []
