"""Fields inside a request body object that a mapping addresses by their dotted path (T2, T5, S2).

Payment APIs send money as `{"amount": 1000, "currency": "USD"}` inside the body. A mapping key such as
`body.amount_money.amount` lifts that field into an argument of its own, so it can be renamed,
converted (its currency taken from the sibling `currency`), described and guarded like any top-level
parameter; the server puts the value back at `body.amount_money.amount` when it calls the API.
The object argument keeps its other fields, without the ones lifted out of it.

This is addressing only: how deep nested objects are shown and checked is the schema builder's
(mcpgen/build/schemas.py) business; a lifted field's own schema comes from the same builder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpgen import codes
from mcpgen.build.schemas import input_schema
from mcpgen.diagnostics import Diagnostic, SourceRef, error
from mcpgen.ir import JsonSchema
from mcpgen.load.mapping import ActionRule, ParamRule
from mcpgen.load.openapi import Operation, Spec
from mcpgen.load.refs import Located

_MAX_STEPS = 8  # a mapping path deeper than this names no field a request would carry


@dataclass(frozen=True, slots=True, kw_only=True)
class NestedField:
    """One field of a body object, lifted into an argument: `path` is ('amount_money', 'amount')."""

    path: tuple[str, ...]
    required: bool  # every object on the way is required, and so is the field
    schema: JsonSchema
    description: str
    example: Any
    source: SourceRef


def is_nested_key(rule: ParamRule) -> bool:
    """'body.amount_money.amount' (or 'amount_money.amount'): a dotted path into a body object."""
    return rule.location in (None, "body") and "." in rule.wire_name


def nested_fields(
    spec: Spec,
    operation: Operation,
    rule: ActionRule,
    schema_of_body: Located | None,
    plain_names: frozenset[str] = frozenset(),
) -> tuple[list[NestedField], list[Diagnostic]]:
    """The fields the action's nested keys name, or a located error for each that names none. A key
    that is the whole name of a parameter (`plain_names`: a form field called 'Integration.Timeout')
    names that parameter, not a path."""
    found: list[NestedField] = []
    diagnostics: list[Diagnostic] = []
    for param_rule in rule.params:
        if not is_nested_key(param_rule) or param_rule.wire_name in plain_names:
            continue
        path = tuple(param_rule.wire_name.split("."))
        field, why = _walk(spec, schema_of_body, path)
        if field is None:
            diagnostics.append(
                error(
                    codes.M203,
                    f"'{param_rule.key}' is not a field of {operation.key}'s request body: {why}",
                    param_rule.source,
                    hint="write the dotted path of a field inside a body object, e.g. 'body.amount_money.amount'",
                )
            )
            continue
        found.append(field)
    return found + _paging_fields(spec, rule, schema_of_body, plain_names, found), diagnostics


def _paging_fields(
    spec: Spec,
    rule: ActionRule,
    schema_of_body: Located | None,
    plain_names: frozenset[str],
    lifted: list[NestedField],
) -> list[NestedField]:
    """The body fields `pagination:` names by a dotted path (Plaid's options.count, options.offset),
    lifted like the params' own, so the server sets them inside their object. One the body lacks is
    left to the paging plan, which says so (M216)."""
    paging = rule.pagination
    named = (paging.page, paging.limit, paging.offset, paging.cursor) if paging is not None else ()
    taken = {f.path for f in lifted}
    found: list[NestedField] = []
    for text in named:
        if text is None or "." not in text or text in plain_names:
            continue
        path = tuple(text.removeprefix("body.").split("."))
        field, _ = _walk(spec, schema_of_body, path)
        if field is not None and path not in taken:
            taken.add(path)
            found.append(field)
    return found


def _walk(spec: Spec, body: Located | None, path: tuple[str, ...]) -> tuple[NestedField | None, str]:
    if body is None:
        return None, "the operation takes no JSON object body"
    if len(path) > _MAX_STEPS:
        return None, f"the path has more than {_MAX_STEPS} steps"
    located = spec.resolver.deref(body)
    required = True
    for depth, key in enumerate(path):
        properties = _properties(spec, located)
        if key not in properties:
            where = ".".join(path[:depth]) or "the body"
            listed = ", ".join(sorted(properties)[:20]) or "none"
            return None, f"{where} has no field '{key}' (its fields: {listed})"
        required = required and key in _required(spec, located)
        located = spec.resolver.deref(properties[key])
    schema = input_schema(located, spec.resolver)
    raw = located.value if isinstance(located.value, dict) else {}
    return (
        NestedField(
            path=path,
            required=required,
            schema=schema,
            description=str(raw.get("description") or schema.get("description") or ""),
            example=raw.get("example"),
            source=located.source,
        ),
        "",
    )


def _properties(spec: Spec, located: Located) -> dict[str, Located]:
    """An object schema's properties, its allOf parts' included, each as a located child."""
    value = located.value
    if not isinstance(value, dict):
        return {}
    out: dict[str, Located] = {}
    for index, part in enumerate(value.get("allOf") or ()):
        if isinstance(part, dict):
            out.update(_properties(spec, spec.resolver.deref(located.child("allOf", index))))
    properties = value.get("properties")
    if isinstance(properties, dict):
        out.update({name: located.child("properties", name) for name in properties})
    return out


def _required(spec: Spec, located: Located) -> set[str]:
    value = located.value
    if not isinstance(value, dict):
        return set()
    names = {str(n) for n in value.get("required") or ()}
    for index, part in enumerate(value.get("allOf") or ()):
        if isinstance(part, dict):
            names |= _required(spec, spec.resolver.deref(located.child("allOf", index)))
    return names


def without_fields(schema: JsonSchema, paths: list[tuple[str, ...]]) -> JsonSchema | None:
    """An object argument's schema less the fields lifted out of it (and less an object on the way
    whose fields are not shown); None when none is left."""
    out = dict(schema)
    for path in paths:
        out = _without(out, path)
    properties = out.get("properties")
    if isinstance(properties, dict) and not properties:
        return None
    return out


def _without(schema: JsonSchema, path: tuple[str, ...]) -> JsonSchema:
    properties = schema.get("properties")
    if not isinstance(properties, dict) or path[0] not in properties:
        return schema
    out = dict(schema)
    kept = dict(properties)
    if len(path) == 1:
        del kept[path[0]]
        out["required"] = [n for n in out.get("required") or () if n != path[0]]
        if not out["required"]:
            del out["required"]
    else:
        inner = _without(dict(kept[path[0]]), path[1:])
        inner_props = inner.get("properties")
        # An object shown without its fields (cut for depth) would let the agent send the lifted
        # field a second way, past its conversion and guard: it goes, the lifted arguments replace it.
        if not isinstance(inner_props, dict) or not inner_props:
            del kept[path[0]]
            out["required"] = [n for n in out.get("required") or () if n != path[0]]
            if not out["required"]:
                del out["required"]
        else:
            kept[path[0]] = inner
    out["properties"] = kept
    return out
