"""A small spec release pair for regeneration tests: the same API before and after a release that
renames operationIds, removes an endpoint and reuses an operationId for another endpoint (issue 13).

Written here, not taken from a vendor: each change is one a real release made. GitHub's 16.6.0 -> 23.0.2
renamed `orgs/get-all-custom-properties` (GET /orgs/{org}/properties/schema), removed the classic
projects endpoints, and reused `projects/list-for-org` for GET /orgs/{org}/projectsV2.

Before -> after:
- GET /pets: `listPets` -> `pets/list` (a decoy `listPetsByTag` spelled like the old id is added)
- GET /pets/{petId}: `showPetById` -> `getPet`, and the template is now `{id}` (the same endpoint)
- DELETE /pets/{petId}: `deletePet` removed with its endpoint
- GET /orgs/{org}/members: `listMembers` -> no operationId at all
- `projects/list-for-org`: GET /orgs/{org}/projects -> GET /orgs/{org}/projectsV2 (the old one removed)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAPPING = """\
mcpgen: 1
server:
  name: zoo
  version: 0.1.0
  description: Look the zoo's pets and its organisations' projects up.
  base_url:
    env: ZOO_BASE_URL
    default: http://127.0.0.1:9/v1
tools:
  - name: pets
    description: >-
      Find pets of the zoo and remove one. Use it to get a pet's id and data.
    actions:
      - name: list
        operation: listPets
        description: List the pets.
      - name: get
        operation: showPetById
        description: Get one pet by its id.
      - name: remove
        operation: deletePet
        description: Remove one pet.
  - name: orgs
    description: >-
      Read an organisation of the zoo: its projects and its members.
    actions:
      - name: projects
        operation: projects/list-for-org
        description: List the organisation's projects.
      - name: members
        operation: listMembers
        description: List the organisation's members.
"""

# The mapping's line for each action's `operation:` (1-based), as the diagnostics locate it.
OPERATION_LINES = {
    name: MAPPING.splitlines().index(f"        operation: {operation}") + 1
    for name, operation in [
        ("list", "listPets"),
        ("get", "showPetById"),
        ("remove", "deletePet"),
        ("projects", "projects/list-for-org"),
        ("members", "listMembers"),
    ]
}


def _answer(description: str) -> dict[str, Any]:
    schema = {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}}
    return {"200": {"description": description, "content": {"application/json": {"schema": schema}}}}


def _path_param(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


def _operation(operation_id: str | None, summary: str, *params: str) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": summary, "responses": _answer(summary)}
    if operation_id is not None:
        operation["operationId"] = operation_id
    if params:
        operation["parameters"] = [_path_param(p) for p in params]
    return operation


def _spec(version: str, paths: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Zoo", "version": version},
        "servers": [{"url": "http://127.0.0.1:9/v1"}],
        "paths": paths,
    }


BEFORE = _spec(
    "1.0.0",
    {
        "/pets": {"get": _operation("listPets", "List pets")},
        "/pets/{petId}": {
            "get": _operation("showPetById", "Get a pet", "petId"),
            "delete": _operation("deletePet", "Remove a pet", "petId"),
        },
        "/orgs/{org}/projects": {"get": _operation("projects/list-for-org", "List projects", "org")},
        "/orgs/{org}/members": {"get": _operation("listMembers", "List members", "org")},
    },
)

AFTER = _spec(
    "2.0.0",
    {
        "/pets": {"get": _operation("pets/list", "List pets")},
        "/pets/by-tag": {"get": _operation("listPetsByTag", "List pets by tag")},
        "/pets/{id}": {"get": _operation("getPet", "Get a pet", "id")},
        "/orgs/{org}/projectsV2": {"get": _operation("projects/list-for-org", "List projects", "org")},
        "/orgs/{org}/members": {"get": _operation(None, "List members", "org")},
    },
)


def write_release_pair(directory: Path) -> tuple[Path, Path, Path]:
    """(spec before, spec after, mapping) written into `directory`."""
    before, after, mapping = (
        directory / "zoo-1.json",
        directory / "zoo-2.json",
        directory / "zoo.mapping.yaml",
    )
    before.write_text(json.dumps(BEFORE, indent=2), encoding="utf-8")
    after.write_text(json.dumps(AFTER, indent=2), encoding="utf-8")
    mapping.write_text(MAPPING, encoding="utf-8")
    return before, after, mapping
