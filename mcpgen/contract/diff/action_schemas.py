"""Contract changes of one action's own parameter schema: what the server checks a shared parameter
with for that action (T2). A tool's flat property leaves out the constraints its actions disagree on,
so `minItems: 1` added for one action, or an enum value one action no longer takes, is seen only here.
"""

from __future__ import annotations

from typing import Any

from mcpgen.contract.diff.actions import recorded
from mcpgen.contract.diff.kinds import Kind
from mcpgen.contract.diff.lock import action_params, tool_actions, tool_properties
from mcpgen.contract.diff.model import ContractChange
from mcpgen.contract.diff.schemas import schema_changes

# Keywords that say nothing about which values are accepted (as the build leaves them out of an
# action's own schema).
_PROSE = frozenset(("description", "default", "examples", "example", "title"))
# Kinds the tool's flat property reports alone: wording, not what the server accepts.
_WORDING = frozenset((Kind.PARAM_DESCRIPTION_CHANGED, Kind.PARAM_DEFAULT_CHANGED))


def checked_schema(param: dict[str, Any], tool: dict[str, Any]) -> dict[str, Any] | None:
    """The schema the server checks an action's parameter with: its own when the lock records one,
    else the tool's flat property; without prose."""
    own = param.get("schema")
    if isinstance(own, dict):
        return _constraints(own)
    shared = tool_properties(tool).get(param["arg"])
    return _constraints(shared) if isinstance(shared, dict) else None


def _constraints(schema: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in schema.items() if k not in _PROSE}
    if isinstance(out.get("items"), dict):
        out["items"] = _constraints(out["items"])
    return out


def action_schema_changes(
    tool: str,
    old: dict[str, Any],
    new: dict[str, Any],
    renamed_actions: dict[str, str],
    reported: list[ContractChange],
) -> list[ContractChange]:
    """Each action's own schema changes that the tool's flat property does not show (those in
    `reported`, the tool-level changes, are not said again per action)."""
    seen = {(c.param, c.code, c.message) for c in reported if c.action is None}
    new_actions = tool_actions(new)
    changes = []
    for name, action in tool_actions(old).items():
        after = new_actions.get(renamed_actions.get(name, name))
        if after is None or not (recorded(action) and recorded(after)):
            continue  # a lock written before actions' own schemas were recorded: nothing to compare
        now_params = action_params(after)
        for arg, was in action_params(action).items():
            now = now_params.get(arg)
            if now is None or ("schema" not in was and "schema" not in now):
                continue  # the tool's flat property on both sides: its changes are the tool's
            before, current = checked_schema(was, old), checked_schema(now, new)
            if before is None or current is None or before == current:
                continue
            for impact, code, message, old_value, new_value in schema_changes(before, current, arg):
                if code in _WORDING or (arg, code, message) in seen:
                    continue
                changes.append(
                    ContractChange(
                        impact=impact,
                        code=code,
                        tool=tool,
                        action=after["name"],
                        param=arg,
                        message=f"{message} for action `{after['name']}`",
                        before=old_value,
                        after=new_value,
                    )
                )
    return changes
