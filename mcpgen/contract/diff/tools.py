"""Contract changes of the server and of tools: added, removed, renamed, merged, moved actions,
wording, annotations and output schemas."""

from __future__ import annotations

from typing import Any

from mcpgen.contract.diff.action_schemas import action_schema_changes
from mcpgen.contract.diff.actions import action_set_changes
from mcpgen.contract.diff.kinds import Impact, Kind
from mcpgen.contract.diff.lock import lock_tools, op_key, tool_actions
from mcpgen.contract.diff.model import ContractChange
from mcpgen.contract.diff.params import param_set_changes
from mcpgen.contract.diff.renames import pair_renamed


def server_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    before, after = old.get("server", {}), new.get("server", {})
    changes = []
    for key, what, kind in (
        ("title", "server title", Kind.SERVER_TITLE_CHANGED),
        ("instructions", "server instructions", Kind.SERVER_INSTRUCTIONS_CHANGED),
    ):
        if before.get(key) != after.get(key):
            changes.append(
                ContractChange(
                    impact=Impact.BEHAVIOUR,
                    code=kind,
                    tool="(server)",
                    message=f"{what} changed",
                    before=before.get(key),
                    after=after.get(key),
                )
            )
    return changes


def tool_set_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    old_tools, new_tools = lock_tools(old), lock_tools(new)
    removed = [n for n in old_tools if n not in new_tools]
    added = [n for n in new_tools if n not in old_tools]
    changes: list[ContractChange] = []
    for old_name, new_name in pair_renamed(
        removed, added, lambda o, n: _tool_operations(old_tools[o]) == _tool_operations(new_tools[n])
    ):
        removed.remove(old_name)
        added.remove(new_name)
        changes.append(
            ContractChange(
                impact=Impact.BREAKING,
                code=Kind.TOOL_RENAMED,
                tool=new_name,
                message=f"tool `{old_name}` renamed to `{new_name}`",
                before=old_name,
                after=new_name,
            )
        )
        changes += _tool_changes(old_tools[old_name], new_tools[new_name])
    changes += [
        ContractChange(impact=Impact.BREAKING, code=Kind.TOOL_REMOVED, tool=n, message=f"tool `{n}` removed")
        for n in removed
    ]
    changes += [
        ContractChange(impact=Impact.ADDITIVE, code=Kind.TOOL_ADDED, tool=n, message=f"new tool `{n}`")
        for n in added
    ]
    for name in sorted(old_tools.keys() & new_tools.keys()):
        changes += _tool_changes(old_tools[name], new_tools[name])
    return _moves(changes, old_tools, new_tools)


def _moves(
    changes: list[ContractChange], old_tools: dict[str, dict[str, Any]], new_tools: dict[str, dict[str, Any]]
) -> list[ContractChange]:
    """An endpoint whose action left one tool and joined another is one change, moved, with both places;
    a removed tool all of whose actions went to one other tool was merged into it (issue 13)."""
    gone: dict[str, tuple[str, str]] = {}  # operation -> (old tool, old action)
    came: dict[str, tuple[str, str]] = {}
    for change in changes:
        if change.code == Kind.ACTION_REMOVED and change.action:
            action = tool_actions(old_tools[change.tool]).get(change.action)
            if action is not None:
                gone.setdefault(op_key(action), (change.tool, change.action))
        elif change.code == Kind.TOOL_REMOVED:
            for action in old_tools[change.tool].get("actions", []):
                gone.setdefault(op_key(action), (change.tool, action["name"]))
        elif change.code == Kind.ACTION_ADDED and change.action:
            came.setdefault(str(change.after), (change.tool, change.action))
        elif change.code == Kind.TOOL_ADDED:
            for action in new_tools[change.tool].get("actions", []):
                came.setdefault(op_key(action), (change.tool, action["name"]))
    moved = {op: (gone[op], came[op]) for op in gone.keys() & came.keys() if gone[op][0] != came[op][0]}
    if not moved:
        return changes
    moved_from = {place for place, _ in moved.values()}
    moved_to = {place for _, place in moved.values()}
    merged_into: dict[str, str] = {}
    for change in changes:
        if change.code == Kind.TOOL_REMOVED:
            targets = {
                moved[op_key(a)][1][0]
                for a in old_tools[change.tool].get("actions", [])
                if op_key(a) in moved
            }
            if len(targets) == 1 and all(op_key(a) in moved for a in old_tools[change.tool]["actions"]):
                merged_into[change.tool] = targets.pop()
    out = [
        c
        for c in changes
        if not (c.code == Kind.ACTION_REMOVED and (c.tool, c.action) in moved_from)
        and not (c.code == Kind.ACTION_ADDED and (c.tool, c.action) in moved_to)
        and not (c.code == Kind.TOOL_REMOVED and c.tool in merged_into)
    ]
    out += [
        ContractChange(
            impact=Impact.BREAKING,
            code=Kind.TOOL_MERGED,
            tool=into,
            message=f"tool `{name}` merged into `{into}`: its actions moved there (each move is listed)",
            before=name,
            after=into,
        )
        for name, into in sorted(merged_into.items())
    ]
    for (old_tool, old_action), (new_tool, new_action) in sorted(moved.values()):
        out.append(
            ContractChange(
                impact=Impact.BREAKING,
                code=Kind.ACTION_MOVED,
                tool=new_tool,
                action=new_action,
                message=f"moved from `{old_tool}.{old_action}`",
                before=f"{old_tool}.{old_action}",
                after=f"{new_tool}.{new_action}",
            )
        )
    return out


def _tool_operations(tool: dict[str, Any]) -> frozenset[str]:
    return frozenset(op_key(a) for a in tool.get("actions", []))


def _tool_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    tool = new["name"]
    changes = []
    for key, kind in (("title", Kind.TOOL_TITLE_CHANGED), ("description", Kind.TOOL_DESCRIPTION_CHANGED)):
        if old.get(key) != new.get(key):
            changes.append(
                ContractChange(
                    impact=Impact.BEHAVIOUR,
                    code=kind,
                    tool=tool,
                    message=f"{key} changed",
                    before=old.get(key),
                    after=new.get(key),
                )
            )
    changes += _annotation_changes(tool, old.get("annotations", {}), new.get("annotations", {}))
    action_changes, renamed_actions = action_set_changes(tool, old, new)
    changes += action_changes
    param_changes = param_set_changes(tool, old, new, renamed_actions)
    changes += param_changes
    changes += action_schema_changes(tool, old, new, renamed_actions, param_changes)
    changes += _output_changes(tool, old.get("outputSchema"), new.get("outputSchema"))
    return changes


# MCP's defaults when a hint is absent; destructive and idempotent mean something only for writes.
_HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
_SAFE_VALUE = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


def _annotation_changes(tool: str, old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    def value(hints: dict[str, Any], key: str) -> bool:
        return bool(hints.get(key, _HINT_DEFAULTS[key]))

    changes = []
    for key in _HINT_DEFAULTS:
        if key in ("destructiveHint", "idempotentHint") and (
            value(old, "readOnlyHint") or value(new, "readOnlyHint")
        ):
            continue
        before, after = value(old, key), value(new, key)
        if before == after:
            continue
        less_safe = before == _SAFE_VALUE[key]
        changes.append(
            ContractChange(
                impact=Impact.BREAKING if less_safe else Impact.BEHAVIOUR,
                code=Kind.ANNOTATION_LESS_SAFE if less_safe else Kind.ANNOTATION_SAFER,
                tool=tool,
                message=f"annotation {key} {str(before).lower()} -> {str(after).lower()}"
                + (" (less safe: clients may stop asking before calling it)" if less_safe else ""),
                before=before,
                after=after,
            )
        )
    return changes


def _output_changes(
    tool: str, old: dict[str, Any] | None, new: dict[str, Any] | None
) -> list[ContractChange]:
    if old == new:
        return []
    if old is None or new is None:
        impact = Impact.ADDITIVE if old is None else Impact.BREAKING
        what = "now declares an output schema" if old is None else "no longer declares an output schema"
        return [ContractChange(impact=impact, code=Kind.OUTPUT_SCHEMA, tool=tool, message=f"tool {what}")]
    gone = sorted(_removed_output_fields(old, new))
    if gone:
        # Agents read these fields (a concise list the mapping relies on, say): breaking for them.
        return [
            ContractChange(
                impact=Impact.BREAKING,
                code=Kind.OUTPUT_FIELD_REMOVED,
                tool=tool,
                message=f"results no longer have {', '.join(f'`{f}`' for f in gone)}",
                before=gone,
            )
        ]
    return [
        ContractChange(
            impact=Impact.BEHAVIOUR, code=Kind.OUTPUT_SCHEMA, tool=tool, message="output schema changed"
        )
    ]


def _removed_output_fields(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """The fields the old output schema names and the new one no longer has, as paths: `total_count`,
    and `items[].color` for a field of each record of a list. A schema that no longer lists its
    members at all (a tool whose actions' records differ has `items: {}`) says less, not that a field
    went."""
    old_members, new_members = old.get("properties"), new.get("properties")
    if not isinstance(old_members, dict) or not isinstance(new_members, dict):
        return []
    removed = []
    for name, member in old_members.items():
        now = new_members.get(name)
        if now is None:
            removed.append(f"{prefix}{name}")
        elif isinstance(member, dict) and isinstance(now, dict):
            removed += _removed_output_fields(member, now, f"{prefix}{name}.")
            if isinstance(member.get("items"), dict) and isinstance(now.get("items"), dict):
                removed += _removed_output_fields(member["items"], now["items"], f"{prefix}{name}[].")
    return removed
