"""ONNX Runtime on the CPU, set up once for every local model reverie runs (MiniLM, the NLI reader).

Why shared: the settings are choices measured once — a small intra-op pool, no inter-op
parallelism, and no busy-waiting workers (a spinning pool burns a core between calls inside the
host agent's process; measured here it saves ~0.7 ms on a single sentence and nothing on
batches) — and two copies of them would drift apart.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

_DEFAULT_MAX_THREADS = 2


def cpu_session(ort: Any, model_path: Path, threads: int) -> Any:
    """An ``InferenceSession`` on the CPU provider with reverie's settings (errors pass through)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only; ORT's warnings are not actionable for users
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


def default_threads() -> int:
    """2 threads (measured: ~2x the throughput of 1 for MiniLM), never more than the CPUs we may use."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(_DEFAULT_MAX_THREADS, usable))
