"""Argument values for the calls `check` makes: the spec's own examples first, then values seen in
earlier results (an `id` of a listed record for a `campaign_id`), then a value made from the schema
(an enum's first value, a string that matches the pattern). Pure functions."""

from __future__ import annotations

import re
from collections.abc import Mapping
from re import _parser as sre_parse  # type: ignore[attr-defined]  # the regex parser (Python 3.11+)
from typing import Any

import jsonschema

from mcpgen.ir import ActionSpec, ParamSpec

_FORMATS = {
    "date": "2026-01-15",
    "date-time": "2026-01-15T09:00:00Z",
    "time": "09:00:00",
    "email": "check@example.com",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
}
_ABSENT_FORMATS = {"uuid": "00000000-0000-4000-8000-00000000dead"}
_EXAMPLE = re.compile(r'Example: ("(?:[^"\\]|\\.)*"|[^\s.,;]+(?:\.\d+)?)')


class NoValue(Exception):
    """No value could be made for a required argument: the action is not checked, and this says why."""


def example_of(schema: Mapping[str, Any]) -> tuple[bool, Any]:
    """The value a schema states itself: examples, example, default, const, or an enum's first."""
    for key in ("examples", "example", "default", "const"):
        if key in schema:
            value = schema[key]
            if key == "examples" and isinstance(value, list):
                if not value:
                    continue
                value = value[0]
            return True, value
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return True, enum[0]
    return False, None


def described_example(schema: Mapping[str, Any]) -> tuple[bool, Any]:
    """The spec's example, as the build wrote it into the description ('Example: "cmp_001".')."""
    found = _EXAMPLE.search(str(schema.get("description") or ""))
    if not found:
        return False, None
    import json

    try:
        return True, json.loads(found.group(1))
    except ValueError:
        return True, found.group(1)


def made_value(schema: Mapping[str, Any], *, absent: bool = False, depth: int = 0) -> Any:
    """A value the schema accepts, made from its type, format and bounds; `absent`: one an API is
    unlikely to hold a record for (9s and z's), for an error probe. Raises NoValue."""
    if depth > 6:
        raise NoValue("the schema nests too deep")
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches and isinstance(branches[0], dict):
            return made_value(branches[0], absent=absent, depth=depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "string" or (kind is None and "pattern" in schema):
        return _string(schema, absent)
    if kind in ("integer", "number"):
        return _number(schema, absent, kind)
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items")
        return [value_for(items if isinstance(items, dict) else {}, absent=absent, depth=depth + 1)]
    if kind == "object" or "properties" in schema:
        required = schema.get("required") or []
        properties = schema.get("properties") or {}
        return {
            name: value_for(properties.get(name) or {}, absent=absent, depth=depth + 1)
            for name in required
            if isinstance(name, str)
        }
    return "check"


def value_for(schema: Mapping[str, Any], *, absent: bool = False, depth: int = 0) -> Any:
    if not absent:
        found, value = example_of(schema)
        if found:
            return value
    return made_value(schema, absent=absent, depth=depth)


def _string(schema: Mapping[str, Any], absent: bool) -> str:
    pattern = schema.get("pattern")
    fmt = str(schema.get("format") or "")
    if absent and fmt in _ABSENT_FORMATS:
        return _ABSENT_FORMATS[fmt]
    if isinstance(pattern, str):
        value = pattern_sample(pattern, absent=absent)
    elif fmt in _FORMATS:
        return _FORMATS[fmt]
    else:
        value = "zzz-no-such-record-9" if absent else "check"
    low = schema.get("minLength")
    if isinstance(low, int) and len(value) < low:
        value += ("z" if absent else "a") * (low - len(value))
    return value


def _number(schema: Mapping[str, Any], absent: bool, kind: str) -> int | float:
    low = schema.get("minimum")
    high = schema.get("maximum")
    if absent:
        value: float = high if isinstance(high, (int, float)) else 999_999_999
    else:
        value = low if isinstance(low, (int, float)) else 1
        if isinstance(high, (int, float)) and value > high:
            value = high
    return int(value) if kind == "integer" else value


def pattern_sample(pattern: str, *, absent: bool = False) -> str:
    """A short string matching `pattern`, for the patterns ids have ('^cmp_[0-9]+$', '^[a-z][a-z0-9-]*$').
    Raises NoValue for what it cannot make (lookarounds, backreferences) or when the result would not match."""
    try:
        parsed = sre_parse.parse(pattern)
        text = _sample(list(parsed), absent)
    except (re.error, NoValue, RecursionError, TypeError, ValueError) as exc:
        raise NoValue(f"cannot make a string matching {pattern!r}") from exc
    if re.search(pattern, text) is None:
        raise NoValue(f"cannot make a string matching {pattern!r}")
    return text


def _sample(items: list[Any], absent: bool) -> str:
    out: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "IN":
            out.append(_in_class(arg, absent))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            count = max(low, 1) if high != 0 else 0
            if absent and high != 0:  # an id with more digits than any record has
                count = max(low, min(high, 9))
            out.append(_sample(list(sub), absent) * count)
        elif name == "SUBPATTERN":
            out.append(_sample(list(arg[-1]), absent))
        elif name == "BRANCH":
            out.append(_sample(list(arg[1][0]), absent))
        elif name == "ANY":
            out.append("z" if absent else "a")
        elif name == "AT":
            continue
        elif name == "CATEGORY":
            out.append(_category(str(arg), absent))
        else:
            raise NoValue(name)
    return "".join(out)


def _in_class(members: list[Any], absent: bool) -> str:
    for op, arg in members:
        name = str(op)
        if name == "NEGATE":
            raise NoValue("a negated class")
        if name == "LITERAL":
            return chr(arg)
        if name == "RANGE":
            low, high = arg
            return chr(high if absent else low)
        if name == "CATEGORY":
            return _category(str(arg), absent)
    raise NoValue("an empty class")


def _category(name: str, absent: bool) -> str:
    if "DIGIT" in name and "NOT" not in name:
        return "9" if absent else "1"
    if "SPACE" in name and "NOT" not in name:
        return " "
    return "z" if absent else "a"


def harvested(results: list[Any]) -> dict[str, Any]:
    """Scalar fields of the records earlier results showed: {'id': 'cmp_001', 'status': 'active'}."""
    seen: dict[str, Any] = {}
    for result in results:
        records = result.get("items") if isinstance(result, dict) else None
        for record in records if isinstance(records, list) else [result]:
            if not isinstance(record, dict):
                continue
            for key, value in record.items():
                if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                    seen.setdefault(key, value)
    return seen


def arguments(action: ActionSpec, seen: Mapping[str, Any], *, absent: bool = False) -> dict[str, Any]:
    """The arguments of one call of `action`: every required one, valid for its schema. `absent`: the
    identifying ones (path parameters) made to name nothing the API holds. Raises NoValue."""
    args: dict[str, Any] = {"action": action.name}
    for param in action.params:
        if not param.required:
            continue
        args[param.arg_name] = _argument(param, seen, absent=absent and param.location == "path")
    if action.confirm_value:
        args["confirm"] = action.confirm_value
    return args


def _argument(param: ParamSpec, seen: Mapping[str, Any], *, absent: bool) -> Any:
    schema = param.check_schema or param.schema
    candidates: list[Any] = []
    if not absent:
        for found, value in (example_of(schema), described_example(schema)):
            if found:
                candidates.append(value)
        for key in (param.arg_name, param.wire_name, "id" if param.arg_name.endswith("_id") else None):
            if key is not None and key in seen:
                candidates.append(seen[key])
    try:
        candidates.append(made_value(schema, absent=absent))
    except NoValue:
        pass
    for value in candidates:
        if _valid(value, schema):
            return value
    raise NoValue(f"no value of {param.arg_name} fits its schema {_brief(schema)}")


def _valid(value: Any, schema: Mapping[str, Any]) -> bool:
    checked = {k: v for k, v in schema.items() if k not in ("description", "examples", "example")}
    try:
        jsonschema.validate(value, checked, format_checker=jsonschema.FormatChecker())
    except (jsonschema.ValidationError, jsonschema.SchemaError):
        return False
    return True


def _brief(schema: Mapping[str, Any]) -> str:
    shown = {
        k: v for k, v in schema.items() if k in ("type", "format", "pattern", "enum", "minimum", "maximum")
    }
    return str(shown)
