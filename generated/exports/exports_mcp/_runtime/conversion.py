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

from .errors import Recovery, ToolError
from .routing import Action, Param, ResultUnit, Unit

# ISO 4217 List One, published 2026-01-01: decimals of each currency (a copy of mcpgen/currencies.py,
# which this runtime cannot import; tests/unit/test_money.py keeps the two equal).
MINOR_UNITS: dict[str, int] = {
    "AED": 2, "AFN": 2, "ALL": 2, "AMD": 2, "AOA": 2, "ARS": 2, "AUD": 2, "AWG": 2, "AZN": 2,
    "BAM": 2, "BBD": 2, "BDT": 2, "BHD": 3, "BIF": 0, "BMD": 2, "BND": 2, "BOB": 2, "BOV": 2,
    "BRL": 2, "BSD": 2, "BTN": 2, "BWP": 2, "BYN": 2, "BZD": 2, "CAD": 2, "CDF": 2, "CHE": 2,
    "CHF": 2, "CHW": 2, "CLF": 4, "CLP": 0, "CNY": 2, "COP": 2, "COU": 2, "CRC": 2, "CUP": 2,
    "CVE": 2, "CZK": 2, "DJF": 0, "DKK": 2, "DOP": 2, "DZD": 2, "EGP": 2, "ERN": 2, "ETB": 2,
    "EUR": 2, "FJD": 2, "FKP": 2, "GBP": 2, "GEL": 2, "GHS": 2, "GIP": 2, "GMD": 2, "GNF": 0,
    "GTQ": 2, "GYD": 2, "HKD": 2, "HNL": 2, "HTG": 2, "HUF": 2, "IDR": 2, "ILS": 2, "INR": 2,
    "IQD": 3, "IRR": 2, "ISK": 0, "JMD": 2, "JOD": 3, "JPY": 0, "KES": 2, "KGS": 2, "KHR": 2,
    "KMF": 0, "KPW": 2, "KRW": 0, "KWD": 3, "KYD": 2, "KZT": 2, "LAK": 2, "LBP": 2, "LKR": 2,
    "LRD": 2, "LSL": 2, "LYD": 3, "MAD": 2, "MDL": 2, "MGA": 2, "MKD": 2, "MMK": 2, "MNT": 2,
    "MOP": 2, "MRU": 2, "MUR": 2, "MVR": 2, "MWK": 2, "MXN": 2, "MXV": 2, "MYR": 2, "MZN": 2,
    "NAD": 2, "NGN": 2, "NIO": 2, "NOK": 2, "NPR": 2, "NZD": 2, "OMR": 3, "PAB": 2, "PEN": 2,
    "PGK": 2, "PHP": 2, "PKR": 2, "PLN": 2, "PYG": 0, "QAR": 2, "RON": 2, "RSD": 2, "RUB": 2,
    "RWF": 0, "SAR": 2, "SBD": 2, "SCR": 2, "SDG": 2, "SEK": 2, "SGD": 2, "SHP": 2, "SLE": 2,
    "SOS": 2, "SRD": 2, "SSP": 2, "STN": 2, "SVC": 2, "SYP": 2, "SZL": 2, "THB": 2, "TJS": 2,
    "TMT": 2, "TND": 3, "TOP": 2, "TRY": 2, "TTD": 2, "TWD": 2, "TZS": 2, "UAH": 2, "UGX": 0,
    "USD": 2, "USN": 2, "UYI": 0, "UYU": 2, "UYW": 4, "UZS": 2, "VED": 2, "VES": 2, "VND": 0,
    "VUV": 0, "WST": 2, "XAD": 2, "XAF": 0, "XCD": 2, "XCG": 2, "XOF": 0, "XPF": 0, "YER": 2,
    "ZAR": 2, "ZMW": 2, "ZWG": 2,
}  # fmt: skip


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
