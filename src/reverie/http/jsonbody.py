"""Reading a JSON request body strictly: a repeated key or an over-long integer is refused by name.

Why not FastAPI's own reading (``json.loads``): it keeps the last of two equal keys without a
word (``{"text": "first", "text": "second"}`` stored "second", though JSON readers disagree on
which one counts, so a proxy or a log may have seen "first"), and an integer past Python's 4300
digits came back as "the body could not be read as JSON" — a valid body, refused for a reason it
did not name (outside tester, finding 11).

Each route of a ``/v1`` router is a ``StrictJSONRoute``: its handler reads the body through
``loads``. FastAPI turns any exception from reading a body into a 400 chained to it, and
``errors.py`` answers one chained to a ``ReverieError`` with that error's code and message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from reverie.errors import InvalidInputError, LimitExceededError
from reverie.limits import DEFAULT_LIMITS, Limits
from reverie.model.json_numbers import Unheld, held_float, refuse_unheld
from reverie.model.validate import unique_keys


def loads(body: bytes | str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """``json.loads`` that refuses a key repeated in one object, an integer over ``Limits.max_int_digits``
    and a number no float holds (``held_float``)."""
    unheld: list[str] = []

    def number(text: str) -> float | str:
        try:
            return held_float(text)
        except InvalidInputError:
            unheld.append(text)
            return Unheld(text)

    doc = json.loads(
        body, object_pairs_hook=unique_keys("the body"), parse_int=partial(bounded_int, limits), parse_float=number
    )
    if unheld:  # walk only then: the refusal names the field ("importance holds the number 1e-400…")
        refuse_unheld(doc, "the body")
    return doc


def bounded_int(limits: Limits, text: str) -> int:
    """An integer literal of the body, refused by its length before Python converts it."""
    digits = len(text) - text.startswith("-")
    if digits > limits.max_int_digits:
        raise LimitExceededError(
            f"the body holds an integer of {digits} digits; the limit is Limits.max_int_digits "
            f"({limits.max_int_digits}): send a number that long as a string"
        )
    return int(text)


class StrictJSONRequest(Request):
    """A request whose ``json()`` is ``loads`` under the served memory's ``Limits``."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            limits = getattr(getattr(self.app.state, "mem", None), "limits", DEFAULT_LIMITS)
            self._json = loads(await self.body(), limits)
        return self._json


class StrictJSONRoute(APIRoute):
    """A route that reads its body as a ``StrictJSONRequest`` (FastAPI's documented custom-route hook)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict


__all__ = ["StrictJSONRequest", "StrictJSONRoute", "loads"]
