"""reverie's HTTP face: a JSON API under ``/v1`` and a server-rendered review page at ``/``.

``create_app(mem)`` builds the ASGI app over an open ``Memory``; ``serve(db_path)`` opens a
store and runs it with uvicorn on loopback. See ``app`` for the security defaults.
"""

from reverie.http.app import create_app, serve

__all__ = ["create_app", "serve"]
