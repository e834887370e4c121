"""Contract changes of the result fields an action's default format shows: type and unit (R1, T5)."""

from __future__ import annotations

from typing import Any

from mcpgen.contract.diff.kinds import Impact, Kind
from mcpgen.contract.diff.model import ContractChange


def result_changes(
    tool: str, action: str, old: dict[str, Any] | None, new: dict[str, Any] | None
) -> list[ContractChange]:
    """A field both locks record (the default format shows it) that has another type or unit now: an
    agent that reads it, or a hook that does arithmetic on it, gets another thing under the same name.
    A field that left the results is the output schema's change (`output-field-removed`)."""
    if not old or not new:
        return []
    changes = []
    for name in sorted(old.keys() & new.keys()):
        was, now = old[name], new[name]
        types_before, types_after = was.get("type") or [], now.get("type") or []
        if types_before and types_after and types_before != types_after:
            changes.append(
                ContractChange(
                    impact=Impact.BREAKING,
                    code=Kind.RESULT_TYPE_CHANGED,
                    tool=tool,
                    action=action,
                    param=name,
                    message=f"result field `{name}` of action `{action}` is now {'|'.join(types_after)} "
                    f"(was {'|'.join(types_before)})",
                    before=types_before,
                    after=types_after,
                )
            )
        unit_before, unit_after = was.get("measured_in"), now.get("measured_in")
        if unit_before and unit_after and unit_before != unit_after:
            changes.append(
                ContractChange(
                    impact=Impact.BREAKING,
                    code=Kind.RESULT_UNIT_CHANGED,
                    tool=tool,
                    action=action,
                    param=name,
                    message=f"result field `{name}` of action `{action}` is now in {unit_after} (was in "
                    f"{unit_before}): the same number means another amount",
                    before=unit_before,
                    after=unit_after,
                )
            )
    return changes
