"""Which place lies inside which: "Plovdiv" is in "Bulgaria", "Cardiff" in "Wales", "Buenos
Aires" in "South America".

Why the rules need it: "held in Bulgaria" / "held in Plovdiv" share no word, so word overlap
calls them two values of a one-value slot, a contradiction, while a reader knows the second only
says more. Containment is the one piece of world knowledge that turns such a pair into a
refinement; it never makes a conflict (two cities in two countries stay what the rules say).

The table (``data/places.tsv``, ~6,500 names, 90 KiB, built by ``scripts/build_places.py`` from
GeoNames, CC BY 4.0) holds continents, countries, US states, the UK's nations and every city of
at least 100,000 people. A name with several readings ("Georgia", "Birmingham") keeps them all;
containment holds if any reading of one lies inside any reading of the other. Loaded once, on
first use.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

_MAX_WORDS = 4  # "Bosnia and Herzegovina", "United States of America" are the longest kept


def _key(words: Sequence[str]) -> str:
    """Case, accents, dots and hyphens folded: "Saint-Étienne" == "saint etienne"."""
    text = " ".join(words).replace("-", " ").replace(".", "")
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(text.casefold().split())


@dataclass(frozen=True)
class _Places:
    names: dict[str, frozenset[str]]  # folded name -> every node it may name
    parents: dict[str, frozenset[str]]  # node -> the nodes it lies directly inside


@cache
def _places() -> _Places:
    names: dict[str, set[str]] = {}
    parents: dict[str, set[str]] = {}
    text = resources.files("reverie.conflict").joinpath("data/places.tsv").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, code, inside = line.split("\t")
        node = code or f"city:{_key([name])}:{inside}"  # cities have no code of their own
        names.setdefault(_key([name]), set()).add(node)
        if inside:
            parents.setdefault(node, set()).add(inside)
    return _Places({k: frozenset(v) for k, v in names.items()}, {k: frozenset(v) for k, v in parents.items()})


@cache
def _ancestors(node: str) -> frozenset[str]:
    parents = _places().parents
    seen: set[str] = set()
    todo = [node]
    while todo:
        for parent in parents.get(todo.pop(), ()):
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return frozenset(seen)


def readings(name: Sequence[str]) -> frozenset[str]:
    """The places a name (as words) may be; empty when it names none the table knows."""
    return _places().names.get(_key(name), frozenset())


def is_place(name: str) -> bool:
    """Does ``name`` (as said, e.g. "New York") name a place the table knows?"""
    return bool(readings(name.split()))


def places_in(words: Sequence[str]) -> list[tuple[int, int, frozenset[str]]]:
    """Known place names among ``words``, longest first, not overlapping: (start, stop, readings)."""
    table = _places().names
    out: list[tuple[int, int, frozenset[str]]] = []
    i = 0
    while i < len(words):
        for n in range(min(_MAX_WORDS, len(words) - i), 0, -1):
            found = table.get(_key(words[i : i + n]))
            if found:
                out.append((i, i + n, found))
                i += n
                break
        else:
            i += 1
    return out


def within(inner: frozenset[str], outer: frozenset[str]) -> bool:
    """Some reading of ``inner`` lies inside some reading of ``outer`` (never itself)."""
    return any(o in _ancestors(i) for i in inner for o in outer)


def nested(a: frozenset[str], b: frozenset[str]) -> bool:
    """One of the two places lies inside the other."""
    return within(a, b) or within(b, a)


def most_specific(words: Sequence[str]) -> tuple[frozenset[str], ...]:
    """The places named in ``words`` that contain no other place named there ("Plovdiv, Bulgaria"
    -> Plovdiv): what the phrase finally points at. Cached: a claim meets many candidates."""
    return _most_specific(tuple(words))


@lru_cache(maxsize=4096)
def _most_specific(words: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    found = [r for _, _, r in places_in(words)]
    return tuple(r for r in found if not any(other is not r and within(other, r) for other in found))


def refines(a: Sequence[str], b: Sequence[str]) -> bool:
    """Both phrases point at one place each, and one place lies inside the other ("Bulgaria" /
    "Plovdiv"); the same place, or places side by side ("Plovdiv" / "Sofia"), are not refinements."""
    pa, pb = most_specific(a), most_specific(b)
    return len(pa) == 1 and len(pb) == 1 and not (pa[0] & pb[0]) and nested(pa[0], pb[0])
