"""Units between the agent and the API (T5 parameter names): arguments go out in the API's unit, results and current
values come back in the agent's, money by its currency's ISO 4217 decimals.

`weight_kg=1.5` is sent as `weight=1500` when the API counts grams; `amount=500` with `currency=JPY`
is sent as 500 minor units, with USD as 50000, with KWD as 500000. Special values the mapping lists
(`as_is`, e.g. -1 = unlimited) are never scaled.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from typing import Any

from .currencies import MINOR_UNITS
from .errors import Recovery, ToolError
from .notes import with_note
from .routing import Action, Param, ResultUnit, Unit

# Float error, relative: 0.1 + 0.2 is 0.30000000000000004, a whole number of cents all the same.
_FLOAT_ERROR = Decimal("1e-9")


def to_upstream(param: Param, values: Mapping[str, Any]) -> Any:
    """The argument's value in the API's unit."""
    value, unit = values[param.arg], param.unit
    if unit is None or not _is_number(value) or value in unit.as_is:
        return value
    if unit.factor:
        return _scaled(
            param, value, Decimal(str(unit.factor)), unit.integer, unit.upstream
        )
    code = _call_currency(param, values)
    return _scaled(
        param, value, Decimal(10) ** MINOR_UNITS[code], True, f"{code} minor units"
    )


def to_agent(unit: Unit, value: Any, record: dict[str, Any] | None = None) -> Any:
    """A value in the API's unit, in the agent's; None when a money amount's currency is unknown."""
    if not _is_number(value) or value in unit.as_is:
        return value
    factor = Decimal(str(unit.factor)) if unit.factor else _record_factor(unit, record)
    if factor is None:
        return None
    return _number(Decimal(str(value)) / factor)


def convert_results(action: Action, answer: dict[str, Any]) -> dict[str, Any]:
    """Records of a result in the agent's units and names: `size` (MB) becomes `size_gb`. Only the
    fields the generator found in this action's answer schema are touched; one the API sent as
    something other than a number keeps its name and value, and the result's `note` says so, so a
    value in the API's unit never reads as the agent's."""
    if not action.result_units:
        return answer
    items = answer.get("items")
    envelope = action.shape.record if action.shape is not None else None
    left: dict[str, str] = {}
    for record in items if isinstance(items, list) else [answer]:
        if isinstance(record, dict):
            for result_unit in action.result_units:
                holder = _holder(record, result_unit.field, envelope)
                why = _convert_field(holder, result_unit)
                if why:
                    left.setdefault(result_unit.field, why)
    if not left:
        return answer
    # The server's own note, never written into an API field that happens to be named `note`.
    return with_note(
        answer,
        " ".join(f"{field} was not converted: {why}." for field, why in left.items()),
    )


def current_in_agent_units(
    unit: Unit | None, record: dict[str, Any], field: str
) -> Any:
    """A field of the read's current state, comparable with the argument (S1 preview, then apply, S2 guard rails as errors): 300 minor units
    of USD is 3. The currency of a `major` amount is the field beside it."""
    value = _field(record, field)
    return value if unit is None else to_agent(unit, value, _parent(record, field))


def _field(record: Any, field: str) -> Any:
    for key in field.split("."):
        record = record.get(key) if isinstance(record, dict) else None
    return record


def _scaled(
    param: Param, value: Any, factor: Decimal, integer: bool, upstream: str
) -> Any:
    """`value * factor`, a whole number when it is one up to float error (0.1 + 0.2 dollars are 30
    cents); refused when the API takes whole units and the value is truly finer than one."""
    sent = Decimal(str(value)) * factor
    whole = sent.to_integral_value()
    if abs(sent - whole) <= _FLOAT_ERROR * max(Decimal(1), abs(sent)):
        return int(whole)
    if integer:
        step = _number(1 / factor)
        low = sent.to_integral_value(rounding=ROUND_FLOOR)
        near = " or ".join(repr(float(n / factor)) for n in (low, low + 1))
        raise ToolError(
            f"{param.arg}={value:g} is finer than the API accepts: it takes whole {upstream}, "
            f"and 1 of them is {step:g} {_agent_unit(param)}.",
            f"Round {param.arg} to a multiple of {step:g} (the nearest are {near}) and call again.",
            Recovery.FIX_INPUT,
        )
    return float(sent)


def _agent_unit(param: Param) -> str:
    unit = param.unit
    return "of the currency" if unit is None or unit.agent == "major" else unit.agent


def _call_currency(param: Param, values: Mapping[str, Any]) -> str:
    """The ISO 4217 code the call names for this amount; refused when there is none or it is unknown."""
    unit: Unit = param.unit  # type: ignore[assignment]
    code: Any = unit.currency_fixed
    where = unit.currency_arg or "the currency"
    if code is None and unit.currency_arg is not None:
        code = values.get(unit.currency_arg)
        for key in unit.currency_key:
            code = code.get(key) if isinstance(code, dict) else None
        if unit.currency_key:
            where = f"{unit.currency_arg}.{'.'.join(unit.currency_key)}"
    if not isinstance(code, str) or not code:
        raise ToolError(
            f"{param.arg} is an amount in the main unit of its currency, and the call names no currency.",
            f"Pass {where} (an ISO 4217 code such as USD, JPY or KWD) with {param.arg} and call again.",
            Recovery.FIX_INPUT,
        )
    if code.upper() not in MINOR_UNITS:
        raise ToolError(
            f"{where}={code[:16]!r} is not an ISO 4217 currency code this server knows, so {param.arg} "
            "cannot be converted to the currency's minor units.",
            f"Pass {where} as a three-letter ISO 4217 code such as USD, JPY or KWD and call again.",
            Recovery.FIX_INPUT,
        )
    return code.upper()


def _record_factor(unit: Unit, record: dict[str, Any] | None) -> Decimal | None:
    code = (
        record.get(unit.currency_sibling) if record and unit.currency_sibling else None
    )
    if not isinstance(code, str) or code.upper() not in MINOR_UNITS:
        return None
    return Decimal(10) ** MINOR_UNITS[code.upper()]


def _holder(
    record: dict[str, Any], field: str, envelope: str | None
) -> dict[str, Any] | None:
    """The object holding `field` ('a.b' -> record['a']); for a record the answer left inside its
    envelope ({"payment": {...}} beside other fields), the same place inside the envelope."""
    found = _parent(record, field)
    if found is None and envelope:
        inner = record.get(envelope)
        if isinstance(inner, dict):
            return _parent(inner, field)
    return found


def _parent(record: Any, field: str) -> dict[str, Any] | None:
    *above, last = field.split(".")
    for key in above:
        record = record.get(key) if isinstance(record, dict) else None
    return record if isinstance(record, dict) and last in record else None


def _convert_field(
    holder: dict[str, Any] | None, result_unit: ResultUnit
) -> str | None:
    """Shows the field in the agent's unit under its name; else says why it stays as the API sent it."""
    if holder is None:
        return None
    key = result_unit.field.rsplit(".", 1)[-1]
    value = holder[key]
    if value is not None and not _is_number(value):
        return f"the API sent {_json_kind(value)}"
    shown = to_agent(result_unit.unit, value, holder)
    if shown is None and value is not None:
        sibling = result_unit.unit.currency_sibling
        code = holder.get(sibling) if sibling else None
        named = f"{code!r}"[:20] if isinstance(code, str) else "none"
        return f"its currency ({named}) is not an ISO 4217 code this server knows"
    del holder[key]
    holder[result_unit.name] = shown
    return None


def _json_kind(value: Any) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "an object" if isinstance(value, dict) else "a list"


def _number(value: Decimal) -> int | float:
    try:
        return int(value) if value == value.to_integral_value() else float(value)
    except (InvalidOperation, OverflowError):
        return float(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
