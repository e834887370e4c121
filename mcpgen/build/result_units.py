"""Result fields shown in the agent's unit (T5 parameter names), each scoped to the schema it was derived from.

A converted parameter converts the result fields written at the same schema slot, by JSON pointer:
`size_gb` on a disk's `size` (#/components/schemas/Disk/properties/size) converts `size` wherever an
answer holds a Disk, and never a Volume's `size`, which the API counts in another unit. Money amounts
are one slot, #/components/schemas/Money/properties/amount, so every amount of a payment is shown
alike. A field that has the parameter's name but another slot is left as the API sends it and named
in a warning (M224), with the mapping's way to state it: `response: {units: {...}}` on the action,
checked here against the answer's schema (M227).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from mcpgen import codes
from mcpgen.build.answers import response_schema
from mcpgen.build.parameters import body_schema
from mcpgen.build.schemas import json_type_of
from mcpgen.build.units import is_numeric
from mcpgen.conversions import MAJOR
from mcpgen.conversions import MINOR as MINOR_NAMES
from mcpgen.diagnostics import Diagnostic, DiagnosticError, error, rule_name, warning
from mcpgen.ir import ActionSpec, ParamSpec, ResultUnitSpec, ToolSpec, UnitSpec
from mcpgen.load.mapping import ActionRule, ToolRule
from mcpgen.load.openapi import Operation, Spec, find_operation
from mcpgen.load.refs import Located
from mcpgen.load.unit_rules import ResultUnitRule

_DEPTH = 4  # levels of objects inside a record the server looks into ('payment.amount_money.amount' is 3)
_MOST_FIELDS = 2000  # per answer: a record schema larger than this is searched no further


@dataclass(frozen=True, slots=True)
class _Field:
    """A field of one record of an answer: its dotted path, the slot its schema is written at, and the
    schema itself (dereferenced)."""

    path: str
    pointer: str
    schema: Located


@dataclass(frozen=True, slots=True)
class _Converted:
    """A converted parameter of some action, with the slot its value is written at."""

    action: ActionSpec
    param: ParamSpec
    unit: UnitSpec
    pointer: str


@dataclass(frozen=True, slots=True)
class _Action:
    tool: ToolRule
    rule: ActionRule
    spec: ActionSpec
    operation: Operation


def with_result_units(
    spec: Spec, built: list[tuple[ToolRule, ToolSpec]]
) -> tuple[list[ToolSpec], list[Diagnostic]]:
    """Each action's result units: those its mapping states, then those of the converted parameters
    (of any action) whose schema slot its answer shares."""
    actions = [a for tool_rule, tool in built for a in _actions(spec, tool_rule, tool)]
    converted = [c for a in actions for c in _converted(spec, a)]
    diagnostics: list[Diagnostic] = []
    units: dict[tuple[str, str], tuple[ResultUnitSpec, ...]] = {}
    for action in actions:
        found, problems = _action_units(spec, action, converted)
        units[(action.tool.name, action.rule.name)] = found
        diagnostics += problems
    tools = [
        replace(
            tool,
            actions=tuple(
                replace(a, result_units=units.get((tool_rule.name, a.name), ())) for a in tool.actions
            ),
        )
        for tool_rule, tool in built
    ]
    return tools, diagnostics


def _actions(spec: Spec, tool_rule: ToolRule, tool: ToolSpec) -> Iterator[_Action]:
    rules = {r.name: r for r in tool_rule.actions}
    for action in tool.actions:
        rule = rules.get(action.name)
        operation = find_operation(spec, rule.operation) if rule is not None else None
        if rule is not None and operation is not None:
            yield _Action(tool_rule, rule, action, operation)


def _action_units(
    spec: Spec, action: _Action, converted: list[_Converted]
) -> tuple[tuple[ResultUnitSpec, ...], list[Diagnostic]]:
    fields = _record_fields(spec, action)
    stated, diagnostics = _stated(action, fields)
    out = list(stated)
    taken = {u.field for u in stated}
    for field in fields:
        if field.path in taken:
            continue
        chosen = _chosen(action.spec, field, converted)
        if chosen is not None:
            out.append(_derived(field, chosen))
            continue
        diagnostics += [_not_applied(action, field, c) for c in _by_name(field, converted)[:1]]
    return tuple(out), diagnostics


def _chosen(action: ActionSpec, field: _Field, converted: list[_Converted]) -> _Converted | None:
    """The converted parameter of this field's slot: the action's own first, then one of the same
    path, then the first the mapping declares."""
    candidates = [c for c in converted if c.pointer == field.pointer and _applies(c, action, field)]
    if not candidates:
        return None
    candidates.sort(key=lambda c: (c.action is not action, not _same_path(field.path, c.param)))
    return candidates[0]


def _applies(converted: _Converted, action: ActionSpec, field: _Field) -> bool:
    """Money in a currency the action fixes beside the amount (`amount_money.currency: {fixed: JPY}`)
    converts its own field of its own action's answer only: another amount of the same schema may be
    in any currency. Money whose currency the call names converts wherever the record names it
    beside the amount; a fixed currency with nothing beside it (Declared value in cents) is the
    field's own, and converts wherever the field is."""
    unit, param = converted.unit, converted.param
    if unit.upstream in MINOR_NAMES and unit.agent != MAJOR:
        parent = param.wire_path.rpartition(".")[0]
        fixed_beside = any(
            parent and ".".join((f.wire_name, *f.path)).rpartition(".")[0] == parent
            for f in converted.action.fixed
        )
        if fixed_beside:
            return converted.action is action and _same_path(field.path, param)
    return bool(unit.factor) or unit.currency_sibling is not None


def _derived(field: _Field, chosen: _Converted) -> ResultUnitSpec:
    """Named as the parameter when it is the same field and its name says the unit ('size_gb'),
    else '<key>_<agent unit>' ('amount_major'): the name always says the value is converted."""
    param, unit = chosen.param, chosen.unit
    key = field.path.rsplit(".", 1)[-1]
    if _same_path(field.path, param) and unit.agent in param.arg_name.split("_"):
        name = param.arg_name
    else:
        name = f"{key}_{unit.agent}"
    return ResultUnitSpec(field=field.path, name=name, unit=unit, pointer=field.pointer)


def _same_path(path: str, param: ParamSpec) -> bool:
    """The parameter's body path is the field's, or ends it ('payment.amount_money.amount')."""
    return path == param.wire_path or path.endswith("." + param.wire_path)


def _by_name(field: _Field, converted: list[_Converted]) -> list[_Converted]:
    return [c for c in converted if _same_path(field.path, c.param) and c.pointer != field.pointer]


def _not_applied(action: _Action, field: _Field, by_name: _Converted) -> Diagnostic:
    unit = by_name.unit
    factor = f", factor: {unit.factor:g}" if unit.factor else ""
    name = by_name.param.arg_name
    return warning(
        codes.M224,
        f"'{field.path}' in the answers of action '{action.rule.name}' of tool '{action.tool.name}' is shown "
        f"as the API sends it, not converted like '{name}' ({unit.upstream} -> {unit.agent}): it is "
        f"{_short(field.pointer)}, not the parameter's {_short(by_name.pointer)}",
        action.rule.source,
        hint=f"if the API sends it in {unit.upstream} too, state it on this action:  response: {{units: "
        f"{{{field.path}: {{name: {_result_name(field.path, name, unit)}, agent: {unit.agent}, "
        f"upstream: {unit.upstream}{factor}}}}}}}",
    )


def _short(pointer: str) -> str:
    return "#" + pointer.partition("#")[2]


def _result_name(path: str, arg_name: str, unit: UnitSpec) -> str:
    return arg_name if unit.agent in arg_name.split("_") else f"{path.rsplit('.', 1)[-1]}_{unit.agent}"


# ---- what the mapping states ----------------------------------------------------------------------


def _stated(action: _Action, fields: list[_Field]) -> tuple[list[ResultUnitSpec], list[Diagnostic]]:
    rules = action.rule.response.units if action.rule.response is not None else ()
    by_path = {f.path: f for f in fields}
    out: list[ResultUnitSpec] = []
    diagnostics: list[Diagnostic] = []
    for rule in rules:
        field = by_path.get(rule.field)
        problem = _stated_problem(rule, field, by_path)
        if problem is not None or field is None:
            what, hint = problem or ("", "")
            diagnostics.append(error(codes.M227, what, rule.unit.source, hint=hint))
            continue
        out.append(ResultUnitSpec(field=rule.field, name=rule.name, unit=_unit(rule), pointer=field.pointer))
    return out, diagnostics


def _stated_problem(
    rule: ResultUnitRule, field: _Field | None, fields: dict[str, _Field]
) -> tuple[str, str] | None:
    if field is None:
        numbers = [p for p, f in fields.items() if is_numeric(_value(f))][:20]
        return (
            f"response.units names '{rule.field}', which the answers of this action do not have",
            f"name a number field of one record: {', '.join(numbers) or 'it has none'}",
        )
    if not is_numeric(_value(field)):
        return (
            f"'{rule.field}' is of type {json_type_of(_value(field))} in the answer's schema, so it has no unit to convert",
            f"remove '{rule.field}' from response.units",
        )
    if rule.unit.agent != MAJOR and rule.unit.agent not in rule.name.split("_"):
        return (
            f"'{rule.name}' is converted to '{rule.unit.agent}' but its name does not say so ({rule_name('T5')})",
            f"name it '{rule.field.rsplit('.', 1)[-1]}_{rule.unit.agent}'",
        )
    currency = rule.unit.currency_from
    parent = rule.field.rpartition(".")[0]
    if currency is not None and (currency.rpartition(".")[0] != parent or currency not in fields):
        return (
            f"currency_from '{currency}' is not a field beside '{rule.field}'",
            f"name the field of the same object that holds the ISO 4217 code, e.g. "
            f"'{parent + '.' if parent else ''}currency'",
        )
    return None


def _unit(rule: ResultUnitRule) -> UnitSpec:
    unit = rule.unit
    sibling = unit.currency_from.rsplit(".", 1)[-1] if unit.currency_from else None
    return UnitSpec(
        agent=unit.agent,
        upstream=unit.upstream,
        factor=unit.factor,
        integer=False,
        currency_sibling=sibling,
        as_is=unit.as_is,
    )


# ---- schema slots ---------------------------------------------------------------------------------


def _converted(spec: Spec, action: _Action) -> list[_Converted]:
    found = []
    for param in action.spec.params:
        if param.unit is None or param.location not in ("body", "query"):
            continue
        pointer = _param_slot(spec, action.operation, param)
        if pointer is not None:
            found.append(_Converted(action.spec, param, param.unit, pointer))
    return found


def _param_slot(spec: Spec, operation: Operation, param: ParamSpec) -> str | None:
    """The slot a parameter's schema is written at: its body property, or its query parameter's schema."""
    try:
        if param.location == "query":
            for located in operation.parameters:
                raw = located.value
                if raw.get("in") == "query" and raw.get("name") == param.wire_name and "schema" in raw:
                    return _identity(spec, located.child("schema"))
            return None
        node = body_schema(spec, operation)
        slot = None
        for key in param.wire_path.split("."):
            slot = _slots(spec, node).get(key) if node is not None else None
            if slot is None:
                return None
            node = spec.resolver.deref(slot)
        return _identity(spec, slot) if slot is not None else None
    except DiagnosticError:
        return None  # a broken $ref: reported where the spec's problems are


def _record_fields(spec: Spec, action: _Action) -> list[_Field]:
    """The fields of one record of the action's answer, as the server shows it: an item of its list,
    the record inside a one-record envelope of a read, or the whole answer."""
    try:
        body = response_schema(spec, action.operation)
        shape = action.spec.shape
        record = body
        if body is not None and shape is not None and shape.items is not None:
            record = _items(spec, _at(spec, body, shape.items) if shape.items else body)
        elif body is not None and shape is not None and shape.record:
            record = _at(spec, body, shape.record)
        elif body is not None and isinstance(body.value, dict) and body.value.get("type") == "array":
            record = _items(spec, body)
        return list(_fields(spec, record, "", 0, ()))[:_MOST_FIELDS] if record is not None else []
    except DiagnosticError:
        return []


def _fields(spec: Spec, schema: Located, prefix: str, depth: int, seen: tuple[str, ...]) -> Iterator[_Field]:
    if depth > _DEPTH or schema.pointer in seen:
        return
    for name, slot in _slots(spec, schema).items():
        value = spec.resolver.deref(slot)
        yield _Field(prefix + name, _identity(spec, slot), value)
        if isinstance(value.value, dict) and (value.value.get("properties") or value.value.get("allOf")):
            yield from _fields(spec, value, f"{prefix}{name}.", depth + 1, (*seen, schema.pointer))


def _slots(spec: Spec, schema: Located) -> dict[str, Located]:
    """An object schema's properties as written (each slot before its own `$ref`), allOf parts merged."""
    schema = spec.resolver.deref(schema)
    value = schema.value
    if not isinstance(value, dict):
        return {}
    found: dict[str, Located] = {}
    for index, part in enumerate(value.get("allOf") or ()):
        if isinstance(part, dict):
            found.update(_slots(spec, schema.child("allOf", index)))
    properties = value.get("properties")
    for name, prop in properties.items() if isinstance(properties, dict) else ():
        if isinstance(prop, dict):
            found[name] = schema.child("properties", name)
    return found


def _identity(spec: Spec, slot: Located) -> str:
    """The JSON pointer of the property a slot is: itself, or the property its `$ref` names (Linode's
    DiskRequest `filesystem` is Disk's); a `$ref` to a whole schema (Money) leaves the slot its own."""
    current = slot
    for _ in range(8):
        ref = current.value.get("$ref") if isinstance(current.value, dict) else None
        if not isinstance(ref, str):
            break
        target = spec.resolver.follow(current)
        if target.pointer.rsplit("/", 2)[-2:-1] != ["properties"]:
            break
        current = target
    document = "" if current.document is spec.document else current.document.display_path
    return f"{document}#{current.pointer}"


def _at(spec: Spec, schema: Located, path: str) -> Located | None:
    node: Located | None = schema
    for key in path.split("."):
        slot = _slots(spec, node).get(key) if node is not None else None
        node = spec.resolver.deref(slot) if slot is not None else None
    return node


def _items(spec: Spec, schema: Located | None) -> Located | None:
    value = schema.value if schema is not None else None
    if schema is None or not isinstance(value, dict) or not isinstance(value.get("items"), dict):
        return None
    return spec.resolver.deref(schema.child("items"))


def _value(field: _Field) -> dict[str, object]:
    return field.schema.value if isinstance(field.schema.value, dict) else {}
