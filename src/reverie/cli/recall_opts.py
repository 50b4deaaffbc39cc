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
from reverie.model.query_json import parse_filter
from reverie.recall.options_json import DESCRIPTIONS, recall_args

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = (
    click.option("--mode", type=click.Choice(["hybrid", "lexical", "dense"]), default="hybrid", show_default=True),
    click.option("--where", help='A JSON filter in the query algebra, e.g. \'{"kind": "policy"}\'.'),
    click.option("--as-of", help="What was believed at this ISO-8601 time (UTC if no offset); records no use."),
    click.option("--valid-at", help="Only what was true in the world at this ISO-8601 time (valid time)."),
    click.option("--include-history", is_flag=True, help="Also closed (superseded, forgotten) versions."),
    click.option("--tier", "tiers", multiple=True, help="Tiers to search (default active and durable; repeatable)."),
    click.option("--contradictions", type=click.Choice(["surface", "filter"]), help=DESCRIPTIONS["contradictions"]),
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
    """``Memory.recall`` keywords from the options' values (None and empty left out: ``Memory``'s defaults)."""
    doc = dict(given)
    doc["as_of"] = iso_time(doc.get("as_of"), "--as-of")
    doc["valid_at"] = iso_time(doc.get("valid_at"), "--valid-at")
    doc["tiers"] = doc.get("tiers") or None
    for name in ("weights", "diversity"):
        doc[name] = json_object(doc.get(name), f"--{name}", _EXAMPLE, InvalidInputError, InvalidInputError)
    where = json_object(doc.get("where"), "--where", _EXAMPLE, InvalidQueryError, InvalidQueryError)
    return {**recall_args(doc), "where": parse_filter(where, naive=UTC) if where is not None else None}
