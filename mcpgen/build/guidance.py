"""Where an error message sends the agent next (E2, E4), decided once, at generation time.

For each action: which actions of this server find the identifier its path needs (named by a 404),
and which read action shows whether a change took effect (named by a timeout on a call that is not
idempotent, and by a 409). Both come from the paths the server maps, so the runtime only prints them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from mcpgen.ir import ActionSpec, ToolSpec

_READS = ("GET", "HEAD")


class _Reads:
    """The server's read actions, indexed by path, so each lookup costs one dict access: a linear scan
    per action made guidance quadratic (init on 5,000 operations spent 30 s here). Lists keep the
    order of the actions, which is the order messages name them in."""

    def __init__(self, tools: list[ToolSpec]):
        self.at: dict[tuple[str, ...], list[tuple[str, ActionSpec]]] = defaultdict(list)
        # Reads of a literal sub-path of a collection: `GET /campaigns/search` under `/campaigns`.
        self.under: dict[tuple[str, ...], list[tuple[str, ActionSpec]]] = defaultdict(list)
        self.order: dict[int, int] = {}
        for tool in tools:
            for action in tool.actions:
                if action.method not in _READS:
                    continue
                self.order[id(action)] = len(self.order)
                segments = tuple(_segments(action.path))
                self.at[segments].append((tool.name, action))
                if segments and not _is_param(segments[-1]):
                    self.under[segments[:-1]].append((tool.name, action))


def with_guidance(tools: list[ToolSpec]) -> list[ToolSpec]:
    reads = _Reads(tools)
    return [
        replace(tool, actions=tuple(_guided(tool.name, action, reads) for action in tool.actions))
        for tool in tools
    ]


def _guided(tool: str, action: ActionSpec, reads: _Reads) -> ActionSpec:
    find_with, finds = _finders(action, reads)
    check_with = None if action.method in _READS else _checker(tool, action, reads)
    preview = action.preview
    if preview is not None:  # a failed read inside a preview names the argument and its finder too
        preview = replace(preview, read=_guided(tool, preview.read, reads))
    return replace(action, find_with=find_with, finds=finds, check_with=check_with, preview=preview)


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def _finders(action: ActionSpec, reads: _Reads) -> tuple[str | None, str | None]:
    """For the innermost path identifier that some read action can find: those actions, and the argument.

    A finder reads the collection the identifier belongs to: `GET /campaigns` (list) or a literal
    sub-path with no identifier of its own, `GET /campaigns/search`, for `/campaigns/{campaign_id}/...`.
    """
    segments = _segments(action.path)
    path_args = {p.wire_name: p.arg_name for p in action.params if p.location == "path"}
    for index in reversed(range(len(segments))):
        wire = segments[index][1:-1]
        if not _is_param(segments[index]) or wire not in path_args:
            continue
        collection = tuple(segments[:index])
        candidates = reads.at.get(collection, []) + reads.under.get(collection, [])
        found = sorted(
            ((tool, read) for tool, read in candidates if read is not action),
            key=lambda pair: reads.order[id(pair[1])],
        )
        if found:
            return _name_actions(found), path_args[wire]
    return None, None


def _checker(tool: str, action: ActionSpec, reads: _Reads) -> str | None:
    """The read action on the longest prefix of this action's path: POST /x/{id}/pause -> GET /x/{id}."""
    segments = _segments(action.path)
    for length in reversed(range(1, len(segments) + 1)):
        found = list(reads.at.get(tuple(segments[:length]), ()))
        if found:
            found.sort(key=lambda pair: pair[0] != tool)  # the same tool's own read first
            return _name_actions(found[:1])
    return None


def _name_actions(found: list[tuple[str, ActionSpec]]) -> str:
    """'ads_campaigns_find action list or search', grouped by tool in the order given."""
    by_tool: dict[str, list[str]] = {}
    for tool, action in found:
        by_tool.setdefault(tool, []).append(action.name)
    return " or ".join(f"{tool} (action {' or '.join(names)})" for tool, names in by_tool.items())
