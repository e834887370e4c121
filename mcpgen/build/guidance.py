"""Where an error message sends the agent next (E2, E4), decided once, at generation time.

For each action: which actions of this server find the identifier its path needs (named by a 404),
and which read action shows whether a change took effect (named by a timeout on a call that is not
idempotent, and by a 409). Both come from the paths the server maps, so the runtime only prints them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from mcpgen.ir import ActionSpec, ToolSpec
from mcpgen.names import READ_METHODS, snake_case


class _Reads:
    """The server's read actions, indexed by path, so each lookup costs one dict access: a linear scan
    per action made guidance quadratic (init on 5,000 operations spent 30 s here). Lists keep the
    order of the actions, which is the order messages name them in."""

    def __init__(self, tools: list[ToolSpec]):
        self.at: dict[tuple[str, ...], list[tuple[str, ActionSpec]]] = defaultdict(list)
        # Lists at a literal sub-path of a collection: `GET /campaigns/search` under `/campaigns`.
        self.under: dict[tuple[str, ...], list[tuple[str, ActionSpec]]] = defaultdict(list)
        self.order: dict[int, int] = {}
        for tool in tools:
            for action in tool.actions:
                if action.method not in READ_METHODS:
                    continue
                self.order[id(action)] = len(self.order)
                segments = tuple(_segments(action.path))
                self.at[segments].append((tool.name, action))
                if segments and not _is_param(segments[-1]) and _lists(action):
                    self.under[segments[:-1]].append((tool.name, action))


def with_guidance(tools: list[ToolSpec]) -> list[ToolSpec]:
    reads = _Reads(tools)
    return [
        replace(tool, actions=tuple(_guided(tool.name, action, reads) for action in tool.actions))
        for tool in tools
    ]


def _guided(tool: str, action: ActionSpec, reads: _Reads) -> ActionSpec:
    find_with, finds = _finders(action, reads)
    check_with = None if action.method in READ_METHODS else _checker(tool, action, reads)
    preview = action.preview
    if preview is not None:  # a failed read inside a preview names the argument and its finder too
        preview = replace(preview, read=_guided(tool, preview.read, reads))
    return replace(action, find_with=find_with, finds=finds, check_with=check_with, preview=preview)


def _segments(path: str) -> list[str]:
    """Path segments, without the '#fragment' some specs add to tell operations on one path apart
    (box.com.json GET /files/{file_id}#get_shared_link reads /files/{file_id})."""
    return [s for s in path.split("#", 1)[0].split("/") if s]


def _lists(action: ActionSpec) -> bool:
    """Does the read answer a list of records, or page through one?"""
    return action.paging is not None or (action.shape is not None and action.shape.items is not None)


# A literal sub-path of a collection that finds its records: `/campaigns/search`.
_SEARCH_WORDS = frozenset({"search", "find", "query", "lookup", "list", "all"})
# The last words of an identifier's name that say it is one: `repository_name` names a repository.
_ID_WORDS = frozenset({"id", "ids", "name", "uuid", "key", "slug", "number", "identifier", "sid", "code"})


def _lists_kind_of(read: ActionSpec, wire: str) -> bool:
    """Does a list at a sub-path of the collection list what `wire` identifies? `/campaigns/search` does,
    and so does `/v2/registry/{registry_name}/repositories` for `repository_name`; its sibling
    `.../garbage-collections` lists something else (digitalocean.com.json)."""
    literal = snake_case(_segments(read.path)[-1]).split("_")
    if _SEARCH_WORDS & set(literal):
        return True
    words = [w for w in snake_case(wire).split("_") if w not in _ID_WORDS]
    return bool(words) and any(_same_word(words[-1], w) for w in literal)


def _same_word(singular: str, word: str) -> bool:
    """'repository' and 'repositories', 'campaign' and 'campaigns', 'box' and 'boxes'."""
    forms = {singular, singular + "s", singular + "es"}
    if singular.endswith("y"):
        forms.add(singular[:-1] + "ies")
    return word in forms


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def _finders(action: ActionSpec, reads: _Reads) -> tuple[str | None, str | None]:
    """For the innermost path identifier that some read action can find: those actions, and the argument.

    A finder reads the collection the identifier belongs to: `GET /campaigns` (list) or a literal
    sub-path with no identifier of its own, `GET /campaigns/search`, for `/campaigns/{campaign_id}/...`;
    either answers a list. A read of one record there finds nothing (digitalocean.com.json
    GET /v2/registry/options beside /v2/registry/{registry_name}), and then no finder is named.
    """
    segments = _segments(action.path)
    path_args = {p.wire_name: p.arg_name for p in action.params if p.location == "path"}
    for index in reversed(range(len(segments))):
        wire = segments[index][1:-1]
        if not _is_param(segments[index]) or wire not in path_args:
            continue
        collection = tuple(segments[:index])
        candidates = [c for c in reads.at.get(collection, []) if _lists(c[1])] + [
            c for c in reads.under.get(collection, []) if _lists_kind_of(c[1], wire)
        ]
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
