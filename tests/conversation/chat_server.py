"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for the LLM extractor's tests.

``reply`` decides what the "model" says to each request; every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(content: str) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}).encode()


class ChatServer:
    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.reply: Callable[[Any], tuple[int, bytes]] = lambda body: (200, completion('{"claims": []}'))
        self.delay = 0.0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    def url(self, path: str = "/v1") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            body = json.loads(raw or b"null")
            server.requests.append({"path": self.path, "body": body})
            if server.delay:
                time.sleep(server.delay)
            status, payload = server.reply(body)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:  # the client gave up (a timeout test)
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
