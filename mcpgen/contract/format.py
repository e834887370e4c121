"""Pure: a ContractDiff as text (terminal), markdown (a pull-request comment) or JSON (tools).

Text and markdown group input changes that are one edit seen through several operations (a shared
`components/parameters` entry, say) into one line naming the operations; JSON keeps them apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

from mcpgen.contract.diff import ContractChange, ContractDiff, Impact, InputChange

_COLOURS = {Impact.BREAKING: "31", Impact.BEHAVIOUR: "33", Impact.ADDITIVE: "32"}  # red, yellow, green
_SHOWN_OPERATIONS = 3


def format_diff(diff: ContractDiff, fmt: str, *, old_label: str, new_label: str, colour: bool = False) -> str:
    if fmt == "json":
        return format_json(diff, old_label=old_label, new_label=new_label)
    if fmt == "markdown":
        return format_markdown(diff, old_label=old_label, new_label=new_label)
    return format_text(diff, old_label=old_label, new_label=new_label, colour=colour)


def summary(diff: ContractDiff) -> str:
    counts = [f"{diff.count(i)} {i.label}" for i in sorted(Impact, reverse=True) if diff.count(i)]
    return ", ".join(counts) or "no contract changes"


def suggestion(diff: ContractDiff) -> str:
    text = f"{diff.suggested_version} ({diff.bump}: {diff.bump_reason})"
    if diff.bump != "none" and diff.new_version == diff.old_version:
        text += f"; the new side still says {diff.new_version}"
    return text


@dataclass(frozen=True, slots=True)
class _Group:
    """One input edit, with every operation it was seen through."""

    first: InputChange
    operations: tuple[str, ...]
    used_by: tuple[str, ...]


def _groups(items: Iterable[InputChange]) -> list[_Group]:
    order: dict[tuple[Any, ...], list[InputChange]] = {}
    for item in items:
        order.setdefault(
            (item.origin, item.rule, item.pointer, item.change, item.detail, item.part), []
        ).append(item)
    return [
        _Group(
            members[0],
            tuple(m.operation for m in members if m.operation),
            tuple(sorted({u for m in members for u in m.used_by})),
        )
        for members in order.values()
    ]


def _operations(group: _Group) -> str:
    shown = ", ".join(group.operations[:_SHOWN_OPERATIONS])
    more = len(group.operations) - _SHOWN_OPERATIONS
    return shown + (f" and {more} more" if more > 0 else "")


# --- text -----------------------------------------------------------------------------------------


def format_text(diff: ContractDiff, *, old_label: str, new_label: str, colour: bool = False) -> str:
    paint: Callable[[str, Impact], str] = (
        (lambda text, impact: f"\x1b[{_COLOURS[impact]}m{text}\x1b[0m")
        if colour
        else (lambda text, impact: text)
    )
    lines = [
        f"{diff.server} tool contract: {old_label} ({diff.old_version}) -> {new_label} ({diff.new_version})",
        f"{summary(diff)}; suggested version {suggestion(diff)}",
    ]
    for impact in sorted(Impact, reverse=True):
        changes = [c for c in diff.changes if c.impact == impact]
        if not changes:
            continue
        lines += ["", paint(impact.label, impact)]
        for change in changes:
            lines.append(f"  {_subject(change)}: {change.message}")
            lines += [f"      {line}" for line in _values(change)]
            causes = [f"    <- {_cause(group)}" for group in _groups(change.causes)]
            lines += causes or ["    <- no input change found"]
    if diff.other_inputs:
        lines += ["", "input changes that changed no tool"]
        lines += [f"  {_cause(group)}{_usage(group)}" for group in _groups(diff.other_inputs)]
    return "\n".join(lines) + "\n"


def _subject(change: ContractChange) -> str:
    return f"{change.tool}.{change.action}" if change.action else change.tool


def _values(change: ContractChange) -> list[str]:
    """Before and after of a changed text, cut to the words that differ."""
    if not (isinstance(change.before, str) and isinstance(change.after, str)) or change.code.endswith(
        "renamed"
    ):
        return []
    before, after = text_change(change.before, change.after)
    return [f"- {before}", f"+ {after}"]


def text_change(before: str, after: str, context: int = 30) -> tuple[str, str]:
    """The differing middle of two texts with a few words around it, each on one line."""
    before, after = " ".join(before.split()), " ".join(after.split())
    shortest = min(len(before), len(after))
    start = 0
    while start < shortest and before[start] == after[start]:
        start += 1
    end = 0
    while end < shortest - start and before[-1 - end] == after[-1 - end]:
        end += 1
    lead = before.rfind(" ", 0, max(0, start - context)) + 1 if start > context else 0

    def cut(text: str) -> str:
        stop = len(text) - end + context
        tail = text.find(" ", stop) if stop < len(text) else -1
        shown = text[lead:tail] if tail != -1 else text[lead:]
        return ("..." if lead else "") + shown + (" ..." if tail != -1 else "")

    return cut(before), cut(after)


def _cause(group: _Group) -> str:
    item = group.first
    if item.origin == "generator":
        return f"generator {item.detail}"
    what = f"{item.change} {item.part}" if item.part else item.change
    origin = f"{item.origin} ({item.rule})" if item.rule else item.origin
    text = f"{origin}: {what} at {item.pointer or '/'}"
    if item.detail:
        text += f" ({item.detail})"
    if group.operations:
        text += f" in {_operations(group)}"
    return text


def _usage(group: _Group) -> str:
    if group.first.origin != "spec":
        return ""
    if group.used_by:
        return f" [used by {', '.join(group.used_by)}; the contract did not change]"
    return " [no tool maps " + ("these operations]" if len(group.operations) > 1 else "this operation]")


# --- markdown -------------------------------------------------------------------------------------


def format_markdown(diff: ContractDiff, *, old_label: str, new_label: str) -> str:
    lines = [
        f"### Tool contract of `{diff.server}`: {summary(diff)}",
        "",
        f"`{old_label}` ({diff.old_version}) → `{new_label}` ({diff.new_version})",
        "",
        f"Suggested version: **{diff.suggested_version}** ({diff.bump}: {diff.bump_reason})"
        + (
            f"; the new side still says {diff.new_version}."
            if diff.bump != "none" and diff.new_version == diff.old_version
            else "."
        ),
    ]
    for impact in sorted(Impact, reverse=True):
        changes = [c for c in diff.changes if c.impact == impact]
        if not changes:
            continue
        lines += ["", f"#### {impact.label.capitalize()} ({len(changes)})", ""]
        for change in changes:
            lines.append(f"- **`{_subject(change)}`**: {_md(change.message)}")
            lines += [f"  <br>`{_md(value)}`" for value in _values(change)]
            lines += [f"  - caused by {_md_cause(group)}" for group in _groups(change.causes)]
            if not change.causes:
                lines.append("  - no input change found")
    if diff.other_inputs:
        lines += ["", "#### Input changes that changed no tool", ""]
        lines += [f"- {_md_cause(group)}{_usage(group)}" for group in _groups(diff.other_inputs)]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _md_cause(group: _Group) -> str:
    item = group.first
    if item.origin == "generator":
        return f"generator {item.detail}"
    what = f"{item.change} {item.part}" if item.part else item.change
    origin = f"{item.origin} (`{item.rule}`)" if item.rule else item.origin
    text = f"{origin}: {what} at `{item.pointer or '/'}`"
    if item.detail:
        text += f" ({_md(item.detail)})"
    if group.operations:
        text += " in " + ", ".join(f"`{op}`" for op in group.operations[:_SHOWN_OPERATIONS])
        more = len(group.operations) - _SHOWN_OPERATIONS
        text += f" and {more} more" if more > 0 else ""
    return text


# --- json -----------------------------------------------------------------------------------------


def format_json(diff: ContractDiff, *, old_label: str, new_label: str) -> str:
    document: dict[str, Any] = {
        "old": {"label": old_label, "version": diff.old_version},
        "new": {"label": new_label, "version": diff.new_version},
        "server": diff.server,
        "impact": diff.impact.label if diff.impact else None,
        "counts": {i.label: diff.count(i) for i in sorted(Impact, reverse=True)},
        "suggested": {"bump": diff.bump, "version": diff.suggested_version, "reason": diff.bump_reason},
        "changes": [_change_json(c) for c in diff.changes],
        "other_input_changes": [asdict(i) for i in diff.other_inputs],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _change_json(change: ContractChange) -> dict[str, Any]:
    data = asdict(change)
    data["impact"] = change.impact.label
    return data
