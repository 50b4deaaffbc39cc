"""The public surface, pinned: what ``reverie`` exports, that it is documented, and two
structural rules — every store read takes ``scope`` first, and ``reverie.model`` does no I/O.
"""

from __future__ import annotations

import inspect
import json
import pydoc
import subprocess
import sys
from pathlib import Path

import pytest

import reverie
from reverie import Memory
from reverie.model.reduce_kit import StateView
from reverie.store.protocol import Store
from reverie.store.reference import ReferenceStore
from reverie.store.sqlite import SQLiteStore

EXPECTED_ALL = [
    "Alert",
    "AlreadyClosedError",
    "Candidate",
    "Clock",
    "ClosedError",
    "ConflictError",
    "Contradiction",
    "CorruptStoreError",
    "DismissedValueError",
    "DoctorReport",
    "Edge",
    "EmbedderError",
    "EmbedderMismatchError",
    "Event",
    "Filter",
    "History",
    "Hit",
    "InvalidInputError",
    "InvalidQueryError",
    "InvalidScopeError",
    "InvalidSliceError",
    "InvalidTransitionError",
    "Item",
    "LearningPausedError",
    "LimitExceededError",
    "Limits",
    "ManualClock",
    "Memory",
    "NotFoundError",
    "NotPermittedError",
    "Page",
    "PortInUseError",
    "Provenance",
    "Q",
    "ReadOnlyError",
    "ReaderError",
    "RecallOptions",
    "ReverieError",
    "Scores",
    "SliceConflictError",
    "StorageError",
    "SystemClock",
    "VersionConflictError",
    "Weights",
    "WriteResult",
    "__version__",
]

#: Store methods that are not reads of one scope: writes, lifecycle, whole-store maintenance.
LIFECYCLE = {
    "execute",
    "execute_steps",
    "embedder",
    "set_embedder",
    "reindex",
    "doctor",
    "rebuild",
    "scopes",
    "close",
    "in_atomic",
    "read_snapshot",  # a block over the whole store's reads, as ``atomic`` is over its writes
}


def test_all_is_pinned() -> None:
    assert sorted(reverie.__all__) == EXPECTED_ALL
    assert len(set(reverie.__all__)) == len(reverie.__all__)


def test_every_exported_name_exists() -> None:
    namespace: dict[str, object] = {}
    exec("from reverie import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == EXPECTED_ALL
    assert isinstance(reverie.__version__, str) and reverie.__version__


def _public_members(cls: type) -> list[str]:
    return sorted(name for name, _ in inspect.getmembers(cls) if not name.startswith("_"))


def test_every_public_memory_method_has_a_docstring() -> None:
    missing = [name for name in _public_members(Memory) if not (inspect.getdoc(getattr(Memory, name)) or "").strip()]
    assert missing == []


def test_help_documents_every_public_memory_method() -> None:
    text = pydoc.render_doc(Memory, renderer=pydoc.plaintext)
    for name in _public_members(Memory):
        assert name in text, name
        first_line = (inspect.getdoc(getattr(Memory, name)) or "").splitlines()[0]
        assert first_line in text, name


def test_every_exported_class_has_a_docstring() -> None:
    undocumented = [
        name
        for name in reverie.__all__
        if inspect.isclass(getattr(reverie, name))
        and not name.endswith("Error")  # the error tree is documented in reverie.errors
        and not (getattr(reverie, name).__doc__ or "").strip()
    ]
    assert undocumented == []


def _read_methods(protocol: type) -> list[str]:
    return sorted(
        name
        for name, value in vars(protocol).items()
        if callable(value) and not name.startswith("_") and name not in LIFECYCLE
    )


def test_store_protocol_has_the_expected_reads() -> None:
    reads = _read_methods(Store)
    assert {"get", "get_many", "query", "count", "edges", "events", "paused", "tombstones"} <= set(reads)


@pytest.mark.parametrize("cls", [Store, SQLiteStore, ReferenceStore], ids=lambda c: c.__name__)
def test_every_store_read_takes_scope_first(cls: type) -> None:
    for name in _read_methods(Store):
        params = list(inspect.signature(getattr(cls, name)).parameters.values())[1:]  # drop self
        assert params, f"{cls.__name__}.{name} takes no scope"
        first = params[0]
        assert first.name == "scope", f"{cls.__name__}.{name} starts with {first.name!r}"
        assert first.kind in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD), name
        assert first.default is first.empty, f"{cls.__name__}.{name}: scope must be required"


@pytest.mark.parametrize("cls", [StateView, SQLiteStore, ReferenceStore], ids=lambda c: c.__name__)
def test_every_reducer_read_takes_scope_first(cls: type) -> None:
    for name in _read_methods(StateView):
        params = list(inspect.signature(getattr(cls, name)).parameters.values())[1:]
        assert params[0].name == "scope" and params[0].default is params[0].empty, f"{cls.__name__}.{name}"


@pytest.mark.parametrize("cls", [SQLiteStore, ReferenceStore], ids=lambda c: c.__name__)
def test_backends_implement_the_whole_protocol(cls: type) -> None:
    for name in sorted(n for n, v in vars(Store).items() if callable(v) and not n.startswith("_")):
        assert callable(getattr(cls, name, None)), f"{cls.__name__} lacks {name}"
        want = [p.name for p in inspect.signature(getattr(Store, name)).parameters.values()]
        got = [p.name for p in inspect.signature(getattr(cls, name)).parameters.values()]
        assert got == want, f"{cls.__name__}.{name}{got} != Store.{name}{want}"


IO_MODULES = ["sqlite3", "http", "http.client", "urllib", "urllib.request", "socket", "ssl", "numpy", "onnxruntime"]


def test_model_imports_no_io_module() -> None:
    """``reverie.model`` is pure: importing all of it pulls in no database, network or numeric I/O.

    ``import reverie.model.reducer`` would first run ``reverie/__init__.py`` (the facade, which
    rightly imports the store and embedders), so the check stands a bare ``reverie`` package in
    for it and imports only the model's own modules and what they import.
    """
    src = Path(reverie.__file__).parent
    code = f"""
import json, sys, types
pkg = types.ModuleType("reverie")
pkg.__path__ = [{str(src)!r}]
sys.modules["reverie"] = pkg
before = set(sys.modules)
import reverie.model.reducer, reverie.model.projection, reverie.model.query, reverie.model.validate
import reverie.model.commands, reverie.model.events, reverie.model.item, reverie.model.ids, reverie.model.clock
ours = sorted(m for m in sys.modules if m.startswith("reverie"))
print(json.dumps({{"new": sorted(set(sys.modules) - before), "reverie": ours}}))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded = json.loads(result.stdout)
    assert [m for m in IO_MODULES if m in loaded["new"]] == []
    allowed = {"reverie", "reverie.errors", "reverie.limits"}
    assert [m for m in loaded["reverie"] if m not in allowed and not m.startswith("reverie.model")] == []
    assert "reverie.model.reducer" in loaded["reverie"]


def test_importing_reverie_touches_no_file_and_loads_no_model(tmp_path: Path) -> None:
    code = "import reverie, sys; print('onnxruntime' in sys.modules, 'tokenizers' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60, cwd=tmp_path
    )
    assert result.stdout.split() == ["False", "False"]
    assert list(tmp_path.iterdir()) == []
