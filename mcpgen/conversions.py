"""Unit conversions a mapping can declare on a parameter (T5): the agent speaks kg, the API wants g.

The factor is how many upstream units make one agent unit, so the server sends `value * factor`.
Only same-dimension pairs are known. Money converts between a currency and its minor units by the
currency's ISO 4217 decimals (mcpgen/currencies.py): 1 USD = 100 minor units, 1 JPY = 1, 1 KWD = 1000;
an unknown code is refused, never given 100. `major` is "the main unit of whatever currency the call
names" (the factor then depends on the currency value, see `currency_from`). Data sizes are known in
binary steps only (kib, mib, gib, tib): 'mb' and 'gb' mean 1000 or 1024 depending on the API, so they
need an explicit `factor`. Anything else needs an explicit `factor` in the mapping, so no conversion is
ever guessed.
"""

from __future__ import annotations

import re
from fractions import Fraction

from mcpgen.currencies import minor_units

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
    "bytes": ("data", Fraction(1)),
    "kib": ("data", Fraction(2**10)),
    "mib": ("data", Fraction(2**20)),
    "gib": ("data", Fraction(2**30)),
    "tib": ("data", Fraction(2**40)),
}
# Sizes whose step (1000 or 1024) differs between APIs: never guessed.
AMBIGUOUS_SIZES = ("kb", "mb", "gb", "tb")
_CURRENCY = re.compile(r"^[a-z]{3}$")
MINOR = ("minor", "cents", "cent")  # how a mapping names "the currency's smallest unit"
MAJOR = "major"  # the main unit of the currency the call names (currency_from)

KNOWN_UNITS = (*_KNOWN, "minor (cents)", "<ISO 4217 currency code>", "major (with currency_from)")


def known_factor(agent: str, upstream: str) -> float | None:
    """Upstream units in one agent unit, when mcpgen knows the pair; None otherwise."""
    if agent in _KNOWN and upstream in _KNOWN:
        (dimension, size), (other_dimension, other_size) = _KNOWN[agent], _KNOWN[upstream]
        return _number(size / other_size) if dimension == other_dimension else None
    if upstream in MINOR and currency_code(agent):
        return _number(Fraction(10) ** (minor_units(agent) or 0))
    if agent in MINOR and currency_code(upstream):
        return _number(Fraction(1, 10 ** (minor_units(upstream) or 0)))
    return None


def currency_code(unit: str) -> str | None:
    """'JPY' for jpy, when it is an ISO 4217 code; None otherwise."""
    return unit.upper() if minor_units(unit) is not None and unit not in _KNOWN else None


def unknown_currency(agent: str, upstream: str) -> str | None:
    """The three-letter unit that stands where a currency code belongs but is none (KWD yes, XYZ no)."""
    for unit, other in ((agent, upstream), (upstream, agent)):
        if other in MINOR and looks_like_currency(unit) and currency_code(unit) is None:
            return unit
    return None


def looks_like_currency(unit: str) -> bool:
    return bool(_CURRENCY.match(unit)) and unit not in _KNOWN and unit not in ("min", "day", MAJOR)


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
    "minor": ("minor units", "minor unit"),
    "kib": ("KiB", "KiB"),
    "mib": ("MiB", "MiB"),
    "gib": ("GiB", "GiB"),
    "tib": ("TiB", "TiB"),
    "kb": ("KB", "KB"),
    "mb": ("MB", "MB"),
    "gb": ("GB", "GB"),
    "tb": ("TB", "TB"),
}


def spelled(unit: str) -> str:
    """'kilograms' for kg, 'USD' for usd: how a sentence names the unit."""
    if unit in _WORDS:
        return _WORDS[unit][0]
    if unit == MAJOR:
        return "the currency's main unit"
    return unit.upper() if looks_like_currency(unit) else unit


def minor_note(code: str) -> str:
    """'1 JPY = 1 minor unit (JPY has no decimals)': the factor, said where the agent reads it."""
    decimals = minor_units(code)
    if decimals is None:
        return ""
    upper = code.upper()
    if decimals == 0:
        return f"1 {upper} = 1 minor unit ({upper} has no decimals)"
    return f"1 {upper} = {10**decimals} minor units ({upper} has {decimals} decimals)"


def restate(text: str, upstream: str, agent: str) -> str:
    """The spec's sentence in the agent's unit: 'Weight in grams.' -> 'Weight in kilograms.'.

    The spec describes what the API takes; the agent passes another unit, and a description naming
    both would contradict itself. Units a spec spells in capitals ('in MB') are matched as written.
    """
    plural, singular = _WORDS.get(upstream, (upstream, upstream))
    new_plural = spelled(agent)
    new_singular = _WORDS[agent][1] if agent in _WORDS else new_plural
    text = re.sub(rf"\b{re.escape(plural)}\b", new_plural, text)
    text = re.sub(rf"\b{re.escape(singular)}\b", new_singular, text)
    if upstream in _WORDS and upstream != plural:
        text = re.sub(rf"\b{re.escape(upstream.upper())}\b", new_plural, text)
    return text
