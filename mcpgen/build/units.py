"""Units a spec states for a number, and whether a parameter name already carries them (T5).

Used by `init` (to propose `timeout` -> `timeout_s`) and by `lint` (to flag numeric parameters whose
description names a unit their name does not). Detection is deliberately narrow: a unit word counts
only in phrases that attach it to the value ("in seconds", "number of days", "(bytes)"), so a passing
mention elsewhere in a description does not rename anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Unit:
    suffix: str  # appended to the name: 'timeout' -> 'timeout_s'
    label: str  # how messages say it: "'timeout' is in seconds"
    carried_by: frozenset[str]  # name tokens that already say it


def _unit(suffix: str, label: str, *tokens: str) -> Unit:
    return Unit(suffix, label, frozenset({suffix, *tokens}))


UNIX = _unit("unix", "a Unix timestamp", "epoch", "timestamp", "ts")
MINOR = _unit("minor", "in the smallest currency unit", "cents", "cent", "minor_units")
CENTS = _unit("cents", "in cents", "cent", "minor")
MS = _unit("ms", "in milliseconds", "millis", "msec", "milliseconds")
SECONDS = _unit("s", "in seconds", "sec", "secs", "second", "seconds")
MINUTES = _unit("min", "in minutes", "mins", "minute", "minutes")
HOURS = _unit("h", "in hours", "hr", "hrs", "hour", "hours")
DAYS = _unit("days", "in days", "day")
BYTES = _unit("bytes", "in bytes", "byte", "b", "kb", "mb", "gb")
PERCENT = _unit("pct", "in percent", "percent", "percentage")

# A unit word attached to the value; most specific first ("milliseconds" before "seconds").
_WORDS: tuple[tuple[str, Unit], ...] = (
    (r"unix (?:epoch )?(?:time|timestamp)s?|epoch (?:time|timestamp)|since (?:the )?(?:unix )?epoch", UNIX),
    (r"smallest currency unit", MINOR),
    (r"cents", CENTS),
    (r"milliseconds?", MS),
    (r"seconds?", SECONDS),
    (r"minutes?", MINUTES),
    (r"hours?", HOURS),
    (r"days?", DAYS),
    (r"bytes?", BYTES),
    (r"percent(?:age)?", PERCENT),
)
_ATTACHED = r"(?:\b(?:in|of|as|number of|amount of|count of|measured in|expressed in)\s+|\(\s*(?:in\s+)?)"
_PATTERNS = tuple(
    (re.compile(_ATTACHED + f"(?:the\\s+)?(?:{word})\\b", re.IGNORECASE), unit) for word, unit in _WORDS
)
_UNIX_ANYWHERE = re.compile(_WORDS[0][0], re.IGNORECASE)
_CURRENCY = re.compile(r"\b(?:in\s+)?(KRW|USD|EUR|JPY|GBP|CNY|INR|CHF|CAD|AUD)\b")

# `x-unit` / `format` values that name a unit.
_NAMED = {
    "s": SECONDS, "sec": SECONDS, "second": SECONDS, "seconds": SECONDS,
    "ms": MS, "millisecond": MS, "milliseconds": MS,
    "min": MINUTES, "minute": MINUTES, "minutes": MINUTES,
    "h": HOURS, "hour": HOURS, "hours": HOURS,
    "day": DAYS, "days": DAYS,
    "byte": BYTES, "bytes": BYTES,
    "percent": PERCENT, "%": PERCENT,
    "cents": CENTS, "cent": CENTS,
    "unix-time": UNIX, "unix-timestamp": UNIX, "timestamp": UNIX, "epoch": UNIX,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class UnitHint:
    unit: Unit
    evidence: str  # what the spec says, for the comment or message: "'in seconds' in the description"


def is_numeric(schema: dict[str, Any]) -> bool:
    """A number and nothing else (null aside): 'string or number' values are not renamed for a unit."""
    type_ = schema.get("type")
    types = [t for t in (type_ if isinstance(type_, list) else [type_]) if t != "null"]
    return bool(types) and all(t in ("integer", "number") for t in types)


def stated_unit(schema: dict[str, Any], description: str, x_unit: Any = None) -> UnitHint | None:
    """The unit the spec states for a numeric value, from `x-unit`, `format`, or the description."""
    if isinstance(x_unit, str) and x_unit.strip():
        unit = _NAMED.get(x_unit.strip().lower()) or _currency_unit(x_unit.strip())
        if unit is not None:
            return UnitHint(unit, f"x-unit: {x_unit.strip()}")
    if not is_numeric(schema):
        return None
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt.lower() in _NAMED:
        return UnitHint(_NAMED[fmt.lower()], f"format: {fmt}")
    text = " ".join(description.split())
    if not text:
        return None
    if _UNIX_ANYWHERE.search(text):
        return UnitHint(UNIX, "a Unix timestamp in the description")
    for pattern, unit in _PATTERNS:
        found = pattern.search(text)
        if found:
            return UnitHint(unit, f"'{found.group(0).strip(' (')}' in the description")
    currency = _CURRENCY.search(text)
    if currency:
        code = currency.group(1)
        return UnitHint(_currency_unit(code), f"'{code}' in the description")  # type: ignore[arg-type]
    return None


def _currency_unit(code: str) -> Unit | None:
    if re.fullmatch(r"[A-Z]{3}", code):
        return _unit(code.lower(), f"in {code}")
    return None


def carries(name: str, unit: Unit) -> bool:
    """Does the (snake_case) name already say the unit? 'timeout_s', 'retention_days', 'size_in_bytes'."""
    tokens = name.lower().split("_")
    return any(t in unit.carried_by for t in tokens)


def with_unit(name: str, unit: Unit) -> str:
    return f"{name}_{unit.suffix}"
