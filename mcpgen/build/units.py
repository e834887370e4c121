"""Units a spec states for a number, and whether a parameter name already carries them (T5).

Used by `init` (to propose `timeout` -> `timeout_s`) and by `lint` (to flag numeric parameters whose
description names a unit their name does not). Detection is deliberately narrow: a unit word counts
only in phrases that attach it to the value ("in seconds", "number of days", "(bytes)"), so a passing
mention elsewhere in a description does not rename anything.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from mcpgen import codes
from mcpgen.build.schemas import json_type_of
from mcpgen.conversions import MAJOR, minor_note, restate, spelled
from mcpgen.conversions import MINOR as MINOR_NAMES
from mcpgen.diagnostics import Diagnostic, error, rule_name, warning
from mcpgen.ir import FixedValue, ParamSpec, UnitSpec
from mcpgen.load.mapping import ParamRule
from mcpgen.load.unit_rules import UnitRule
from mcpgen.names import snake_case


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


def value_unit(name: str, schema: dict[str, Any], description: str) -> str | None:
    """The unit a number is in, in words ('seconds'): its name's last word (`timeout_s`,
    `retention_days`, `sizeInBytes`), else what the spec states (`x-unit`, `format`, the description);
    None when nothing says, or it is no number. tools.lock.json records it (C1, T5)."""
    if not is_numeric(schema):
        return None
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()) if w]
    for _, unit in _WORDS:
        if words and words[-1] in unit.carried_by:
            return unit_words(unit)
    hint = stated_unit(schema, description, schema.get("x-unit"))
    return unit_words(hint.unit) if hint is not None else None


def named_unit(code: str) -> str:
    """A mapping conversion's unit ('s', 'ms', 'USD') in the words `value_unit` uses ('seconds')."""
    unit = _NAMED.get(code.lower())
    return unit_words(unit) if unit is not None else code


def unit_words(unit: Unit) -> str:
    return unit.label.removeprefix("in ")


def carries(name: str, unit: Unit) -> bool:
    """Does the (snake_case) name already say the unit? 'timeout_s', 'retention_days', 'size_in_bytes'."""
    tokens = name.lower().split("_")
    return any(t in unit.carried_by for t in tokens)


def with_unit(name: str, unit: Unit) -> str:
    return f"{name}_{unit.suffix}"


# ---- conversions a mapping declares (T5): the build's side -------------------------------------------

_SCALED_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "default")
_MONEY_WORDS = re.compile(
    r"smallest (?:currency )?(?:unit|denomination)|\bcents?\b|minor units?|lowest denomination", re.I
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")


def unit_spec(
    schema: dict[str, Any], wire_name: str, rule: UnitRule, arg_name: str
) -> tuple[UnitSpec | None, list[Diagnostic]]:
    """A declared conversion applies to a number, and the name the agent sees carries its unit (T5);
    an amount in the main unit of the call's currency (`major`) is named by the mapping freely, since
    no one unit fits every currency."""
    if not is_numeric(schema):
        return None, [
            error(
                codes.M220,
                f"parameter '{wire_name}' is {json_type_of(schema)}, so it has no unit to convert",
                rule.source,
                hint="remove 'unit' from this parameter",
            )
        ]
    if rule.agent != MAJOR and rule.agent not in arg_name.split("_"):
        return None, [
            error(
                codes.M221,
                f"parameter '{arg_name}' is converted from '{rule.agent}' but its name does not say so "
                f"({rule_name('T5')})",
                rule.source,
                hint=f"name it '{snake_case(wire_name.rsplit('.', 1)[-1])}_{rule.agent}'",
            )
        ]
    type_ = schema.get("type")
    integer = "integer" in (type_ if isinstance(type_, list) else [type_])
    return (
        UnitSpec(
            agent=rule.agent,
            upstream=rule.upstream,
            factor=rule.factor,
            integer=integer or rule.agent == MAJOR,
            as_is=rule.as_is,
        ),
        [],
    )


def in_agent_units(schema: dict[str, Any], unit: UnitSpec) -> dict[str, Any]:
    """The upstream's bounds and default, restated in the agent's unit; fractions allowed when they map
    onto whole upstream units (1.5 kg is 1500 g, 12.34 USD is 1234 cents). A decimal amount is no
    `int64`: the format goes with the whole-number type."""
    out = dict(schema)
    for key in _SCALED_KEYWORDS:
        value = out.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value not in unit.as_is:
            if unit.factor:
                out[key] = to_agent_units(value, unit)
            elif value != 0:
                del out[key]  # money in the call's currency: the bound depends on that currency
    if isinstance(out.get("multipleOf"), float):
        # A fractional multipleOf fails on float rounding (0.3 / 0.1); the API re-checks its own step.
        del out["multipleOf"]
    if unit.integer and (unit.factor > 1 or not unit.factor):
        out["type"] = "number"
        if out.get("format") in ("int32", "int64"):
            del out["format"]
    return out


def to_agent_units(value: Any, unit: UnitSpec) -> Any:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or value in unit.as_is
        or not unit.factor
    ):
        return value
    scaled = value / unit.factor
    return int(scaled) if float(scaled).is_integer() else round(scaled, 9)


_UNNAMED_CURRENCY = "In the main unit of the currency,"  # until `with_currency` names where it is


def unit_description(text: str, unit: UnitSpec, *, own_words: bool) -> str:
    """The spec's sentence in the agent's unit, then what the server does and the factor (T5, T7).

    `own_words`: the mapping wrote the description, so it is kept as written. Otherwise sentences
    about the API's minor units ('in the smallest denomination', 'in cents') are dropped for money,
    since the agent passes the main unit, and other units are restated ('in MB' -> 'in GB')."""
    money = unit.upstream in MINOR_NAMES
    if not own_words:
        if money:
            kept = [s for s in _SENTENCES.split(text) if s and not _MONEY_WORDS.search(s)]
            text = " ".join(kept) if kept else ""
        else:
            text = restate(text, unit.upstream, unit.agent)
    text = text.strip()
    if text and not text.endswith((".", "!", "?")):
        text += "."
    if money and unit.agent == MAJOR:
        text += (
            f" {_UNNAMED_CURRENCY} decimals allowed (12.5 for 12.50 USD, 500 for 500 JPY, "
            f"1.5 for 1.500 KWD). The server sends it in that currency's minor units, by its ISO 4217 "
            f"decimals: 1 USD = 100, 1 JPY = 1, 1 KWD = 1000; a code outside ISO 4217 is refused."
        )
    elif money:
        text += f" In {spelled(unit.agent)}. The server sends it in minor units ({minor_note(unit.agent)})."
    else:
        if spelled(unit.agent) not in text:
            text += f" In {spelled(unit.agent)}."
        text += (
            f" The server converts it to {spelled(unit.upstream)} for the API "
            f"(1 {unit.agent} = {_shown(unit.factor)} {unit.upstream})."
        )
    if unit.as_is:
        values = ", ".join(_shown(v) for v in unit.as_is)
        text += f" {values} {'is' if len(unit.as_is) == 1 else 'are'} sent as is, not converted."
    return text.strip()


def with_currency(
    params: list[ParamSpec], fixed: list[FixedValue], rules: dict[str, ParamRule]
) -> tuple[list[ParamSpec], list[Diagnostic]]:
    """Each `major` amount learns where the call's currency is: an argument, a key inside an object
    argument, or a value the server always sends (`currency_from`)."""
    out: list[ParamSpec] = []
    diagnostics: list[Diagnostic] = []
    for param in params:
        rule = rules.get(param.arg_name)
        unit_rule = rule.unit if rule else None
        if param.unit is None or unit_rule is None or unit_rule.currency_from is None:
            out.append(param)
            continue
        location, _, wire = unit_rule.currency_from.partition(".")
        if location not in ("body", "query", "path", "header", "cookie") or not wire:
            location, wire = param.location, unit_rule.currency_from
        source = _currency_source(wire, params, fixed)
        if source is None:
            names = ", ".join(p.wire_path for p in params if p is not param) or "none"
            diagnostics.append(
                error(
                    codes.M124,
                    f"currency_from '{unit_rule.currency_from}' names no field this action sends",
                    unit_rule.source,
                    hint=f"name the field holding the ISO 4217 code, e.g. 'body.amount_money.currency'; "
                    f"this action's fields: {names}",
                )
            )
            out.append(param)
            continue
        arg, key, value = source
        amount_parent = param.wire_path.rsplit(".", 1)[0] if "." in param.wire_path else ""
        currency_parent = wire.rsplit(".", 1)[0] if "." in wire else ""
        sibling = wire.rsplit(".", 1)[-1] if amount_parent == currency_parent else None
        unit = replace(
            param.unit, currency_arg=arg, currency_key=key, currency_fixed=value, currency_sibling=sibling
        )
        out.append(replace(param, unit=unit, schema=_described_currency(param.schema, arg, key, value)))
    return out, diagnostics


def _described_currency(
    schema: dict[str, Any], arg: str | None, key: tuple[str, ...], value: str | None
) -> dict[str, Any]:
    named = value if value else "the currency that " + ".".join((arg or "", *key)) + " names"
    text = str(schema.get("description") or "").replace(_UNNAMED_CURRENCY, f"In the main unit of {named},")
    return {**schema, "description": text}


def _currency_source(
    wire: str, params: list[ParamSpec], fixed: list[FixedValue]
) -> tuple[str | None, tuple[str, ...], str | None] | None:
    """(argument, key inside it, fixed code) for the currency field at `wire` ('amount_money.currency')."""
    for param in params:
        if param.wire_path == wire:
            return param.arg_name, (), None
    for param in params:
        if wire.startswith(param.wire_path + "."):
            return param.arg_name, tuple(wire[len(param.wire_path) + 1 :].split(".")), None
    for value in fixed:
        if ".".join((value.wire_name, *value.path)) == wire and isinstance(value.value, str):
            return None, (), value.value
    return None


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


_SIZE_OR_TIME_WORD = re.compile(
    r"\bin (?P<unit>KB|MB|GB|TB|KiB|MiB|GiB|TiB|bytes|milliseconds|seconds|minutes|hours|days)\b", re.I
)
_NAME_UNITS = {
    "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "kib": "kib", "mib": "mib", "gib": "gib", "tib": "tib",
    "bytes": "bytes", "ms": "milliseconds", "s": "seconds", "min": "minutes", "h": "hours", "days": "days",
}  # fmt: skip


def renamed_unit_mismatch(
    arg_name: str, wire_name: str, description: str, rule: ParamRule
) -> Diagnostic | None:
    """A rename that claims a unit the API does not count in, with no conversion (T5): 'size_gb' for
    "The size of the Disk in MB" would have the agent send 2 for 2 GB and get a 2 MB disk."""
    found = _SIZE_OR_TIME_WORD.search(" ".join(description.split()))
    if found is None or rule.unit is not None:
        return None
    spec_unit = found.group("unit").lower()
    named = [_NAME_UNITS[t] for t in arg_name.split("_") if t in _NAME_UNITS]
    if not named or named[-1] == spec_unit or named[-1] == {"milliseconds": "ms"}.get(spec_unit):
        return None
    return warning(
        codes.M223,
        f"'{arg_name}' says {named[-1]}, but the spec counts '{wire_name}' {found.group(0)} and nothing "
        f"converts it ({rule_name('T5')})",
        rule.source,
        hint=f"add unit: {{agent: {arg_name.split('_')[-1]}, upstream: <the spec's unit>, factor: ...}}, "
        f"or name it for the spec's unit",
    )
