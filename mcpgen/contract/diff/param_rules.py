"""Mapping renames: a parameter change a `params:` rule of the new mapping made cites that rule."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from mcpgen.contract.diff.kinds import Kind
from mcpgen.contract.diff.lock import action_params, lock_tools, tool_actions
from mcpgen.contract.diff.mapping_changes import data_at
from mcpgen.contract.diff.model import ContractChange, InputChange, Sources
from mcpgen.contract.diff.show import brief
from mcpgen.load.mapping import Mapping
from mcpgen.load.sources import join_pointer

_NAMED_PARAM_KINDS = (Kind.PARAM_RENAMED, Kind.PARAM_ADDED, Kind.PARAM_REMOVED, Kind.ACTION_PARAM_DROPPED)


@dataclass(frozen=True, slots=True)
class _ParamRule:
    """A mapping `params:` entry that gives a parameter its agent name (`status: {name: item_status}`)."""

    rule: str  # 'tool.action'
    key: str  # as written: 'status' or 'query.status'
    name: str
    pointer: str  # of its `name`


def cite_param_rule(
    change: ContractChange, old: dict[str, Any], new: dict[str, Any], sources: tuple[Sources, Sources]
) -> ContractChange:
    """A parameter change that a `params:` rename in the new mapping made says so, with the rule's file
    and line, and has that rule as its first cause: without it a rename reads as an unexplained
    removal and addition (issue 13)."""
    if change.code not in _NAMED_PARAM_KINDS or not change.param:
        return change
    new_mapping, old_mapping = sources[1].mapping, sources[0].mapping
    # The name the rule gives (a rename's new name, an added one) or takes away (removed, dropped).
    arg = str(change.after) if change.code == Kind.PARAM_RENAMED else change.param
    gives = change.code in (Kind.PARAM_RENAMED, Kind.PARAM_ADDED)
    wires = _wire_of(new if gives else old, change.tool, arg, change.action)
    found = _param_rule(new, new_mapping, change.tool, *wires)
    if found is None or (found.name == arg) != gives:
        return change
    was = _param_rule(old, old_mapping, change.tool, *wires)
    if was is not None and was.name == found.name:
        return change  # the old mapping named it so already: the rule did not change
    where = new_mapping.document.locate(found.pointer)
    cause = InputChange(
        origin="mapping",
        change="changed" if was is not None else "added",
        pointer=found.pointer,
        detail=f"{brief(was.name)} -> {brief(found.name)}" if was is not None else brief(found.name),
        rule=found.rule,
    )
    return replace(
        change,
        message=f"{change.message}{', by' if change.code == Kind.PARAM_RENAMED else '; renamed by'} the mapping's "
        f"params rule `{found.key}: {{name: {found.name}}}` ({where.file} line {where.line})",
        causes=(cause, *(c for c in change.causes if c.pointer != found.pointer)),
    )


def _wire_of(
    lock: dict[str, Any], tool: str, arg: str, action: str | None
) -> tuple[tuple[str, Any, Any], ...]:
    """(action, place, wire name) of each action of `tool` in `lock` that takes `arg` (only `action`
    when the change names one)."""
    found = []
    for entry in lock_tools(lock).get(tool, {}).get("actions", []):
        if action and entry["name"] != action:
            continue
        param = action_params(entry).get(arg)
        if param is not None:
            found.append((entry["name"], param.get("in"), param.get("wire")))
    return tuple(found)


def _param_rule(
    lock: dict[str, Any], mapping: Mapping, tool: str, *wires: tuple[str, Any, Any]
) -> _ParamRule | None:
    """The first `params:` entry with a `name`, for one of `wires`, in the mapping rules of the
    actions `lock` builds from `mapping`."""
    actions = tool_actions(lock_tools(lock).get(tool, {}))
    for action, where, wire in wires:
        rule = (actions.get(action) or {}).get("mapping") or {}
        try:
            data = data_at(mapping.document.data, str(rule.get("pointer")))
        except (KeyError, IndexError, TypeError, ValueError):
            continue  # an action from no rule of this mapping (the lock is another's)
        params = data.get("params") if isinstance(data, dict) else None
        for key in (f"{where}.{wire}", str(wire)):
            entry = params.get(key) if isinstance(params, dict) else None
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                pointer = join_pointer(str(rule["pointer"]), "params", key, "name")
                return _ParamRule(f"{tool}.{action}", key, entry["name"], pointer)
    return None
