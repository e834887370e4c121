"""A generated package carries only the runtime modules it uses, and depends only on what they import.

Build decides which optional modules a package leaves out (`ServerSpec.runtime_left_out`,
mcpgen/build/runtime_modules.py): preview.py and store.py without a previewed tool, access.py (and
PyJWT) without `server.access`, and the others each without its feature. The runtime's core never
imports them; the rendered server.py imports those the package carries. The golden packages cover
these cases: petstore has none, ads previews, deploy access checks (test_runtime_modules.py checks
every module of every golden package).
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

import pytest

from mcpgen.build.runtime_modules import OPTIONAL_RUNTIME
from mcpgen.names import IDEMPOTENT_METHODS
from mcpgen.pipeline import generate
from tests.support.paths import GENERATED, ROOT, SPECS

RUNTIME = ROOT / "templates" / "runtime"

# package -> (previews, access), as specs/<package>/mapping.yaml says.
FEATURES = {"petstore": (False, False), "ads": (True, False), "deploy": (False, True)}
# Packages that ask the user (confirm: user, ask_user) record each question's one-use answer in the
# store previews use too: ads deletes on the user's yes, deploy asks for the rollback's reason.
ASKS_USER = {"ads", "deploy"}


def _package(name: str) -> Path:
    return GENERATED / name / f"{name}_mcp"


def _runtime_modules(name: str) -> set[str]:
    return {p.stem for p in (_package(name) / "_runtime").glob("*.py")}


def _dependencies(name: str) -> tuple[list[str], dict[str, list[str]]]:
    project = tomllib.loads((GENERATED / name / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["dependencies"], project.get("optional-dependencies", {})


def test_the_golden_packages_cover_every_case() -> None:
    for name, (previews, access) in FEATURES.items():
        served = [t["name"] for t in json.loads((_package(name) / "tools.json").read_text(encoding="utf-8"))]
        assert any(n.endswith("_preview") for n in served) == previews, name
        mapping = (SPECS / name / "mapping.yaml").read_text(encoding="utf-8")
        assert bool(re.search(r"^  access:", mapping, re.MULTILINE)) == access, name


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_a_package_carries_the_optional_modules_its_features_need(name: str) -> None:
    previews, access = FEATURES[name]
    carried = _runtime_modules(name)
    assert ("preview" in carried, "store" in carried) == (previews, previews or name in ASKS_USER)
    assert ("elicitation" in carried) == (name in ASKS_USER)
    assert ("access" in carried) == access
    always = {p.stem for p in RUNTIME.glob("*.py")} - set(OPTIONAL_RUNTIME)
    assert always <= carried


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_a_package_depends_on_pyjwt_and_redis_only_when_it_carries_their_modules(name: str) -> None:
    previews, access = FEATURES[name]
    required, extras = _dependencies(name)
    assert any(r.startswith("pyjwt") for r in required) == access
    assert ("redis" in extras) == (previews or name in ASKS_USER)


def _imported_runtime_modules(source: Path) -> set[str]:
    """The modules of `_runtime` a file imports: `from .x` inside it, `from ._runtime.x` or
    `from .._runtime.x` outside."""
    inside = source.parent.name in ("_runtime", "runtime")
    found = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level and node.module:
            parts = node.module.split(".")
            if inside and node.level == 1:
                found.add(parts[0])
            elif parts[0] == "_runtime" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_nothing_in_a_package_imports_a_runtime_module_it_lacks(name: str) -> None:
    carried = _runtime_modules(name)
    missing = {
        str(source.relative_to(GENERATED)): sorted(_imported_runtime_modules(source) - carried)
        for source in sorted(_package(name).rglob("*.py"))
    }
    assert {k: v for k, v in missing.items() if v} == {}


def test_the_runtime_imports_no_optional_module_but_within_them() -> None:
    """Only what records (preview.py, tasks.py, elicitation.py, oauth_user.py) imports store.py, and
    conversion.py its currencies; app.py and the rest of the core never name an optional module."""
    within = {
        "preview": {"store"},
        "tasks": {"store"},
        "elicitation": {"store"},
        "conversion": {"currencies"},
        "oauth_user": {"store", "oauth_client"},  # users' tokens are kept in the store
    }
    for source in sorted(RUNTIME.glob("*.py")):
        optional = _imported_runtime_modules(source) & set(OPTIONAL_RUNTIME)
        assert optional <= within.get(source.stem, set()), source.name


def test_which_methods_are_idempotent_is_decided_by_the_generator_alone() -> None:
    """The runtime reads `Action.idempotent` from the rendered tables; mcpgen/names.py is the one rule."""
    stated = [
        f"{p.name}:{n}"
        for p in sorted(RUNTIME.glob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r'"(PUT|DELETE|OPTIONS)"', line)
    ]
    assert stated == []
    # specs/ads/mapping.yaml maps GET, POST, PATCH and DELETE operations.
    result = generate(next((SPECS / "ads").glob("*.openapi.*")), SPECS / "ads" / "mapping.yaml")
    assert result.ok and result.server is not None
    actions = [a for t in result.server.tools for a in t.actions]
    assert {a.method for a in actions} >= {"GET", "POST", "PATCH", "DELETE"}
    # Its mapping states no hints: build's decision is the method's (build/hints.py, names.py).
    assert all(
        a.hints is not None and a.hints.idempotent == (a.method in IDEMPOTENT_METHODS) for a in actions
    )
    rendered = {f.path: f.content for f in result.files}
    for tool in result.server.tools:
        table = rendered[f"ads_mcp/tools/{tool.module_name}.py"]
        calls = [
            c
            for c in ast.walk(ast.parse(table))
            if isinstance(c, ast.Call) and getattr(c.func, "id", "") == "Action"
        ]
        said = {
            next(k.value.value for k in c.keywords if k.arg == "name"): any(
                k.arg == "idempotent" for k in c.keywords
            )
            for c in calls
        }
        assert said == {a.name: a.hints.idempotent for a in tool.actions if a.hints is not None} | {
            a.preview.read.name: True for a in tool.actions if a.preview
        }, tool.name
