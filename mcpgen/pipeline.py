"""The generator as one call: spec + mapping -> rendered files and diagnostics. Nothing is written here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mcpgen.build.contract import contract
from mcpgen.build.server import build_server
from mcpgen.diagnostics import Diagnostic, DiagnosticError, has_errors
from mcpgen.ir import RenderedFile, ServerSpec
from mcpgen.load.mapping import Mapping, load_mapping
from mcpgen.load.openapi import Spec, load_spec
from mcpgen.profiles import Profile
from mcpgen.render.package import render_server


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


def load_inputs(spec_path: Path, mapping_path: Path) -> tuple[Spec | None, Mapping | None, list[Diagnostic]]:
    """Both inputs, with every problem of each (a broken mapping does not hide a broken spec)."""
    diagnostics: list[Diagnostic] = []
    spec = mapping = None
    try:
        spec = load_spec(spec_path, display_path=str(spec_path))
    except DiagnosticError as exc:
        diagnostics += exc.diagnostics
    try:
        mapping = load_mapping(mapping_path, display_path=str(mapping_path))
    except DiagnosticError as exc:
        diagnostics += exc.diagnostics
    return spec, mapping, diagnostics


def generate(spec_path: Path, mapping_path: Path, profile: Profile | None = None) -> GenerationResult:
    spec, mapping, diagnostics = load_inputs(spec_path, mapping_path)
    if spec is None or mapping is None:
        return GenerationResult(None, (), tuple(diagnostics), spec)
    try:
        built = build_server(
            spec,
            mapping,
            spec_file=_header_path(spec_path, mapping_path),
            mapping_file=mapping_path.name,
        )
    except DiagnosticError as exc:  # an unresolvable $ref met while building
        return GenerationResult(None, (), tuple(diagnostics + list(exc.diagnostics)), spec)
    diagnostics += built.diagnostics
    if built.server is None:
        return GenerationResult(None, (), tuple(diagnostics), spec)
    served = contract(built.server, profile)
    files = render_server(built.server, served, api_title=spec.title, profiled=profile is not None)
    return GenerationResult(built.server, files, tuple(diagnostics), spec, mapping)


def _header_path(spec_path: Path, mapping_path: Path) -> str:
    # Relative to the mapping file, so headers do not depend on the directory mcpgen ran from.
    relative = os.path.relpath(spec_path.resolve(), mapping_path.resolve().parent)
    return Path(relative).as_posix()
