"""Conversions a mapping declares (T5 parameter names): `unit:` on a parameter, and `response: {units:}`
on an action for result fields no converted parameter shares its schema with. Read into frozen rules,
each pair of units checked: a conversion is never guessed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpgen import codes
from mcpgen.conversions import AMBIGUOUS_SIZES, KNOWN_UNITS, MAJOR, MINOR, known_factor, unknown_currency
from mcpgen.diagnostics import Diagnostic, SourceRef, error
from mcpgen.load.sources import Document, join_pointer


@dataclass(frozen=True, slots=True, kw_only=True)
class UnitRule:
    """The agent's unit, the API's unit, and upstream units in one agent unit (T5)."""

    agent: str
    upstream: str
    factor: float  # 0 when it follows the currency `currency_from` names, call by call
    source: SourceRef
    currency_from: str | None = None  # mapping key of the field holding the currency code
    as_is: tuple[float, ...] = ()  # special values sent and returned unscaled (-1 = unlimited)


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultUnitRule:
    """`response: {units: {<field>: {name, agent, upstream, ...}}}`: a field of this action's records in
    the API's unit, shown in the agent's under `name`. Its `currency_from` is the field beside the
    amount naming its currency ('amount_money.currency')."""

    field: str  # dotted path in one record, as `response.concise` writes it
    name: str
    unit: UnitRule


def _unit_rules(document: Document) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for t, tool in enumerate(document.data["tools"]):
        for a, action in enumerate(tool["actions"]):
            pointer = f"/tools/{t}/actions/{a}"
            for key, rule in (action.get("params") or {}).items():
                if "unit" in rule:
                    found.append((join_pointer(f"{pointer}/params", key, "unit"), rule["unit"]))
            for field, rule in ((action.get("response") or {}).get("units") or {}).items():
                found.append((join_pointer(f"{pointer}/response/units", field), rule))
    return found


def check_units(document: Document) -> list[Diagnostic]:
    """A conversion is never guessed: an unknown pair needs its factor written out, and money needs an
    ISO 4217 code or the field that holds one (T5)."""
    found = []
    for pointer, unit in _unit_rules(document):
        found += [
            error(code, what, document.locate(pointer), hint=hint)
            for code, what, hint in _unit_problems(unit)
        ]
    return found


def _unit_problems(unit: dict[str, Any]) -> list[tuple[str, str, str]]:
    agent, upstream = unit["agent"], unit["upstream"]
    if agent == upstream:
        return [
            (
                codes.M120,
                f"unit converts '{agent}' to itself",
                "remove 'unit', or name the unit the API expects in 'upstream'",
            )
        ]
    if "currency_from" in unit or agent == MAJOR:
        if agent != MAJOR or upstream not in MINOR or "currency_from" not in unit or "factor" in unit:
            return [
                (
                    codes.M123,
                    "an amount whose currency is another field is written {agent: major, upstream: minor, "
                    "currency_from: <that field>}, without 'factor'",
                    "the factor follows the currency of each call (JPY 1, USD 100, KWD 1000); for one fixed "
                    "currency write {agent: usd, upstream: minor} instead",
                )
            ]
        return []
    if "factor" in unit:
        return []
    code = unknown_currency(agent, upstream)
    if code is not None:
        return [
            (
                codes.M122,
                f"'{code}' is not an ISO 4217 currency code, so how many minor units make one is unknown",
                "write the currency's ISO 4217 code (usd, jpy, kwd, ...), or give 'factor'",
            )
        ]
    if known_factor(agent, upstream) is None:
        sizes = {agent, upstream} & set(AMBIGUOUS_SIZES)
        why = (
            f"; '{sorted(sizes)[0]}' means 1000 or 1024 depending on the API (kib, mib, gib, tib are 1024)"
            if sizes
            else ""
        )
        return [
            (
                codes.M121,
                f"mcpgen does not know how many '{upstream}' make one '{agent}'{why}",
                f"add 'factor: <upstream units in one {agent}>'; known units: " + ", ".join(KNOWN_UNITS),
            )
        ]
    return []


def read_unit(unit: dict[str, Any] | None, pointer: str, document: Document) -> UnitRule | None:
    if unit is None:
        return None
    factor = unit.get("factor") or known_factor(unit["agent"], unit["upstream"]) or 0
    return UnitRule(
        agent=unit["agent"],
        upstream=unit["upstream"],
        factor=factor,
        source=document.locate(pointer),
        currency_from=unit.get("currency_from"),
        as_is=tuple(unit.get("as_is") or ()),
    )


def read_result_units(units: dict[str, Any], pointer: str, document: Document) -> tuple[ResultUnitRule, ...]:
    found = []
    for field, rule in units.items():
        unit = read_unit(rule, join_pointer(pointer, field), document)
        assert unit is not None
        found.append(ResultUnitRule(field=field, name=rule["name"], unit=unit))
    return tuple(found)
