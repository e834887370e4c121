"""Input changes: what changed in the spec, the mapping file and the generator, with where."""

from __future__ import annotations

from typing import Any

from mcpgen.build.fingerprints import Canonicalizer, operation_parts, operation_pointer
from mcpgen.contract.diff.lock import op_key
from mcpgen.contract.diff.mapping_changes import mapping_changes
from mcpgen.contract.diff.model import Change, InputChange, Sources
from mcpgen.contract.diff.walk import PairKey, Walk, place
from mcpgen.load.openapi import find_operation


def input_changes(
    old: dict[str, Any], new: dict[str, Any], sources: tuple[Sources, Sources] | None
) -> list[InputChange]:
    changes = _spec_changes(old, new, sources)
    changes += mapping_changes(old, new, sources)
    if old.get("generator") != new.get("generator"):
        changes.append(
            InputChange(
                origin="generator",
                change="changed",
                pointer="",
                detail=f"{old.get('generator')} -> {new.get('generator')}",
            )
        )
    return changes


def _operations_used(lock: dict[str, Any]) -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    for tool in lock.get("tools", []):
        for action in tool.get("actions", []):
            used.setdefault(op_key(action), set()).add(f"{tool['name']}.{action['name']}")
    return used


def _operation_records(lock: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fingerprints with parts the lock holds, by operation ('GET /path')."""
    return {
        op_key(action): action["operation"]
        for tool in lock.get("tools", [])
        for action in tool.get("actions", [])
        if action.get("operation")
    }


def _spec_changes(
    old: dict[str, Any], new: dict[str, Any], sources: tuple[Sources, Sources] | None
) -> list[InputChange]:
    """Each changed operation's changes, with the actions built from it (the new lock's, else the old's).
    Each InputChange is made once, complete: Stripe has a million before the duplicates of one operation
    are dropped, and copying them with `dataclasses.replace` took most of a diff's time."""
    before, after = old.get("spec_operations", {}), new.get("spec_operations", {})
    old_records, new_records = _operation_records(old), _operation_records(new)
    used = {
        key: tuple(sorted(names)) for key, names in (_operations_used(old) | _operations_used(new)).items()
    }
    walk = (
        Walk(
            sources[0].spec,
            sources[1].spec,
            Canonicalizer(sources[0].spec.resolver),
            Canonicalizer(sources[1].spec.resolver),
        )
        if sources
        else None
    )
    changes: list[InputChange] = []
    for key in sorted(before.keys() | after.keys()):
        if before.get(key) == after.get(key):
            continue
        used_by = used.get(key, ())
        if key not in after:
            pointer = old_records.get(key, {}).get("pointer") or operation_pointer(key)
            changes.append(_spec_change("removed", pointer, key, used_by))
        elif key not in before:
            pointer = new_records.get(key, {}).get("pointer") or operation_pointer(key)
            changes.append(_spec_change("added", pointer, key, used_by))
        elif walk is not None:
            changes += _compared_operation(key, walk, used_by)
        elif key in old_records and key in new_records:
            changes += _part_changes(key, old_records[key], new_records[key], used_by)
        else:
            changes.append(_spec_change("changed", operation_pointer(key), key, used_by))
    return changes


def _spec_change(
    change: Change,
    pointer: str,
    operation: str,
    used_by: tuple[str, ...],
    part: str | None = None,
    detail: str = "",
) -> InputChange:
    return InputChange(
        origin="spec",
        change=change,
        pointer=pointer,
        operation=operation,
        part=part,
        detail=detail,
        used_by=used_by,
    )


def _part_changes(
    key: str, old: dict[str, Any], new: dict[str, Any], used_by: tuple[str, ...]
) -> list[InputChange]:
    before, after = old.get("parts", {}), new.get("parts", {})
    changes = []
    for label in sorted(before.keys() | after.keys()):
        if before.get(label) == after.get(label):
            continue
        change: Change = "removed" if label not in after else "added" if label not in before else "changed"
        pointer = (after.get(label) or before[label])["pointer"]
        changes.append(_spec_change(change, pointer, key, used_by, label))
    if not changes:  # the operation changed outside every part: new parts of the format, say
        changes.append(_spec_change("changed", new.get("pointer", ""), key, used_by))
    return changes


def _compared_operation(key: str, walk: Walk, used_by: tuple[str, ...]) -> list[InputChange]:
    old_spec, new_spec = walk.old_spec, walk.new_spec
    old_op, new_op = find_operation(old_spec, key), find_operation(new_spec, key)
    assert old_op is not None and new_op is not None  # both fingerprints exist
    old_parts, new_parts = dict(operation_parts(old_spec, old_op)), dict(operation_parts(new_spec, new_op))
    changes: list[InputChange] = []
    told: set[tuple[str, str, str]] = set()
    reached: set[PairKey] = set()  # pairs of places walked for this operation

    def tell(change: Change, pointer: str, label: str, detail: str = "") -> None:
        """A place seen through several parts (a definition both the body and a response use) is told
        once, under the first part."""
        if (pointer, change, detail) not in told:
            told.add((pointer, change, detail))
            changes.append(_spec_change(change, pointer, key, used_by, label, detail))

    # Sorted labels put 'body.title' before 'requestBody', so a place seen through both is told under
    # the more specific part.
    for label in sorted(old_parts.keys() | new_parts.keys()):
        if label not in new_parts:
            tell("removed", place(old_parts[label], old_spec), label)
        elif label not in old_parts:
            tell("added", place(new_parts[label], new_spec), label)
        else:  # equal parts find nothing: the walk is the comparison (no fingerprint needed)
            for found in walk.compare(old_parts[label], new_parts[label], reached):
                tell(found.change, found.pointer, label, found.detail)
    if not changes:
        changes.append(_spec_change("changed", new_op.located.pointer, key, used_by))
    return changes
