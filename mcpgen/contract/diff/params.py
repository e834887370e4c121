"""Contract changes of a tool's parameters: added, removed, renamed, dropped by an action, and how
each one's schema changed."""

from __future__ import annotations

from typing import Any

from mcpgen.contract.diff.kinds import Impact, Kind
from mcpgen.contract.diff.lock import action_params, tool_actions, tool_properties
from mcpgen.contract.diff.model import ContractChange
from mcpgen.contract.diff.renames import looks_renamed, pair_renamed
from mcpgen.contract.diff.schemas import schema_changes
from mcpgen.contract.diff.show import show_unit


def param_set_changes(
    tool: str, old: dict[str, Any], new: dict[str, Any], renamed_actions: dict[str, str]
) -> list[ContractChange]:
    old_props, new_props = tool_properties(old), tool_properties(new)
    removed = [n for n in old_props if n not in new_props]
    added = [n for n in new_props if n not in old_props]
    changes: list[ContractChange] = []
    for old_name, new_name in pair_renamed(
        removed, added, lambda o, n: looks_renamed(old, new, o, n, renamed_actions)
    ):
        removed.remove(old_name)
        added.remove(new_name)
        changes.append(
            ContractChange(
                impact=Impact.BREAKING,
                code=Kind.PARAM_RENAMED,
                tool=tool,
                param=new_name,
                message=f"parameter `{old_name}` renamed to `{new_name}`",
                before=old_name,
                after=new_name,
            )
        )
        changes += _schema_contract_changes(
            tool, new_name, old_props[old_name], new_props[new_name], rename=True
        )
        changes += _renamed_unit_changes(tool, old, new, old_name, new_name, renamed_actions)
    changes += [
        ContractChange(
            impact=Impact.BREAKING,
            code=Kind.PARAM_REMOVED,
            tool=tool,
            param=n,
            message=f"parameter `{n}` removed",
        )
        for n in removed
    ]
    required_somewhere = {
        p["arg"] for a in new.get("actions", []) for p in a.get("params", []) if p.get("required")
    }
    old_action_names = {renamed_actions.get(n, n) for n in tool_actions(old)}
    for name in added:
        required_by_existing = any(
            p["arg"] == name and p.get("required")
            for a in new.get("actions", [])
            if a["name"] in old_action_names
            for p in a.get("params", [])
        )
        if required_by_existing:
            continue  # reported as 'param-required' for that action: it breaks existing calls
        note = " (required by a new action)" if name in required_somewhere else ""
        changes.append(
            ContractChange(
                impact=Impact.ADDITIVE,
                code=Kind.PARAM_ADDED,
                tool=tool,
                param=name,
                message=f"new optional parameter `{name}`{note}",
            )
        )
    for name in sorted(old_props.keys() & new_props.keys()):
        changes += _schema_contract_changes(tool, name, old_props[name], new_props[name])
    changes += _dropped_by_action(tool, old, new, renamed_actions, set(removed))
    return changes


def _renamed_unit_changes(
    tool: str, old: dict[str, Any], new: dict[str, Any], old_name: str, new_name: str, renamed: dict[str, str]
) -> list[ContractChange]:
    """A rename that comes with a unit (`amount` -> `amount_cents`): the number an agent sends means
    another amount, which the rename alone does not say (T5)."""
    new_actions = tool_actions(new)
    for name, action in tool_actions(old).items():
        after = new_actions.get(renamed.get(name, name))
        was = action_params(action).get(old_name)
        now = action_params(after).get(new_name) if after else None
        if not (was and now):
            continue
        said = was.get("measured_in"), now.get("measured_in")
        if was.get("unit") == now.get("unit") and None not in said and said[0] != said[1]:
            return [
                ContractChange(
                    impact=Impact.BREAKING,
                    code=Kind.PARAM_UNIT_CHANGED,
                    tool=tool,
                    param=new_name,
                    message=f"parameter `{new_name}` (was `{old_name}`) is in {said[1]} (was in {said[0]}): "
                    "the same number means another amount",
                    before=said[0],
                    after=said[1],
                )
            ]
        if was.get("unit") != now.get("unit"):
            return [
                ContractChange(
                    impact=Impact.BREAKING,
                    code=Kind.PARAM_UNIT_CHANGED,
                    tool=tool,
                    param=new_name,
                    message=f"parameter `{new_name}` (was `{old_name}`) is in {show_unit(now.get('unit'))} "
                    f"(was {show_unit(was.get('unit'))}): the same number means another amount",
                    before=was.get("unit"),
                    after=now.get("unit"),
                )
            ]
    return []


def _dropped_by_action(
    tool: str, old: dict[str, Any], new: dict[str, Any], renamed_actions: dict[str, str], gone: set[str]
) -> list[ContractChange]:
    """A parameter the tool still has but one action no longer takes: calls that send it now fail."""
    new_actions = tool_actions(new)
    changes = []
    for name, action in tool_actions(old).items():
        after = new_actions.get(renamed_actions.get(name, name))
        if after is None:
            continue
        for arg in action_params(action).keys() - action_params(after).keys():
            if arg in gone or arg not in tool_properties(new):
                continue  # the parameter left the tool: reported once, as removed or renamed
            changes.append(
                ContractChange(
                    impact=Impact.BREAKING,
                    code=Kind.ACTION_PARAM_DROPPED,
                    tool=tool,
                    action=after["name"],
                    param=arg,
                    message=f"action `{after['name']}` no longer takes parameter `{arg}`",
                )
            )
    return changes


def _schema_contract_changes(
    tool: str, param: str, old: dict[str, Any], new: dict[str, Any], *, rename: bool = False
) -> list[ContractChange]:
    found = list(schema_changes(old, new, param))
    if rename:
        # After a rename the description names the new parameter; the rename is the news.
        found = [f for f in found if f[1] != Kind.PARAM_DESCRIPTION_CHANGED]
    return [
        ContractChange(
            impact=impact,
            code=code,
            tool=tool,
            param=param,
            message=message,
            before=before,
            after=after,
        )
        for impact, code, message, before, after in found
    ]
