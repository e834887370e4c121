"""Tracing: each contract change with the input changes that explain it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mcpgen.contract.diff.kinds import Kind
from mcpgen.contract.diff.lock import action_params, lock_tools, op_key
from mcpgen.contract.diff.model import ContractChange, InputChange

# Kinds of change explained by a wording input, by an operation that came or went, by hints.
_WORDING = frozenset(
    {
        Kind.SERVER_TITLE_CHANGED,
        Kind.TOOL_TITLE_CHANGED,
        Kind.TOOL_DESCRIPTION_CHANGED,
        Kind.ACTION_DESCRIPTION_CHANGED,
        Kind.PARAM_DESCRIPTION_CHANGED,
    }
)
_COMING_AND_GOING = frozenset({Kind.ACTION_ADDED, Kind.ACTION_REMOVED, Kind.TOOL_ADDED, Kind.TOOL_REMOVED})
_ANNOTATIONS = frozenset({Kind.ANNOTATION_LESS_SAFE, Kind.ANNOTATION_SAFER})
_RESULTS = frozenset({Kind.RESULT_TYPE_CHANGED, Kind.RESULT_UNIT_CHANGED})


def trace(
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
        rank = cause_rank(change, index)
        traced.append(replace(change, causes=tuple(inputs[i] for i in sorted(chosen, key=rank))))
    return traced, used


# The last words of a pointer that name what a kind of change is about: an input there explains it best.
_NAMED_BY_KIND: dict[Kind, frozenset[str]] = {
    **dict.fromkeys(_WORDING, frozenset({"description", "summary", "title"})),
    **dict.fromkeys(
        (Kind.PARAM_ENUM_VALUE_ADDED, Kind.PARAM_ENUM_VALUE_REMOVED, Kind.PARAM_ENUM_INTRODUCED),
        frozenset({"enum"}),
    ),
    Kind.PARAM_ENUM_DROPPED: frozenset({"enum"}),
    **dict.fromkeys(
        (Kind.PARAM_REQUIRED, Kind.PARAM_OPTIONAL, Kind.PARAM_MEMBER_REQUIRED, Kind.PARAM_MEMBER_OPTIONAL),
        frozenset({"required"}),
    ),
    **dict.fromkeys(
        (
            Kind.PARAM_TYPE_CHANGED,
            Kind.PARAM_TYPE_NARROWED,
            Kind.PARAM_TYPE_WIDENED,
            Kind.RESULT_TYPE_CHANGED,
        ),
        frozenset({"type", "nullable", "$ref"}),
    ),
    **dict.fromkeys(
        (Kind.PARAM_CONSTRAINT_TIGHTENED, Kind.PARAM_CONSTRAINT_RELAXED),
        frozenset(
            {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength"}
            | {"minItems", "maxItems", "pattern"}
        ),
    ),
    **dict.fromkeys(
        (Kind.PARAM_UNIT_CHANGED, Kind.RESULT_UNIT_CHANGED),
        frozenset({"description", "x-unit", "format", "unit", "name"}),
    ),
    Kind.PARAM_DEFAULT_CHANGED: frozenset({"default"}),
    Kind.PARAM_FORMAT_CHANGED: frozenset({"format"}),
    **dict.fromkeys(
        (
            Kind.ACTION_DEPRECATED,
            Kind.ACTION_DEPRECATION_SAID,
            Kind.PARAM_DEPRECATED,
            Kind.PARAM_DEPRECATION_SAID,
        ),
        frozenset(
            {"deprecated", "x-deprecated", "x-is-deprecated", "x-release-status", "x-stability-level"}
            | {"x-sunset", "x-lifecycle", "summary", "description"}
        ),
    ),
}
# Parts of a spec that no tool is built from: examples and code samples for people.
_INERT = frozenset(
    {"example", "examples", "x-code-samples", "x-codeSamples", "x-code-sample", "x-readme", "externalDocs"}
)


def cause_rank(change: ContractChange, index: _InputIndex) -> Callable[[int], int]:
    """How well each input (a position in the index) explains `change`, lower first: an input at the
    place this kind of change is about (the enum of an enum change; for a wording change, an edit whose
    new words are words the text gained, then any description or summary), and the mapping; then
    inputs that can change a tool (a schema, a required list); then examples and code samples, which
    cannot. Sorting is stable: ties keep the input order."""
    named = _NAMED_BY_KIND.get(change.code, frozenset())
    gained: frozenset[str] = frozenset()
    if change.code in _WORDING and isinstance(change.before, str) and isinstance(change.after, str):
        gained = _words(change.after) - _words(change.before)

    known: dict[tuple[str, str], int] = {}  # one edit reached through many operations ranks once

    def rank(position: int) -> int:
        item = index.inputs[position]
        key = (item.pointer, item.detail)
        found = known.get(key)
        if found is None:
            found = known[key] = _rank(item)
        return found

    def _rank(item: InputChange) -> int:
        inert, last = index.tail(item.pointer)
        if inert:
            return 4
        if item.origin == "mapping":
            return 0
        if gained:
            before, arrow, after = item.detail.rpartition(" -> ")
            new_words = _words(after) - _words(before) if arrow else _words(item.detail)
            if new_words & gained:
                return 0
            return 1 if last in named else 2
        if last in named:
            return 0
        return 3 if item.origin == "generator" else 1

    return rank


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]{2,}", text.lower()))


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
        self._tails: dict[str, tuple[bool, str]] = {}
        for i, item in enumerate(inputs):
            if item.origin == "spec" and item.operation is not None:
                self.by_operation.setdefault(item.operation, []).append(i)
                self.by_part.setdefault((item.operation, item.part), []).append(i)
            elif item.origin == "mapping" and item.rule is not None:
                self.by_rule.setdefault(item.rule, []).append(i)

    def responses(self, operation: str) -> list[int]:
        """The operation's inputs in the parts of its answers ('response 200', ...)."""
        return [
            i
            for i in self.by_operation.get(operation, ())
            if str(self.inputs[i].part).startswith("response ")
        ]

    def required(self, operation: str) -> list[int]:
        """The operation's inputs at a `required` list (what an action needs)."""
        return [
            i for i in self.by_operation.get(operation, ()) if self.inputs[i].pointer.endswith("/required")
        ]

    def tail(self, pointer: str) -> tuple[bool, str]:
        """Whether a pointer is in an example or code sample, and its last token (once per pointer: one
        edit of a shared definition is an input of every operation that reaches it)."""
        found = self._tails.get(pointer)
        if found is None:
            tokens = pointer.rsplit("#", 1)[-1].split("/")
            found = self._tails[pointer] = (not _INERT.isdisjoint(tokens), tokens[-1])
        return found

    def candidates(self, scope: _Scope) -> list[int]:
        """Every input of the scope's operations and rules."""
        found = [i for operation in scope.operations for i in self.by_operation.get(operation, ())]
        found += self._rule_inputs(scope)
        return sorted(found)

    def relevant(self, change: ContractChange, scope: _Scope) -> list[int]:
        """The candidates that can explain this kind of change (see `_relevant`, which this answers
        without testing every spec input of the scope)."""
        found: list[int] = []
        if change.code in _RESULTS:  # the parts of the answers
            found = [i for operation in scope.operations for i in self.responses(operation)]
        elif change.code == Kind.TOOL_DESCRIPTION_CHANGED:  # its words, and what each action needs
            found = [i for operation in scope.operations for i in self.required(operation)]
        parts = _relevant_parts(change, scope)
        if parts is None:  # the test is not by part alone: each candidate is asked
            return [i for i in self.candidates(scope) if _relevant(change, self.inputs[i], scope)]
        found += [
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
        self.tools = (lock_tools(old), lock_tools(new))

    def tool_names(self, change: ContractChange) -> tuple[str, ...]:
        return (change.tool, change.before) if change.code == Kind.TOOL_RENAMED else (change.tool,)

    def actions(self, change: ContractChange) -> list[tuple[str, dict[str, Any]]]:
        """(tool name, action) on either side that the change concerns."""
        renamed_from = change.before if change.code == Kind.ACTION_RENAMED else None
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
        return _Scope(tuple(actions), frozenset(op_key(a) for _, a in actions), frozenset(rules))


def _takes(action: dict[str, Any], change: ContractChange) -> bool:
    args = set(action_params(action))
    return change.param in args or (change.code == Kind.PARAM_RENAMED and change.before in args)


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
    if change.code in _RESULTS:
        return set()  # `relevant` takes the answers' parts itself
    if change.code == Kind.TOOL_DESCRIPTION_CHANGED:
        return {"summary", "description"}
    if change.param:
        return _param_parts(_param_wires(change, scope))
    if change.code in _WORDING - {Kind.TOOL_DESCRIPTION_CHANGED}:
        return {"summary", "description"}
    if change.code in _COMING_AND_GOING:
        return {None}
    return None


def _relevant(change: ContractChange, item: InputChange, scope: _Scope) -> bool:
    """Narrow the inputs in scope to those that can explain this kind of change."""
    if change.code in _RESULTS:
        if item.origin == "spec":
            return str(item.part).startswith("response ")
        return "/response" in item.pointer or item.origin == "generator"
    if change.param:
        wires = _param_wires(change, scope)
        if item.origin == "spec":
            return item.part in _param_parts(wires)
        return any(
            f"/params/{wire}" in item.pointer or f"/params/{where}.{wire}" in item.pointer
            for where, wire in wires
        )
    if change.code in _WORDING:
        if item.origin == "spec":
            # a tool description says what each action needs: a required list is a cause too
            needs = change.code == Kind.TOOL_DESCRIPTION_CHANGED and item.pointer.endswith("/required")
            return item.part in ("summary", "description") or needs
        return item.pointer.endswith(("/description", "/title")) or "/description" in item.pointer
    if change.code in _COMING_AND_GOING:
        return item.part is None
    if change.code in _ANNOTATIONS:
        # Hints follow the HTTP methods of the tool's actions: an action came, went or moved.
        return (item.part is None and item.change != "changed") or item.pointer.endswith("/operation")
    return True
