"""Tool annotations (S4) from what the actions do, not only their HTTP methods (issue 12 defect 7,
issue 17 defect 13).

An action reads when its method is GET or HEAD; it is destructive when it deletes, when the mapping
guards it with a confirm value (it cannot be undone), or when it is a previewed change (the apply
overwrites or grows what exists); it is idempotent for GET, HEAD, PUT and DELETE. The mapping states
any of these per action (a search sent by POST reads; a GET that changes state does not) and per tool;
a POST the mapping sets `pagination:` on is a search, so it reads unless its hints say otherwise.
A tool reads when all its actions read, is destructive when one of them is, and is idempotent when all are.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcpgen.ir import ToolHints
from mcpgen.load.mapping import ActionRule, HintsRule, Mapping, ToolRule
from mcpgen.load.openapi import Spec, find_operation
from mcpgen.names import IDEMPOTENT_METHODS, READ_METHODS


def action_hints(method: str, rule: ActionRule) -> ToolHints:
    """One action's hints: its method's, what the mapping makes of it, then what the mapping says."""
    said = rule.hints or HintsRule()
    # A search sent by POST that the mapping pages is a list, so it reads (build/results.py reads()).
    paged_search = method == "POST" and rule.pagination is not None
    read_only = method in READ_METHODS or paged_search if said.read_only is None else said.read_only
    if said.destructive is not None:
        destructive = said.destructive
    else:
        guarded = rule.confirm_param is not None or rule.confirm_user or rule.preview is not None
        destructive = not read_only and (method == "DELETE" or guarded)
    # A read is safe to repeat whatever its method; a GET that changes state (sends a message) is not.
    idempotent = read_only or (method in IDEMPOTENT_METHODS and method not in READ_METHODS)
    if said.idempotent is not None:
        idempotent = said.idempotent
    return ToolHints(read_only=read_only, destructive=destructive and not read_only, idempotent=idempotent)


def tool_hints(actions: Sequence[ToolHints], rule: ToolRule) -> ToolHints:
    """A tool's hints from its actions', then the mapping's for the tool (`hints:`, or `destructive:`)."""
    said = rule.hints or HintsRule()
    read_only = all(a.read_only for a in actions) if said.read_only is None else said.read_only
    destructive = any(a.destructive for a in actions)
    for override in (rule.destructive, said.destructive):
        if override is not None:
            destructive = override
    idempotent = all(a.idempotent for a in actions) if said.idempotent is None else said.idempotent
    return ToolHints(
        read_only=read_only,
        destructive=destructive and not read_only,
        idempotent=idempotent,
        open_world=True if said.open_world is None else said.open_world,
    )


def marked_reads(spec: Spec, mapping: Mapping) -> frozenset[tuple[str, str]]:
    """(method, path) of every operation an action of the mapping marks read-only (`hints: {read_only:
    true}` on it or its tool): a search or lookup of an RPC-style API sent by POST (S4)."""
    found = set()
    for tool in mapping.tools:
        for action in tool.actions:
            said = (action.hints or HintsRule()).read_only
            if said is None:
                said = (tool.hints or HintsRule()).read_only
            operation = find_operation(spec, action.operation) if said else None
            if operation is not None:
                found.add((operation.method, operation.path))
    return frozenset(found)
