"""Units, their dimensions and conversion factors, and how much rounding to forgive.

Why a forgiveness table: people convert loosely. "1 GB" is 1,000 or 1,024 MB depending on who
speaks; "a month" is 28 to 31 days; "39 °F" is "about 4 °C". Exact comparison would turn every
such restatement into a false contradiction, so each kind of conversion gets its own slack,
and no slack at all when both sides use the same unit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    """A unit: its dimension, canonical key, and how to reach base units (value+offset)*factor."""

    dim: str
    key: str
    factor: float
    offset: float = 0.0


@dataclass(frozen=True)
class Slack:
    """How far apart two converted values may be and still count as the same."""

    relative: float
    absolute: float


_DAY = 86400.0


def _table() -> dict[str, Unit]:
    t: dict[str, Unit] = {}

    def put(dim: str, key: str, factor: float, *names: str, offset: float = 0.0) -> None:
        for name in names:
            t[name] = Unit(dim, key, factor, offset)

    put("time", "ms", 0.001, "ms", "msec", "millisecond", "milliseconds")
    put("time", "s", 1.0, "s", "sec", "secs", "second", "seconds")
    put("time", "min", 60.0, "min", "mins", "minute", "minutes")
    put("time", "h", 3600.0, "h", "hr", "hrs", "hour", "hours")
    put("time", "d", _DAY, "d", "day", "days")
    put("time", "wk", 7 * _DAY, "wk", "wks", "week", "weeks")
    put("time", "mo", 30.4375 * _DAY, "mo", "month", "months")
    put("time", "yr", 365.25 * _DAY, "yr", "yrs", "year", "years")
    put("data", "b", 1.0, "byte", "bytes")
    put("data", "kb", 1e3, "kb", "kilobyte", "kilobytes")
    put("data", "mb", 1e6, "mb", "megabyte", "megabytes")
    put("data", "gb", 1e9, "gb", "gigabyte", "gigabytes")
    put("data", "tb", 1e12, "tb", "terabyte", "terabytes")
    put("data", "pb", 1e15, "pb", "petabyte", "petabytes")
    put("data", "kib", 1024.0, "kib")
    put("data", "mib", 1024.0**2, "mib")
    put("data", "gib", 1024.0**3, "gib")
    put("data", "tib", 1024.0**4, "tib")
    put("length", "mm", 0.001, "mm", "millimeter", "millimeters", "millimetre", "millimetres")
    put("length", "cm", 0.01, "cm", "centimeter", "centimeters", "centimetre", "centimetres")
    put("length", "m", 1.0, "meter", "meters", "metre", "metres")
    put("length", "km", 1000.0, "km", "kms", "kilometer", "kilometers", "kilometre", "kilometres")
    put("length", "mi", 1609.344, "mi", "mile", "miles")
    put("length", "ft", 0.3048, "ft", "foot", "feet")
    put("length", "in", 0.0254, "inch", "inches")
    put("mass", "mg", 0.001, "mg", "milligram", "milligrams")
    put("mass", "g", 1.0, "g", "gram", "grams")
    put("mass", "kg", 1000.0, "kg", "kgs", "kilo", "kilos", "kilogram", "kilograms")
    put("mass", "t", 1e6, "tonne", "tonnes")
    put("mass", "lb", 453.59237, "lb", "lbs", "pound", "pounds")
    put("mass", "oz", 28.349523125, "oz", "ounce", "ounces")
    put("volume", "ml", 0.001, "ml", "millilitre", "millilitres", "milliliter", "milliliters")
    put("volume", "cl", 0.01, "cl", "centilitre", "centilitres", "centiliter", "centiliters")
    put("volume", "l", 1.0, "litre", "litres", "liter", "liters")
    put("volume", "gal", 3.785411784, "gallon", "gallons")
    put("temp", "c", 1.0, "°c", "celsius")
    put("temp", "f", 5.0 / 9.0, "°f", "fahrenheit", offset=-32.0)
    put("percent", "%", 1.0, "%", "percent", "pct")
    put("money:usd", "usd", 1.0, "usd", "dollar", "dollars")
    put("money:eur", "eur", 1.0, "eur", "euro", "euros")
    put("money:gbp", "gbp", 1.0, "gbp")
    put("money:jpy", "jpy", 1.0, "jpy", "yen")
    put("rate", "rps", 1.0, "rps", "qps")
    # Power, energy, frequency, speed and area, as infrastructure, devices and homes are described.
    # "mw" is megawatts: case is folded, and power stations are spoken of far more than milliwatts.
    put("power", "w", 1.0, "w", "watt", "watts")
    put("power", "kw", 1e3, "kw", "kilowatt", "kilowatts")
    put("power", "mw", 1e6, "mw", "megawatt", "megawatts")
    put("power", "gw", 1e9, "gw", "gigawatt", "gigawatts")
    put("energy", "wh", 1.0, "wh")
    put("energy", "kwh", 1e3, "kwh")
    put("energy", "mwh", 1e6, "mwh")
    put("energy", "gwh", 1e9, "gwh")
    put("frequency", "hz", 1.0, "hz", "hertz")
    put("frequency", "khz", 1e3, "khz", "kilohertz")
    put("frequency", "mhz", 1e6, "mhz", "megahertz")
    put("frequency", "ghz", 1e9, "ghz", "gigahertz")
    put("length/time", "km/h", 1 / 3.6, "kph", "kmh")  # as "km/h" reads: a length per time
    put("length/time", "mi/h", 0.44704, "mph")
    put("area", "m2", 1.0, "m²", "m2", "sqm")
    put("area", "km2", 1e6, "km²", "km2")
    put("area", "ft2", 0.09290304, "sqft")
    put("area", "ha", 1e4, "ha", "hectare", "hectares")
    put("area", "acre", 4046.8564224, "acre", "acres")
    return t


_UNITS = _table()
_CURRENCY_SYMBOLS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"}
MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "million": 1e6, "billion": 1e9}
NUMBER_WORDS: dict[str, float] = {
    word: float(n)
    for n, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70})
NUMBER_WORDS.update({"eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "dozen": 12})
# Count nouns that name the same thing ("3 kids" and "3 children").
_COUNT_SYNONYMS = {"kid": "child", "child": "child", "person": "person", "folk": "person", "pupil": "student"}


def lookup(surface: str) -> Unit | None:
    """The unit a lower-cased token names, if any."""
    return _UNITS.get(surface)


def squared(length: Unit) -> Unit:
    """ "square metres", "sq ft": an area in the square of a length unit."""
    return Unit("area", f"{length.key}2", length.factor**2)


def time_unit(surface: str) -> Unit | None:
    unit = _UNITS.get(surface)
    return unit if unit is not None and unit.dim == "time" else None


def currency_symbol(surface: str) -> str | None:
    return _CURRENCY_SYMBOLS.get(surface)


def currency_unit(code: str) -> Unit:
    return Unit(f"money:{code}", code, 1.0)


def count_key(stemmed: str) -> str:
    return _COUNT_SYNONYMS.get(stemmed, stemmed)


def tolerance(dim: str, key_a: str, key_b: str) -> Slack:
    """The slack for comparing two values of ``dim`` written in units ``key_a`` and ``key_b``."""
    if key_a == key_b:
        return Slack(1e-9, 0.0)
    if dim == "temp":
        return Slack(0.0, 0.5)
    if dim.startswith("data"):
        return Slack(0.075, 0.0)
    parts = set(key_a.split("/")) | set(key_b.split("/"))
    if parts & {"mo", "yr"}:
        return Slack(0.1, 0.0)
    return Slack(0.01, 0.0)
