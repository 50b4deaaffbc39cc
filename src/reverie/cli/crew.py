"""Crew options for the CLI: ``--agent`` / ``--session`` / ``--crew`` on writes and on ``list``.

They are spellings of the documented meta convention (``meta.agent_id`` / ``session_id`` /
``crew_id``, ``reverie.model.query.CREW_META``), so a claim written with ``--agent planner`` is
the same claim as one written with ``--meta '{"agent_id": "planner"}'`` through any face.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from reverie import Filter, InvalidInputError, Q
from reverie.model.query import CREW_META

F = TypeVar("F", bound=Callable[..., Any])

_HELP = {"agent": "the agent that writes", "session": "the agent's session", "crew": "the crew of agents"}


def crew_options(f: F) -> F:
    """``--agent ID``, ``--session ID``, ``--crew ID`` on a write (stored in the item's or edge's meta)."""
    for name in reversed(CREW_META):
        f = click.option(f"--{name}", metavar="ID", help=f"Id of {_HELP[name]} (meta.{CREW_META[name]}).")(f)
    return f


def crew_filter_options(f: F) -> F:
    """``--agent`` / ``--session`` / ``--crew`` on ``list``: repeat one for OR, combine them for AND."""
    for name in reversed(CREW_META):
        option = click.option(
            f"--{name}",
            f"{name}s",
            multiple=True,
            metavar="ID",
            help=f"Only claims written by {_HELP[name]} ID (meta.{CREW_META[name]}; repeatable).",
        )
        f = option(f)
    return f


def with_crew(meta: dict[str, Any] | None, **ids: str | None) -> dict[str, Any] | None:
    """``meta`` with the crew ids given on the command line; one also set in ``--meta`` must agree."""
    given = {CREW_META[name]: v for name, v in ids.items() if v is not None}
    if not given:
        return meta
    out = dict(meta or {})
    for key, value in given.items():
        if key in out and out[key] != value:
            raise InvalidInputError(f"--meta sets {key} to {out[key]!r} but the option says {value!r}; give one")
        out[key] = value
    return out


def crew_filter(where: Filter | None, **ids: Sequence[str]) -> Filter | None:
    """``where`` AND-ed with one crew condition per option given (its values OR-ed)."""
    builders = {"agents": Q.agent, "sessions": Q.session, "crews": Q.crew}
    for name, values in ids.items():
        if values:
            part = builders[name](*values)
            where = part if where is None else where & part
    return where
