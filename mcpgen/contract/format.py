"""Pure: a ContractDiff as text (terminal), markdown (a pull-request comment) or JSON (tools).

Input changes that are one edit seen through several operations (a shared `components/parameters`
entry, say) are one line naming the operations in text and markdown, one record in JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from mcpgen.contract.diff.kinds import Impact, Kind
from mcpgen.contract.diff.model import ContractChange, ContractDiff, InputChange
from mcpgen.jsontext import indented_json

# red, yellow, magenta, green
_COLOURS = {Impact.BREAKING: "31", Impact.BEHAVIOUR: "33", Impact.DEPRECATION: "35", Impact.ADDITIVE: "32"}
_SHOWN_OPERATIONS = 3
# Causes shown per change in text, markdown and annotations, the best first; the JSON has them all.
SHOWN_CAUSES = 2
# At most this many characters of text output (a terminal, a CI log); the rest is counted.
TEXT_BUDGET = 1_000_000
_SEE_JSON = "see the JSON (`mcpgen diff --format json`)"
_RENAMES = (Kind.TOOL_RENAMED, Kind.ACTION_RENAMED, Kind.PARAM_RENAMED)  # before and after are names


def format_diff(
    diff: ContractDiff,
    fmt: str,
    *,
    old_label: str,
    new_label: str,
    colour: bool = False,
    budget: int = 0,
    unmapped: str = "details",
    ignored: Mapping[str, str] | None = None,
) -> str:
    """`budget`: at most this many characters; 0 for the format's own bound (GitHub's comment limit
    for markdown, TEXT_BUDGET for text). JSON is never cut: it is where the rest is."""
    if fmt == "json":
        return format_json(diff, old_label=old_label, new_label=new_label, ignored=ignored)
    if fmt == "markdown":
        return format_markdown(
            diff,
            old_label=old_label,
            new_label=new_label,
            budget=budget or MARKDOWN_BUDGET,
            unmapped=unmapped,
            ignored=ignored,
        )
    return format_text(
        diff,
        old_label=old_label,
        new_label=new_label,
        colour=colour,
        unmapped=unmapped,
        ignored=ignored,
        budget=budget,
    )


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


def format_text(
    diff: ContractDiff,
    *,
    old_label: str,
    new_label: str,
    colour: bool = False,
    unmapped: str = "details",
    ignored: Mapping[str, str] | None = None,
    budget: int = 0,
) -> str:
    """For a terminal: every change with its first causes, the best first (`trace.cause_rank`), then
    the input changes that changed no tool. Whole blocks only: whatever does not fit in `budget`
    characters (TEXT_BUDGET by default) is counted in an "N more, see the JSON" line."""
    ignored = ignored or {}
    paint: Callable[[str, Impact], str] = (
        (lambda text, impact: f"\x1b[{_COLOURS[impact]}m{text}\x1b[0m")
        if colour
        else (lambda text, impact: text)
    )
    head = (
        f"{diff.server} tool contract: {old_label} ({diff.old_version}) -> {new_label} ({diff.new_version})\n"
        f"{summary(diff)}; suggested version {suggestion(diff)}\n"
    )
    out = _Budget((budget or TEXT_BUDGET) - len(head) - _MORE_ROOM)
    left = _text_changes(diff.changes, ignored, paint, out)
    if left:
        out.room += _MORE_ROOM
        out.take(f"\n{left:,} more contract changes did not fit: {_SEE_JSON}.\n")
        return head + "".join(out.blocks)
    used, unused = _split_inputs(diff.other_inputs)
    shown = _groups(diff.other_inputs if unmapped != "count" else tuple(used))
    if shown and out.take("\ninput changes that changed no tool\n", keep=_MORE_ROOM):
        for index, group in enumerate(shown):
            if not out.take(f"  {_cause(group)}{_usage(group)}\n", keep=_MORE_ROOM):
                rest = sum(max(1, len(g.operations)) for g in shown[index:])
                out.room += _MORE_ROOM
                out.take(f"  {rest:,} more input changes that changed no tool: {_SEE_JSON}\n")
                break
    if unused and unmapped == "count":
        out.room += _MORE_ROOM
        out.take(f"\n{len(unused):,} input changes in operations no tool maps (--unmapped list shows them)\n")
    return head + "".join(out.blocks)


def _text_changes(
    changes: Iterable[ContractChange],
    ignored: Mapping[str, str],
    paint: Callable[[str, Impact], str],
    out: _Budget,
) -> int:
    """Each change, class by class, with its first causes; how many did not fit."""
    ordered = list(changes)
    impact: Impact | None = None
    for index, change in enumerate(ordered):
        block = ""
        if change.impact != impact:
            impact = change.impact
            block += f"\n{paint(impact.label, impact)}\n"
        reason = ignored.get(change.id)
        marker = f" (ignored: {reason})" if reason is not None else ""
        lines = [f"  {_subject(change)}: {change.message}{marker}"]
        lines += [f"      {line}" for line in _values(change)]
        groups = _groups(change.causes)
        lines += [f"    <- {_cause(group)}" for group in groups[:SHOWN_CAUSES]]
        if len(groups) > SHOWN_CAUSES:
            lines.append(f"    <- and {len(groups) - SHOWN_CAUSES:,} more causes: {_SEE_JSON}")
        lines += [] if groups else ["    <- no input change found"]
        if not out.take(block + "\n".join(lines) + "\n", keep=_MORE_ROOM):
            return len(ordered) - index
    return 0


def _subject(change: ContractChange) -> str:
    return f"{change.tool}.{change.action}" if change.action else change.tool


def _values(change: ContractChange) -> list[str]:
    """Before and after of a changed text, cut to the words that differ."""
    if not (isinstance(change.before, str) and isinstance(change.after, str)) or change.code in _RENAMES:
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
    origin = f"{item.origin} ({item.rule})" if item.rule else item.origin
    text = f"{origin}: {what_changed(item)} at {item.pointer or '/'}"
    if item.detail:
        text += f" ({item.detail})"
    if group.operations:
        text += f" in {_operations(group)}"
    return text


def what_changed(item: InputChange) -> str:
    """'response 200: added' for a value added inside that part; 'response 200 added' only when the
    part itself came (a change at the part's own place: a lock without the specs knows no more)."""
    if not item.part:
        return item.change
    return f"{item.part}: {item.change}"


def _usage(group: _Group) -> str:
    if group.first.origin != "spec":
        return ""
    if group.used_by:
        return f" [used by {', '.join(group.used_by)}; the contract did not change]"
    return " [no tool maps " + ("these operations]" if len(group.operations) > 1 else "this operation]")


# --- markdown -------------------------------------------------------------------------------------

# GitHub refuses a pull-request comment longer than this many characters.
MARKDOWN_BUDGET = 65_536


def format_markdown(
    diff: ContractDiff,
    *,
    old_label: str,
    new_label: str,
    budget: int = MARKDOWN_BUDGET,
    unmapped: str = "details",
    ignored: Mapping[str, str] | None = None,
) -> str:
    """A pull-request comment: the verdict and counts first, then every contract change, then the input
    changes that changed no tool in collapsed `<details>` blocks. Whole lines only: whatever does not
    fit in `budget` characters is counted in an "N more, see the JSON" line. `unmapped="count"` leaves
    the input changes in operations no tool maps at their count. `ignored` maps change ids to the reason
    an ignore list gives."""
    ignored = ignored or {}
    used, unused = _split_inputs(diff.other_inputs)
    head = _md_head(diff, old_label, new_label, len(used), len(unused), len(ignored))
    closing = "\n"
    out = _Budget(budget - len(head) - len(closing) - _MORE_ROOM)
    _md_changes(diff.changes, ignored, out)
    sections = [("input changes in operations tools use that changed no tool", used)]
    if unmapped != "count":
        sections.append(("input changes in operations no tool maps", unused))
    left_out = sum(_md_inputs(title, _groups(items), out) for title, items in sections if items)
    out.room += _MORE_ROOM  # kept for this last line
    if left_out:
        out.take(
            f"\n{left_out:,} input changes that changed no tool did not fit in this comment: {_SEE_JSON}.\n"
        )
    return head + "".join(out.blocks) + closing


class _Budget:
    """Whole blocks of text, taken while they fit in what is left of a character budget."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.blocks: list[str] = []

    def take(self, block: str, *, keep: int = 0) -> bool:
        """Take `block` if `keep` characters are still left after it."""
        if len(block) + keep > self.room:
            return False
        self.blocks.append(block)
        self.room -= len(block)
        return True


def _split_inputs(items: Iterable[InputChange]) -> tuple[list[InputChange], list[InputChange]]:
    """Input changes seen through an operation some tool uses (or from the mapping) and the rest."""
    used = [i for i in items if i.used_by or i.origin != "spec" or not i.operation]
    unused = [i for i in items if not (i.used_by or i.origin != "spec" or not i.operation)]
    return used, unused


def _md_head(diff: ContractDiff, old_label: str, new_label: str, used: int, unused: int, ignored: int) -> str:
    counts = [diff.count(i) for i in sorted(Impact, reverse=True)]
    lines = [
        f"### Tool contract of {_code(diff.server)}: {summary(diff)}",
        "",
        f"{_code(old_label)} ({_md(diff.old_version)}) → {_code(new_label)} ({_md(diff.new_version)})",
        "",
        f"Suggested version: **{_md(diff.suggested_version)}** ({diff.bump}: {_md(diff.bump_reason)})"
        + (
            f"; the new side still says {_md(diff.new_version)}."
            if diff.bump != "none" and diff.new_version == diff.old_version
            else "."
        ),
        "",
        "| "
        + " | ".join(i.label for i in sorted(Impact, reverse=True))
        + " | input changes that changed no tool |",
        "|---:|---:|---:|---:|---:|",
        "| " + " | ".join(f"{n:,}" for n in counts) + f" | {used + unused:,} ({unused:,} in operations no"
        " tool maps) |",
    ]
    if ignored:
        lines += ["", f"{ignored:,} of these changes are on the ignore list; they do not fail `--fail-on`."]
    return "\n".join(lines) + "\n"


def _md_change(change: ContractChange, reason: str | None, *, full: bool) -> str:
    marker = f" *(ignored: {_md(reason)})*" if reason is not None else ""
    lines = [f"- **{_code(_subject(change))}**: {_md(change.message)}{marker}"]
    if not full:
        return "\n".join(lines) + "\n"
    lines += [f"  <br>{_code(value)}" for value in _values(change)]
    groups = _groups(change.causes)
    lines += [f"  - caused by {_md_cause(group)}" for group in groups[:SHOWN_CAUSES]]
    if len(groups) > SHOWN_CAUSES:
        lines.append(f"  - and {len(groups) - SHOWN_CAUSES:,} more causes, {_SEE_JSON}")
    if not change.causes:
        lines.append("  - no input change found")
    return "\n".join(lines) + "\n"


def _md_changes(changes: Iterable[ContractChange], ignored: Mapping[str, str], out: _Budget) -> None:
    """Every change with its causes while that leaves room to name each remaining change on one line;
    then one line each; then a count of the ones that did not fit."""
    ordered = list(changes)
    short = [_md_change(c, ignored.get(c.id), full=False) for c in ordered]
    # What naming every change after the current one still costs, a heading per class included.
    tails = [0] * (len(ordered) + 1)
    for index in range(len(ordered) - 1, -1, -1):
        tails[index] = tails[index + 1] + len(short[index])
    headings = _HEADING_ROOM * len(Impact) + _MORE_ROOM
    impact: Impact | None = None
    for index, change in enumerate(ordered):
        if change.impact != impact:
            impact = change.impact
            total = sum(1 for c in ordered if c.impact == impact)
            if not out.take(f"\n#### {impact.label.capitalize()} ({total:,})\n\n", keep=_MORE_ROOM):
                return _md_more(len(ordered) - index, out)
        full = _md_change(change, ignored.get(change.id), full=True)
        if out.take(full, keep=tails[index + 1] + headings):
            continue
        if not out.take(short[index], keep=_MORE_ROOM):
            return _md_more(len(ordered) - index, out)
    return None


_HEADING_ROOM = 40
_MORE_ROOM = 160


def _md_more(count: int, out: _Budget) -> None:
    out.take(f"\n{count:,} more contract changes did not fit in this comment: {_SEE_JSON}.\n")


def _md_inputs(title: str, groups: list[_Group], out: _Budget) -> int:
    """A collapsed block of input changes; how many did not fit if even its opening did not."""
    count = sum(max(1, len(g.operations)) for g in groups)
    ending = "\n</details>\n"
    if not out.take(f"\n<details><summary>{count:,} {title}</summary>\n\n", keep=len(ending) + _MORE_ROOM):
        return count
    for index, group in enumerate(groups):
        left = len(groups) - index
        line = f"- {_md_cause(group)}{_md(_usage(group))}\n"
        # Room stays for the closing tag and, while more follow, for the line that counts them.
        if not out.take(line, keep=len(ending) + (_MORE_ROOM if left > 1 else 0)):
            rest = sum(max(1, len(g.operations)) for g in groups[index:])
            out.take(f"- {rest:,} more, {_SEE_JSON}\n", keep=len(ending))
            break
    out.take(ending)
    return 0


def markdown_text(text: str) -> str:
    """Input text as one line of markdown: a line break would end the list item early, and outside
    code spans `<` would open an HTML tag that GitHub strips (`array<object>` would lose `<object>`)."""
    parts = " ".join(text.splitlines()).split("`")
    # Even parts lie outside code spans; a lone backtick leaves the last part outside as well.
    return "`".join(
        part.replace("&", "&amp;").replace("<", "&lt;")
        if index % 2 == 0 or index == len(parts) - 1 and len(parts) % 2 == 0
        else part
        for index, part in enumerate(parts)
    )


def _code(text: str) -> str:
    """A code span holding any text: its fence is longer than any run of backticks inside."""
    text = " ".join(text.splitlines())
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


_md = markdown_text


def _md_cause(group: _Group) -> str:
    item = group.first
    if item.origin == "generator":
        return _md(f"generator {item.detail}")
    origin = f"{item.origin} (`{item.rule}`)" if item.rule else item.origin
    text = f"{origin}: {what_changed(item)} at `{item.pointer or '/'}`"
    if item.detail:
        text += f" ({item.detail})"
    if group.operations:
        text += " in " + ", ".join(f"`{op}`" for op in group.operations[:_SHOWN_OPERATIONS])
        more = len(group.operations) - _SHOWN_OPERATIONS
        text += f" and {more} more" if more > 0 else ""
    return _md(text)


# --- json -----------------------------------------------------------------------------------------


def format_json(
    diff: ContractDiff, *, old_label: str, new_label: str, ignored: Mapping[str, str] | None = None
) -> str:
    """Each input edit once, in `input_changes`, with the operations it reaches and the part of each
    (one edit of a shared definition reaches many); a change's `causes` and `other_input_changes` are
    positions in that list. Inlined per operation and per change, Stripe 1.1.1 -> 1.3.17's 7,943
    edits were 448,000 records and 217 MB; listed once they are 52 MB."""
    ignored = ignored or {}
    edits: dict[tuple[Any, ...], _Edit] = {}

    def refer(items: Iterable[InputChange]) -> list[int]:
        found: dict[int, None] = {}  # positions, each once, in order
        for item in items:
            key = (item.origin, item.change, item.pointer, item.detail, item.rule)
            edit = edits.get(key)
            if edit is None:
                edit = edits[key] = _Edit(len(edits), item)
            edit.add(item)
            found[edit.position] = None
        return list(found)

    changes = [_change_json(c, ignored.get(c.id), refer(c.causes)) for c in diff.changes]
    explained = len(edits)  # every edit after these explains no contract change
    other = [p for p in refer(diff.other_inputs) if p >= explained]
    document: dict[str, Any] = {
        "old": {"label": old_label, "version": diff.old_version},
        "new": {"label": new_label, "version": diff.new_version},
        "server": diff.server,
        "impact": diff.impact.label if diff.impact else None,
        "counts": {i.label: diff.count(i) for i in sorted(Impact, reverse=True)},
        "suggested": {"bump": diff.bump, "version": diff.suggested_version, "reason": diff.bump_reason},
        "changes": changes,
        "input_changes": [edit.json() for edit in edits.values()],  # dicts keep insertion order
        "other_input_changes": other,
    }
    return indented_json(document, newline=True)


class _Edit:
    """One edit of an input file, and the operations (with their part) and actions it reaches."""

    __slots__ = ("position", "first", "operations", "used_by")

    def __init__(self, position: int, first: InputChange):
        self.position, self.first = position, first
        self.operations: dict[str, str | None] = {}  # the first part each operation is reached through
        self.used_by: dict[str, None] = {}

    def add(self, item: InputChange) -> None:
        if item.operation is not None:
            self.operations.setdefault(item.operation, item.part)
        self.used_by.update(dict.fromkeys(item.used_by))

    def json(self) -> dict[str, Any]:
        first = self.first
        return {
            "origin": first.origin,
            "change": first.change,
            "pointer": first.pointer,
            "detail": first.detail,
            "rule": first.rule,
            "operations": self.operations,  # 'GET /v1/x' -> the part it is in there ('body.x', ...)
            "used_by": sorted(self.used_by),
        }


_CHANGE_FIELDS = tuple(f.name for f in fields(ContractChange) if f.name != "causes")


def _change_json(change: ContractChange, ignored_because: str | None, causes: list[int]) -> dict[str, Any]:
    """The change's fields in their order after its id, as `dataclasses.asdict` gives them, with its
    causes as positions in `input_changes`."""
    data: dict[str, Any] = {"id": change.id}
    data.update((name, getattr(change, name)) for name in _CHANGE_FIELDS)
    data["impact"] = change.impact.label
    data["causes"] = causes
    if ignored_because is not None:
        data["ignored"] = {"reason": ignored_because}
    return data
