"""Two tool contracts -> their diff: the contract changes, each traced to its causes, and a version."""

from __future__ import annotations

from typing import Any

from mcpgen.contract.diff.actions import param_deprecations
from mcpgen.contract.diff.inputs import input_changes
from mcpgen.contract.diff.model import ContractDiff, Sources
from mcpgen.contract.diff.param_rules import cite_param_rule
from mcpgen.contract.diff.semver import suggest_version
from mcpgen.contract.diff.tools import server_changes, tool_set_changes
from mcpgen.contract.diff.trace import trace


def diff_contracts(
    old: dict[str, Any],
    new: dict[str, Any],
    *,
    old_sources: Sources | None = None,
    new_sources: Sources | None = None,
) -> ContractDiff:
    both = (old_sources, new_sources) if old_sources and new_sources else None
    inputs = input_changes(old, new, both)
    changes = server_changes(old, new) + tool_set_changes(old, new) + param_deprecations(inputs, new)
    traced, used = trace(changes, inputs, old, new)
    if both is not None:
        traced = [cite_param_rule(c, old, new, both) for c in traced]
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
