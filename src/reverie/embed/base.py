"""The one seam every embedder sits behind, plus the input/output rules they all share.

Recall compares vectors by dot product, so every embedder promises unit-length float32 rows;
the store records ``name`` next to every vector so a database written by one model is never
silently searched with another's query vectors (``EmbedderMismatchError``).

Blank text (empty or whitespace only) embeds to the zero vector in every embedder: there is no
meaning to place in the space, and a zero row has cosine 0 with everything, so it can never
outrank a real match. Any other text gets a unit row.

None of the embedders use BLAS (pooling and normalising are element-wise numpy), so there is no
BLAS thread pool to pin here; ONNX Runtime's own pool is sized explicitly in ``minilm``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from reverie.errors import EmbedderError, InvalidInputError

Matrix = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 rows of a fixed width."""

    @property
    def name(self) -> str:
        """Stable identity of the vector space, recorded in the store (e.g. ``"hash-384/1"``).

        Two embedders with the same name must produce interchangeable vectors; change the
        name (bump the ``/N`` suffix) whenever the output for some text would change.
        """
        ...

    @property
    def dim(self) -> int:
        """Width of every row ``embed`` returns."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Shape ``(len(texts), dim)``, float32, each row L2-normalised (zero only for blank text)."""
        ...


def as_text_list(texts: Sequence[str]) -> list[str]:
    """Check the argument of ``embed`` and copy it to a list.

    A bare ``str`` is a ``Sequence[str]`` too, and embedding it would silently embed each
    character; that mistake is common enough to refuse outright.
    """
    if isinstance(texts, str | bytes):
        raise InvalidInputError("embed() takes a sequence of strings, not a single string: use [text]")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise InvalidInputError(f"embed() texts[{i}] must be str, got {type(text).__name__}")
    return out


def is_blank(text: str) -> bool:
    """Blank text has no meaning to embed and always maps to the zero vector."""
    return not text.strip()


def empty_matrix(dim: int) -> Matrix:
    """The result for an empty input: zero rows, still the right width."""
    return np.zeros((0, dim), dtype=np.float32)


def l2_normalise_rows(matrix: npt.NDArray[np.floating], *, allow_zero: bool = True) -> Matrix:
    """Scale each row to unit length, in float32, leaving zero rows at zero.

    Norms are computed in float64 so that very small or very large components (as a remote
    endpoint may return) do not underflow or overflow before division.
    """
    wide = np.asarray(matrix, dtype=np.float64)
    if not np.isfinite(wide).all():
        raise EmbedderError("embedding contains NaN or infinite values")
    norms = np.sqrt(np.einsum("ij,ij->i", wide, wide))
    if not allow_zero and (norms == 0).any():
        raise EmbedderError("embedding is the zero vector for a non-blank text")
    safe = np.where(norms == 0, 1.0, norms)
    return (wide / safe[:, None]).astype(np.float32)


__all__ = ["Embedder", "Matrix", "as_text_list", "empty_matrix", "is_blank", "l2_normalise_rows"]
