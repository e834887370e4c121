"""Check a call's arguments against its tool and action before anything reaches the upstream (T2 flat action enum; T6 simple, honest schemas; E2 what, why, how).

The inputSchema a client sees is a flat union of every action's parameters; which of them an action
needs is only knowable here, so each message names the action and what it needs.

Arguments come from an agent nobody vouches for, so beyond the schema: numbers must be finite (no
NaN, no infinity, no whole number past what a float holds), a pattern must match the whole value,
header and cookie values must be ones HTTP can carry as a single value, and a message repeats at
most the start of a bad value.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime
from typing import Any

import jsonschema

from .errors import MAX_QUOTED, Recovery, ToolError, quoted
from .routing import Action, Param, Tool

# Deeper than any argument of a flat schema (T6 simple, honest schemas); deeper still would exhaust the validator's stack.
MAX_DEPTH = 32
MAX_PROBLEMS = 10  # listed in one message; an agent fixes the first ones first anyway

# A JSON Schema (ECMA-262) pattern in Python's spelling, None when it has none: patterns.py's
# `python_pattern`, in a package whose schemas have patterns.
PatternTranslation = Callable[[str], str | None]
# (object, its properties' schemas) -> what is wrong with its local times: times.py's
# `local_time_problems`, in a package with a date-time that may be local (T5 parameter names).
LocalTimeCheck = Callable[[dict[str, Any], dict[str, Any]], Iterator[str]]


class ToolValidator:
    """Validates arguments for one tool; property validators are compiled once, at start-up."""

    def __init__(
        self,
        tool: Tool,
        input_schema: Mapping[str, Any],
        *,
        patterns: PatternTranslation | None = None,
        local_times: LocalTimeCheck | None = None,
    ):
        """`patterns` and `local_times`: the package's own checks (config.py), when it has them."""
        self.tool = tool
        checker = _validator_class(patterns, local_times)
        self._local_times = local_times
        self.properties: Mapping[str, Any] = input_schema.get("properties", {})
        self._validators = {
            name: checker(schema, format_checker=_FORMATS)
            for name, schema in self.properties.items()
            if name != "action"
        }
        # An action whose argument accepts less than the flat property checks its own schema (T2 flat action enum).
        self._own = {
            (action.name, param.arg): checker(param.schema, format_checker=_FORMATS)
            for action in tool.actions
            for param in action.params
            if param.schema is not None
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
        if not problems and self._local_times is not None:
            problems = list(self._local_times(given, self._schemas(action)))
        if not problems:
            problems = self._body_needs(given, action)
        if len(problems) > MAX_PROBLEMS:
            rest = len(problems) - MAX_PROBLEMS
            problems = [*problems[:MAX_PROBLEMS], f"({rest} more problems not shown.)"]
        if problems:
            raise ToolError(
                f"invalid arguments for {self.tool.name} action '{action.name}': "
                + " ".join(problems),
                "Correct the arguments named above and call again.",
                Recovery.FIX_INPUT,
            )
        values = {
            k: _as_declared(self.properties.get(k, {}), v)
            for k, v in given.items()
            if k != "action"
        }
        for name, default in action.defaults.items():
            values.setdefault(name, default)
        return action, values

    def check_answers(
        self, action: Action, answers: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The values the user gave for the action's asked parameters, checked against each
        parameter's whole schema, as an agent's would be (T6 simple, honest schemas): a form holds less
        than the schema says. Raises ToolError naming what to fix; nothing is sent then."""
        given = {
            p.arg: _as_declared(p.schema or {}, answers[p.arg])
            for p in action.asked
            if answers.get(p.arg) is not None
        }
        problems = [
            f"{p.arg} is required and the user left it empty."
            for p in action.asked
            if p.arg in action.required and p.arg not in given
        ]
        for param in action.asked:
            if param.arg not in given:
                continue
            value = given[param.arg]
            validator = self._own.get((action.name, param.arg))
            unbounded = _not_finite(value)
            if unbounded:
                problems.append(f"{param.arg}: {unbounded}")
                continue
            own = [
                f"{param.arg}: {_explain(problem)}"
                for problem in (validator.iter_errors(value) if validator else ())
            ]
            problems += own or _unsendable(param, value)
        if problems:
            raise ToolError(
                f"the user's answer for {self.tool.name} action '{action.name}' cannot be sent: "
                + " ".join(problems[:MAX_PROBLEMS])
                + " Nothing was done.",
                "Call the tool again to ask the user again, and tell them what the answer needs.",
                Recovery.NEEDS_HUMAN,
            )
        defaults = {
            p.arg: p.ask_user["default"]
            for p in action.asked
            if p.ask_user is not None and "default" in p.ask_user
        }
        return {**defaults, **given}

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
                f"{self.tool.name} has no action {quoted(name)}.",
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
                    f"{_named(name)} is not a parameter of {self.tool.name}.{hint}"
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
        asked = {
            p.arg for p in action.asked
        }  # the user's answer gives them (check_answers)
        missing = [
            name for name in action.required if name not in given and name not in asked
        ]
        if not missing:
            return []
        described = ", ".join(f"{name} ({self._type_of(name)})" for name in missing)
        return [f"action '{action.name}' needs {described}."]

    def _invalid(self, given: Mapping[str, Any], action: Action) -> list[str]:
        problems = []
        params = {p.arg: p for p in action.params}
        for name, value in given.items():
            validator = self._own.get((action.name, name)) or self._validators.get(name)
            if validator is None or name not in action.arg_names:
                continue
            # Before the schema, whose checks cannot compare NaN nor quote every number.
            unbounded = _not_finite(value)
            if unbounded:
                problems.append(f"{name}: {unbounded}")
                continue
            own = [
                name
                + "".join(f"[{quoted(p)}]" for p in problem.absolute_path)
                + f": {_explain(problem)}"
                for problem in sorted(
                    validator.iter_errors(value), key=lambda e: list(map(str, e.path))
                )
            ]
            if not own and name in params:
                own = _unsendable(params[name], value)
            problems += own
        return problems

    def _schemas(self, action: Action) -> dict[str, Any]:
        """The action's arguments' schemas (its own where it has one): a local time among them is
        read beside the time-zone argument (times.py, T5 parameter names)."""
        return {
            p.arg: p.schema or self.properties.get(p.arg, {})
            for p in action.params
            if not p.path
        }

    def _body_needs(self, given: Mapping[str, Any], action: Action) -> list[str]:
        """What a body needs once it is sent: the fields an optional body's schema requires, and for
        a oneOf/anyOf body one form whose needs the arguments meet and whose fields hold them all."""
        body_args = {p.arg for p in action.params if p.at in ("body", "body_whole")}
        sent = [name for name in given if name in body_args]
        problems = []
        missing = [name for name in action.body_requires if name not in given]
        if sent and missing:
            described = ", ".join(f"{name} ({self._type_of(name)})" for name in missing)
            problems.append(
                f"action '{action.name}' sends a body when any of its body arguments is given, "
                f"and that body needs {described}."
            )
        if not action.variants or not sent:
            return (
                problems  # no body argument, no body: the API says whether it needs one
            )
        fitting = [
            v
            for v in action.variants
            if all(name in v.args for name in sent)
            and all(name in given for name in v.required)
        ]
        if fitting:
            return problems
        forms = "; ".join(
            f"'{v.name}' needs {', '.join(v.required) or 'nothing more'}"
            + (
                f" and does not take {', '.join(n for n in sent if n not in v.args)}"
                if any(n not in v.args for n in sent)
                else ""
            )
            for v in action.variants
        )
        problems.append(
            f"action '{action.name}' sends a body in one of {len(action.variants)} forms, and "
            f"the arguments given fit none of them: {forms}."
        )
        return problems

    def _type_of(self, name: str) -> str:
        schema = self.properties.get(name, {})
        type_ = schema.get("type", "any value")
        shown = "|".join(type_) if isinstance(type_, list) else str(type_)
        if "enum" in schema:
            shown += " one of " + ", ".join(json.dumps(v) for v in schema["enum"])
        return shown


# Times are absolute, with an offset (T5 parameter names): '2026-11-01T09:00:00+09:00', never 'tomorrow' nor a local
# time whose zone the server would have to guess. The stock checker skips date-time without an extra
# package, so this one is always on.
_FORMATS = jsonschema.FormatChecker()
_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})",
    re.ASCII,
)
_FORMAT_EXAMPLES = {
    "date-time": "an ISO 8601 date-time with a UTC offset, such as 2026-11-01T09:00:00+09:00 "
    "or 2026-11-01T00:00:00Z",
    "date": "an ISO 8601 date, such as 2026-11-01",
    "local-date-time": "an ISO 8601 date-time: with its UTC offset, such as 2026-11-01T09:00:00+09:00, "
    "or a local time such as 2026-11-01T09:00:00 with the time-zone field beside it set",
}
# The pattern of a date-time that may be local beside its time zone (times.py keeps the same string).
_LOCAL_OR_OFFSET = (
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$"
)


def _as_declared(schema: Mapping[str, Any], value: Any) -> Any:
    """An integer argument given as 3.0 (JSON Schema counts it an integer) is sent as 3, never as
    "3.0" in a path or query (issue 11: only values the schema allows reach the API)."""
    declared = schema.get("type")
    integer = declared == "integer" or (
        isinstance(declared, list)
        and "integer" in declared
        and "number" not in declared
    )
    if integer and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _within_bits(bits: int, value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True  # the type check speaks for other values
    bound = 1 << bits
    return -bound <= value <= bound - 1


# OpenAPI's integer formats: a value past them would overflow the API's own integer type.
for _format, _bits in {"int32": 31, "int64": 63}.items():
    _FORMAT_EXAMPLES[_format] = f"a whole number from {-(2**_bits)} to {2**_bits - 1}"
    _FORMATS.checks(_format)(functools.partial(_within_bits, _bits))


@functools.lru_cache(maxsize=256)
def _compiled(
    translate: PatternTranslation | None, pattern: str
) -> re.Pattern[str] | None:
    """The pattern in Python's spelling; None when even translated it does not compile: such a
    pattern goes unchecked here (the API re-checks it) rather than failing the call (T6 simple, honest schemas)."""
    translated = translate(pattern) if translate is not None else pattern
    if translated is None:
        return None
    try:
        # ASCII: \d and \w mean what they mean in the JavaScript regexes JSON Schema is written for.
        return re.compile(translated, re.ASCII)
    except re.error:
        return None


def _whole_pattern(
    translate: PatternTranslation | None,
    validator: Any,
    pattern: str,
    instance: Any,
    schema: Mapping[str, Any],
) -> Any:
    """`pattern` against the whole value, as a reader of the contract takes it: Python's `$` also
    matches before a final newline, so `re.search` would let "dep_1\\n" pass `^dep_[0-9]+$`."""
    compiled = _compiled(translate, pattern) if isinstance(pattern, str) else None
    if (
        compiled is not None
        and validator.is_type(instance, "string")
        and not compiled.fullmatch(instance)
    ):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


_DRAFT_PROPERTIES = jsonschema.Draft202012Validator.VALIDATORS["properties"]


def _properties_and_local_times(
    local_times: LocalTimeCheck,
    validator: Any,
    properties: Any,
    instance: Any,
    schema: Mapping[str, Any],
) -> Any:
    """The stock `properties` check, then local times beside their time zone (times.py, T5 parameter names)."""
    yield from _DRAFT_PROPERTIES(validator, properties, instance, schema)
    if validator.is_type(instance, "object") and isinstance(properties, dict):
        for message in local_times(instance, properties):
            yield jsonschema.ValidationError(message)


@functools.lru_cache(maxsize=4)
def _validator_class(
    patterns: PatternTranslation | None, local_times: LocalTimeCheck | None
) -> Any:
    """Draft 2020-12, with patterns matched whole and, when the package has them, local times checked."""
    checks: dict[str, Any] = {"pattern": functools.partial(_whole_pattern, patterns)}
    if local_times is not None:
        checks["properties"] = functools.partial(
            _properties_and_local_times, local_times
        )
    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]  # untyped in its stubs
        jsonschema.Draft202012Validator, checks
    )


@_FORMATS.checks("date-time", raises=ValueError)
def _is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True  # the type check speaks for other values
    found = _DATE_TIME.fullmatch(value)
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
    return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value, re.ASCII)) and bool(
        date.fromisoformat(value)
    )


def _explain(problem: jsonschema.ValidationError) -> str:
    """jsonschema's message, with what to write instead where it has nothing to say (E2 what, why, how), and the
    agent's value cut short where it is long."""
    kind, bound, value = problem.validator, problem.validator_value, problem.instance
    expected = _FORMAT_EXAMPLES.get(str(bound)) if kind == "format" else None
    if kind == "pattern" and bound == _LOCAL_OR_OFFSET:
        expected = _FORMAT_EXAMPLES["local-date-time"]
    if expected:
        return f"{quoted(value)} is not {expected}."
    if kind in _SIZES and isinstance(value, str | list):
        unit, most = _SIZES[kind]
        return f"{quoted(value)} has {len(value)} {unit}; {most} {bound} are allowed."
    said, shown = problem.message, repr(value)
    if len(shown) > MAX_QUOTED and said.startswith(shown):
        said = quoted(value) + said[len(shown) :]
    return (
        said if len(said) <= 2 * MAX_QUOTED else said[: 2 * MAX_QUOTED] + "..."
    ) + "."


_SIZES = {
    "maxLength": ("characters", "at most"),
    "minLength": ("characters", "at least"),
    "maxItems": ("items", "at most"),
    "minItems": ("items", "at least"),
}


def _named(name: str) -> str:
    return f"'{name}'" if len(name) <= 64 and name.isprintable() else quoted(name)


def _not_finite(value: Any) -> str | None:
    """Why a value holds a number no API can read, or nests past MAX_DEPTH; None when it is fine.
    JSON has no NaN or Infinity, and a float holds up to about 1.8e308 (finite numbers only)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"nests deeper than {MAX_DEPTH} levels; send a flatter value."
        if isinstance(item, float) and not math.isfinite(item):
            return f"{quoted(item)} is not a finite number; send a number such as 1.5."
        if isinstance(item, int) and not isinstance(item, bool) and _beyond_float(item):
            return (
                f"a whole number of {len(str(abs(item)))} digits is larger than any finite "
                "number the API can read (about 1.8e308 at most); send a smaller number."
            )
        if isinstance(item, dict | list):
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def _beyond_float(number: int) -> bool:
    try:
        float(number)
    except OverflowError:
        return True
    return False


# What HTTP carries as one header value (RFC 9110: visible ASCII, spaces and tabs between) and as
# one cookie value (RFC 6265 cookie-octets: no spaces, '"', ',', ';' or '\\'). Anything else would
# be refused mid-send, or split into a second header or cookie the agent never meant.
_HEADER_CHAR = re.compile(r"[\x20-\x7e\t]")
_HEADER_VALUE = re.compile(r"([\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?)?")
_COOKIE_CHAR = re.compile(r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]")
_WIRE_RULES = {
    "header": (
        _HEADER_VALUE,
        _HEADER_CHAR,
        "an HTTP header value, which takes visible ASCII characters with spaces or tabs "
        "between them",
    ),
    "cookie": (
        re.compile(_COOKIE_CHAR.pattern + "*"),
        _COOKIE_CHAR,
        "a cookie value, which takes visible ASCII characters other than double quote, comma, "
        "semicolon and backslash, and no spaces",
    ),
}


def _unsendable(param: Param, value: Any) -> list[str]:
    """Checked here, before any request is built, so a refusal is an argument to fix, never an
    upstream outcome to check."""
    rules = _WIRE_RULES.get(param.at)
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    if rules is None or rules[0].fullmatch(text):
        return []
    _, char, what = rules
    bad = next(
        (
            f"character {i + 1} is U+{ord(c):04X}"
            for i, c in enumerate(text)
            if not char.fullmatch(c)
        ),
        "it starts or ends with a space or tab",
    )
    return [
        f"{param.arg}: {quoted(text)} cannot be sent as {what}: {bad}. Nothing was sent."
    ]
