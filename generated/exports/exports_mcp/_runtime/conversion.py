"""Units between the agent and the API (T5 parameter names): arguments go out in the API's unit, results and current
values come back in the agent's, money by its currency's ISO 4217 decimals.

`weight_kg=1.5` is sent as `weight=1500` when the API counts grams; `amount=500` with `currency=JPY`
is sent as 500 minor units, with USD as 50000, with KWD as 500000. Special values the mapping lists
(`as_is`, e.g. -1 = unlimited) are never scaled.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from .currencies import MINOR_UNITS
from .errors import Recovery, ToolError
from .routing import Action, Param, ResultUnit, Unit


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
    """Records of a result in the agent's units and names: `size` (MB) becomes `size_gb`."""
    if not action.result_units:
        return answer
    items = answer.get("items")
    for record in items if isinstance(items, list) else [answer]:
        if isinstance(record, dict):
            for result_unit in action.result_units:
                _convert_field(_holder(record, result_unit.field), result_unit)
    return answer


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
    sent = Decimal(str(value)) * factor
    if sent == sent.to_integral_value():
        return int(sent)
    if integer:
        step = _number(1 / factor)
        raise ToolError(
            f"{param.arg}={value:g} is finer than the API accepts: it takes whole {upstream}, "
            f"and 1 of them is {step:g} {_agent_unit(param)}.",
            f"Round {param.arg} to a multiple of {step:g} and call again.",
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


def _holder(record: dict[str, Any], field: str) -> dict[str, Any] | None:
    """The object holding `field` ('a.b' -> record['a']), looking inside a one-key envelope
    ({"payment": {...}}) when the record itself does not have it."""
    found = _parent(record, field)
    if found is not None:
        return found
    if len(record) == 1:
        inner = next(iter(record.values()))
        if isinstance(inner, dict):
            return _parent(inner, field)
    return None


def _parent(record: Any, field: str) -> dict[str, Any] | None:
    *above, last = field.split(".")
    for key in above:
        record = record.get(key) if isinstance(record, dict) else None
    return record if isinstance(record, dict) and last in record else None


def _convert_field(holder: dict[str, Any] | None, result_unit: ResultUnit) -> None:
    if holder is None:
        return
    key = result_unit.field.rsplit(".", 1)[-1]
    shown = to_agent(result_unit.unit, holder[key], holder)
    if shown is None:
        return  # a currency this server does not know: the API's value stays, under the API's name
    del holder[key]
    holder[result_unit.name] = shown


def _number(value: Decimal) -> int | float:
    try:
        return int(value) if value == value.to_integral_value() else float(value)
    except (InvalidOperation, OverflowError):
        return float(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
