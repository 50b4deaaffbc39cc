"""Recall's options as command-line options, shared by ``reverie recall`` and ``reverie context``.

Why one decorator: ``context`` took only ``--budget`` and ``--k``, and ``recall`` a third of what
``Memory.recall`` takes (outside probe 5, finding 9). Both now take every option the Python API
and the HTTP / MCP faces take, named as there (``reverie.recall.options_json``); the values are
converted as the JSON faces convert them and checked by ``Memory``, so a bad one reads the same
everywhere. ``tests/test_face_options.py`` compares the commands to ``Memory``'s signatures.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Any, TypeVar

import click

from reverie import InvalidInputError, InvalidQueryError
from reverie.cli.parse import FLOAT, iso_time, json_object
from reverie.model.item import TIERS
from reverie.model.query import Filter
from reverie.model.query_json import parse_filter
from reverie.recall.engine import CONTRADICTION_MODES, MODES
from reverie.recall.options_json import DESCRIPTIONS, recall_args
from reverie.recall.shortcuts import shortcut_filter

F = TypeVar("F", bound=Callable[..., Any])


class ListedChoice(click.Choice[str]):
    """A ``click.Choice`` that lists its choices (help, completion) but lets any value through.

    Why: click refused ``--mode fast`` itself, as ``error[usage]`` in click's words; ``Memory`` refuses
    it as ``error[invalid_input]`` in the words Python, HTTP and MCP show (``tests/test_face_options.py``).
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return value


_OPTIONS = (
    click.option("--mode", type=ListedChoice(MODES), default="hybrid", show_default=True, help=DESCRIPTIONS["mode"]),
    click.option("--where", help='A JSON filter in the query algebra, e.g. \'{"kind": "policy"}\'.'),
    click.option(
        "--kind", "kind", multiple=True, help="Only this kind (repeatable: any of them); AND-ed with --where."
    ),
    click.option("--source", "source", multiple=True, help="Only this source (repeatable: any of them)."),
    click.option("--tag", "tag", multiple=True, help="Only items with this tag (repeatable: any of them)."),
    click.option("--as-of", help="What was believed at this ISO-8601 time (UTC if no offset); records no use."),
    click.option("--valid-at", help="Only what was true in the world at this ISO-8601 time (valid time)."),
    click.option("--include-history", is_flag=True, help="Also closed (superseded, forgotten) versions."),
    click.option(
        "--tier",
        "tiers",
        type=ListedChoice(TIERS),
        multiple=True,
        help="Tiers to search (default active and durable; repeatable).",
    ),
    click.option("--contradictions", type=ListedChoice(CONTRADICTION_MODES), help=DESCRIPTIONS["contradictions"]),
    click.option("--weights", help="A JSON object: " + DESCRIPTIONS["weights"]),
    click.option("--diversity", help="A JSON object: " + DESCRIPTIONS["diversity"]),
    click.option("--min-authority", type=FLOAT, help=DESCRIPTIONS["min_authority"]),
    click.option("--record-use/--no-record-use", default=True, show_default=True, help="Count the answer as a use."),
)


_EXAMPLE = '{"author": 0.5}'


def recall_options(f: F) -> F:
    """Add recall's options to a command; its function receives them as keyword arguments."""
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


def recall_kwargs(given: dict[str, Any]) -> dict[str, Any]:
    """``Memory.recall`` keywords from the options' values (None and empty left out: ``Memory``'s defaults),
    ``--where`` AND-ed with ``--kind`` / ``--source`` / ``--tag`` (the shortcuts every face names alike)."""
    doc = dict(given)
    doc["as_of"] = iso_time(doc.get("as_of"), "--as-of")
    doc["valid_at"] = iso_time(doc.get("valid_at"), "--valid-at")
    doc["tiers"] = doc.get("tiers") or None
    for name in ("weights", "diversity"):
        doc[name] = json_object(doc.get(name), f"--{name}", _EXAMPLE, InvalidInputError, InvalidInputError)
    return {**recall_args(doc), "where": shortcut_filter(doc, where_filter(doc.get("where")))}


def where_filter(text: str | None) -> Filter | None:
    """``--where``: a JSON filter (``reverie.model.query_json``; a time without an offset is UTC), for
    ``recall`` / ``context`` and ``list`` alike, refused as ``invalid_query`` in the algebra's words."""
    where = json_object(text, "--where", _EXAMPLE, InvalidQueryError, InvalidQueryError)
    return parse_filter(where, naive=UTC) if where is not None else None
