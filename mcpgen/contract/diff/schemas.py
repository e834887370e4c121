"""Parameter schemas: the contract changes of one parameter's schema, its members and its items."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcpgen.contract.diff.kinds import Impact, Kind
from mcpgen.contract.diff.show import show, show_types, show_values

SchemaChange = tuple[Impact, Kind, str, Any, Any]  # impact, code, message, before, after

# Constraint keywords and the direction in which a larger value accepts fewer inputs.
_BOUNDS = {
    "minimum": 1,
    "exclusiveMinimum": 1,
    "minLength": 1,
    "minItems": 1,
    "maximum": -1,
    "exclusiveMaximum": -1,
    "maxLength": -1,
    "maxItems": -1,
}


def schema_changes(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[SchemaChange]:
    """How an input schema changed, seen from a caller: what narrows breaks, what widens adds."""
    name = f"parameter `{where}`"
    yield from _type_change(old, new, name)
    yield from _enum_change(old, new, name)
    for key, direction in _BOUNDS.items():
        before, after = old.get(key), new.get(key)
        if before == after or not all(isinstance(v, (int, float)) or v is None for v in (before, after)):
            continue
        tighter = after is not None and (before is None or (after - before) * direction > 0)
        yield (
            Impact.BREAKING if tighter else Impact.ADDITIVE,
            Kind.PARAM_CONSTRAINT_TIGHTENED if tighter else Kind.PARAM_CONSTRAINT_RELAXED,
            f"{name}: {key} {show(before)} -> {show(after)}",
            before,
            after,
        )
    if old.get("pattern") != new.get("pattern"):
        relaxed = new.get("pattern") is None
        yield (
            Impact.ADDITIVE if relaxed else Impact.BREAKING,
            Kind.PARAM_CONSTRAINT_RELAXED if relaxed else Kind.PARAM_CONSTRAINT_TIGHTENED,
            f"{name}: pattern {show(old.get('pattern'))} -> {show(new.get('pattern'))}",
            old.get("pattern"),
            new.get("pattern"),
        )
    for key, code in (
        ("format", Kind.PARAM_FORMAT_CHANGED),
        ("default", Kind.PARAM_DEFAULT_CHANGED),
        ("description", Kind.PARAM_DESCRIPTION_CHANGED),
    ):
        if old.get(key) != new.get(key):
            yield Impact.BEHAVIOUR, code, f"{name}: {key} changed", old.get(key), new.get(key)
    if old.get("additionalProperties", True) is not False and new.get("additionalProperties", True) is False:
        yield Impact.BREAKING, Kind.PARAM_CLOSED, f"{name}: no longer accepts other properties", None, None
    elif (
        old.get("additionalProperties", True) is False and new.get("additionalProperties", True) is not False
    ):
        yield Impact.ADDITIVE, Kind.PARAM_OPENED, f"{name}: now accepts other properties", None, None
    old_items, new_items = old.get("items"), new.get("items")
    if isinstance(old_items, dict) and isinstance(new_items, dict):
        yield from schema_changes(old_items, new_items, f"{where}[]")
    yield from _member_changes(old, new, where)


def _type_change(old: dict[str, Any], new: dict[str, Any], name: str) -> Iterator[SchemaChange]:
    before, after = schema_types(old), schema_types(new)
    if before == after:
        return
    shown = f"{name}: type {show_types(before)} -> {show_types(after)}"
    if _accepts(before, after):
        yield Impact.BREAKING, Kind.PARAM_TYPE_NARROWED, shown, sorted(before), sorted(after)
    elif _accepts(after, before):
        yield Impact.ADDITIVE, Kind.PARAM_TYPE_WIDENED, shown, sorted(before), sorted(after)
    else:
        yield Impact.BREAKING, Kind.PARAM_TYPE_CHANGED, shown, sorted(before), sorted(after)


def _enum_change(old: dict[str, Any], new: dict[str, Any], name: str) -> Iterator[SchemaChange]:
    before, after = old.get("enum"), new.get("enum")
    if before == after:
        return
    if before is None or after is None:
        if after is not None:
            yield (
                Impact.BREAKING,
                Kind.PARAM_ENUM_INTRODUCED,
                f"{name}: now limited to {show_values(after)}",
                None,
                after,
            )
        else:
            yield (
                Impact.ADDITIVE,
                Kind.PARAM_ENUM_DROPPED,
                f"{name}: no longer limited to a fixed set",
                before,
                None,
            )
        return
    removed = [v for v in before if v not in after]
    added = [v for v in after if v not in before]
    if removed:
        yield (
            Impact.BREAKING,
            Kind.PARAM_ENUM_VALUE_REMOVED,
            f"{name}: enum value {show_values(removed)} removed",
            before,
            after,
        )
    if added:
        yield (
            Impact.ADDITIVE,
            Kind.PARAM_ENUM_VALUE_ADDED,
            f"{name}: enum value {show_values(added)} added",
            before,
            after,
        )


def _member_changes(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[SchemaChange]:
    old_members = _members(old)
    new_members = _members(new)
    old_required, new_required = set(old.get("required") or ()), set(new.get("required") or ())
    for member in sorted(old_members.keys() - new_members.keys()):
        yield Impact.BREAKING, Kind.PARAM_MEMBER_REMOVED, f"parameter `{where}.{member}` removed", None, None
    for member in sorted(new_members.keys() - old_members.keys()):
        required = member in new_required
        yield (
            Impact.BREAKING if required else Impact.ADDITIVE,
            Kind.PARAM_MEMBER_ADDED,
            f"parameter `{where}.{member}` added" + (" (required)" if required else ""),
            None,
            None,
        )
    for member in sorted(old_members.keys() & new_members.keys()):
        if member in new_required and member not in old_required:
            yield (
                Impact.BREAKING,
                Kind.PARAM_MEMBER_REQUIRED,
                f"parameter `{where}.{member}` is now required",
                False,
                True,
            )
        elif member in old_required and member not in new_required:
            yield (
                Impact.ADDITIVE,
                Kind.PARAM_MEMBER_OPTIONAL,
                f"parameter `{where}.{member}` is no longer required",
                True,
                False,
            )
        yield from schema_changes(old_members[member], new_members[member], f"{where}.{member}")


def _members(schema: dict[str, Any]) -> dict[str, Any]:
    found = schema.get("properties")
    return found if isinstance(found, dict) else {}


def schema_types(schema: dict[str, Any]) -> frozenset[str]:
    type_ = schema.get("type")
    if isinstance(type_, str):
        return frozenset({type_})
    if isinstance(type_, list):
        return frozenset(str(t) for t in type_)
    return frozenset()  # any type


def _accepts(wide: frozenset[str], narrow: frozenset[str]) -> bool:
    """Whether every value of `narrow` is a value of `wide` (no type at all accepts everything)."""
    if not wide:
        return bool(narrow)
    if not narrow:
        return False
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)
