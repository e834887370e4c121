"""Read one side of `mcpgen diff`: a lock file, a generated package, a spec and mapping, or a git revision.

Operand syntax (first match wins):
- `SPEC::MAPPING`  an OpenAPI spec and a mapping file, generated in memory (nothing is written);
  with both sides in this form the diff compares the specs value by value and names exact pointers.
- `PATH`           a tools.lock.json file, or a generated package directory holding one.
- `REV:PATH`       the same at a git revision, read with `git show` (PATH relative to the current
  directory), e.g. `HEAD~1:generated/petstore` or `main:generated/petstore/tools.lock.json`.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpgen.contract.diff import Sources
from mcpgen.diagnostics import DiagnosticError, SourceRef, error
from mcpgen.pipeline import generate
from mcpgen.render.lockfile import LOCK_FILE, LOCK_VERSION

PAIR_SEPARATOR = "::"


@dataclass(frozen=True, slots=True)
class Operand:
    label: str
    lock: dict[str, Any]
    sources: Sources | None = None


def load_operand(text: str, cwd: Path, *, ref_roots: Sequence[Path] = ()) -> Operand:
    """Raises DiagnosticError (with the operand as the place) when it cannot be read. A SPEC::MAPPING
    operand's `$ref`s may read files under the spec's directory and `ref_roots` only."""
    if PAIR_SEPARATOR in text:
        spec, _, mapping = text.partition(PAIR_SEPARATOR)
        return _from_inputs(text, cwd / spec, cwd / mapping, ref_roots)
    path = cwd / text
    if path.exists():
        return Operand(text, _read_lock(text, _lock_path(path).read_text(encoding="utf-8")))
    revision, colon, inner = text.partition(":")
    if colon and revision and inner:
        return Operand(text, _read_lock(text, _git_lock(revision, inner, cwd, text)))
    raise _problem(
        text,
        f"{text}: no such file or directory",
        "give a tools.lock.json, a generated package directory, SPEC::MAPPING, or REV:PATH",
    )


def _from_inputs(text: str, spec_path: Path, mapping_path: Path, ref_roots: Sequence[Path]) -> Operand:
    result = generate(spec_path, mapping_path, ref_roots=ref_roots)
    if not result.ok or result.server is None or result.spec is None:
        raise DiagnosticError(result.diagnostics)
    # The lock exactly as `mcpgen generate` would write it for these inputs.
    lock = json.loads(next(f.content for f in result.files if f.path == LOCK_FILE))
    return Operand(text, lock, Sources(result.spec, result.mapping) if result.mapping else None)


def _lock_path(path: Path) -> Path:
    return path / LOCK_FILE if path.is_dir() else path


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
    return DiagnosticError([error("D001", message, SourceRef(file=label), hint=hint)])
