"""Check a call's arguments against its tool and action before anything reaches the upstream (T2, T6, E2).

The inputSchema a client sees is a flat union of every action's parameters; which of them an action
needs is only knowable here, so each message names the action and what it needs.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

import jsonschema

from .errors import Recovery, ToolError
from .routing import Action, Tool


class ToolValidator:
    """Validates arguments for one tool; property validators are compiled once, at start-up."""

    def __init__(self, tool: Tool, input_schema: Mapping[str, Any]):
        self.tool = tool
        self.properties: Mapping[str, Any] = input_schema.get("properties", {})
        self._validators = {
            name: jsonschema.Draft202012Validator(schema, format_checker=_FORMATS)
            for name, schema in self.properties.items()
            if name != "action"
        }

    def check(
        self, arguments: Mapping[str, Any] | None
    ) -> tuple[Action, dict[str, Any]]:
        """The action to run and its arguments with defaults applied; raises ToolError otherwise."""
        # Models often send null for "not given"; treat it as absent rather than as a type error.
        given = {k: v for k, v in (arguments or {}).items() if v is not None}
        action = self._action(given.get("action"))
        problems = (
            self._unknown(given)
            + self._foreign(given, action)
            + self._missing(given, action)
        )
        problems += self._invalid(given, action)
        if problems:
            raise ToolError(
                f"invalid arguments for {self.tool.name} action '{action.name}': "
                + " ".join(problems),
                "Correct the arguments named above and call again.",
                Recovery.FIX_INPUT,
            )
        values = {k: v for k, v in given.items() if k != "action"}
        for name, default in action.defaults.items():
            values.setdefault(name, default)
        return action, values

    def _action(self, name: Any) -> Action:
        choices = ", ".join(self.tool.action_names)
        if name is None:
            raise ToolError(
                f"{self.tool.name} needs an 'action'.",
                f"Pass action as one of: {choices}.",
                Recovery.FIX_INPUT,
            )
        action = self.tool.action(name) if isinstance(name, str) else None
        if action is None:
            raise ToolError(
                f"{self.tool.name} has no action {json.dumps(name)}.",
                f"Pass action as one of: {choices}.",
                Recovery.FIX_INPUT,
            )
        return action

    def _unknown(self, given: Mapping[str, Any]) -> list[str]:
        problems = []
        for name in given:
            if name not in self.properties:
                close = difflib.get_close_matches(name, list(self.properties), n=1)
                hint = f" Did you mean '{close[0]}'?" if close else ""
                problems.append(
                    f"'{name}' is not a parameter of {self.tool.name}.{hint}"
                )
        return problems

    def _foreign(self, given: Mapping[str, Any], action: Action) -> list[str]:
        problems = []
        for name in given:
            if (
                name == "action"
                or name not in self.properties
                or name in action.arg_names
            ):
                continue
            owners = [a.name for a in self.tool.actions if name in a.arg_names]
            problems.append(
                f"'{name}' is not used by action '{action.name}' (it is used by: {', '.join(owners)})."
            )
        return problems

    def _missing(self, given: Mapping[str, Any], action: Action) -> list[str]:
        missing = [name for name in action.required if name not in given]
        if not missing:
            return []
        described = ", ".join(f"{name} ({self._type_of(name)})" for name in missing)
        return [f"action '{action.name}' needs {described}."]

    def _invalid(self, given: Mapping[str, Any], action: Action) -> list[str]:
        problems = []
        for name, value in given.items():
            validator = self._validators.get(name)
            if validator is None or name not in action.arg_names:
                continue
            for problem in sorted(
                validator.iter_errors(value), key=lambda e: list(map(str, e.path))
            ):
                where = name + "".join(
                    f"[{json.dumps(p)}]" for p in problem.absolute_path
                )
                problems.append(f"{where}: {_explain(problem)}")
        return problems

    def _type_of(self, name: str) -> str:
        schema = self.properties.get(name, {})
        type_ = schema.get("type", "any value")
        shown = "|".join(type_) if isinstance(type_, list) else str(type_)
        if "enum" in schema:
            shown += " one of " + ", ".join(json.dumps(v) for v in schema["enum"])
        return shown


# Times are absolute, with an offset (T5): '2026-11-01T09:00:00+09:00', never 'tomorrow' nor a local
# time whose zone the server would have to guess. The stock checker skips date-time without an extra
# package, so this one is always on.
_FORMATS = jsonschema.FormatChecker()
_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$"
)
_FORMAT_EXAMPLES = {
    "date-time": "an ISO 8601 date-time with a UTC offset, such as 2026-11-01T09:00:00+09:00 "
    "or 2026-11-01T00:00:00Z",
    "date": "an ISO 8601 date, such as 2026-11-01",
}


@_FORMATS.checks("date-time", raises=ValueError)
def _is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True  # the type check speaks for other values
    found = _DATE_TIME.match(value)
    if not found:
        return False
    # A real calendar date and clock time: drop the fraction, spell the offset out, parse.
    plain = value[:19] + (value[found.start(2) :].upper().replace("Z", "+00:00"))
    datetime.fromisoformat(plain)
    return True


@_FORMATS.checks("date", raises=ValueError)
def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)) and bool(
        date.fromisoformat(value)
    )


def _explain(problem: jsonschema.ValidationError) -> str:
    """jsonschema's message, with what to write instead where it has nothing to say (E2)."""
    expected = (
        _FORMAT_EXAMPLES.get(problem.validator_value)
        if problem.validator == "format"
        else None
    )
    if expected:
        return f"{json.dumps(problem.instance)} is not {expected}."
    return f"{problem.message}."
