"""`mcpgen hooks add OUT TOOL ACTION`: add the two hook stubs of one action to a package's hooks.py.

Hooks are opt-in (a missing hook is a pass-through), so `generate` writes none; this command starts
one action's. The action is looked up in the package's tools.lock.json, the stubs are rendered from
the same template as hooks.py and merged like a regeneration would (`preserve.merge`): the user's
code stays as written, a hook already bound in any way is not stubbed again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, SourceRef, error
from mcpgen.render.package import hook_stub, render_hooks_file
from mcpgen.write.hook_actions import LOCK_FILE, hook_changes

if TYPE_CHECKING:  # preserve imports libcst (a quarter of a second): only `hooks add` needs it
    from mcpgen.write.preserve import MergeResult


def add_hook_stubs(out: Path, tool: str, action: str) -> tuple[Path, MergeResult]:
    """The merged hooks.py (not yet written) and the merge's report; DiagnosticError-free: problems come
    back as error diagnostics in the result."""
    from mcpgen.write.preserve import MergeResult, merge

    lock_path = out / LOCK_FILE
    try:
        lock_text = lock_path.read_text(encoding="utf-8")
        lock = json.loads(lock_text)
    except (OSError, ValueError) as exc:
        return lock_path, _failed(f"cannot read {lock_path}: {exc}", lock_path, "run mcpgen generate first")
    server = lock.get("server") or {}
    entry = _find_action(lock, str(server.get("name") or ""), tool, action)
    if isinstance(entry, Diagnostic):
        return lock_path, MergeResult(code="", diagnostics=(entry,))
    tool_name, found = entry
    hooks_path = out / str(server.get("package") or "") / "hooks.py"
    stub = hook_stub(str(server["name"]), tool_name, action, str(found["method"]), str(found["path"]))
    fresh = render_hooks_file(str(server.get("title") or server["name"]), [stub])
    current = (
        hooks_path.read_bytes().decode("utf-8")
        if hooks_path.is_file()
        else render_hooks_file(str(server.get("title") or server["name"]), [])
    )
    known = hook_changes(None, lock_text).known
    return hooks_path, merge(current, fresh, path=str(hooks_path), known=known)


def _find_action(
    lock: dict[str, Any], server: str, tool: str, action: str
) -> tuple[str, dict[str, Any]] | Diagnostic:
    wanted = {tool, f"{server}_{tool}"}
    tools = [t for t in lock.get("tools") or [] if t.get("name") in wanted or _split_base(t) in wanted]
    if not tools:
        names = ", ".join(sorted({_split_base(t) or t["name"] for t in lock.get("tools") or []}))
        return error(
            codes.U005,
            f"the package has no tool {tool}",
            SourceRef(file=LOCK_FILE),
            hint=f"its tools: {names}",
        )
    for entry in tools:
        for candidate in entry.get("actions") or []:
            if candidate.get("name") == action:
                return (_split_base(entry) or str(entry["name"])), candidate
    actions = ", ".join(sorted({a["name"] for t in tools for a in t.get("actions") or []}))
    return error(
        codes.U005,
        f"tool {tools[0]['name']} has no action {action}",
        SourceRef(file=LOCK_FILE),
        hint=f"its actions: {actions}",
    )


def _split_base(tool: dict[str, Any]) -> str | None:
    """A previewed tool is served as `<tool>_preview` and `<tool>_apply`; its hooks use `<tool>`."""
    name = str(tool.get("name"))
    for suffix in ("_preview", "_apply"):
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return None


def _failed(message: str, path: Path, hint: str) -> MergeResult:
    from mcpgen.write.preserve import MergeResult

    return MergeResult(
        code="", diagnostics=(error(codes.U005, message, SourceRef(file=str(path)), hint=hint),)
    )


def write_hooks(path: Path, result: MergeResult) -> None:
    """Written as merged: the user's line endings are in `result.code` already."""
    path.write_bytes(result.code.encode("utf-8"))


def report_added(path: Path, result: MergeResult) -> None:
    if result.added:
        typer.echo(f"added to {path}: {', '.join(result.added)}")
    else:
        typer.echo(f"{path} already defines these hooks; nothing was added")
