"""On-demand discovery (T3 few tools): serve two meta-tools instead of the whole catalog.

tools.json marks the meta-tools with `_meta["dev.mcpgen/discovery"]`; when they are there, tools/list
serves only them. `search` scores the catalog against the query's words and returns full definitions;
`call` unwraps a call to a catalog tool, which then goes through the same validation as any call.
Nothing is remembered between calls (P1 stateless): every search reads the same catalog.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from .errors import Recovery, ToolError, quoted

META_KEY = "dev.mcpgen/discovery"
LIMIT_DEFAULT = 5
LIMIT_MAX = 10
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    """Lower-case words, each also without a plural 's', so 'issues' finds 'issue'."""
    found = set()
    for word in _WORD.findall(text.lower().replace("_", " ")):
        if len(word) > 1:
            found.add(word)
            if len(word) > 3 and word.endswith("s"):
                found.add(word[:-1])
    return found


class Discovery:
    def __init__(self, contract: list[dict[str, Any]]):
        self.meta: dict[str, str] = {
            t["name"]: t["_meta"][META_KEY]
            for t in contract
            if META_KEY in (t.get("_meta") or {})
        }
        self.catalog = [t for t in contract if t["name"] not in self.meta]
        self._by_name = {t["name"]: t for t in self.catalog}
        # Name words weigh most, then the title, then the description (which lists the actions).
        self._index = [
            (
                t,
                _words(t["name"]),
                _words(t.get("title") or ""),
                _words(t.get("description") or ""),
            )
            for t in self.catalog
        ]
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
        """Full definitions of the tools matching the query, among those the caller may see (P3 credentials)."""
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
        wanted = _words(query)
        scored = []
        for position, (tool, name, title, description) in enumerate(self._index):
            if not visible(tool["name"]):
                continue
            score = sum(
                3 * (w in name) + 2 * (w in title) + (w in description) for w in wanted
            )
            if score:
                scored.append((-score, position, tool))
        scored.sort(key=lambda item: (item[0], item[1]))
        found = [
            {k: v for k, v in tool.items() if k != "_meta"}
            for _, _, tool in scored[:limit]
        ]
        result: dict[str, Any] = {
            "query": query,
            "matched": len(scored),
            "shown": len(found),
            "tools": found,
        }
        if found:
            result["next"] = (
                f"Run one with {self.call_name}: tool=<its name>, arguments=<as its inputSchema says>."
            )
        else:
            result["next"] = (
                "No tool matched; try other words. Tools here include: "
                + ", ".join(t["name"] for t in self.catalog[:15])
                + ("." if len(self.catalog) <= 15 else ", ...")
            )
        return result

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
