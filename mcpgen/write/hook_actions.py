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

import orjson

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, SourceRef, warning
from mcpgen.names import hook_names
from mcpgen.write.lock_actions import read_lock_actions

LOCK_FILE = "tools.lock.json"  # the file render writes (render is a sibling layer: not imported)
SPLIT_SUFFIXES = ("_preview", "_apply")  # a previewed tool is served as two; its hooks keep one name


@dataclass(frozen=True, slots=True)
class HookNames:
    known: frozenset[str] | None = None  # every hook name some action has; None: not known
    renames: dict[str, str] = field(default_factory=dict)  # old hook name -> new
    # before-hook name (new) -> {old argument name: new}: arguments its action renamed (same API field)
    renamed_args: dict[str, dict[str, str]] = field(default_factory=dict)


_Endpoint = tuple[str, str]  # (method, path)


@dataclass(frozen=True, slots=True)
class _LockHooks:
    """What hooks need of one lock file, read from it in one pass: the whole document of GitHub's
    package (7 MB of text) is dropped as soon as these are taken."""

    # (method, path) -> the (before, after) hook names of each action calling it
    names: dict[_Endpoint, list[tuple[str, str]]]
    # (method, path) -> (place, API name) -> argument name, for the last action calling it
    args: dict[_Endpoint, dict[tuple[str, str], str]]


def hook_names_by_endpoint(lock_text: str | bytes | None) -> dict[_Endpoint, list[tuple[str, str]]]:
    """(method, path) -> the (before, after) names of each action calling it; {} for no lock file."""
    return _lock_hooks(lock_text).names


def hook_changes(previous_lock: str | bytes | None, new_lock: str | bytes | None) -> HookNames:
    new_hooks = _lock_hooks(new_lock)
    new = new_hooks.names
    if not new:
        return HookNames()
    known = frozenset(name for pairs in new.values() for pair in pairs for name in pair)
    old_hooks = _lock_hooks(previous_lock)
    old = old_hooks.names
    renames: dict[str, str] = {}
    for key, old_pairs in old.items():
        new_pairs = new.get(key, [])
        if len(old_pairs) == 1 and len(new_pairs) == 1 and old_pairs != new_pairs:
            (old_before, old_after), (new_before, new_after) = old_pairs[0], new_pairs[0]
            if old_before not in known:  # still some other action's hook: not a rename
                renames[old_before] = new_before
                renames[old_after] = new_after
    return HookNames(known, renames, _renamed_args(old_hooks, new_hooks))


def _renamed_args(old: _LockHooks, new: _LockHooks) -> dict[str, dict[str, str]]:
    """For the one action calling an endpoint on both sides: the arguments it sends to the same API
    field under another name now, by its (new) before-hook's name."""
    found: dict[str, dict[str, str]] = {}
    for key, new_pairs in new.names.items():
        if len(new_pairs) != 1 or len(old.names.get(key, [])) != 1:
            continue
        was, now = old.args.get(key, {}), new.args.get(key, {})
        renamed = {
            was[f]: now[f] for f in was.keys() & now.keys() if was[f] != now[f] and was[f] not in now.values()
        }
        if renamed:
            found[new_pairs[0][0]] = renamed
    return found


def _lock_hooks(lock_text: str | bytes | None) -> _LockHooks:
    server, tools = _lock_tools(lock_text)
    served = {tool for tool, _ in tools}
    names: dict[_Endpoint, list[tuple[str, str]]] = {}
    args: dict[_Endpoint, dict[tuple[str, str], str]] = {}
    for tool, actions in tools:
        name = _hook_tool_name(tool, served)
        for action, method, path, params in actions:
            key = (method, path)
            pair = hook_names(server, name, action)
            if pair not in names.setdefault(key, []):
                names[key].append(pair)
            args[key] = {(where, wire): arg for where, wire, arg in params}
    return _LockHooks(names, args)


# An action as hooks see it: name, method, path, and (place, API name, argument) of each parameter sent.
_Action = tuple[str, str, str, list[tuple[str, str, str]]]


def _lock_tools(lock_text: str | bytes | None) -> tuple[str, list[tuple[str, list[_Action]]]]:
    """The server's name, and each tool's name with its actions."""
    if not lock_text:
        return "", []
    # Bytes: msgspec would keep a UTF-8 copy of a str inside it for as long as the str lives.
    raw = lock_text.encode("utf-8") if isinstance(lock_text, str) else lock_text
    typed = read_lock_actions(raw)
    if typed is not None:
        return typed.server.name, [
            (
                tool.name,
                [
                    (
                        a.name,
                        a.method,
                        a.path,
                        [(p.location, p.wire, p.arg) for p in a.params if p.wire is not None],
                    )
                    for a in tool.actions
                ],
            )
            for tool in typed.tools
        ]
    document = _parse(raw)  # not the writer's shape: each member read as it is
    tools = [t for t in document.get("tools") or [] if isinstance(t, dict)]
    return str((document.get("server") or {}).get("name") or ""), [
        (
            str(tool.get("name")),
            [
                (
                    str(action.get("name")),
                    str(action.get("method")),
                    str(action.get("path")),
                    [
                        (str(p.get("in")), str(p.get("wire")), str(p.get("arg")))
                        for p in action.get("params") or []
                        if isinstance(p, dict) and p.get("wire") is not None
                    ],
                )
                for action in tool.get("actions") or []
            ],
        )
        for tool in tools
    ]


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


def _parse(text: bytes) -> dict[str, Any]:
    if not text:
        return {}
    try:
        document = orjson.loads(text)  # a tenth of json.loads' time on GitHub's lock, and less memory
    except orjson.JSONDecodeError:
        try:  # what orjson refuses and json reads: NaN, an integer past 64 bits
            document = json.loads(text)
        except ValueError:
            return {}
    return document if isinstance(document, dict) else {}
