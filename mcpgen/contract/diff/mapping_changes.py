"""Input changes of the mapping file: which rules changed, member by member when the files are at hand."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from mcpgen.contract.diff.lock import lock_tools, tool_actions
from mcpgen.contract.diff.model import InputChange, Sources
from mcpgen.contract.diff.show import brief
from mcpgen.load.sources import join_pointer, split_pointer


def mapping_changes(
    old: dict[str, Any], new: dict[str, Any], sources: tuple[Sources, Sources] | None
) -> list[InputChange]:
    changes = _rule_change(
        "(server)", old.get("server", {}).get("mapping"), new.get("server", {}).get("mapping"), sources
    )
    old_tools, new_tools = lock_tools(old), lock_tools(new)
    for name in sorted(old_tools.keys() | new_tools.keys()):
        before, after = old_tools.get(name), new_tools.get(name)
        changes += _rule_change(
            name, (before or {}).get("mapping"), (after or {}).get("mapping"), sources, drop=("actions",)
        )
        old_actions = tool_actions(before) if before else {}
        new_actions = tool_actions(after) if after else {}
        for action in sorted(old_actions.keys() | new_actions.keys()):
            changes += _rule_change(
                f"{name}.{action}",
                old_actions.get(action, {}).get("mapping"),
                new_actions.get(action, {}).get("mapping"),
                sources,
            )
    return changes


def _rule_change(
    rule: str,
    before: dict[str, str] | None,
    after: dict[str, str] | None,
    sources: tuple[Sources, Sources] | None,
    drop: tuple[str, ...] = (),
) -> list[InputChange]:
    """How one mapping rule (a tool without its actions, an action, the server) changed."""
    if before == after or (before and after and before["sha256"] == after["sha256"]):
        return []
    if not after:
        return (
            [InputChange(origin="mapping", change="removed", pointer=before["pointer"], rule=rule)]
            if before
            else []
        )
    if not before:
        return [InputChange(origin="mapping", change="added", pointer=after["pointer"], rule=rule)]
    found: list[InputChange] = []
    if sources is not None:
        old_rule = data_at(sources[0].mapping.document.data, before["pointer"])
        new_rule = data_at(sources[1].mapping.document.data, after["pointer"])
        found = list(
            _data_changes(
                _without(old_rule, drop), _without(new_rule, drop), before["pointer"], after["pointer"]
            )
        )
    found = found or [InputChange(origin="mapping", change="changed", pointer=after["pointer"])]
    return [replace(c, rule=rule) for c in found]


def data_at(data: Any, pointer: str) -> Any:
    for token in split_pointer(pointer):
        data = data[int(token)] if isinstance(data, list) else data[token]
    return data


def _without(value: Any, drop: tuple[str, ...]) -> Any:
    return {k: v for k, v in value.items() if k not in drop} if isinstance(value, dict) else value


def _data_changes(old: Any, new: Any, old_pointer: str, new_pointer: str) -> Iterator[InputChange]:
    """Plain data (the mapping file has no references), compared member by member."""
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(old.keys() | new.keys()):
            if key not in new:
                yield InputChange(origin="mapping", change="removed", pointer=join_pointer(old_pointer, key))
            elif key not in old:
                yield InputChange(origin="mapping", change="added", pointer=join_pointer(new_pointer, key))
            else:
                yield from _data_changes(
                    old[key], new[key], join_pointer(old_pointer, key), join_pointer(new_pointer, key)
                )
        return
    yield InputChange(
        origin="mapping", change="changed", pointer=new_pointer, detail=f"{brief(old)} -> {brief(new)}"
    )
