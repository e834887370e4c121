"""ISO 4217 minor units, as the generated server counts them (T5): the table is the runtime's own,
templates/runtime/currencies.py, loaded from there so that generator and server never disagree.

JPY has none (500 JPY is sent as 500), USD two (5.00 USD is 500 cents), KWD three (1.500 KWD is 1500 fils).
"""

from __future__ import annotations

from mcpgen.runtime_source import runtime_module

_TABLE = runtime_module("currencies")
LIST_ONE_PUBLISHED: str = _TABLE.LIST_ONE_PUBLISHED
MINOR_UNITS: dict[str, int] = _TABLE.MINOR_UNITS


def minor_units(code: str) -> int | None:
    """Decimals of an ISO 4217 code ('JPY' -> 0, 'usd' -> 2, 'KWD' -> 3); None for an unknown code."""
    return MINOR_UNITS.get(code.upper())


def is_currency_code(code: str) -> bool:
    return code.upper() in MINOR_UNITS
