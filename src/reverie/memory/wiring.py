"""``delegate``: how ``Memory`` hands a method to the capability that implements it.

Why not mixins: a capability is an object built with exactly the state it needs (``Core`` and
the capabilities it calls), so the facade's class body is only a table of which capability
answers which verb. ``delegate`` keeps the method's signature, docstring and types (``mypy``
sees the bound signature; ``help(Memory)`` and ``inspect.signature`` show the real parameters).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def delegate(capability: str, method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A method of the facade that calls ``method`` on the facade's attribute ``capability``."""

    @functools.wraps(method)
    def call(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(getattr(self, capability), *args, **kwargs)

    return call
