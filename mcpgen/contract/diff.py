"""Pure: two tool contracts (tools.lock.json documents) -> the changes between them, classified and traced.

Every change of names, descriptions, schemas or annotations is a contract change (C1), classified as
- breaking: a tool, action or parameter removed or renamed, a parameter became required, a type
  narrowed, an enum value removed, an annotation became less safe (readOnly true -> false, ...);
- behaviour-affecting: a description, title or default changed (agents read them), an action calls
  another endpoint, a hidden fixed value changed, an annotation became safer;
- deprecation: an operation an action calls, or a parameter it takes, is newly marked deprecated
  (`deprecated: true`, GitHub's `x-github-breaking-changes`);
- additive: a new tool, action or optional parameter, an enum value added, a constraint relaxed.

Each change is traced to the input changes that caused it: a spec operation (and JSON pointer) whose
fingerprint changed, a mapping rule, or the generator itself. The lock files' part fingerprints give
the pointer of the changed part; when both specs are at hand (`Sources`) the parts are compared value
by value and the pointer names the exact place. Input changes no contract change came from are listed
too (a reworded response description, an operation no tool maps).
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcpgen.build.fingerprints import Canonicalizer, _Text, operation_parts, operation_pointer
from mcpgen.diagnostics import DiagnosticError
from mcpgen.load.mapping import Mapping
from mcpgen.load.openapi import Spec, find_operation
from mcpgen.load.refs import Located
from mcpgen.load.sources import join_pointer, split_pointer


class Impact(enum.IntEnum):
    ADDITIVE = 1
    DEPRECATION = 2  # nothing breaks yet; agents and reviewers should move off it (its own class)
    BEHAVIOUR = 3
    BREAKING = 4

    @property
    def label(self) -> str:
        return {1: "additive", 2: "deprecation", 3: "behaviour-affecting", 4: "breaking"}[self.value]


Bump = Literal["major", "minor", "patch", "none"]
Change = Literal["added", "removed", "changed"]


@dataclass(frozen=True, slots=True, kw_only=True)
class InputChange:
    """A change in the spec, the mapping file or the generator, with where it is."""

    origin: Literal["spec", "mapping", "generator"]
    change: Change
    pointer: str  # in the new file; in the old one for a removal
    operation: str | None = None  # 'GET /repos/{owner}/{repo}/issues' for spec changes
    part: str | None = None  # 'parameter query.state', 'body.title', 'summary', ...
    detail: str = ""  # 'removed "all"' when the files themselves were compared
    used_by: tuple[str, ...] = ()  # 'github_issues_find.list': actions built from this operation
    rule: str | None = None  # mapping changes: 'github_issues_find.list', 'github_issues_find', '(server)'


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractChange:
    impact: Impact
    code: str  # stable identifier of the kind of change, e.g. 'param-removed'
    tool: str
    message: str
    action: str | None = None
    param: str | None = None
    before: Any = None
    after: Any = None
    causes: tuple[InputChange, ...] = ()

    @property
    def id(self) -> str:
        """Stable across runs, for ignore lists and code-scanning fingerprints:
        'param-required:github_issues_find.list#milestone'."""
        subject = self.tool + (f".{self.action}" if self.action else "")
        return f"{self.code}:{subject}" + (f"#{self.param}" if self.param else "")


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractDiff:
    server: str
    old_version: str
    new_version: str
    changes: tuple[ContractChange, ...]
    other_inputs: tuple[InputChange, ...]  # input changes no contract change came from
    bump: Bump
    suggested_version: str
    bump_reason: str

    @property
    def impact(self) -> Impact | None:
        return max((c.impact for c in self.changes), default=None)

    def count(self, impact: Impact) -> int:
        return sum(1 for c in self.changes if c.impact == impact)


@dataclass(frozen=True, slots=True)
class Sources:
    """The inputs a lock was made from, when at hand: lets the diff name the exact changed place."""

    spec: Spec
    mapping: Mapping


def diff_contracts(
    old: dict[str, Any],
    new: dict[str, Any],
    *,
    old_sources: Sources | None = None,
    new_sources: Sources | None = None,
) -> ContractDiff:
    both = (old_sources, new_sources) if old_sources and new_sources else None
    inputs = _input_changes(old, new, both)
    changes = _server_changes(old, new) + _tool_set_changes(old, new) + _param_deprecations(inputs, new)
    traced, used = _trace(changes, inputs, old, new)
    if both is not None:
        traced = [_cite_param_rule(c, old, new, both) for c in traced]
    other = tuple(i for index, i in enumerate(inputs) if index not in used)
    impact = max((c.impact for c in traced), default=None)
    bump, version, reason = suggest_version(
        str(old.get("server", {}).get("version", "0.0.0")), impact, bool(inputs)
    )
    return ContractDiff(
        server=str(new.get("server", {}).get("name") or old.get("server", {}).get("name") or ""),
        old_version=str(old.get("server", {}).get("version", "")),
        new_version=str(new.get("server", {}).get("version", "")),
        changes=tuple(
            sorted(traced, key=lambda c: (-c.impact, c.tool, c.action or "", c.param or "", c.code))
        ),
        other_inputs=other,
        bump=bump,
        suggested_version=version,
        bump_reason=reason,
    )


# --- semver ---------------------------------------------------------------------------------------

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def suggest_version(old_version: str, impact: Impact | None, inputs_changed: bool) -> tuple[Bump, str, str]:
    """(bump, version, why): breaking -> major, behaviour/additive -> minor, inputs only -> patch.

    Below 1.0 each moves one place down (breaking -> minor, others -> patch), the way Cargo and npm's
    caret ranges read 0.x versions.
    """
    match = _VERSION.match(old_version)
    major, minor, patch = (int(g) for g in match.groups()) if match else (0, 0, 0)
    if impact is None:
        if inputs_changed:
            return "patch", f"{major}.{minor}.{patch + 1}", "inputs changed but the contract did not"
        return "none", old_version, "nothing changed"
    if impact == Impact.BREAKING:
        if major == 0:
            return "minor", f"0.{minor + 1}.0", "breaking changes in a 0.x version"
        return "major", f"{major + 1}.0.0", "breaking changes"
    what = f"{impact.label} changes"
    if major == 0:
        return "patch", f"0.{minor}.{patch + 1}", f"{what} in a 0.x version"
    return "minor", f"{major}.{minor + 1}.0", what


# --- lock access ----------------------------------------------------------------------------------


def _tools(lock: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in lock.get("tools", [])}


def _actions(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in tool.get("actions", [])}


def _properties(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    properties = tool.get("inputSchema", {}).get("properties", {})
    # The action enum is the actions list seen from the schema; actions are compared as actions.
    return {name: schema for name, schema in properties.items() if name != "action"}


def _op_key(action: dict[str, Any]) -> str:
    return f"{action.get('method')} {action.get('path')}"


def _action_params(action: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["arg"]: p for p in action.get("params", [])}


# --- contract changes -----------------------------------------------------------------------------


def _server_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    before, after = old.get("server", {}), new.get("server", {})
    changes = []
    for key, what in (("title", "server title"), ("instructions", "server instructions")):
        if before.get(key) != after.get(key):
            changes.append(
                ContractChange(
                    impact=Impact.BEHAVIOUR,
                    code=f"server-{key}-changed",
                    tool="(server)",
                    message=f"{what} changed",
                    before=before.get(key),
                    after=after.get(key),
                )
            )
    return changes


def _tool_set_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    old_tools, new_tools = _tools(old), _tools(new)
    removed = [n for n in old_tools if n not in new_tools]
    added = [n for n in new_tools if n not in old_tools]
    changes: list[ContractChange] = []
    for old_name, new_name in _pair_renamed(
        removed, added, lambda o, n: _tool_operations(old_tools[o]) == _tool_operations(new_tools[n])
    ):
        removed.remove(old_name)
        added.remove(new_name)
        changes.append(
            ContractChange(
                impact=Impact.BREAKING,
                code="tool-renamed",
                tool=new_name,
                message=f"tool `{old_name}` renamed to `{new_name}`",
                before=old_name,
                after=new_name,
            )
        )
        changes += _tool_changes(old_tools[old_name], new_tools[new_name])
    changes += [
        ContractChange(impact=Impact.BREAKING, code="tool-removed", tool=n, message=f"tool `{n}` removed")
        for n in removed
    ]
    changes += [
        ContractChange(impact=Impact.ADDITIVE, code="tool-added", tool=n, message=f"new tool `{n}`")
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
        if change.code == "action-removed" and change.action:
            action = _actions(old_tools[change.tool]).get(change.action)
            if action is not None:
                gone.setdefault(_op_key(action), (change.tool, change.action))
        elif change.code == "tool-removed":
            for action in old_tools[change.tool].get("actions", []):
                gone.setdefault(_op_key(action), (change.tool, action["name"]))
        elif change.code == "action-added" and change.action:
            came.setdefault(str(change.after), (change.tool, change.action))
        elif change.code == "tool-added":
            for action in new_tools[change.tool].get("actions", []):
                came.setdefault(_op_key(action), (change.tool, action["name"]))
    moved = {op: (gone[op], came[op]) for op in gone.keys() & came.keys() if gone[op][0] != came[op][0]}
    if not moved:
        return changes
    moved_from = {place for place, _ in moved.values()}
    moved_to = {place for _, place in moved.values()}
    merged_into: dict[str, str] = {}
    for change in changes:
        if change.code == "tool-removed":
            targets = {
                moved[_op_key(a)][1][0]
                for a in old_tools[change.tool].get("actions", [])
                if _op_key(a) in moved
            }
            if len(targets) == 1 and all(_op_key(a) in moved for a in old_tools[change.tool]["actions"]):
                merged_into[change.tool] = targets.pop()
    out = [
        c
        for c in changes
        if not (c.code == "action-removed" and (c.tool, c.action) in moved_from)
        and not (c.code == "action-added" and (c.tool, c.action) in moved_to)
        and not (c.code == "tool-removed" and c.tool in merged_into)
    ]
    out += [
        ContractChange(
            impact=Impact.BREAKING,
            code="tool-merged",
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
                code="action-moved",
                tool=new_tool,
                action=new_action,
                message=f"moved from `{old_tool}.{old_action}`",
                before=f"{old_tool}.{old_action}",
                after=f"{new_tool}.{new_action}",
            )
        )
    return out


def _tool_operations(tool: dict[str, Any]) -> frozenset[str]:
    return frozenset(_op_key(a) for a in tool.get("actions", []))


def _pair_renamed(
    removed: list[str], added: list[str], same: Callable[[str, str], bool]
) -> list[tuple[str, str]]:
    pairs, taken = [], set()
    for old_name in sorted(removed):
        match = next((n for n in sorted(added) if n not in taken and same(old_name, n)), None)
        if match is not None:
            taken.add(match)
            pairs.append((old_name, match))
    return pairs


def _tool_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    tool = new["name"]
    changes = []
    for key in ("title", "description"):
        if old.get(key) != new.get(key):
            changes.append(
                ContractChange(
                    impact=Impact.BEHAVIOUR,
                    code=f"tool-{key}-changed",
                    tool=tool,
                    message=f"{key} changed",
                    before=old.get(key),
                    after=new.get(key),
                )
            )
    changes += _annotation_changes(tool, old.get("annotations", {}), new.get("annotations", {}))
    action_changes, renamed_actions = _action_set_changes(tool, old, new)
    changes += action_changes
    changes += _param_set_changes(tool, old, new, renamed_actions)
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
                code="annotation-less-safe" if less_safe else "annotation-safer",
                tool=tool,
                message=f"annotation {key} {str(before).lower()} -> {str(after).lower()}"
                + (" (less safe: clients may stop asking before calling it)" if less_safe else ""),
                before=before,
                after=after,
            )
        )
    return changes


def _action_set_changes(
    tool: str, old: dict[str, Any], new: dict[str, Any]
) -> tuple[list[ContractChange], dict[str, str]]:
    old_actions, new_actions = _actions(old), _actions(new)
    removed = [n for n in old_actions if n not in new_actions]
    added = [n for n in new_actions if n not in old_actions]
    changes: list[ContractChange] = []
    renamed: dict[str, str] = {}
    for old_name, new_name in _pair_renamed(
        removed, added, lambda o, n: _op_key(old_actions[o]) == _op_key(new_actions[n])
    ):
        removed.remove(old_name)
        added.remove(new_name)
        renamed[old_name] = new_name
        changes.append(
            ContractChange(
                impact=Impact.BREAKING,
                code="action-renamed",
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
            code="action-removed",
            tool=tool,
            action=n,
            message=f"action `{n}` removed",
            before=_op_key(old_actions[n]),
        )
        for n in removed
    ]
    changes += [
        ContractChange(
            impact=Impact.ADDITIVE,
            code="action-added",
            tool=tool,
            action=n,
            message=f"new action, calls {_op_key(new_actions[n])}",  # the subject names it
            after=_op_key(new_actions[n]),
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

    def change(impact: Impact, code: str, message: str, **kw: Any) -> ContractChange:
        return ContractChange(impact=impact, code=code, tool=tool, action=action, message=message, **kw)

    changes = []
    if _op_key(old) != _op_key(new):
        rebound = old.get("operationId") is not None and old.get("operationId") == new.get("operationId")
        # The spec reused the operationId for another endpoint (GitHub's projects/list-for-org, classic
        # projects -> projectsV2): same name, different call; a mapping that names the id follows it.
        changes.append(
            change(
                Impact.BREAKING,
                "operation-id-rebound",
                f"operationId `{new.get('operationId')}` now names {_op_key(new)} (was {_op_key(old)}): "
                "another endpoint under the same name",
                before=_op_key(old),
                after=_op_key(new),
            )
            if rebound
            else change(
                Impact.BEHAVIOUR,
                "action-endpoint-changed",
                f"action `{action}` now calls {_op_key(new)} (was {_op_key(old)})",
                before=_op_key(old),
                after=_op_key(new),
            )
        )
    changes += _deprecations(tool, action, old, new)
    if old.get("description") != new.get("description"):
        changes.append(
            change(
                Impact.BEHAVIOUR,
                "action-description-changed",
                f"description of action `{action}` changed",
                before=old.get("description"),
                after=new.get("description"),
            )
        )
    if old.get("fixed") != new.get("fixed"):
        changes.append(
            change(
                Impact.BEHAVIOUR,
                "action-fixed-changed",
                f"values action `{action}` always sends changed",
                before=old.get("fixed"),
                after=new.get("fixed"),
            )
        )
    old_params, new_params = _action_params(old), _action_params(new)
    for arg, param in new_params.items():
        was = old_params.get(arg)
        if param.get("required") and not (was and was.get("required")):
            what = "is now required" if was else "is new and required"
            changes.append(
                change(
                    Impact.BREAKING,
                    "param-required",
                    f"parameter `{arg}` {what} for action `{action}`",
                    param=arg,
                    before=bool(was and was.get("required")),
                    after=True,
                )
            )
        elif was and was.get("required") and not param.get("required"):
            changes.append(
                change(
                    Impact.ADDITIVE,
                    "param-optional",
                    f"parameter `{arg}` is no longer required for action `{action}`",
                    param=arg,
                    before=True,
                    after=False,
                )
            )
        if was and was.get("unit") != param.get("unit"):
            changes.append(
                change(
                    Impact.BEHAVIOUR,
                    "param-unit-changed",
                    f"parameter `{arg}` of action `{action}` is now in {_show_unit(param.get('unit'))} "
                    f"(was {_show_unit(was.get('unit'))}): the same number means another amount",
                    param=arg,
                    before=was.get("unit"),
                    after=param.get("unit"),
                )
            )
        if was and (was.get("wire"), was.get("in")) != (param.get("wire"), param.get("in")):
            changes.append(
                change(
                    Impact.BEHAVIOUR,
                    "param-wire-changed",
                    f"action `{action}` now sends `{arg}` as {param.get('in')} `{param.get('wire')}` "
                    f"(was {was.get('in')} `{was.get('wire')}`)",
                    param=arg,
                )
            )
    return changes


# Operation parts that mark an operation as going away: present now, absent before, is a deprecation.
_DEPRECATION_PARTS = ("deprecated", "x-github-breaking-changes")


def _deprecations(tool: str, action: str, old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    """The operation an action calls became deprecated (a lock records `deprecated` as a part of the
    operation only when the spec writes it, which is `deprecated: true` in practice)."""
    before = (old.get("operation") or {}).get("parts", {})
    after = (new.get("operation") or {}).get("parts", {})
    changes = []
    for part in _DEPRECATION_PARTS:
        if part in after and part not in before:
            what = "is now deprecated" if part == "deprecated" else "has breaking changes announced"
            changes.append(
                ContractChange(
                    impact=Impact.DEPRECATION,
                    code="action-deprecated" if part == "deprecated" else "action-breaking-announced",
                    tool=tool,
                    action=action,
                    message=f"{_op_key(new)} {what} in the spec",
                    after=after[part].get("pointer"),
                )
            )
    return changes


def _param_deprecations(inputs: list[InputChange], new: dict[str, Any]) -> list[ContractChange]:
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
            for param in action.get("params", []):
                where, wire = param.get("in"), param.get("wire")
                labels = {f"parameter {where}.{wire}"} | ({f"body.{wire}"} if where == "body" else set())
                if any((_op_key(action), label) in marked for label in labels):
                    changes.append(
                        ContractChange(
                            impact=Impact.DEPRECATION,
                            code="param-deprecated",
                            tool=tool["name"],
                            action=action["name"],
                            param=param["arg"],
                            message=f"parameter `{param['arg']}` of action `{action['name']}` is now "
                            "deprecated in the spec",
                        )
                    )
    return changes


def _show_unit(unit: Any) -> str:
    if not isinstance(unit, dict):
        return "the API's own unit"
    return f"{unit.get('agent')} (sent as {unit.get('upstream')}, x{unit.get('factor')})"


def _param_set_changes(
    tool: str, old: dict[str, Any], new: dict[str, Any], renamed_actions: dict[str, str]
) -> list[ContractChange]:
    old_props, new_props = _properties(old), _properties(new)
    removed = [n for n in old_props if n not in new_props]
    added = [n for n in new_props if n not in old_props]
    changes: list[ContractChange] = []
    for old_name, new_name in _pair_renamed(
        removed, added, lambda o, n: _looks_renamed(old, new, o, n, renamed_actions)
    ):
        removed.remove(old_name)
        added.remove(new_name)
        changes.append(
            ContractChange(
                impact=Impact.BREAKING,
                code="param-renamed",
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
            code="param-removed",
            tool=tool,
            param=n,
            message=f"parameter `{n}` removed",
        )
        for n in removed
    ]
    required_somewhere = {
        p["arg"] for a in new.get("actions", []) for p in a.get("params", []) if p.get("required")
    }
    old_action_names = {renamed_actions.get(n, n) for n in _actions(old)}
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
                code="param-added",
                tool=tool,
                param=name,
                message=f"new optional parameter `{name}`{note}",
            )
        )
    for name in sorted(old_props.keys() & new_props.keys()):
        changes += _schema_contract_changes(tool, name, old_props[name], new_props[name])
    changes += _dropped_by_action(tool, old, new, renamed_actions, set(removed))
    return changes


def _looks_renamed(
    old: dict[str, Any], new: dict[str, Any], old_name: str, new_name: str, renamed_actions: dict[str, str]
) -> bool:
    """One action took `old_name` before and `new_name` now, with evidence that it is one parameter
    (issue 13: unrelated pairs such as Stripe's `trial_end` -> `name` are removed + added):
    - the same wire name at the same place: only the agent's name changed (a mapping `params:`
      rename, a unit suffix such as `amount` -> `amount_cents`);
    - the same path segment of the same endpoint (`/v1/exchange_rates/{currency}` -> `{rate_id}`);
    - the same place and type, and either the same distinctive shape (an enum, members) or the same
      head noun (`failure_url` -> `refresh_url`)."""
    new_actions = _actions(new)
    old_schema, new_schema = _properties(old)[old_name], _properties(new)[new_name]
    for action_name, action in _actions(old).items():
        after = new_actions.get(renamed_actions.get(action_name, action_name))
        if after is None:
            continue
        was = _action_params(action).get(old_name)
        now = _action_params(after).get(new_name)
        if not (
            was
            and now
            and old_name not in _action_params(after)
            and new_name not in _action_params(action)
            and was.get("in") == now.get("in")
        ):
            continue
        if was.get("wire") == now.get("wire") or _same_path_segment(action, after, was, now):
            return True
        if _types(old_schema) == _types(new_schema) and (
            _same_distinctive_shape(old_schema, new_schema)
            or _same_head(old_name, new_name)
            or _same_slot(action, after, was, now)
        ):
            return True
    return False


def _same_path_segment(
    old_action: dict[str, Any], new_action: dict[str, Any], was: dict[str, Any], now: dict[str, Any]
) -> bool:
    if was.get("in") != "path" or old_action.get("method") != new_action.get("method"):
        return False
    before = str(old_action.get("path", "")).split("/")
    after = str(new_action.get("path", "")).split("/")
    if len(before) != len(after):
        return False
    segment = "{" + str(was.get("wire")) + "}"
    if segment not in before:
        return False
    differ = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
    return differ == [before.index(segment)]


def _same_slot(
    old_action: dict[str, Any], new_action: dict[str, Any], was: dict[str, Any], now: dict[str, Any]
) -> bool:
    """The spec's parameter list has the new name where the old one was (`parameters/6`), and neither
    name is in the other version of the operation."""
    if was.get("in") not in ("query", "header", "path", "cookie"):
        return False
    before = (old_action.get("operation") or {}).get("parts", {})
    after = (new_action.get("operation") or {}).get("parts", {})
    old_label, new_label = (
        f"parameter {was.get('in')}.{was.get('wire')}",
        f"parameter {now.get('in')}.{now.get('wire')}",
    )
    if old_label not in before or new_label not in after or old_label in after or new_label in before:
        return False
    slot = before[old_label].get("pointer")
    if slot != after[new_label].get("pointer"):
        return False
    # Every other parameter keeps its place too: in a sorted list (Stripe's) a removal and an addition
    # land in one slot by chance only if nothing moves.
    return _parameter_slots(before) - {(slot, old_label)} == _parameter_slots(after) - {(slot, new_label)}


def _parameter_slots(parts: dict[str, Any]) -> set[tuple[Any, str]]:
    return {(part.get("pointer"), label) for label, part in parts.items() if label.startswith("parameter ")}


_WORDING = ("description", "title", "default", "examples", "example")


def _same_distinctive_shape(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Equal apart from wording, and more than a bare type: Stripe's `billing` -> `collection_method`
    keep their enum `charge_automatically`, `send_invoice`."""
    if not any(key in old for key in ("enum", "properties")):
        return False
    return {k: v for k, v in old.items() if k not in _WORDING} == {
        k: v for k, v in new.items() if k not in _WORDING
    }


def _same_head(old_name: str, new_name: str) -> bool:
    """The last word names what the value is: `failure_url` and `refresh_url` are both URLs."""
    old_words, new_words = old_name.lower().split("_"), new_name.lower().split("_")
    return len(old_words) > 1 and len(new_words) > 1 and old_words[-1] == new_words[-1]


def _renamed_unit_changes(
    tool: str, old: dict[str, Any], new: dict[str, Any], old_name: str, new_name: str, renamed: dict[str, str]
) -> list[ContractChange]:
    """A rename that comes with a unit (`amount` -> `amount_cents`): the number an agent sends means
    another amount, which the rename alone does not say (T5)."""
    new_actions = _actions(new)
    for name, action in _actions(old).items():
        after = new_actions.get(renamed.get(name, name))
        was = _action_params(action).get(old_name)
        now = _action_params(after).get(new_name) if after else None
        if was and now and was.get("unit") != now.get("unit"):
            return [
                ContractChange(
                    impact=Impact.BEHAVIOUR,
                    code="param-unit-changed",
                    tool=tool,
                    param=new_name,
                    message=f"parameter `{new_name}` (was `{old_name}`) is in {_show_unit(now.get('unit'))} "
                    f"(was {_show_unit(was.get('unit'))}): the same number means another amount",
                    before=was.get("unit"),
                    after=now.get("unit"),
                )
            ]
    return []


def _dropped_by_action(
    tool: str, old: dict[str, Any], new: dict[str, Any], renamed_actions: dict[str, str], gone: set[str]
) -> list[ContractChange]:
    """A parameter the tool still has but one action no longer takes: calls that send it now fail."""
    new_actions = _actions(new)
    changes = []
    for name, action in _actions(old).items():
        after = new_actions.get(renamed_actions.get(name, name))
        if after is None:
            continue
        for arg in _action_params(action).keys() - _action_params(after).keys():
            if arg in gone or arg not in _properties(new):
                continue  # the parameter left the tool: reported once, as removed or renamed
            changes.append(
                ContractChange(
                    impact=Impact.BREAKING,
                    code="action-param-dropped",
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
        found = [f for f in found if f[1] != "description-changed"]
    return [
        ContractChange(
            impact=impact,
            code=f"param-{code}",
            tool=tool,
            param=param,
            message=message,
            before=before,
            after=after,
        )
        for impact, code, message, before, after in found
    ]


def _output_changes(
    tool: str, old: dict[str, Any] | None, new: dict[str, Any] | None
) -> list[ContractChange]:
    if old == new:
        return []
    if old is None or new is None:
        impact = Impact.ADDITIVE if old is None else Impact.BREAKING
        what = "now declares an output schema" if old is None else "no longer declares an output schema"
        return [ContractChange(impact=impact, code="output-schema", tool=tool, message=f"tool {what}")]
    gone = sorted(_removed_output_fields(old, new))
    if gone:
        # Agents read these fields (a concise list the mapping relies on, say): breaking for them.
        return [
            ContractChange(
                impact=Impact.BREAKING,
                code="output-field-removed",
                tool=tool,
                message=f"results no longer have {', '.join(f'`{f}`' for f in gone)}",
                before=gone,
            )
        ]
    return [
        ContractChange(
            impact=Impact.BEHAVIOUR, code="output-schema", tool=tool, message="output schema changed"
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


# --- schemas --------------------------------------------------------------------------------------

SchemaChange = tuple[Impact, str, str, Any, Any]  # impact, code, message, before, after

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
            "constraint-tightened" if tighter else "constraint-relaxed",
            f"{name}: {key} {_show(before)} -> {_show(after)}",
            before,
            after,
        )
    if old.get("pattern") != new.get("pattern"):
        relaxed = new.get("pattern") is None
        yield (
            Impact.ADDITIVE if relaxed else Impact.BREAKING,
            "constraint-relaxed" if relaxed else "constraint-tightened",
            f"{name}: pattern {_show(old.get('pattern'))} -> {_show(new.get('pattern'))}",
            old.get("pattern"),
            new.get("pattern"),
        )
    for key, code in (
        ("format", "format-changed"),
        ("default", "default-changed"),
        ("description", "description-changed"),
    ):
        if old.get(key) != new.get(key):
            yield Impact.BEHAVIOUR, code, f"{name}: {key} changed", old.get(key), new.get(key)
    if old.get("additionalProperties", True) is not False and new.get("additionalProperties", True) is False:
        yield Impact.BREAKING, "closed", f"{name}: no longer accepts other properties", None, None
    elif (
        old.get("additionalProperties", True) is False and new.get("additionalProperties", True) is not False
    ):
        yield Impact.ADDITIVE, "opened", f"{name}: now accepts other properties", None, None
    old_items, new_items = old.get("items"), new.get("items")
    if isinstance(old_items, dict) and isinstance(new_items, dict):
        yield from schema_changes(old_items, new_items, f"{where}[]")
    yield from _member_changes(old, new, where)


def _type_change(old: dict[str, Any], new: dict[str, Any], name: str) -> Iterator[SchemaChange]:
    before, after = _types(old), _types(new)
    if before == after:
        return
    shown = f"{name}: type {_show_types(before)} -> {_show_types(after)}"
    if _accepts(before, after):
        yield Impact.BREAKING, "type-narrowed", shown, sorted(before), sorted(after)
    elif _accepts(after, before):
        yield Impact.ADDITIVE, "type-widened", shown, sorted(before), sorted(after)
    else:
        yield Impact.BREAKING, "type-changed", shown, sorted(before), sorted(after)


def _enum_change(old: dict[str, Any], new: dict[str, Any], name: str) -> Iterator[SchemaChange]:
    before, after = old.get("enum"), new.get("enum")
    if before == after:
        return
    if before is None or after is None:
        if after is not None:
            yield (
                Impact.BREAKING,
                "enum-introduced",
                f"{name}: now limited to {_show_values(after)}",
                None,
                after,
            )
        else:
            yield Impact.ADDITIVE, "enum-dropped", f"{name}: no longer limited to a fixed set", before, None
        return
    removed = [v for v in before if v not in after]
    added = [v for v in after if v not in before]
    if removed:
        yield (
            Impact.BREAKING,
            "enum-value-removed",
            f"{name}: enum value {_show_values(removed)} removed",
            before,
            after,
        )
    if added:
        yield (
            Impact.ADDITIVE,
            "enum-value-added",
            f"{name}: enum value {_show_values(added)} added",
            before,
            after,
        )


def _member_changes(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[SchemaChange]:
    old_members = _members(old)
    new_members = _members(new)
    old_required, new_required = set(old.get("required") or ()), set(new.get("required") or ())
    for member in sorted(old_members.keys() - new_members.keys()):
        yield Impact.BREAKING, "member-removed", f"parameter `{where}.{member}` removed", None, None
    for member in sorted(new_members.keys() - old_members.keys()):
        required = member in new_required
        yield (
            Impact.BREAKING if required else Impact.ADDITIVE,
            "member-added",
            f"parameter `{where}.{member}` added" + (" (required)" if required else ""),
            None,
            None,
        )
    for member in sorted(old_members.keys() & new_members.keys()):
        if member in new_required and member not in old_required:
            yield (
                Impact.BREAKING,
                "member-required",
                f"parameter `{where}.{member}` is now required",
                False,
                True,
            )
        elif member in old_required and member not in new_required:
            yield (
                Impact.ADDITIVE,
                "member-optional",
                f"parameter `{where}.{member}` is no longer required",
                True,
                False,
            )
        yield from schema_changes(old_members[member], new_members[member], f"{where}.{member}")


def _members(schema: dict[str, Any]) -> dict[str, Any]:
    found = schema.get("properties")
    return found if isinstance(found, dict) else {}


def _types(schema: dict[str, Any]) -> frozenset[str]:
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


def _show_types(types: frozenset[str]) -> str:
    return "|".join(sorted(types)) or "any"


def _show(value: Any) -> str:
    if value is None:
        return "none"
    return _json(value)


def _show_values(values: Iterable[Any]) -> str:
    return ", ".join(_json(v) for v in values)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# --- input changes --------------------------------------------------------------------------------


def _input_changes(
    old: dict[str, Any], new: dict[str, Any], sources: tuple[Sources, Sources] | None
) -> list[InputChange]:
    changes = _spec_changes(old, new, sources)
    changes += _mapping_changes(old, new, sources)
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
            used.setdefault(_op_key(action), set()).add(f"{tool['name']}.{action['name']}")
    return used


def _operation_records(lock: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fingerprints with parts the lock holds, by operation ('GET /path')."""
    return {
        _op_key(action): action["operation"]
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
        _Walk(
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


def _compared_operation(key: str, walk: _Walk, used_by: tuple[str, ...]) -> list[InputChange]:
    old_spec, new_spec = walk.old_spec, walk.new_spec
    old_op, new_op = find_operation(old_spec, key), find_operation(new_spec, key)
    assert old_op is not None and new_op is not None  # both fingerprints exist
    old_parts, new_parts = dict(operation_parts(old_spec, old_op)), dict(operation_parts(new_spec, new_op))
    changes: list[InputChange] = []
    told: set[tuple[str, str, str]] = set()
    reached: set[_PairKey] = set()  # pairs of places walked for this operation

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
            tell("removed", _place(old_parts[label], old_spec), label)
        elif label not in old_parts:
            tell("added", _place(new_parts[label], new_spec), label)
        else:  # equal parts find nothing: the walk is the comparison (no fingerprint needed)
            for found in walk.compare(old_parts[label], new_parts[label], reached):
                tell(found.change, found.pointer, label, found.detail)
    if not changes:
        changes.append(_spec_change("changed", new_op.located.pointer, key, used_by))
    return changes


def _place(located: Located, spec: Spec) -> str:
    """A pointer, prefixed with its file when that is not the spec document itself."""
    if located.document is spec.document:
        return located.pointer
    return f"{located.document.display_path}#{located.pointer}"


def _safe_deref(spec: Spec, located: Located) -> Located:
    try:
        return spec.resolver.deref(located)
    except DiagnosticError:
        return located  # a dangling reference is compared as written


_PairKey = tuple[Any, ...]  # both places (file, pointer) and the identities of both values
_Item = InputChange | _PairKey  # a node's own change, or a pair below it, in walk order


@dataclass(slots=True)
class _Walk:
    """Compares two spec values in step, following references on both sides; one walk serves every
    operation of a diff, so a definition many operations share (Stripe's) is compared once.

    Each pair of places is compared once for the whole diff, into a node: its own changes and the pairs
    below it, in walk order. `compare` then collects what one part reaches, each pair once (which also
    ends cycles). No fingerprint is taken below a part, so a diff is linear in the compared parts."""

    old_spec: Spec
    new_spec: Spec
    old_canon: Canonicalizer
    new_canon: Canonicalizer
    # the values are kept with their node, so the identities in the keys stay unique
    nodes: dict[_PairKey, tuple[tuple[_Item, ...], Any, Any]] = field(default_factory=dict)

    def compare(self, old: Located, new: Located, seen: set[_PairKey] | None = None) -> list[InputChange]:
        """The changes below one pair of places, in walk order. `seen`, shared by the parts of one
        operation, skips the pairs an earlier part reached: their changes were collected then (a
        Stripe operation reaches one shared definition through many parts)."""
        found: list[InputChange] = []
        seen = set() if seen is None else seen

        def collect(key: _PairKey) -> None:
            seen.add(key)
            for item in self.nodes[key][0]:
                if isinstance(item, InputChange):
                    found.append(item)
                elif item not in seen:
                    collect(item)

        root = self._node(old, new)
        if root not in seen:
            collect(root)
        return found

    def _node(self, old: Located, new: Located) -> _PairKey:
        old, new = _safe_deref(self.old_spec, old), _safe_deref(self.new_spec, new)
        key = (
            old.document.display_path,
            old.pointer,
            id(old.value),
            new.document.display_path,
            new.pointer,
            id(new.value),
        )
        if key in self.nodes:
            return key
        self.nodes[key] = ((), old.value, new.value)  # a cycle back to this pair adds nothing
        items: tuple[_Item, ...]
        if isinstance(old.value, _Text) or isinstance(new.value, _Text):  # canonical text made elsewhere
            same = self.old_canon.sha256(old) == self.new_canon.sha256(new)
            items = () if same else (self._changed(new, f"{_brief(old.value)} -> {_brief(new.value)}"),)
        elif isinstance(old.value, dict) and isinstance(new.value, dict):
            items = self._members(old, new)
        elif isinstance(old.value, list) and isinstance(new.value, list):
            items = self._items(old, new)
        elif _same_scalar(old.value, new.value):
            items = ()
        else:
            items = (self._changed(new, f"{_brief(old.value)} -> {_brief(new.value)}"),)
        self.nodes[key] = (items, old.value, new.value)
        return key

    def _members(self, old: Located, new: Located) -> tuple[_Item, ...]:
        items: list[_Item] = []
        for key in sorted(old.value.keys() | new.value.keys()):
            if key not in new.value:
                items.append(self._add("removed", old.child(key), self.old_spec))
            elif key not in old.value:
                items.append(self._add("added", new.child(key), self.new_spec))
            else:
                items.append(self._node(old.child(key), new.child(key)))
        return tuple(items)

    def _items(self, old: Located, new: Located) -> tuple[_Item, ...]:
        before, after = old.value, new.value
        if all(not isinstance(v, (dict, list)) for v in (*before, *after)):
            if len(before) == len(after) and all(map(_same_scalar, before, after)):
                return ()
            removed = [v for v in before if v not in after]
            added = [v for v in after if v not in before]
            parts = ([f"removed {_show_values(removed)}"] if removed else []) + (
                [f"added {_show_values(added)}"] if added else []
            )
            return (self._changed(new, "; ".join(parts) or "order changed"),)
        items: list[_Item] = []
        for index in range(max(len(before), len(after))):
            if index >= len(after):
                items.append(self._add("removed", old.child(index), self.old_spec))
            elif index >= len(before):
                items.append(self._add("added", new.child(index), self.new_spec))
            else:
                items.append(self._node(old.child(index), new.child(index)))
        return tuple(items)

    def _changed(self, new: Located, detail: str) -> InputChange:
        return InputChange(origin="spec", change="changed", pointer=_place(new, self.new_spec), detail=detail)

    def _add(self, change: Change, located: Located, spec: Spec) -> InputChange:
        detail = (
            _brief(located.value) if change == "added" and not isinstance(located.value, (dict, list)) else ""
        )
        return InputChange(origin="spec", change=change, pointer=_place(located, spec), detail=detail)


def _same_scalar(old: Any, new: Any) -> bool:
    """Equal as canonical JSON writes them: true is not 1, and 1 is not 1.0."""
    return type(old) is type(new) and old == new


def _brief(value: Any, limit: int = 60) -> str:
    text = _json(value)
    if len(text) <= limit:
        return text
    return text[: limit - 4] + '..."' if isinstance(value, str) else text[: limit - 3] + "..."


def _mapping_changes(
    old: dict[str, Any], new: dict[str, Any], sources: tuple[Sources, Sources] | None
) -> list[InputChange]:
    changes = _rule_change(
        "(server)", old.get("server", {}).get("mapping"), new.get("server", {}).get("mapping"), sources
    )
    old_tools, new_tools = _tools(old), _tools(new)
    for name in sorted(old_tools.keys() | new_tools.keys()):
        before, after = old_tools.get(name), new_tools.get(name)
        changes += _rule_change(
            name, (before or {}).get("mapping"), (after or {}).get("mapping"), sources, drop=("actions",)
        )
        old_actions = _actions(before) if before else {}
        new_actions = _actions(after) if after else {}
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
        old_rule = _at(sources[0].mapping.document.data, before["pointer"])
        new_rule = _at(sources[1].mapping.document.data, after["pointer"])
        found = list(
            _data_changes(
                _without(old_rule, drop), _without(new_rule, drop), before["pointer"], after["pointer"]
            )
        )
    found = found or [InputChange(origin="mapping", change="changed", pointer=after["pointer"])]
    return [replace(c, rule=rule) for c in found]


def _at(data: Any, pointer: str) -> Any:
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
        origin="mapping", change="changed", pointer=new_pointer, detail=f"{_brief(old)} -> {_brief(new)}"
    )


# --- mapping renames ------------------------------------------------------------------------------

_NAMED_PARAM_CODES = ("param-renamed", "param-added", "param-removed", "action-param-dropped")


@dataclass(frozen=True, slots=True)
class _ParamRule:
    """A mapping `params:` entry that gives a parameter its agent name (`status: {name: item_status}`)."""

    rule: str  # 'tool.action'
    key: str  # as written: 'status' or 'query.status'
    name: str
    pointer: str  # of its `name`


def _cite_param_rule(
    change: ContractChange, old: dict[str, Any], new: dict[str, Any], sources: tuple[Sources, Sources]
) -> ContractChange:
    """A parameter change that a `params:` rename in the new mapping made says so, with the rule's file
    and line, and has that rule as its first cause: without it a rename reads as an unexplained
    removal and addition (issue 13)."""
    if change.code not in _NAMED_PARAM_CODES or not change.param:
        return change
    new_mapping, old_mapping = sources[1].mapping, sources[0].mapping
    # The name the rule gives (a rename's new name, an added one) or takes away (removed, dropped).
    arg = str(change.after) if change.code == "param-renamed" else change.param
    gives = change.code in ("param-renamed", "param-added")
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
        detail=f"{_brief(was.name)} -> {_brief(found.name)}" if was is not None else _brief(found.name),
        rule=found.rule,
    )
    return replace(
        change,
        message=f"{change.message}{', by' if change.code == 'param-renamed' else '; renamed by'} the mapping's "
        f"params rule `{found.key}: {{name: {found.name}}}` ({where.file} line {where.line})",
        causes=(cause, *(c for c in change.causes if c.pointer != found.pointer)),
    )


def _wire_of(
    lock: dict[str, Any], tool: str, arg: str, action: str | None
) -> tuple[tuple[str, Any, Any], ...]:
    """(action, place, wire name) of each action of `tool` in `lock` that takes `arg` (only `action`
    when the change names one)."""
    found = []
    for entry in _tools(lock).get(tool, {}).get("actions", []):
        if action and entry["name"] != action:
            continue
        param = _action_params(entry).get(arg)
        if param is not None:
            found.append((entry["name"], param.get("in"), param.get("wire")))
    return tuple(found)


def _param_rule(
    lock: dict[str, Any], mapping: Mapping, tool: str, *wires: tuple[str, Any, Any]
) -> _ParamRule | None:
    """The first `params:` entry with a `name`, for one of `wires`, in the mapping rules of the
    actions `lock` builds from `mapping`."""
    actions = _actions(_tools(lock).get(tool, {}))
    for action, where, wire in wires:
        rule = (actions.get(action) or {}).get("mapping") or {}
        try:
            data = _at(mapping.document.data, str(rule.get("pointer")))
        except (KeyError, IndexError, TypeError, ValueError):
            continue  # an action from no rule of this mapping (the lock is another's)
        params = data.get("params") if isinstance(data, dict) else None
        for key in (f"{where}.{wire}", str(wire)):
            entry = params.get(key) if isinstance(params, dict) else None
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                pointer = join_pointer(str(rule["pointer"]), "params", key, "name")
                return _ParamRule(f"{tool}.{action}", key, entry["name"], pointer)
    return None


# --- tracing --------------------------------------------------------------------------------------


def _trace(
    changes: list[ContractChange], inputs: list[InputChange], old: dict[str, Any], new: dict[str, Any]
) -> tuple[list[ContractChange], set[int]]:
    """Each contract change with the input changes that explain it; and which inputs explained one.

    Linear in changes + inputs + causes: each change's scope (its actions, operations and rules) is
    worked out once, the spec inputs are looked up by operation and part (one change of a widely shared
    Stripe definition is an input of thousands of operations: testing them one by one per change was
    quadratic), and only the few mapping inputs of the change's rules are tested one by one."""
    used: set[int] = set()
    traced = []
    scopes = _Scopes(old, new)
    index = _InputIndex(inputs)
    for change in changes:
        scope = scopes.scope(change)
        chosen = index.relevant(change, scope) or index.candidates(scope) or index.generated
        used.update(chosen)
        traced.append(replace(change, causes=tuple(inputs[i] for i in chosen)))
    return traced, used


class _InputIndex:
    """The input changes by operation, by (operation, part) and by mapping rule, as indexes into the
    list, each list in input order; the lists of one kind are disjoint (an input has one operation,
    one part, one rule), so joining some of them and sorting gives each index once."""

    def __init__(self, inputs: list[InputChange]):
        self.inputs = inputs
        self.by_operation: dict[str, list[int]] = {}
        self.by_part: dict[tuple[str, str | None], list[int]] = {}
        self.by_rule: dict[str, list[int]] = {}
        self.generated = [i for i, item in enumerate(inputs) if item.origin == "generator"]
        for i, item in enumerate(inputs):
            if item.origin == "spec" and item.operation is not None:
                self.by_operation.setdefault(item.operation, []).append(i)
                self.by_part.setdefault((item.operation, item.part), []).append(i)
            elif item.origin == "mapping" and item.rule is not None:
                self.by_rule.setdefault(item.rule, []).append(i)

    def candidates(self, scope: _Scope) -> list[int]:
        """Every input of the scope's operations and rules."""
        found = [i for operation in scope.operations for i in self.by_operation.get(operation, ())]
        found += self._rule_inputs(scope)
        return sorted(found)

    def relevant(self, change: ContractChange, scope: _Scope) -> list[int]:
        """The candidates that can explain this kind of change (see `_relevant`, which this answers
        without testing every spec input of the scope)."""
        parts = _relevant_parts(change, scope)
        if parts is None:  # the test is not by part alone: each candidate is asked
            return [i for i in self.candidates(scope) if _relevant(change, self.inputs[i], scope)]
        found = [
            i
            for operation in scope.operations
            for part in parts
            for i in self.by_part.get((operation, part), ())
        ]
        found += [i for i in self._rule_inputs(scope) if _relevant(change, self.inputs[i], scope)]
        return sorted(found)

    def _rule_inputs(self, scope: _Scope) -> list[int]:
        return [i for rule in scope.rules for i in self.by_rule.get(rule, ())]


@dataclass(frozen=True, slots=True)
class _Scope:
    """What one contract change can come from: the actions it concerns, on either side, and their
    operations ('GET /path') and mapping rules ('tool.action', 'tool', '(server)')."""

    actions: tuple[tuple[str, dict[str, Any]], ...]
    operations: frozenset[str]
    rules: frozenset[str]


class _Scopes:
    """Which operations and mapping rules a contract change can come from."""

    def __init__(self, old: dict[str, Any], new: dict[str, Any]):
        self.locks = (old, new)
        self.tools = (_tools(old), _tools(new))

    def tool_names(self, change: ContractChange) -> tuple[str, ...]:
        return (change.tool, change.before) if change.code == "tool-renamed" else (change.tool,)

    def actions(self, change: ContractChange) -> list[tuple[str, dict[str, Any]]]:
        """(tool name, action) on either side that the change concerns."""
        renamed_from = change.before if change.code == "action-renamed" else None
        found = []
        for tools in self.tools:
            for name in self.tool_names(change):
                for action in tools.get(name, {}).get("actions", []):
                    if change.action and action["name"] not in (change.action, renamed_from):
                        continue
                    if change.param and not change.action and not _takes(action, change):
                        continue
                    found.append((name, action))
        return found

    def scope(self, change: ContractChange) -> _Scope:
        if change.tool == "(server)":
            return _Scope((), frozenset(), frozenset({"(server)"}))
        actions = self.actions(change)
        rules = {f"{tool}.{a['name']}" for tool, a in actions}
        if not change.action:
            rules.update(self.tool_names(change))
        return _Scope(tuple(actions), frozenset(_op_key(a) for _, a in actions), frozenset(rules))


def _takes(action: dict[str, Any], change: ContractChange) -> bool:
    args = set(_action_params(action))
    return change.param in args or (change.code == "param-renamed" and change.before in args)


def _param_wires(change: ContractChange, scope: _Scope) -> set[tuple[Any, Any]]:
    """(place, wire name) of the parameter a change names, in the actions of its scope."""
    return {
        (p.get("in"), p.get("wire"))
        for _, action in scope.actions
        for p in action.get("params", [])
        if p["arg"] in (change.param, change.before)
    }


def _param_parts(wires: set[tuple[Any, Any]]) -> set[str | None]:
    """The spec operation parts a parameter's changes can be in."""
    labels: set[str | None] = {f"parameter {where}.{wire}" for where, wire in wires}
    # A body property's required flag lives in the body schema, outside the property.
    labels |= {label for where, wire in wires if where == "body" for label in (f"body.{wire}", "requestBody")}
    labels |= {"requestBody" for where, _ in wires if where == "body_whole"}
    return labels


def _relevant_parts(change: ContractChange, scope: _Scope) -> set[str | None] | None:
    """The parts a spec input must be in to explain this change, when `_relevant` decides spec inputs by
    their part alone; None when it does not."""
    if change.param:
        return _param_parts(_param_wires(change, scope))
    if change.code.endswith(("description-changed", "title-changed")):
        return {"summary", "description"}
    if change.code in ("action-added", "action-removed", "tool-added", "tool-removed"):
        return {None}
    return None


def _relevant(change: ContractChange, item: InputChange, scope: _Scope) -> bool:
    """Narrow the inputs in scope to those that can explain this kind of change."""
    if change.param:
        wires = _param_wires(change, scope)
        if item.origin == "spec":
            return item.part in _param_parts(wires)
        return any(
            f"/params/{wire}" in item.pointer or f"/params/{where}.{wire}" in item.pointer
            for where, wire in wires
        )
    if change.code.endswith(("description-changed", "title-changed")):
        if item.origin == "spec":
            return item.part in ("summary", "description")
        return item.pointer.endswith(("/description", "/title")) or "/description" in item.pointer
    if change.code in ("action-added", "action-removed", "tool-added", "tool-removed"):
        return item.part is None
    if change.code.startswith("annotation-"):
        # Hints follow the HTTP methods of the tool's actions: an action came, went or moved.
        return (item.part is None and item.change != "changed") or item.pointer.endswith("/operation")
    return True
