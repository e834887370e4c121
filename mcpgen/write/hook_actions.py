"""Pure: which hook names the server calls, and which hooks follow a renamed action, read from lock files.

Hooks are named after their action (`naming.hook_names`): renaming an action or its tool in the mapping
renames the hook the server calls. An action is the same action across two lock files when it calls the
same method and path and is the only one that does on both sides; then the old hook names map to the
new ones, and `preserve.merge` renames the user's functions (or fails and says so), so a hook never
silently stops being called.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, SourceRef, warning
from mcpgen.names import hook_names

LOCK_FILE = "tools.lock.json"  # the file render writes (render is a sibling layer: not imported)
SPLIT_SUFFIXES = ("_preview", "_apply")  # a previewed tool is served as two; its hooks keep one name


@dataclass(frozen=True, slots=True)
class HookNames:
    known: frozenset[str] | None = None  # every hook name some action has; None: not known
    renames: dict[str, str] = field(default_factory=dict)  # old hook name -> new
    # before-hook name (new) -> {old argument name: new}: arguments its action renamed (same API field)
    renamed_args: dict[str, dict[str, str]] = field(default_factory=dict)


def hook_names_by_endpoint(lock_text: str | None) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(method, path) -> the (before, after) names of each action calling it; {} for no lock file."""
    document = _parse(lock_text)
    server = str((document.get("server") or {}).get("name") or "")
    tools = [t for t in document.get("tools") or [] if isinstance(t, dict)]
    served = {str(t.get("name")) for t in tools}
    found: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for tool in tools:
        name = _hook_tool_name(str(tool.get("name")), served)
        for action in tool.get("actions") or []:
            key = (str(action.get("method")), str(action.get("path")))
            pair = hook_names(server, name, str(action.get("name")))
            if pair not in found.setdefault(key, []):
                found[key].append(pair)
    return found


def hook_changes(previous_lock: str | None, new_lock: str | None) -> HookNames:
    new = hook_names_by_endpoint(new_lock)
    if not new:
        return HookNames()
    known = frozenset(name for pairs in new.values() for pair in pairs for name in pair)
    old = hook_names_by_endpoint(previous_lock)
    renames: dict[str, str] = {}
    for key, old_pairs in old.items():
        new_pairs = new.get(key, [])
        if len(old_pairs) == 1 and len(new_pairs) == 1 and old_pairs != new_pairs:
            (old_before, old_after), (new_before, new_after) = old_pairs[0], new_pairs[0]
            if old_before not in known:  # still some other action's hook: not a rename
                renames[old_before] = new_before
                renames[old_after] = new_after
    return HookNames(known, renames, _renamed_args(previous_lock, new_lock, old, new))


def _renamed_args(
    previous_lock: str | None,
    new_lock: str | None,
    old: dict[tuple[str, str], list[tuple[str, str]]],
    new: dict[tuple[str, str], list[tuple[str, str]]],
) -> dict[str, dict[str, str]]:
    """For the one action calling an endpoint on both sides: the arguments it sends to the same API
    field under another name now, by its (new) before-hook's name."""
    before, after = _args_by_endpoint(previous_lock), _args_by_endpoint(new_lock)
    found: dict[str, dict[str, str]] = {}
    for key, new_pairs in new.items():
        if len(new_pairs) != 1 or len(old.get(key, [])) != 1:
            continue
        was, now = before.get(key, {}), after.get(key, {})
        renamed = {
            was[f]: now[f] for f in was.keys() & now.keys() if was[f] != now[f] and was[f] not in now.values()
        }
        if renamed:
            found[new_pairs[0][0]] = renamed
    return found


def _args_by_endpoint(lock_text: str | None) -> dict[tuple[str, str], dict[tuple[str, str], str]]:
    """(method, path) -> (place, API name) -> argument name, for endpoints one action calls."""
    found: dict[tuple[str, str], dict[tuple[str, str], str]] = {}
    for tool in _parse(lock_text).get("tools") or []:
        for action in (tool.get("actions") or []) if isinstance(tool, dict) else []:
            key = (str(action.get("method")), str(action.get("path")))
            found[key] = {
                (str(p.get("in")), str(p.get("wire"))): str(p.get("arg"))
                for p in action.get("params") or []
                if isinstance(p, dict) and p.get("wire") is not None
            }
    return found


def stale_arguments(source: str, renamed_args: dict[str, dict[str, str]], path: str) -> list[Diagnostic]:
    """A before-hook that still names an argument its action renamed (`args.get("q")` after `q` became
    `text`) reads nothing there now, and its code silently stops doing anything: warn, with both names."""
    if not renamed_args:
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # merge says so
    found = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name not in renamed_args:
            continue
        renamed = renamed_args[node.name]
        for inner in ast.walk(node):
            if isinstance(inner, ast.Constant) and isinstance(inner.value, str) and inner.value in renamed:
                new = renamed[inner.value]
                found.append(
                    warning(
                        codes.U006,
                        f"{node.name} reads argument '{inner.value}', which its action now calls '{new}': "
                        f"under the old name it gets nothing, and the hook silently stops doing it",
                        SourceRef(file=path, line=inner.lineno),
                        hint=f"read '{new}' instead, or keep the old name in the mapping: "
                        f"params: {{<field>: {{name: {inner.value}}}}}",
                    )
                )
    return found


def sibling_imports(source: str) -> set[str]:
    """Modules of the same package a file imports (`from .impl import x` -> 'impl'), at any depth of
    the file; nothing for a file Python cannot parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
    }


def _hook_tool_name(served: str, all_served: set[str]) -> str:
    for suffix in SPLIT_SUFFIXES:
        other = SPLIT_SUFFIXES[1] if suffix == SPLIT_SUFFIXES[0] else SPLIT_SUFFIXES[0]
        base = served.removesuffix(suffix)
        if base != served and base + other in all_served:
            return base
    return served


def _parse(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        document = json.loads(text)
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}
