"""GitHub's real OpenAPI description, edited the way API providers do, and generated once per session.

Each variant is the shared `github.json` with a few edits, in its own directory next to a copy of the
small issues mapping (`tests/fixtures/github/mapping.yaml`), so every variant renders with the same
headers and only the edits tell them apart. Generating one takes a second or two; they are cached.
"""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcpgen.build.contract import contract
from mcpgen.contract.diff.model import Sources
from mcpgen.pipeline import GenerationResult, generate
from mcpgen.render.lockfile import lock_document
from tests.support.paths import SPEC_DIRS, find_spec

ROOT = Path(__file__).resolve().parents[1]
# CI clones the repository to X and lays the shared material at X/../shared.
GITHUB_SPEC = find_spec("github.json") or SPEC_DIRS[0] / "github.json"  # or scripts/fetch_specs' copy
MAPPING = ROOT / "tests" / "fixtures" / "github" / "mapping.yaml"

ISSUES = "/repos/{owner}/{repo}/issues"
ISSUE = "/repos/{owner}/{repo}/issues/{issue_number}"
PIN = "/repos/{owner}/{repo}/issues/{issue_number}/pin"

Edit = Callable[[dict[str, Any], dict[str, Any]], None]  # (spec, mapping) -> None, in place


def _parameter(spec: dict[str, Any], path: str, method: str, name: str) -> dict[str, Any]:
    return next(p for p in spec["paths"][path][method]["parameters"] if p.get("name") == name)


def _release(spec: dict[str, Any], mapping: dict[str, Any]) -> None:
    """One release's worth of spec edits, all to parameters or to operations no tool maps:
    rename a query parameter, narrow an enum, require a parameter (all three in the operation behind
    `github_issues_find.list`), reword a shared parameter description, add an endpoint, remove one."""
    _parameter(spec, ISSUES, "get", "creator")["name"] = "author"
    _parameter(spec, ISSUES, "get", "state")["schema"]["enum"].remove("all")
    _parameter(spec, ISSUES, "get", "milestone")["required"] = True
    spec["components"]["parameters"]["issue-number"]["description"] = (
        "The number of the issue, as shown in its URL."
    )
    spec["paths"][PIN] = {"put": _pin_operation()}
    del spec["paths"][ISSUE]["patch"]


def _mapping_follows(spec: dict[str, Any], mapping: dict[str, Any]) -> None:
    """An operation is removed and one added, and the mapping follows: drop `comment`, add `pin`."""
    del spec["paths"][f"{ISSUE}/comments"]["post"]
    spec["paths"][PIN] = {"put": _pin_operation()}
    actions = mapping["tools"][1]["actions"]
    actions[:] = [a for a in actions if a["name"] != "comment"]
    actions.append(
        {"name": "pin", "operation": "issues/pin", "description": "Pin an issue to the repository."}
    )


def _pin_operation() -> dict[str, Any]:
    return {
        "summary": "Pin an issue",
        "description": "Pins an issue to the top of the repository's issue list.",
        "operationId": "issues/pin",
        "tags": ["issues"],
        "parameters": [
            {"$ref": "#/components/parameters/owner"},
            {"$ref": "#/components/parameters/repo"},
            {"$ref": "#/components/parameters/issue-number"},
        ],
        "responses": {"204": {"description": "Response"}},
    }


EDITS: dict[str, Edit | None] = {
    "base": None,
    "release": _release,
    "mapping_follows": _mapping_follows,
}


@dataclass(frozen=True)
class Variant:
    directory: Path
    result: GenerationResult

    @property
    def spec(self) -> Path:
        return self.directory / "github.json"

    @property
    def mapping(self) -> Path:
        return self.directory / "mapping.yaml"

    @property
    def lock(self) -> dict[str, Any]:
        assert self.result.server is not None
        return json.loads(json.dumps(lock_document(self.result.server, contract(self.result.server))))

    @property
    def sources(self) -> Sources:
        assert self.result.spec is not None and self.result.mapping is not None
        return Sources(self.result.spec, self.result.mapping)

    @property
    def operand(self) -> str:
        return f"{self.spec}::{self.mapping}"


def require_github() -> None:
    if not GITHUB_SPEC.is_file():
        pytest.skip(
            f"github.json is in neither of {', '.join(map(str, SPEC_DIRS))}: run python3 scripts/fetch_specs"
        )


@cache
def _base_documents() -> tuple[dict[str, Any], dict[str, Any]]:
    spec = json.loads(GITHUB_SPEC.read_text(encoding="utf-8"))
    mapping = yaml.safe_load(MAPPING.read_text(encoding="utf-8"))
    return spec, mapping


@cache
def _workdir() -> Path:
    directory = tempfile.TemporaryDirectory(prefix="mcpgen-github-")
    _KEEP.append(directory)  # removed when the interpreter exits
    return Path(directory.name)


_KEEP: list[tempfile.TemporaryDirectory[str]] = []


@cache
def variant(name: str) -> Variant:
    require_github()
    spec, mapping = (copy.deepcopy(d) for d in _base_documents())
    edit = EDITS[name]
    directory = _workdir() / name
    directory.mkdir()
    if edit is None:
        shutil.copy(MAPPING, directory / "mapping.yaml")
    else:
        edit(spec, mapping)
        (directory / "mapping.yaml").write_text(yaml.safe_dump(mapping, sort_keys=False), encoding="utf-8")
    (directory / "github.json").write_text(json.dumps(spec), encoding="utf-8")
    result = generate(directory / "github.json", directory / "mapping.yaml")
    assert result.ok, [d.message for d in result.diagnostics]
    return Variant(directory, result)
