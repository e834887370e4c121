"""A generated package ships exactly the runtime it uses (Generated code is product: it carries nothing
it does not use).

For every golden package in generated/: the modules in `_runtime/` are exactly those reached by
imports starting from the package's own code (server.py, tools/, hooks.py, ...), and every runtime
module that code or the runtime imports is there. The core of templates/runtime never imports an
optional module (test_runtime_parts.py): the rendered server.py hands over those a package carries.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcpgen.build.runtime_modules import OPTIONAL_RUNTIME
from mcpgen.pipeline import generate
from tests.support.paths import GENERATED, ROOT

RUNTIME = ROOT / "templates" / "runtime"
RUNTIME_MODULES = frozenset(p.stem for p in RUNTIME.glob("*.py"))
GOLDEN = sorted(p.parent for p in GENERATED.glob("*/*_mcp/server.py"))


def _runtime_imports(source: Path, inside_runtime: bool) -> set[str]:
    """The runtime modules a file imports: `from .x import` and `from . import x` inside the runtime;
    `from ._runtime.x import`, `from .._runtime.x import` and `from ._runtime import x` outside."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        parts = (node.module or "").split(".") if node.module else []
        if inside_runtime and node.level == 1:
            found.update(parts[:1] or [a.name for a in node.names])
        elif not inside_runtime and parts[:1] == ["_runtime"]:
            found.update(parts[1:2] or [a.name for a in node.names if a.name in RUNTIME_MODULES])
    return found


def _reached(package: Path) -> set[str]:
    """The runtime modules reached from the package's own code, following the runtime's imports."""
    own = [p for p in package.rglob("*.py") if "_runtime" not in p.relative_to(package).parts]
    assert own, package
    pending = sorted(set().union(*(_runtime_imports(p, inside_runtime=False) for p in own)))
    reached: set[str] = set()
    while pending:  # bounded: each module is taken once
        module = pending.pop()
        if module in reached:
            continue
        reached.add(module)
        shipped = package / "_runtime" / f"{module}.py"
        if shipped.is_file():
            pending.extend(_runtime_imports(shipped, inside_runtime=True) - reached)
    return reached


def _shipped(package: Path) -> set[str]:
    return {p.stem for p in (package / "_runtime").glob("*.py")}


@pytest.mark.parametrize("package", GOLDEN, ids=[p.parent.name for p in GOLDEN])
def test_a_golden_package_ships_exactly_the_runtime_its_code_reaches(package: Path) -> None:
    reached, shipped = _reached(package), _shipped(package)
    assert sorted(reached - shipped) == [], "imported but not shipped"
    assert sorted(shipped - reached - {"__init__"}) == [], "shipped but never imported"


def test_petstore_ships_none_of_the_optional_modules() -> None:
    """The Petstore mapping uses none of the optional features: no preview, access check, job,
    question to the user, unit, pattern, local time, discovery or server_info tool."""
    assert _shipped(GENERATED / "petstore" / "petstore_mcp") & set(OPTIONAL_RUNTIME) == set()


@pytest.mark.parametrize(
    ("fixture", "wanted"),
    [
        # Units (T5) and the server_info tool.
        (("units", "shipping.openapi.yaml", "mapping.yaml"), {"conversion", "currencies", "info"}),
        # Local times beside their time zone.
        (("realspecs", "google-calendar-events.json", "calendar.mapping.yaml"), {"times", "patterns"}),
    ],
)
def test_a_package_with_an_optional_feature_ships_and_wires_its_module(
    fixture: tuple[str, str, str], wanted: set[str]
) -> None:
    folder, spec, mapping = fixture
    result = generate(
        ROOT / "tests" / "fixtures" / folder / spec, ROOT / "tests" / "fixtures" / folder / mapping
    )
    assert result.ok and result.server is not None
    files = {f.path: f.content for f in result.files}
    package = result.server.package_name
    shipped = {
        Path(path).stem for path in files if path.startswith(f"{package}/_runtime/") and path.endswith(".py")
    }
    assert wanted <= shipped
    server = ast.parse(files[f"{package}/server.py"])
    imported = {
        alias.name if node.module == "_runtime" else (node.module or "").split(".")[1]
        for node in ast.walk(server)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("_runtime")
        for alias in node.names
    }
    # Each wanted module is the server's own import, or one of an imported module's (currencies).
    assert wanted - {"currencies"} <= imported
