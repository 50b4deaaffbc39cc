"""A real OpenAI-compatible embeddings server on 127.0.0.1, for the endpoint embedder's tests.

Each test installs route handlers (path -> reply function); every request is recorded so a
test can assert what was (and what was not) sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


Route = Callable[[Request], Reply]


def toy_vector(text: str) -> list[float]:
    """A deterministic, text-dependent 4-d vector, so tests can check which row went where."""
    return [float(len(text)), float(text.count("a")), 1.0, float(sum(map(ord, text)) % 7)]


def embeddings_reply(request: Request, *, reverse: bool = True, vector: Callable[[str], Any] = toy_vector) -> Reply:
    """The OpenAI response shape; reversed order with explicit indices by default."""
    items = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(request.body["input"])]
    if reverse:
        items.reverse()
    doc = {"object": "list", "data": items, "model": request.body["model"]}
    return json_reply(doc)


def json_reply(doc: Any, status: int = 200) -> Reply:
    return Reply(status, json.dumps(doc).encode(), {"Content-Type": "application/json"})


class FakeServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {"/v1/embeddings": embeddings_reply}
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},  # shutdown() waits up to one poll interval
            name="fake-embed-server",
            daemon=True,
        )

    def url(self, path: str = "/v1/embeddings") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def handle(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
        route = self.routes.get(request.path)
        return route(request) if route else Reply(404, b'{"error": "no such route"}')

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def _handler_for(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw or b"null"))
            reply = server.handle(request)
            self.send_response(reply.status)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

    return Handler
