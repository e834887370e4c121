"""The only module that writes files: plan the change against what is on disk, then apply it safely.

Nothing is written until every file has been rendered. New contents are first staged beside their
targets and only then moved into place, so a failure leaves the previous output as it was. Files that
mcpgen did not write (a virtualenv, caches) are never touched; generated files that are no longer
produced are removed; user-owned files are created once and afterwards merged with their fresh render
(`preserve.py`: the user's code always wins; a hook follows its renamed action). A file added by hand
inside the package's own directories would ship with it unseen: the plan names it (`untracked`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, DiagnosticError, SourceRef, error, warning
from mcpgen.ir import RenderedFile
from mcpgen.write.hook_actions import LOCK_FILE, HookNames, hook_changes, sibling_imports, stale_arguments

MANIFEST = ".mcpgen-manifest.json"


@dataclass(frozen=True, slots=True)
class WritePlan:
    out_dir: Path
    files: tuple[RenderedFile, ...]  # what will be on disk afterwards (user files merged, when present)
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    unchanged: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...] = ()  # from merging user files: orphaned hooks, say
    untracked: tuple[
        str, ...
    ] = ()  # inside the package's directories, written by neither mcpgen nor its user files

    @property
    def is_noop(self) -> bool:
        """Nothing to write (files mcpgen did not write are left alone either way)."""
        return not (self.added or self.changed or self.removed)

    @property
    def is_current(self) -> bool:
        """What `generate --check` asks: the package is exactly what mcpgen would write."""
        return self.is_noop and not self.untracked


def plan_write(out_dir: Path, rendered: Iterable[RenderedFile], generator: str) -> WritePlan:
    rendered = tuple(rendered)
    previous = _read_manifest(out_dir)
    files: list[RenderedFile] = []
    added: list[str] = []
    changed: list[str] = []
    unchanged: list[str] = []
    diagnostics: list[Diagnostic] = []
    hooks = _hook_names(out_dir, rendered)
    for file in rendered:
        target = out_dir / file.path
        if file.ownership == "user" and target.exists():
            current = target.read_bytes().decode("utf-8")  # as written: CRLF stays CRLF, lines stay put
            # libcst takes a quarter of a second to import; only a regeneration over user files needs it.
            from mcpgen.write.preserve import merge

            merged = (
                merge(current, file.content, path=str(target), known=hooks.known, renames=hooks.renames)
                if file.path.endswith(".py")
                else None
            )
            content = merged.code if merged else current
            diagnostics += merged.diagnostics if merged else ()
            diagnostics += stale_arguments(content, hooks.renamed_args, str(target)) if merged else ()
            files.append(RenderedFile(file.path, content, "user"))
            (changed if content != current else unchanged).append(file.path)
            continue
        files.append(file)
        if not target.is_file():
            added.append(file.path)
        elif not _holds(target, file.content):
            changed.append(file.path)
        else:
            unchanged.append(file.path)
    produced = {f.path for f in files}
    removed = sorted(p for p in previous if p not in produced and (out_dir / p).exists())
    untracked = _untracked(out_dir, produced | set(previous) | _hook_modules(files))
    diagnostics += [_untracked_warning(out_dir, path) for path in untracked]
    manifest = _manifest_text(files, generator)
    manifest_path = out_dir / MANIFEST
    if not manifest_path.is_file() or manifest_path.read_text(encoding="utf-8") != manifest:
        (changed if manifest_path.is_file() else added).append(MANIFEST)
    files.append(RenderedFile(MANIFEST, manifest))
    return WritePlan(
        out_dir,
        tuple(files),
        tuple(added),
        tuple(changed),
        tuple(removed),
        tuple(unchanged),
        tuple(diagnostics),
        untracked,
    )


_CHUNK = 1 << 15  # characters compared at a time: small pieces, whose memory is used again


def _sha256(content: str) -> str:
    """The digest of the content's UTF-8 encoding, encoded a piece at a time (see `_holds`)."""
    digest = hashlib.sha256()
    for start in range(0, len(content), _CHUNK):
        digest.update(content[start : start + _CHUNK].encode("utf-8"))
    return digest.hexdigest()


def _holds(path: Path, content: str) -> bool:
    """Whether the file's bytes are `content` in UTF-8, read and compared a piece at a time: GitHub's
    tools.lock.json is 7 MB, and a copy of it and of its encoding, made when everything else
    `generate` holds is still alive, would each add to its peak memory."""
    try:
        with path.open("rb") as handle:
            for start in range(0, len(content), _CHUNK):
                expected = content[start : start + _CHUNK].encode("utf-8")
                if handle.read(len(expected)) != expected:
                    return False
            return handle.read(1) == b""
    except OSError:
        return False


def _hook_names(out_dir: Path, rendered: tuple[RenderedFile, ...]) -> HookNames:
    """The hooks the new server calls, and those that follow a renamed action, from the lock file on
    disk (the previous generation's) and the one about to be written."""
    previous = out_dir / LOCK_FILE
    new = next((f.content for f in rendered if f.path == LOCK_FILE), None)
    return hook_changes(previous.read_bytes() if previous.is_file() else None, new)


def _hook_modules(files: list[RenderedFile]) -> set[str]:
    """The package's modules a user-owned file imports (`from .impl import *`): the user's code, kept
    beside hooks.py on purpose, so not "unseen"."""
    found: set[str] = set()
    for file in files:
        if file.ownership == "user" and file.path.endswith(".py"):
            directory = file.path.rsplit("/", 1)[0] if "/" in file.path else ""
            for module in sibling_imports(file.content):
                stem = "/".join(filter(None, [directory, *module.split(".")]))
                found |= {f"{stem}.py", f"{stem}/__init__.py"}
    return found


def apply_write(plan: WritePlan, *, force: bool = False) -> None:
    out_dir = plan.out_dir
    _refuse_foreign_directory(out_dir, force)
    pending = set(plan.added) | set(plan.changed)
    staged: list[tuple[Path, Path]] = []
    try:
        for file in plan.files:
            if file.path not in pending:
                continue
            target = out_dir / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.name}.mcpgen-tmp")
            temporary.write_text(file.content, encoding="utf-8", newline="\n")
            staged.append((temporary, target))
    except OSError as exc:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        raise DiagnosticError(
            [error(codes.W002, f"cannot write the output: {exc}", SourceRef(file=str(out_dir)))]
        ) from None
    # The manifest goes last: until it is replaced, the old one still describes what is on disk.
    staged.sort(key=lambda pair: pair[1].name == MANIFEST)
    for temporary, target in staged:
        os.replace(temporary, target)
    for path in plan.removed:
        (out_dir / path).unlink(missing_ok=True)
        _remove_empty_parents((out_dir / path).parent, out_dir)


def _refuse_foreign_directory(out_dir: Path, force: bool) -> None:
    if force or not out_dir.exists() or (out_dir / MANIFEST).is_file():
        return
    if not out_dir.is_dir() or any(out_dir.iterdir()):
        raise DiagnosticError(
            [
                error(
                    codes.W001,
                    f"{out_dir} already exists and was not written by mcpgen; refusing to write into it",
                    SourceRef(file=str(out_dir)),
                    hint="choose a new or empty directory, or pass --force to write into it anyway",
                )
            ]
        )


def _untracked(out_dir: Path, known: set[str]) -> tuple[str, ...]:
    """Files in the package's directories (those holding files mcpgen writes, below the top) that mcpgen
    does not know. The top of OUT is the user's too (a virtualenv, notes), so it is not searched."""
    package_dirs = sorted({path.split("/", 1)[0] for path in known if "/" in path})
    found = []
    for name in package_dirs:
        for path in sorted((out_dir / name).rglob("*")):
            relative = path.relative_to(out_dir).as_posix()
            if path.is_file() and "__pycache__" not in path.parts and relative not in known:
                found.append(relative)
    return tuple(found)


def _untracked_warning(out_dir: Path, path: str) -> Diagnostic:
    return warning(
        codes.W003,
        f"{path} is inside the generated package but mcpgen did not write it, so it ships unseen",
        SourceRef(file=str(out_dir / path)),
        hint="put your own code in hooks.py (it is yours and kept on every regeneration) or outside "
        "the package directory; `generate --check` fails while the file is there",
    )


def _read_manifest(out_dir: Path) -> dict[str, str]:
    try:
        data = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return dict(files) if isinstance(files, dict) else {}


def _manifest_text(files: list[RenderedFile], generator: str) -> str:
    entries = {
        f.path: _sha256(f.content) for f in sorted(files, key=lambda f: f.path) if f.ownership == "generated"
    }
    return json.dumps({"generator": generator, "files": entries}, indent=2) + "\n"


def _remove_empty_parents(directory: Path, stop: Path) -> None:
    while directory != stop and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent
