"""Read one side of `mcpgen diff`: a lock file, a generated package, a spec and mapping, or a git revision.

Operand syntax (first match wins):
- `SPEC::MAPPING`  an OpenAPI spec (a path, or an https URL fetched as `generate` fetches it) and a
  mapping file, generated in memory (nothing is written); with both sides in this form the diff
  compares the specs value by value and names exact pointers.
- `PATH`           a tools.lock.json file, or a generated package directory holding one.
- `REV:PATH`       the same at a git revision, read with `git show` (PATH relative to the current
  directory), e.g. `HEAD~1:generated/petstore` or `main:generated/petstore/tools.lock.json`.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcpgen import codes
from mcpgen.cli.beside import Beside, can_fork_work
from mcpgen.contract.diff.lock import action_params
from mcpgen.contract.diff.mapping_changes import data_at
from mcpgen.contract.diff.model import ContractChange, Sources
from mcpgen.contract.scanning import Place, Places
from mcpgen.diagnostics import DiagnosticError, SourceRef, error
from mcpgen.load.remote import RemoteOptions, is_url
from mcpgen.load.sources import Document, escape_pointer_token, join_pointer, load_document
from mcpgen.pipeline import LockResult, generate_lock, load_inputs, lock_from_inputs
from mcpgen.render.lockfile import LOCK_FILE, LOCK_VERSION

PAIR_SEPARATOR = "::"


@dataclass(frozen=True, slots=True)
class Operand:
    label: str
    lock: dict[str, Any]
    sources: Sources | None = None
    lock_file: Path | None = None  # a lock file in the work tree (not one read from git)
    mapping_file: Path | None = None  # SPEC::MAPPING: the mapping file


def load_operand(
    text: str, cwd: Path, *, ref_roots: Sequence[Path] = (), remote: RemoteOptions | None = None
) -> Operand:
    """Raises DiagnosticError (with the operand as the place) when it cannot be read. A SPEC::MAPPING
    operand's `$ref`s may read files under the spec's directory and `ref_roots` only, and fetch from
    the hosts `remote` allows; its SPEC may be a URL."""
    if PAIR_SEPARATOR in text:
        spec_source, mapping_path = _pair_paths(text, cwd)
        return _pair_operand(
            text, generate_lock(spec_source, mapping_path, ref_roots=ref_roots, remote=remote)
        )
    path = cwd / text
    if path.exists():
        lock_file = _lock_path(path)
        return Operand(text, _read_lock(text, _lock_text(text, lock_file)), lock_file=lock_file)
    revision, colon, inner = text.partition(":")
    if colon and revision and inner:
        # The same path in the work tree is where annotations point: in CI it is the checked-out side.
        checked_out = _lock_path(cwd / inner) if (cwd / inner).exists() else None
        lock = _read_lock(text, _git_lock(revision, inner, cwd, text))
        return Operand(text, lock, lock_file=checked_out)
    raise _problem(
        text,
        f"{text}: no such file or directory",
        "give a tools.lock.json, a generated package directory, SPEC::MAPPING, or REV:PATH",
    )


def load_operands(
    old: str, new: str, cwd: Path, *, ref_roots: Sequence[Path] = (), remote: RemoteOptions | None = None
) -> tuple[Operand, Operand]:
    """Both sides of a diff, as `load_operand` reads each. Two SPEC::MAPPING operands are built at once
    where a second core and fork are at hand: OLD in a forked child, NEW here (GitHub's pair took the
    sum of two builds one after the other)."""
    if PAIR_SEPARATOR not in old or PAIR_SEPARATOR not in new or not can_fork_work():
        return load_operand(old, cwd, ref_roots=ref_roots, remote=remote), load_operand(
            new, cwd, ref_roots=ref_roots, remote=remote
        )
    spec_source, mapping_path = _pair_paths(old, cwd)
    spec, mapping, diagnostics = load_inputs(spec_source, mapping_path, ref_roots=ref_roots, remote=remote)
    if spec is None or mapping is None:  # nothing to build: its problems, as `load_operand` reports them
        raise DiagnosticError(diagnostics)

    def build_old() -> LockResult:
        return lock_from_inputs(spec, mapping, spec_source, mapping_path, diagnostics)

    beside = Beside(lambda: _sent(build_old()))

    def old_operand() -> Operand:
        built = beside.result() or build_old()  # the child's, else built here
        return _pair_operand(old, replace(built, spec=spec, mapping=mapping))

    try:
        after = load_operand(new, cwd, ref_roots=ref_roots, remote=remote)
    except DiagnosticError:  # OLD's problems first, as when the sides are read one after the other
        old_operand()
        raise
    except BaseException:
        beside.cancel()
        raise
    return old_operand(), after


def _sent(result: LockResult) -> LockResult:
    """What the child sends back: the lock and the diagnostics, not the inputs the parent holds."""
    return replace(result, spec=None, mapping=None)


def _pair_paths(text: str, cwd: Path) -> tuple[Path | str, Path]:
    # The last `::`: an IPv6 address in a spec URL holds one too (https://[::1]/openapi.json).
    spec, _, mapping = text.rpartition(PAIR_SEPARATOR)
    # Named as the user wrote them (relative to the current directory): messages quote the path.
    spec_source = spec if is_url(spec) else Path(_shown(cwd / spec))
    return spec_source, Path(_shown(cwd / mapping))


def _pair_operand(text: str, result: LockResult) -> Operand:
    if result.lock is None or result.spec is None:
        raise DiagnosticError(result.diagnostics)
    # The lock exactly as `mcpgen generate` would write it for these inputs.
    sources = Sources(result.spec, result.mapping) if result.mapping else None
    return Operand(text, result.lock, sources, mapping_file=Path(text.rpartition(PAIR_SEPARATOR)[2]))


def _lock_path(path: Path) -> Path:
    return path / LOCK_FILE if path.is_dir() else path


def _lock_text(label: str, lock_file: Path) -> str:
    """The text of a lock file in the work tree; a located problem when there is none to read."""
    try:
        return lock_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _problem(
            label,
            f"{label}: a directory without a {LOCK_FILE}, so it is not a generated package",
            "give a tools.lock.json, a directory mcpgen generated (it holds one), or SPEC::MAPPING to "
            "generate the contract from a spec and a mapping",
        ) from None
    except IsADirectoryError:
        raise _problem(label, f"{lock_file}: a directory, not a {LOCK_FILE}") from None
    except OSError as exc:
        raise _problem(label, f"cannot read {lock_file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise _problem(label, f"not a lock file: {lock_file} is not UTF-8 text") from None


def _git_lock(revision: str, inner: str, cwd: Path, text: str) -> str:
    relative = inner if inner.startswith(("/", "./")) else f"./{inner}"
    # A directory is a generated package: its lock file is what to read.
    wanted = relative if relative.endswith(".json") else f"{relative.rstrip('/')}/{LOCK_FILE}"
    shown = subprocess.run(
        ["git", "show", f"{revision}:{wanted}"], cwd=cwd, capture_output=True, text=True, check=False
    )
    if shown.returncode == 0:
        return shown.stdout
    said = shown.stderr.strip().splitlines()
    raise _problem(
        text,
        f"git cannot show {revision}:{wanted.removeprefix('./')}" + (f": {said[-1]}" if said else ""),
        "REV:PATH reads PATH (a lock file, or a generated directory holding one; relative to the current "
        "directory) at git revision REV",
    )


def _read_lock(label: str, text: str) -> dict[str, Any]:
    try:
        lock = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _problem(label, f"not a lock file: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if not isinstance(lock, dict) or "tools" not in lock:
        raise _problem(label, f"not a {LOCK_FILE}: it has no 'tools'")
    if lock.get("lock_version") != LOCK_VERSION:
        raise _problem(
            label,
            f"lock format {lock.get('lock_version')!r} is not the one this mcpgen reads ({LOCK_VERSION})",
            "regenerate the package with this mcpgen, or diff SPEC::MAPPING pairs instead",
        )
    return lock


def _problem(label: str, message: str, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError([error(codes.D001, message, SourceRef(file=label), hint=hint)])


def file_places(operand: Operand) -> Places:
    """Where each change of a diff whose new side is `operand` is, as a file line: the mapping rule that
    caused it (SPEC::MAPPING operands), else its tool, action or parameter in the lock file, else the
    lock file itself. Paths stay as the user wrote them, relative to the current directory."""
    mapping = _document(operand.mapping_file)
    lock = _document(operand.lock_file)
    tools = {t.get("name"): i for i, t in enumerate(operand.lock.get("tools", []))}

    def place(change: ContractChange) -> Place | None:
        if mapping is not None:
            rule = next((c.pointer for c in change.causes if c.origin == "mapping"), None)
            pointer = rule or _mapping_pointer(operand.lock, change, mapping.data)
            return Place(mapping.display_path, mapping.locate(pointer).line)
        if lock is None:
            return None
        return Place(lock.display_path, lock.locate(_lock_pointer(operand.lock, tools, change)).line)

    return place


def _mapping_pointer(lock: dict[str, Any], change: ContractChange, data: Any) -> str:
    """The mapping rule of the change's subject: the parameter's `params:` entry, else its action's
    rule, else its tool's; the tools list for a subject the new lock no longer has."""
    tool = next((t for t in lock.get("tools", []) if t.get("name") == change.tool), None)
    if tool is None:
        return "/tools"
    actions = tool.get("actions", [])
    chosen = [a for a in actions if a.get("name") == change.action]
    for action in (chosen or actions) if change.param else ():
        rule = (action.get("mapping") or {}).get("pointer")
        param = action_params(action).get(str(change.param))
        if rule is None or param is None:
            continue
        for key in (f"{param.get('in')}.{param.get('wire')}", str(param.get("wire"))):
            entry = join_pointer(rule, "params", key)
            try:
                data_at(data, entry)
            except (KeyError, IndexError, TypeError, ValueError):
                continue
            return entry
    for subject in (*chosen, tool):
        rule = (subject.get("mapping") or {}).get("pointer")
        if rule is not None:
            return str(rule)
    return "/tools"


def _document(path: Path | None) -> Document | None:
    if path is None:
        return None
    try:
        return load_document(path, _shown(path))
    except DiagnosticError:
        return None  # the operand was read already; a file that changed since has no lines to give


def _shown(path: Path) -> str:
    """Relative to the current directory when under it: CI tools read paths from the repository root."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _lock_pointer(lock: dict[str, Any], tools: dict[Any, int], change: ContractChange) -> str:
    index = tools.get(change.tool)
    if index is None:
        return "/tools"
    tool = lock["tools"][index]
    if change.param and change.param in tool.get("inputSchema", {}).get("properties", {}):
        return f"/tools/{index}/inputSchema/properties/{escape_pointer_token(change.param)}"
    actions = [a.get("name") for a in tool.get("actions", [])]
    if change.action in actions:
        return f"/tools/{index}/actions/{actions.index(change.action)}/name"
    return f"/tools/{index}/name"
