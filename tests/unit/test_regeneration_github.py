"""Regenerating GitHub's init mapping of @octokit/openapi 16.6.0 against 23.0.2: every operationId the
release renamed is offered first, every removed endpoint is said to be gone, and the two reused ids warn.

The specs are the pinned releases (`scripts/fetch_specs releases`, sha256 checked): github-16.6.0.json and
github-23.0.2.json, their whole /paths. E.g. github-16.6.0.json#/paths/~1orgs~1{org}~1properties~1schema/get
is `orgs/get-all-custom-properties`, github-23.0.2.json#/paths/~1orgs~1{org}~1properties~1schema/get is
`orgs/custom-properties-for-repos-get-organization-definitions`; github-23.0.2.json#/paths/~1orgs~1{org}~1projectsV2/get
took `projects/list-for-org` from github-16.6.0.json#/paths/~1orgs~1{org}~1projects/get (removed).

The expectations come from a walk of the two spec files written here (operationId -> method and path),
not from mcpgen. The mapping is the one `mcpgen init` drafts for 16.6.0, cut to the tools with an action
the release touches (each action's lock entry depends on its own operation only): both sides generate
in seconds instead of half a minute each.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from mcpgen.build.regeneration import previous_lock
from mcpgen.diagnostics import Level
from mcpgen.pipeline import GenerationResult, generate
from mcpgen.render.lockfile import LOCK_FILE
from tests.support.paths import release_spec
from tests.unit.release_truth import release_mapping

pytestmark = pytest.mark.slow  # init of GitHub 16.6.0 and two small generates: about 20 s on 2 cores

OLD, NEW = "github-16.6.0.json", "github-23.0.2.json"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _endpoints(name: str) -> dict[str, str]:
    """operationId -> 'METHOD /path', read straight from the spec file's /paths."""
    paths = json.loads(release_spec(name).read_text(encoding="utf-8"))["paths"]
    found: dict[str, str] = {}
    for path, item in paths.items():
        for method in METHODS:
            operation_id = (item.get(method) or {}).get("operationId")
            if operation_id:
                found.setdefault(operation_id, f"{method.upper()} {path}")
    return found


def _template_free(endpoint: str) -> str:
    return re.sub(r"\{[^}/]*\}", "{}", endpoint)


def _mapped_ids(mapping: dict[str, Any]) -> list[str]:
    return [a["operation"] for tool in mapping["tools"] for a in tool["actions"]]


@pytest.fixture(scope="module")
def walk() -> dict[str, Any]:
    mapping = yaml.safe_load(release_mapping(OLD))
    old, new = _endpoints(OLD), _endpoints(NEW)
    by_endpoint = {_template_free(e): operation_id for operation_id, e in new.items()}
    gone = [i for i in _mapped_ids(mapping) if i in old and i not in new]
    return {
        "mapping": mapping,
        "old": old,
        "new": new,
        "renamed": {
            i: by_endpoint[_template_free(old[i])] for i in gone if _template_free(old[i]) in by_endpoint
        },
        "removed": {i for i in gone if _template_free(old[i]) not in by_endpoint},
        "rebound": {
            i
            for i in _mapped_ids(mapping)
            if i in old and i in new and _template_free(old[i]) != _template_free(new[i])
        },
    }


@pytest.fixture(scope="module")
def regenerated(walk: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> GenerationResult:
    touched = walk["renamed"].keys() | walk["removed"] | walk["rebound"]
    mapping = dict(walk["mapping"])
    mapping["tools"] = [t for t in mapping["tools"] if any(a["operation"] in touched for a in t["actions"])]
    path = tmp_path_factory.mktemp("github-regeneration") / "github.mapping.yaml"
    path.write_text(yaml.safe_dump(mapping, sort_keys=False), encoding="utf-8")
    before = generate(release_spec(OLD), path)
    assert before.ok, [d.message for d in before.diagnostics if d.level is Level.ERROR][:3]
    lock = json.loads(next(f.content for f in before.files if f.path == LOCK_FILE))
    return generate(release_spec(NEW), path, previous=previous_lock(lock, "github/tools.lock.json"))


def _quoted_id(message: str) -> str:
    found = re.match(r"(?:no operation with )?operationId '([^']+)'", message)
    assert found is not None, message
    return found.group(1)


def test_the_release_renames_ten_mapped_operation_ids_removes_77_endpoints_and_reuses_two(
    walk: dict[str, Any],
) -> None:
    assert len(walk["renamed"]) == 10 and len(walk["removed"]) == 77
    assert walk["rebound"] == {"projects/list-for-org", "projects/list-for-user"}
    assert walk["renamed"]["orgs/get-all-custom-properties"] == (
        "orgs/custom-properties-for-repos-get-organization-definitions"
    )


def test_every_renamed_operation_id_is_offered_first(
    walk: dict[str, Any], regenerated: GenerationResult
) -> None:
    # Before: the new id came first in 1 of these 10, later in 1, and not at all in 8 (name guesses only).
    unknown = {_quoted_id(d.message): d for d in regenerated.diagnostics if d.code == "M201"}
    assert unknown.keys() == walk["renamed"].keys() | walk["removed"]
    for old_id, new_id in walk["renamed"].items():
        found = unknown[old_id]
        assert f"called {walk['old'][old_id]} with it" in found.message
        assert found.hint is not None and found.hint.startswith(f"did you mean '{new_id}'? ")
        assert f"write `operation: {new_id}`" in found.hint
        assert found.source is not None and re.fullmatch(
            r"/tools/\d+/actions/\d+/operation", found.source.pointer
        )


def test_every_removed_endpoint_is_said_to_be_gone(
    walk: dict[str, Any], regenerated: GenerationResult
) -> None:
    # Before: "did you mean 'dependabot/update-repository-access-for-enterprise'?" for
    # copilot/usage-metrics-for-enterprise (github-16.6.0.json#/paths/~1enterprises~1{enterprise}~1copilot~1usage/get).
    unknown = {_quoted_id(d.message): d for d in regenerated.diagnostics if d.code == "M201"}
    for old_id in walk["removed"]:
        hint = unknown[old_id].hint or ""
        assert hint.startswith(f"{walk['old'][old_id]} is not in the spec either: the API removed it."), hint


def test_the_reused_operation_ids_warn_with_both_endpoints(
    walk: dict[str, Any], regenerated: GenerationResult
) -> None:
    warned = {_quoted_id(d.message): d for d in regenerated.diagnostics if d.code == "M219"}
    assert warned.keys() == walk["rebound"]
    for operation_id, found in warned.items():
        assert found.level is Level.WARNING
        assert found.message.startswith(
            f"operationId '{operation_id}' now names {walk['new'][operation_id]}: "
        )
        assert f"called {walk['old'][operation_id]} with it" in found.message
    assert warned["projects/list-for-org"].message.startswith(
        "operationId 'projects/list-for-org' now names GET /orgs/{org}/projectsV2: action 'list_for_org' "
        "called GET /orgs/{org}/projects with it"
    )
