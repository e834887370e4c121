"""Parameters the server asks the user for (`ask_user: true`; P4 ask what the model cannot know).

Which account, production or staging, the reason kept in an audit log: values a model would invent
when they are required arguments. Such a parameter leaves the tool's inputSchema; the server asks
the user for it through the client (an `elicitation/create` form, 2026-07-28 multi round-trip
requests) and sends the answer upstream like any argument. The form field is built here from the
parameter's schema; the server re-checks the answer against the whole schema (T6 simple, honest
schemas), since a form holds less than JSON Schema does (no pattern, no exclusive bounds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, error
from mcpgen.ir import ActionSpec, JsonSchema, ParamSpec
from mcpgen.load.mapping import ActionRule, ParamRule

# What an elicitation form's string field may say about its format (the revision's StringSchema).
FORM_FORMATS = frozenset({"date", "date-time", "email", "uri"})
# Keywords that describe a value for a reader, not which values are accepted.
_PROSE = frozenset({"description", "title", "example", "examples", "default"})


def asked_param(
    param: ParamSpec, rule: ParamRule, action: ActionRule, operation_key: str
) -> tuple[ParamSpec | None, list[Diagnostic]]:
    """The parameter as one the user is asked for, with its form field; or why it cannot be."""
    if action.preview is not None:
        return None, [
            error(
                codes.M235,
                f"parameter '{param.wire_name}' of action '{action.name}' says ask_user, and the action "
                "says confirm: preview, whose apply step runs later without anyone to ask",
                rule.source,
                hint="leave ask_user out here, or use confirm: user instead of confirm: preview",
            )
        ]
    field = form_field(param)
    if isinstance(field, str):
        return None, [
            error(
                codes.M234,
                f"parameter '{param.wire_name}' of {operation_key} cannot be asked of the user: a form "
                f"asks for a string, a number, an integer, a boolean or strings from an enum, and it is {field}",
                rule.source,
                hint="leave ask_user out for it (the agent passes it), or ask for a simpler parameter",
            )
        ]
    checked = {k: v for k, v in param.schema.items() if k not in _PROSE}
    return replace(param, ask_user=field, check_schema=checked), []


def form_field(param: ParamSpec) -> JsonSchema | str:
    """The elicitation form field asking for this parameter (the revision's primitive schemas:
    string, number, integer, boolean, a string enum, a list of strings from an enum), or what the
    parameter is instead."""
    schema = param.schema
    kind = _single_type(schema)
    field: JsonSchema = {"title": _title(param.arg_name)}
    if isinstance(schema.get("description"), str):
        field["description"] = schema["description"]
    enum = schema.get("enum")
    if isinstance(enum, list) and kind in (None, "string"):
        if not enum or not all(isinstance(v, str) for v in enum):
            return "an enum of values that are not all strings"
        return {"type": "string", **field, "enum": list(enum), **_default(schema, str)}
    if kind == "string":
        kept = {k: schema[k] for k in ("minLength", "maxLength") if isinstance(schema.get(k), int)}
        if schema.get("format") in FORM_FORMATS:
            kept["format"] = schema["format"]
        return {"type": "string", **field, **kept, **_default(schema, str)}
    if kind in ("integer", "number"):
        bounds = {k: schema[k] for k in ("minimum", "maximum") if _is_number(schema.get(k))}
        return {"type": kind, **field, **bounds, **_default(schema, int | float)}
    if kind == "boolean":
        return {"type": "boolean", **field, **_default(schema, bool)}
    items = schema.get("items")
    choices = items.get("enum") if isinstance(items, dict) else None
    if kind == "array" and isinstance(choices, list) and choices and all(isinstance(v, str) for v in choices):
        sizes = {k: schema[k] for k in ("minItems", "maxItems") if isinstance(schema.get(k), int)}
        default = schema.get("default")
        shown = (
            {"default": default} if isinstance(default, list) and all(v in choices for v in default) else {}
        )
        return {
            "type": "array",
            **field,
            "items": {"type": "string", "enum": list(choices)},
            **sizes,
            **shown,
        }
    if kind == "array":
        return "a list of values that are not strings from an enum"
    return f"of type {kind}" if kind else "of no single type"


def asking_note(actions: Sequence[ActionSpec]) -> str:
    """The tool description's sentence on what the server asks the user for, and what a client that
    cannot ask gets (T7 descriptions are contracts): never a silent path without the user."""
    asking = [(a.name, [p.arg_name for p in a.asked]) for a in actions if a.asked]
    if not asking:
        return ""
    said = "; ".join(f"action {name}: {', '.join(names)}" for name, names in asking)
    return (
        f"The server asks the user, not you, for these values ({said}) through your client's elicitation "
        "form; a client that cannot ask the user gets an error for that action, and nothing is done."
    )


def _single_type(schema: JsonSchema) -> str | None:
    declared = schema.get("type")
    if isinstance(declared, list):
        types = [t for t in declared if t != "null"]
        return str(types[0]) if len(types) == 1 else None
    return str(declared) if isinstance(declared, str) else None


def _default(schema: JsonSchema, kind: Any) -> JsonSchema:
    default = schema.get("default")
    if default is None or isinstance(default, bool) is not (kind is bool) or not isinstance(default, kind):
        return {}
    if isinstance(schema.get("enum"), list) and default not in schema["enum"]:
        return {}
    return {"default": default}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _title(arg_name: str) -> str:
    """'deployment_id' -> 'Deployment id': what the form shows above the field."""
    words = arg_name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]
