"""The dependency direction of DESIGN.md, checked on the source: each layer imports only what
lies below it. Regression: ``reverie.dream`` imported ``Memory`` (under TYPE_CHECKING and at run
time) while ``Memory`` imported ``reverie.dream`` — a circle between the facade and a layer below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import reverie

SRC = Path(reverie.__file__).parent
#: ``outfiles``: the one rule for a file reverie writes (never a store), used by store and faces alike.
FOUNDATION = {"errors", "limits", "outfiles"}
#: package → the reverie packages it may import (besides itself and ``FOUNDATION``).
ALLOWED: dict[str, set[str]] = {
    "model": set(),
    "store": {"model"},
    "embed": set(),
    "conflict": {"model"},
    "nli": {"conflict", "embed"},  # a model behind conflict.second's protocol, on embed's ONNX set-up
    "recall": {"model", "store"},
    "dream": {"model", "store", "recall", "conflict", "embed"},
    "conversation": {"model", "store", "recall", "embed"},  # embed: netguard, the URL check of llm.py
    "slice": {"model"},
    "memory": {"model", "store", "recall", "conflict", "embed", "dream", "conversation", "slice", "nli"},
    # The vault sits above the facade: it is handed a ``Memory`` and uses its public methods only.
    "vault": {"model", "store", "recall", "conflict", "memory"},
}
#: Packages built over the facade (they may import it; the core below must not import them).
ABOVE_FACADE = {"memory", "vault"}


def _imports(path: Path) -> set[str]:
    """Every ``reverie.<package>`` a module imports, wherever the import statement sits."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "reverie" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_layer_imports_only_what_lies_below_it(package: str) -> None:
    wrong = {}
    for path in sorted((SRC / package).rglob("*.py")):
        bad = _imports(path) - ALLOWED[package] - FOUNDATION - {package}
        if bad:
            wrong[str(path.relative_to(SRC))] = sorted(bad)
    assert wrong == {}


def test_nothing_below_the_facade_imports_it() -> None:
    below = [p for pkg in ALLOWED if pkg not in ABOVE_FACADE for p in (SRC / pkg).rglob("*.py")]
    assert [str(p.relative_to(SRC)) for p in below if "memory" in _imports(p)] == []


def test_the_facade_class_only_wires() -> None:
    """``Memory``'s own body: lifecycle, read-only state, and delegated methods — no logic."""
    tree = ast.parse((SRC / "memory" / "facade.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Memory")
    own = [n.name for n in cls.body if isinstance(n, ast.FunctionDef)]
    assert set(own) <= {
        "__init__",
        "close",
        "__enter__",
        "__exit__",
        "store",
        "clock",
        "limits",
        "embedder",
        "last_dream_report",
        "principal",  # read-only state: whom this memory reads for
        "pending_uses",  # read-only state: recalls' uses another writer's lock kept from being written yet
        "as_principal",  # lifecycle: a view for one principal over the same store
    }
    for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name not in ("__init__", "close")):
        assert len(fn.body) <= 2, f"Memory.{fn.name} holds logic; move it to a capability"
