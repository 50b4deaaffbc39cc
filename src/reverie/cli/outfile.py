"""``--out FILE`` of the export commands: checked against the one rule, then written atomically.

Why one place: ``export`` and ``slice export`` each wrote ``FILE.partial`` and renamed it over
``FILE`` without asking what ``FILE`` was, so ``--out agent.db`` replaced the store being exported
(outside probe 5 #1). The path is checked by ``reverie.outfiles`` (never the store, its
companions, or another SQLite database) before the store is even opened, and so is the
``FILE.partial`` the export is first written to (it is renamed over ``FILE`` when complete).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from reverie.cli.state import CliError, State
from reverie.outfiles import check_output_file


def check_out(st: State, out: Path | None, what: str) -> None:
    """Refuse (``invalid_input``, exit 2) an ``--out`` that names the store or any SQLite database."""
    if out is not None:
        check_output_file(str(out), st.db, what=what, option="--out")
        check_output_file(str(_partial(out)), st.db, what=what, option="--out's temporary file")


def write_out(st: State, out: Path, fill: Callable[[TextIO], int]) -> int:
    """Write ``out`` atomically with ``fill`` (which returns its count); a failure leaves no file."""
    check_out(st, out, "the export")  # again, right before the write (the store is open by now)
    tmp = _partial(out)
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            count = fill(fh)
        os.replace(tmp, out)  # a failed export never leaves a truncated file under the real name
    except OSError as exc:
        # Name the path the user gave: the temp file is ours, and its name only confuses.
        reason = exc.strerror or type(exc).__name__
        raise CliError("io", f"cannot write {out}: {reason} (does its folder exist, is it writable?)", st.json) from exc
    finally:
        tmp.unlink(missing_ok=True)
    return count


def _partial(out: Path) -> Path:
    return out.with_name(out.name + ".partial")


__all__ = ["check_out", "write_out"]
