"""Unit conversions a mapping can declare on a parameter (T5): the agent speaks kg, the API wants g.

The factor is how many upstream units make one agent unit, so the server sends `value * factor`.
Only same-dimension pairs are known; currencies convert to and from their cents. Anything else
needs an explicit `factor` in the mapping, so no conversion is ever guessed.
"""

from __future__ import annotations

import re
from fractions import Fraction

# unit -> (dimension, size in the dimension's base unit)
_KNOWN: dict[str, tuple[str, Fraction]] = {
    "mg": ("mass", Fraction(1, 1000)),
    "g": ("mass", Fraction(1)),
    "kg": ("mass", Fraction(1000)),
    "ms": ("time", Fraction(1, 1000)),
    "s": ("time", Fraction(1)),
    "min": ("time", Fraction(60)),
    "h": ("time", Fraction(3600)),
    "days": ("time", Fraction(86400)),
    "mm": ("length", Fraction(1, 1000)),
    "cm": ("length", Fraction(1, 100)),
    "m": ("length", Fraction(1)),
    "km": ("length", Fraction(1000)),
}
_CURRENCY = re.compile(r"^[a-z]{3}$")
_MINOR = ("cents", "cent")

KNOWN_UNITS = (*_KNOWN, "cents", "<currency code>")


def known_factor(agent: str, upstream: str) -> float | None:
    """Upstream units in one agent unit, when mcpgen knows the pair; None otherwise."""
    if agent in _KNOWN and upstream in _KNOWN:
        (dimension, size), (other_dimension, other_size) = _KNOWN[agent], _KNOWN[upstream]
        return _number(size / other_size) if dimension == other_dimension else None
    if _is_currency(agent) and upstream in _MINOR:
        return 100
    if agent in _MINOR and _is_currency(upstream):
        return 0.01
    return None


def _is_currency(unit: str) -> bool:
    return bool(_CURRENCY.match(unit)) and unit not in _KNOWN and unit not in ("min", "day")


def _number(value: Fraction) -> float:
    return int(value) if value.denominator == 1 else float(value)


# How descriptions spell a unit: (plural, singular).
_WORDS = {
    "mg": ("milligrams", "milligram"),
    "g": ("grams", "gram"),
    "kg": ("kilograms", "kilogram"),
    "ms": ("milliseconds", "millisecond"),
    "s": ("seconds", "second"),
    "min": ("minutes", "minute"),
    "h": ("hours", "hour"),
    "days": ("days", "day"),
    "mm": ("millimeters", "millimeter"),
    "cm": ("centimeters", "centimeter"),
    "m": ("meters", "meter"),
    "km": ("kilometers", "kilometer"),
    "cents": ("cents", "cent"),
}


def spelled(unit: str) -> str:
    """'kilograms' for kg, 'USD' for usd: how a sentence names the unit."""
    if unit in _WORDS:
        return _WORDS[unit][0]
    return unit.upper() if _is_currency(unit) else unit


def restate(text: str, upstream: str, agent: str) -> str:
    """The spec's sentence in the agent's unit: 'Weight in grams.' -> 'Weight in kilograms.'.

    The spec describes what the API takes; the agent passes another unit, and a description naming
    both would contradict itself.
    """
    plural, singular = _WORDS.get(upstream, (upstream, upstream))
    new_plural = spelled(agent)
    new_singular = _WORDS[agent][1] if agent in _WORDS else new_plural
    text = re.sub(rf"\b{re.escape(plural)}\b", new_plural, text)
    return re.sub(rf"\b{re.escape(singular)}\b", new_singular, text)
