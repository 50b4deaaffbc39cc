"""Embedders: text to unit-length float32 vectors, behind one ``Embedder`` protocol.

- ``MiniLMEmbedder``: the default; all-MiniLM-L6-v2 int8 ONNX, local, offline, 384-d.
- ``OpenAICompatibleEmbedder``: any ``/v1/embeddings`` endpoint, behind an SSRF guard
  (``validate_endpoint_url``).
- ``HashEmbedder``: deterministic feature hashing, no model; for tests and benchmarks.

Importing this package loads nothing: models load on first use.
"""

from __future__ import annotations

import threading

from reverie.embed.base import Embedder
from reverie.embed.hashing import HashEmbedder
from reverie.embed.minilm import MiniLMEmbedder
from reverie.embed.netguard import validate_endpoint_url
from reverie.embed.openai_compat import OpenAICompatibleEmbedder

_default: MiniLMEmbedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> MiniLMEmbedder:
    """The process-wide MiniLM embedder, created on first call and shared after.

    One instance per process because each holds its own ONNX session (~25 MB and a thread
    pool); every ``Memory`` using the default shares it.
    """
    global _default
    with _default_lock:
        if _default is None:
            _default = MiniLMEmbedder()
        return _default


__all__ = [
    "Embedder",
    "HashEmbedder",
    "MiniLMEmbedder",
    "OpenAICompatibleEmbedder",
    "default_embedder",
    "validate_endpoint_url",
]
