"""The ``reverie`` command line: a thin adapter over ``reverie.Memory`` (it imports nothing else).

Commands live in ``write`` (changes), ``read`` (queries) and ``ops`` (doctor, reindex, export,
import); ``app`` holds the group, the global options and the error boundary. The user-facing
documentation is ``README_SECTION.md`` (a test checks it names every command).
"""

from __future__ import annotations

from reverie.cli.app import cli, main

__all__ = ["cli", "main"]
