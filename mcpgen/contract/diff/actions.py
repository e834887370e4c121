"""Contract changes of actions: added, removed, renamed, another endpoint, wording, fixed values,
required parameters, units and deprecations."""

from __future__ import annotations

from typing import Any

from mcpgen.contract.diff.kinds import Impact, Kind
from mcpgen.contract.diff.lock import action_params, op_key, tool_actions
from mcpgen.contract.diff.model import ContractChange, InputChange
from mcpgen.contract.diff.renames import pair_renamed
from mcpgen.contract.diff.results import result_changes
from mcpgen.contract.diff.show import show_unit


def action_set_changes(
    tool: str, old: dict[str, Any], new: dict[str, Any]
) -> tuple[list[ContractChange], dict[str, str]]:
    old_actions, new_actions = tool_actions(old), tool_actions(new)
    removed = [n for n in old_actions if n not in new_actions]
    added = [n for n in new_actions if n not in old_actions]
    changes: list[ContractChange] = []
    renamed: dict[str, str] = {}
    for old_name, new_name in pair_renamed(
        removed, added, lambda o, n: op_key(old_actions[o]) == op_key(new_actions[n])
    ):
        removed.remove(old_name)
        added.remove(new_name)
        renamed[old_name] = new_name
        changes.append(
            ContractChange(
                impact=Impact.BREAKING,
                code=Kind.ACTION_RENAMED,
                tool=tool,
                action=new_name,
                message=f"action `{old_name}` renamed to `{new_name}`",
                before=old_name,
                after=new_name,
            )
        )
    changes += [
        ContractChange(
            impact=Impact.BREAKING,
            code=Kind.ACTION_REMOVED,
            tool=tool,
            action=n,
            message=f"action `{n}` removed",
            before=op_key(old_actions[n]),
        )
        for n in removed
    ]
    changes += [
        ContractChange(
            impact=Impact.ADDITIVE,
            code=Kind.ACTION_ADDED,
            tool=tool,
            action=n,
            message=f"new action, calls {op_key(new_actions[n])}",  # the subject names it
            after=op_key(new_actions[n]),
        )
        for n in added
    ]
    for old_name, old_action in old_actions.items():
        new_name = renamed.get(old_name, old_name)
        if new_name in new_actions:
            changes += _action_changes(tool, old_action, new_actions[new_name])
    return changes, renamed


def _action_changes(tool: str, old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    action = new["name"]
    changes = _endpoint_changes(tool, action, old, new)
    changes += _deprecations(tool, action, old, new)
    changes += _wording_changes(tool, action, old, new)
    old_params = action_params(old)
    for arg, param in action_params(new).items():
        changes += _param_changes(tool, action, arg, old_params.get(arg), param)
    changes += result_changes(tool, action, old.get("results"), new.get("results"))
    return changes


def _change(tool: str, action: str, impact: Impact, code: Kind, message: str, **kw: Any) -> ContractChange:
    return ContractChange(impact=impact, code=code, tool=tool, action=action, message=message, **kw)


def _endpoint_changes(
    tool: str, action: str, old: dict[str, Any], new: dict[str, Any]
) -> list[ContractChange]:
    if op_key(old) == op_key(new):
        return []
    rebound = old.get("operationId") is not None and old.get("operationId") == new.get("operationId")
    # The spec reused the operationId for another endpoint (GitHub's projects/list-for-org, classic
    # projects -> projectsV2): same name, different call; a mapping that names the id follows it.
    if rebound:
        return [
            _change(
                tool,
                action,
                Impact.BREAKING,
                Kind.OPERATION_ID_REBOUND,
                f"operationId `{new.get('operationId')}` now names {op_key(new)} (was {op_key(old)}): "
                "another endpoint under the same name",
                before=op_key(old),
                after=op_key(new),
            )
        ]
    return [
        _change(
            tool,
            action,
            Impact.BEHAVIOUR,
            Kind.ACTION_ENDPOINT_CHANGED,
            f"action `{action}` now calls {op_key(new)} (was {op_key(old)})",
            before=op_key(old),
            after=op_key(new),
        )
    ]


def _wording_changes(
    tool: str, action: str, old: dict[str, Any], new: dict[str, Any]
) -> list[ContractChange]:
    """The action's description and the values it always sends."""
    changes = []
    if old.get("description") != new.get("description"):
        changes.append(
            _change(
                tool,
                action,
                Impact.BEHAVIOUR,
                Kind.ACTION_DESCRIPTION_CHANGED,
                f"description of action `{action}` changed",
                before=old.get("description"),
                after=new.get("description"),
            )
        )
    if old.get("fixed") != new.get("fixed"):
        changes.append(
            _change(
                tool,
                action,
                Impact.BEHAVIOUR,
                Kind.ACTION_FIXED_CHANGED,
                f"values action `{action}` always sends changed",
                before=old.get("fixed"),
                after=new.get("fixed"),
            )
        )
    return changes


def _param_changes(
    tool: str, action: str, arg: str, was: dict[str, Any] | None, param: dict[str, Any]
) -> list[ContractChange]:
    """One parameter the action takes now (`was`: as it took it before, if it did)."""
    changes = _requirement_changes(tool, action, arg, was, param)
    if was and was.get("unit") != param.get("unit"):
        changes.append(
            _change(
                tool,
                action,
                Impact.BREAKING,
                Kind.PARAM_UNIT_CHANGED,
                f"parameter `{arg}` of action `{action}` is now in {show_unit(param.get('unit'))} "
                f"(was {show_unit(was.get('unit'))}): the same number means another amount",
                param=arg,
                before=was.get("unit"),
                after=param.get("unit"),
            )
        )
    elif was and None not in (was.get("measured_in"), param.get("measured_in")):
        if was["measured_in"] != param["measured_in"]:
            changes.append(
                _change(
                    tool,
                    action,
                    Impact.BREAKING,
                    Kind.PARAM_UNIT_CHANGED,
                    f"parameter `{arg}` of action `{action}` is now in {param['measured_in']} (was in "
                    f"{was['measured_in']}): a call that sends the same number means another amount",
                    param=arg,
                    before=was["measured_in"],
                    after=param["measured_in"],
                )
            )
    changes += _param_deprecation(tool, action, arg, was, param)
    if was and (was.get("wire"), was.get("in")) != (param.get("wire"), param.get("in")):
        changes.append(
            _change(
                tool,
                action,
                Impact.BEHAVIOUR,
                Kind.PARAM_WIRE_CHANGED,
                f"action `{action}` now sends `{arg}` as {param.get('in')} `{param.get('wire')}` "
                f"(was {was.get('in')} `{was.get('wire')}`)",
                param=arg,
            )
        )
    return changes


def _requirement_changes(
    tool: str, action: str, arg: str, was: dict[str, Any] | None, param: dict[str, Any]
) -> list[ContractChange]:
    if param.get("required") and not (was and was.get("required")):
        what = "is now required" if was else "is new and required"
        return [
            _change(
                tool,
                action,
                Impact.BREAKING,
                Kind.PARAM_REQUIRED,
                f"parameter `{arg}` {what} for action `{action}`",
                param=arg,
                before=bool(was and was.get("required")),
                after=True,
            )
        ]
    if was and was.get("required") and not param.get("required"):
        return [
            _change(
                tool,
                action,
                Impact.ADDITIVE,
                Kind.PARAM_OPTIONAL,
                f"parameter `{arg}` is no longer required for action `{action}`",
                param=arg,
                before=True,
                after=False,
            )
        ]
    return []


# Operation parts that mark an operation as going away, in a lock that records no deprecations of its
# own (one written before it did): present now, absent before, is a deprecation.
_DEPRECATION_PARTS = ("deprecated", "x-github-breaking-changes")


def recorded(action: dict[str, Any]) -> bool:
    """The lock records this action's deprecations, units and result fields (`deprecated` is written on
    every action, null when the spec says nothing)."""
    return "deprecated" in action


def _deprecations(tool: str, action: str, old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    """The operation an action calls became deprecated: a marker (`deprecated: true`,
    `x-release-status: DEPRECATED`, ...) or, weaker, its words; or breaking changes are announced."""
    before = (old.get("operation") or {}).get("parts", {})
    after = (new.get("operation") or {}).get("parts", {})
    changes = []
    parts = ("x-github-breaking-changes",) if recorded(old) and recorded(new) else _DEPRECATION_PARTS
    for part in parts:
        if part in after and part not in before:
            what = "is now deprecated" if part == "deprecated" else "has breaking changes announced"
            changes.append(
                ContractChange(
                    impact=Impact.DEPRECATION,
                    code=Kind.ACTION_DEPRECATED if part == "deprecated" else Kind.ACTION_BREAKING_ANNOUNCED,
                    tool=tool,
                    action=action,
                    message=f"{op_key(new)} {what} in the spec",
                    after=after[part].get("pointer"),
                )
            )
    if recorded(old) and recorded(new):
        was, now = old.get("deprecated"), new.get("deprecated")
        if now and (not was or (was.get("said") and not now.get("said"))):
            said = bool(now.get("said"))
            changes.append(
                ContractChange(
                    impact=Impact.DEPRECATION,
                    code=Kind.ACTION_DEPRECATION_SAID if said else Kind.ACTION_DEPRECATED,
                    tool=tool,
                    action=action,
                    message=f"{op_key(new)} is now deprecated in the spec ({now.get('marker')})"
                    + (": only its words say so" if said else ""),
                    before=(was or {}).get("marker"),
                    after=now.get("pointer"),
                )
            )
    return changes


def _param_deprecation(
    tool: str, action: str, arg: str, was: dict[str, Any] | None, param: dict[str, Any]
) -> list[ContractChange]:
    """A parameter the action took before and takes now is newly marked deprecated (or, weaker, its
    description says so)."""
    now = param.get("deprecated")
    if (
        not now
        or was is None
        or (was.get("deprecated") and not (was["deprecated"].get("said") and not now.get("said")))
    ):
        return []
    said = bool(now.get("said"))
    return [
        _change(
            tool,
            action,
            Impact.DEPRECATION,
            Kind.PARAM_DEPRECATION_SAID if said else Kind.PARAM_DEPRECATED,
            f"parameter `{arg}` of action `{action}` is now deprecated in the spec ({now.get('marker')})"
            + (": only its description says so" if said else ""),
            param=arg,
            after=now.get("pointer"),
        )
    ]


def param_deprecations(inputs: list[InputChange], new: dict[str, Any]) -> list[ContractChange]:
    """A parameter an action sends that the spec now marks `deprecated: true`. Only a value-by-value
    comparison of the specs sees it (a lock keeps one fingerprint per parameter)."""
    marked = {
        (i.operation, i.part)
        for i in inputs
        if i.origin == "spec"
        and i.part
        and i.pointer.endswith("/deprecated")
        and i.change in ("added", "changed")
        and i.detail.endswith("true")
    }
    if not marked:
        return []
    changes = []
    for tool in new.get("tools", []):
        for action in tool.get("actions", []):
            if recorded(action):
                continue  # its parameters' deprecations are in the lock: compared with the actions
            for param in action.get("params", []):
                where, wire = param.get("in"), param.get("wire")
                labels = {f"parameter {where}.{wire}"} | ({f"body.{wire}"} if where == "body" else set())
                if any((op_key(action), label) in marked for label in labels):
                    changes.append(
                        ContractChange(
                            impact=Impact.DEPRECATION,
                            code=Kind.PARAM_DEPRECATED,
                            tool=tool["name"],
                            action=action["name"],
                            param=param["arg"],
                            message=f"parameter `{param['arg']}` of action `{action['name']}` is now "
                            "deprecated in the spec",
                        )
                    )
    return changes
