"""On-demand discovery (T3 few tools): serve two meta-tools instead of the whole catalog.

tools.json marks the meta-tools with `_meta["dev.mcpgen/discovery"]`; when they are there, tools/list
serves only them. `search` scores the catalog's actions against the query's words and returns what an
agent needs to pick one and call it: each matching action of a tool with its own arguments only (not
the tool's whole definition, which holds every action's), best match first. A tool without actions
(a preview/apply pair) comes whole. `call` unwraps a call to a catalog tool, which then goes through
the same validation as any call. Nothing is remembered between calls (P1 stateless).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import Recovery, ToolError, quoted
from .routing import Action, Tool

META_KEY = "dev.mcpgen/discovery"
LIMIT_DEFAULT = 5
LIMIT_MAX = 10
_WORD = re.compile(r"[a-z0-9]+")
# Words of a query that say nothing about which action it wants.
_STOP = frozenset(
    (
        "an",
        "the",
        "for",
        "of",
        "to",
        "in",
        "on",
        "by",
        "with",
        "and",
        "or",
        "its",
        "it",
        "from",
        "this",
        "that",
    )
)
# What a tool's parameter says about every action's values; an action's own entry shows its own.
_BY_ACTION = re.compile(r"\s*Values by action: .*$", re.DOTALL)


def _words(text: str) -> set[str]:
    """Lower-case words, each also without a plural 's', so 'issues' finds 'issue'."""
    found = set()
    for word in _WORD.findall(text.lower().replace("_", " ")):
        if len(word) > 1:
            found.add(word)
            if len(word) > 3 and word.endswith("s"):
                found.add(word[:-1])
    return found


# What may follow an action's summary on its line.
_NOTES = ("Defaults:", "With any body argument", "Its body takes", "Returns a file")


def named(word: str, names: set[str]) -> bool:
    """A word the names say, whole or shortened ('repo' says 'repository'). The generator leaves an
    action's summary out when its names say every word of it this way (descriptions.py), so a search
    finds the action by those words all the same."""
    return word in names or any(len(n) >= 3 and word.startswith(n) for n in names)


def _action_lines(description: str) -> tuple[str, dict[str, str]]:
    """A tool description's prose, and each action's line of its 'Actions' list (descriptions.py
    writes them as '- <action>(<what it needs>): <what it does>')."""
    prose, _, listed = description.partition("\n\nActions")
    lines: dict[str, str] = {}
    for line in listed.splitlines():
        head, colon, text = line[2:].partition(": ")
        if line.startswith("- ") and colon:
            lines[head.split("(")[0]] = text
    return prose, lines


class _Entry:
    """One thing a search can return: an action of a tool, or a whole tool without actions."""

    __slots__ = ("tool", "action", "text", "words")

    def __init__(self, tool: dict[str, Any], action: Action | None, text: str):
        self.tool, self.action, self.text = tool, action, text
        name = tool["name"] + " " + (action.name if action else "")
        # Name words weigh most, then what the action does, then the tool's title and prose.
        # A line that starts with a note has no summary: its names said all of it (descriptions.py).
        said = "" if text.startswith(_NOTES) else text
        self.words = (_words(name), _words(said), _words(tool.get("title") or ""))

    def score(self, wanted: set[str], prose: set[str]) -> int:
        name, text, title = self.words
        return sum(
            3 * named(w, name)
            # A summary left out said only what the names say: they count for it too.
            + 2 * (w in text if text else named(w, name))
            + (w in title or w in prose)
            for w in wanted
        )


class Discovery:
    def __init__(self, contract: list[dict[str, Any]], tools: Sequence[Tool] = ()):
        self.meta: dict[str, str] = {
            t["name"]: t["_meta"][META_KEY]
            for t in contract
            if META_KEY in (t.get("_meta") or {})
        }
        self.catalog = [t for t in contract if t["name"] not in self.meta]
        self._by_name = {t["name"]: t for t in self.catalog}
        routed = {t.name: t for t in tools if t.preview is None}
        self._prose: dict[str, tuple[str, set[str]]] = {}
        self._entries: list[_Entry] = []
        for tool in self.catalog:
            prose, lines = _action_lines(tool.get("description") or "")
            self._prose[tool["name"]] = (prose, _words(prose))
            actions = routed[tool["name"]].actions if tool["name"] in routed else ()
            if actions and "action" in tool["inputSchema"].get("properties", {}):
                self._entries += [
                    _Entry(tool, a, lines.get(a.name, "")) for a in actions
                ]
            else:
                self._entries.append(_Entry(tool, None, tool.get("description") or ""))
        self.call_name = next(
            (n for n, kind in self.meta.items() if kind == "call"), ""
        )

    @property
    def enabled(self) -> bool:
        return bool(self.meta)

    def listed(self, contract: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What tools/list serves: the meta-tools when discovery is on, else everything."""
        return (
            [t for t in contract if t["name"] in self.meta]
            if self.enabled
            else contract
        )

    def search(
        self,
        arguments: Mapping[str, Any] | None,
        visible: Callable[[str], bool] = lambda name: True,
    ) -> dict[str, Any]:
        """The actions (and action-less tools) matching the query, among the tools the caller may
        see (P3 credentials), grouped by tool in the order of their best match."""
        query, limit = _query_and_limit(arguments)
        scored = self.ranked(query, visible)
        shown: dict[str, dict[str, Any]] = {}
        for entry in scored[:limit]:
            name = entry.tool["name"]
            if entry.action is None:
                shown[name] = {k: v for k, v in entry.tool.items() if k != "_meta"}
                continue
            found = shown.setdefault(
                name,
                {"name": name, "description": self._prose[name][0], "actions": []},
            )
            found["actions"].append(_action_definition(entry))
        result: dict[str, Any] = {
            "query": query,
            "matched": len(scored),
            "shown": min(limit, len(scored)),
            "tools": list(shown.values()),
        }
        if shown:
            result["next"] = (
                f"Run one with {self.call_name}: tool=<its name>, arguments=<as the action's "
                "inputSchema says>. Search again for another action."
            )
        else:
            result["next"] = (
                "No tool matched; try other words. Tools here include: "
                + ", ".join(t["name"] for t in self.catalog[:15])
                + ("." if len(self.catalog) <= 15 else ", ...")
            )
        return result

    def ranked(
        self, query: str, visible: Callable[[str], bool] = lambda name: True
    ) -> list[_Entry]:
        """Every action (or action-less tool) the query's words match, best first."""
        wanted = _words(query) - _STOP or _words(query)
        scored = []
        for position, entry in enumerate(self._entries):
            if visible(entry.tool["name"]):
                score = entry.score(wanted, self._prose[entry.tool["name"]][1])
                if score:
                    scored.append((-score, position, entry))
        return [entry for _, _, entry in sorted(scored, key=lambda item: item[:2])]

    def unwrap(self, arguments: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
        """The catalog tool and the arguments a `call` names; raises ToolError when it names none."""
        given = dict(arguments or {})
        name = given.get("tool")
        if not isinstance(name, str) or name not in self._by_name:
            close = difflib.get_close_matches(str(name)[:100], list(self._by_name), n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise ToolError(
                f"no tool {quoted(name)} to run.{hint}",
                "Find the tool first with the search tool, then pass its exact name.",
                Recovery.FIX_INPUT,
            )
        inner = given.get("arguments")
        text = given.get("arguments_json")
        if inner is None and isinstance(text, str) and text.strip():
            # Strict schema modes cannot send a free-form object; the same arguments come as JSON text.
            try:
                inner = json.loads(text)
            except ValueError as exc:
                raise ToolError(
                    f"arguments_json is not valid JSON: {exc}.",
                    'Pass a JSON object as text, e.g. arguments_json=\'{"action": "list"}\'.',
                    Recovery.FIX_INPUT,
                ) from None
        if inner is None:
            inner = {}
        if not isinstance(inner, dict):
            raise ToolError(
                "arguments must be an object of the tool's arguments.",
                'Pass for example arguments={"action": "list"}.',
                Recovery.FIX_INPUT,
            )
        return name, inner


def _query_and_limit(arguments: Mapping[str, Any] | None) -> tuple[str, int]:
    given = dict(arguments or {})
    query = given.get("query")
    if not isinstance(query, str) or not _words(query):
        raise ToolError(
            "search needs 'query': a few words about the task.",
            "Call again with for example query='list open issues'.",
            Recovery.FIX_INPUT,
        )
    limit = given.get("limit", LIMIT_DEFAULT)
    if (
        not isinstance(limit, int)
        or isinstance(limit, bool)
        or not 1 <= limit <= LIMIT_MAX
    ):
        raise ToolError(
            f"limit must be a whole number from 1 to {LIMIT_MAX}; it was {quoted(limit)}.",
            f"Call again with limit between 1 and {LIMIT_MAX}, or leave it out ({LIMIT_DEFAULT}).",
            Recovery.FIX_INPUT,
        )
    return query, limit


def _action_definition(entry: _Entry) -> dict[str, Any]:
    """One action as the agent calls it (T2 flat action enum): what it does, and an input schema of
    the arguments this action takes (its own values where it accepts fewer than the tool, its own
    defaults)."""
    action: Action = entry.action  # type: ignore[assignment]  # set on action entries
    properties = entry.tool["inputSchema"].get("properties", {})
    own = {p.arg: p for p in action.params}
    arguments: dict[str, Any] = {"action": {"const": action.name}}
    for arg in action.arg_names:
        if arg not in properties:
            continue
        schema = dict(properties[arg])
        param = own.get(arg)
        if param is not None and param.schema is not None:
            schema.update(param.schema)
        if isinstance(schema.get("description"), str):
            schema["description"] = _BY_ACTION.sub("", schema["description"])
        if arg in action.defaults:
            schema["default"] = action.defaults[arg]
        arguments[arg] = schema
    required = ["action", *(a for a in action.required if a in arguments)]
    return {
        "action": action.name,
        "description": entry.text,
        "inputSchema": {
            "type": "object",
            "properties": arguments,
            "required": required,
        },
    }
