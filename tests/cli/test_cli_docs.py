"""The CLI is documented (every command, every global option) and installed as a console script."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click

from reverie.cli import cli

README = Path(__file__).resolve().parents[2] / "README.md"


def _cli_section() -> str:
    """The README's ``## CLI`` section, up to the next second-level heading."""
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## CLI\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_every_command_is_documented_in_the_readme_section() -> None:
    text = _cli_section()
    documented = set(re.findall(r"`reverie ([a-z][a-z-]*)", text))
    missing = sorted(set(cli.commands) - documented)
    assert not missing, f"commands missing from README.md's CLI section: {missing}"


def test_every_global_option_and_variable_is_documented() -> None:
    text = _cli_section()
    for param in cli.params:
        if isinstance(param, click.Option):
            for opt in param.opts:
                if opt.startswith("--"):
                    assert f"`{opt}" in text, opt
    for name in ("REVERIE_DB", "REVERIE_SCOPE", "REVERIE_EMBEDDER", "./reverie.db"):
        assert name in text


def test_installed_console_script_runs() -> None:
    script = Path(sys.executable).with_name("reverie")
    assert script.exists(), "run `pip install -e .` (scripts/bootstrap) to install the reverie console script"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert "Usage: reverie" in done.stdout
    for name in ("remember", "recall", "export", "import"):
        assert name in done.stdout
