"""Shared helpers for the CLI suite: a ``CliRunner`` wrapper with the one error-shape assertion.

The runner clears ``REVERIE_DB`` / ``REVERIE_SCOPE`` / ``REVERIE_EMBEDDER`` so a developer's own
environment can never leak into a test (tests that are *about* those variables set them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from reverie import Limits
from reverie.cli import cli
from reverie.cli.state import State

CLEAN_ENV: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
SCOPE = "user:alice"


class Cli:
    """Runs ``reverie --db <tmp file> --embedder hash --scope user:alice <args>`` in-process."""

    def __init__(self, db: Path, limits: Limits | None = None) -> None:
        self.db = db
        self.limits = limits
        self.runner = CliRunner()

    def raw(self, *args: str, env: dict[str, str | None] | None = None, input: str | None = None) -> Result:
        """No global options added: for tests about the options themselves. ``limits`` (if set) reach
        the ``Memory`` the way a program embedding the CLI gives them: ``obj=State(limits=...)``."""
        obj = State(limits=self.limits) if self.limits is not None else None
        return self.runner.invoke(cli, list(args), env={**CLEAN_ENV, **(env or {})}, input=input, obj=obj)

    def __call__(self, *args: str, scope: str | None = SCOPE, input: str | None = None) -> Result:
        head = ["--db", str(self.db), "--embedder", "hash"] + (["--scope", scope] if scope else [])
        return self.raw(*head, *args, input=input)

    def ok(self, *args: str, scope: str | None = SCOPE, input: str | None = None) -> Result:
        result = self(*args, scope=scope, input=input)
        assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
        assert "Traceback" not in result.output
        return result

    def json(self, *args: str, scope: str | None = SCOPE, input: str | None = None) -> Any:
        return json.loads(self.ok("--json", *args, scope=scope, input=input).stdout)

    def remember(self, text: str, *options: str, scope: str = SCOPE) -> str:
        return str(self.json("remember", text, *options, scope=scope)["item"]["id"])

    def fails(self, exit_code: int, code: str, *args: str, scope: str | None = SCOPE) -> Result:
        """Assert the one error shape: exit code, ``error[code]`` on stderr, no traceback."""
        result = self(*args, scope=scope)
        assert result.exit_code == exit_code, (result.exit_code, result.stdout, result.stderr, result.exception)
        assert f"error[{code}]: " in result.stderr, result.stderr
        assert "Traceback" not in result.output
        return result
