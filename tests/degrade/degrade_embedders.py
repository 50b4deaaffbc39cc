"""An embedder that can be switched off: the hash embedder, raising ``EmbedderError`` while
``down`` (what a local model whose files vanished does)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reverie.embed import HashEmbedder
from reverie.errors import EmbedderError


class SwitchableEmbedder:
    """The hash embedder, raising ``EmbedderError`` while ``down`` (a model whose files vanished)."""

    def __init__(self) -> None:
        self._inner = HashEmbedder()
        self.down = False
        self.calls = 0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.down:
            raise EmbedderError("model files are missing (test: embedder switched off)")
        return self._inner.embed(texts)
