"""The generator as one call: spec + mapping -> rendered files and diagnostics. Nothing is written here.

Every generated .py file is compiled before the files are handed on: a module that does not compile
is an internal error naming the file, and the write stage never sees the files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcpgen import codes
from mcpgen.build.contract import contract
from mcpgen.build.regeneration import PreviousLock, previous_lock
from mcpgen.build.server import build_server
from mcpgen.diagnostics import Diagnostic, DiagnosticError, SourceRef, error, has_errors
from mcpgen.ir import RenderedFile, ServerSpec
from mcpgen.load.mapping import Mapping, load_mapping
from mcpgen.load.openapi import Spec, load_spec
from mcpgen.load.remote import RemoteOptions
from mcpgen.profiles import Profile
from mcpgen.render.lockfile import LOCK_FILE, lock_json
from mcpgen.render.package import RenderError, render_server
from mcpgen.write.lock_actions import read_lock_actions

BUG_HINT = (
    "this is a bug in mcpgen, not in your files: please report it with the spec and mapping that caused it"
)


@dataclass(frozen=True, slots=True)
class GenerationResult:
    server: ServerSpec | None
    files: tuple[RenderedFile, ...]
    diagnostics: tuple[Diagnostic, ...]
    spec: Spec | None = None
    mapping: Mapping | None = None

    @property
    def ok(self) -> bool:
        return self.server is not None and not has_errors(self.diagnostics)


def load_inputs(
    spec_path: Path | str,
    mapping_path: Path,
    *,
    ref_roots: Sequence[Path] = (),
    remote: RemoteOptions | None = None,
) -> tuple[Spec | None, Mapping | None, list[Diagnostic]]:
    """Both inputs, with every problem of each (a broken mapping does not hide a broken spec).

    The spec may be an https URL (a str). Its `$ref`s may read files under its own directory and
    under `ref_roots` only, and fetch from the hosts `remote` allows.
    """
    diagnostics: list[Diagnostic] = []
    spec = mapping = None
    try:
        spec = load_spec(spec_path, display_path=str(spec_path), ref_roots=ref_roots, remote=remote)
    except DiagnosticError as exc:
        diagnostics += exc.diagnostics
    try:
        mapping = load_mapping(mapping_path, display_path=str(mapping_path))
    except DiagnosticError as exc:
        diagnostics += exc.diagnostics
    return spec, mapping, diagnostics


def generate(
    spec_path: Path | str,
    mapping_path: Path,
    profile: Profile | None = None,
    *,
    ref_roots: Sequence[Path] = (),
    previous: PreviousLock | None = None,
    remote: RemoteOptions | None = None,
) -> GenerationResult:
    """`previous`: the lock of the package generated last into the same place (`read_previous_lock`)."""
    spec, mapping, diagnostics = load_inputs(spec_path, mapping_path, ref_roots=ref_roots, remote=remote)
    if spec is None or mapping is None:
        return GenerationResult(None, (), tuple(diagnostics), spec)
    return _built_and_rendered(spec, mapping, diagnostics, spec_path, mapping_path, profile, previous)


def _built_and_rendered(
    spec: Spec,
    mapping: Mapping,
    diagnostics: list[Diagnostic],
    spec_path: Path | str,
    mapping_path: Path,
    profile: Profile | None,
    previous: PreviousLock | None,
) -> GenerationResult:
    try:
        built = build_server(
            spec,
            mapping,
            spec_file=_header_path(spec_path, mapping_path),
            mapping_file=_shown_name(mapping_path.name),
            previous=previous,
        )
    except DiagnosticError as exc:  # an unresolvable $ref met while building
        return GenerationResult(None, (), tuple(diagnostics + list(exc.diagnostics)), spec)
    diagnostics += built.diagnostics
    if built.server is None:
        return GenerationResult(None, (), tuple(diagnostics), spec)
    server = _with_source(built.server, spec)
    served = contract(server, profile)
    try:
        files = render_server(server, served, api_title=spec.title, profiled=profile is not None)
    except RenderError as exc:
        problem = error(
            codes.G001, f"internal error: {exc.path} could not be rendered: {exc.reason}", hint=BUG_HINT
        )
        return GenerationResult(server, (), (*diagnostics, problem), spec, mapping)
    problems = compile_problems(files)
    if problems:
        return GenerationResult(server, (), (*diagnostics, *problems), spec, mapping)
    return GenerationResult(server, files, tuple(diagnostics), spec, mapping)


def _with_source(server: ServerSpec, spec: Spec) -> ServerSpec:
    """A spec given by URL: the lock records where it came from and the sha256 of what was read."""
    if spec.fetched is None:
        return server
    return replace(server, spec_url=(spec.fetched.url, spec.fetched.sha256))


@dataclass(frozen=True, slots=True)
class LockResult:
    """What `mcpgen diff` reads of a SPEC::MAPPING operand: the lock `generate` would write, and the
    loaded inputs; `lock` is None when the inputs have errors (in `diagnostics`)."""

    lock: dict[str, Any] | None
    diagnostics: tuple[Diagnostic, ...]
    spec: Spec | None = None
    mapping: Mapping | None = None


def generate_lock(
    spec_path: Path | str,
    mapping_path: Path,
    *,
    ref_roots: Sequence[Path] = (),
    remote: RemoteOptions | None = None,
) -> LockResult:
    """`generate` up to the lock file: loaded, built and served, but no module rendered or compiled
    (a diff reads the contract only; the render is half of generate's time on a large spec)."""
    spec, mapping, diagnostics = load_inputs(spec_path, mapping_path, ref_roots=ref_roots, remote=remote)
    if spec is None or mapping is None:
        return LockResult(None, tuple(diagnostics), spec)
    return lock_from_inputs(spec, mapping, spec_path, mapping_path, diagnostics)


def lock_from_inputs(
    spec: Spec,
    mapping: Mapping,
    spec_path: Path | str,
    mapping_path: Path,
    diagnostics: Sequence[Diagnostic] = (),
) -> LockResult:
    """The second half of `generate_lock`, for inputs already loaded: built and served, no module
    rendered. `diagnostics` are the loading's, kept in front of the build's."""
    diagnostics = list(diagnostics)
    try:
        built = build_server(
            spec,
            mapping,
            spec_file=_header_path(spec_path, mapping_path),
            mapping_file=_shown_name(mapping_path.name),
        )
    except DiagnosticError as exc:  # an unresolvable $ref met while building
        return LockResult(None, tuple(diagnostics + list(exc.diagnostics)), spec)
    diagnostics += built.diagnostics
    if built.server is None or has_errors(diagnostics):
        return LockResult(None, tuple(diagnostics), spec)
    # Through its canonical JSON: the very document `generate` writes and a lock operand reads.
    server = _with_source(built.server, spec)
    lock = json.loads(lock_json(server, contract(server)))
    return LockResult(lock, tuple(diagnostics), spec, mapping)


def read_previous_lock(out_dir: Path) -> PreviousLock | None:
    """The tools.lock.json an earlier `generate` wrote into `out_dir`, or None when there is none.

    A lock that cannot be read or parsed gives None too: it only improves diagnostics, and the write
    stage replaces it with the new one.
    """
    lock_path = out_dir / LOCK_FILE
    try:
        raw = lock_path.read_bytes()
    except OSError:
        return None
    typed = read_lock_actions(raw)  # GitHub's is 7 MB: only the actions' members are read
    if typed is not None:
        document: Any = {
            "tools": [
                {
                    "actions": [
                        {"operationId": a.operationId, "method": a.method, "path": a.path} for a in t.actions
                    ]
                }
                for t in typed.tools
            ]
        }
    else:
        try:  # not the writer's shape: each member is read as it is
            document = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None
    return previous_lock(document, _shown_name(str(lock_path)))


def compile_problems(files: Iterable[RenderedFile]) -> list[Diagnostic]:
    """An internal error for each generated .py file Python would refuse to compile."""
    problems = []
    for file in files:
        if not file.path.endswith(".py"):
            continue
        try:
            compile(file.content, file.path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:  # ValueError: a NUL character, before Python 3.12
            line = getattr(exc, "lineno", None)
            where = f"line {line}: " if line else ""
            reason = getattr(exc, "msg", None) or str(exc)
            problems.append(
                error(
                    codes.G002,
                    f"internal error: the generated {file.path} does not compile ({where}{reason})",
                    SourceRef(file=file.path, line=line),
                    hint=BUG_HINT,
                )
            )
    return problems


def _header_path(spec_path: Path | str, mapping_path: Path) -> str:
    # Relative to the mapping file, so headers do not depend on the directory mcpgen ran from.
    if isinstance(spec_path, str):
        return _shown_name(spec_path)  # a URL, as given
    relative = os.path.relpath(spec_path.resolve(), mapping_path.resolve().parent)
    return _shown_name(Path(relative).as_posix())


def _shown_name(name: str) -> str:
    """A file name as generated files record it: bytes that are not UTF-8 (which Python keeps as lone
    surrogates) become U+FFFD, so the name can be written into tools.lock.json and headers."""
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return name.encode("utf-8", "replace").decode("utf-8")
