"""Regenerating against a new release: the previous tools.lock.json turns an unknown operationId into
"the action called METHOD /path, now named X" and warns when an operationId names another endpoint.

The spec pair is tests/support/release_pair.py (BEFORE -> AFTER, each change listed there).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpgen.build.regeneration import PreviousLock, previous_lock
from mcpgen.diagnostics import Diagnostic, Level
from mcpgen.pipeline import GenerationResult, generate, read_previous_lock
from mcpgen.render.lockfile import LOCK_FILE
from tests.support.release_pair import BEFORE, OPERATION_LINES, write_release_pair

LOCK_SHOWN = "zoo/tools.lock.json"


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    return write_release_pair(tmp_path_factory.mktemp("release-pair"))


@pytest.fixture(scope="module")
def before_lock(pair: tuple[Path, Path, Path]) -> dict[str, Any]:
    before, _, mapping = pair
    result = generate(before, mapping)
    assert result.ok and result.diagnostics == ()
    lock: dict[str, Any] = json.loads(next(f.content for f in result.files if f.path == LOCK_FILE))
    return lock


@pytest.fixture(scope="module")
def regenerated(pair: tuple[Path, Path, Path], before_lock: dict[str, Any]) -> GenerationResult:
    _, after, mapping = pair
    return generate(after, mapping, previous=previous_lock(before_lock, LOCK_SHOWN))


def _at(result: GenerationResult, action: str) -> Diagnostic:
    (found,) = [d for d in result.diagnostics if d.source and d.source.line == OPERATION_LINES[action]]
    return found


def test_a_renamed_operation_id_is_offered_first_with_the_endpoint_the_action_called(
    regenerated: GenerationResult,
) -> None:
    # Before: "did you mean 'listPetsByTag'?", the decoy spelled like the old id, and never 'pets/list'.
    found = _at(regenerated, "list")
    assert (found.level, found.code) == (Level.ERROR, "M201")
    assert found.source is not None and found.source.pointer == "/tools/0/actions/0/operation"
    assert found.source.file.endswith("zoo.mapping.yaml")
    assert found.message == (
        "no operation with operationId 'listPets' in the spec; action 'list' called GET /pets with it when "
        f"the package was last generated ({LOCK_SHOWN})"
    )
    assert found.hint is not None
    assert found.hint.startswith("did you mean 'pets/list'? The spec now names GET /pets 'pets/list': ")
    assert "write `operation: pets/list`" in found.hint
    assert found.hint.index("'pets/list'") < found.hint.index("'listPetsByTag'")  # name guesses after


def test_the_same_endpoint_with_renamed_path_templates_is_still_found(regenerated: GenerationResult) -> None:
    # Before: "run 'mcpgen validate' to list the spec's operations": no id is spelled like showPetById.
    found = _at(regenerated, "get")
    assert "called GET /pets/{petId} with it" in found.message
    assert (
        found.hint
        == "did you mean 'getPet'? The spec now names GET /pets/{id} 'getPet': write `operation: getPet`"
    )


def test_an_endpoint_left_without_an_operation_id_is_offered_by_method_and_path(
    regenerated: GenerationResult,
) -> None:
    found = _at(regenerated, "members")
    assert found.hint == (
        "GET /orgs/{org}/members is still in the spec, with no operationId: "
        "write `operation: GET /orgs/{org}/members`"
    )


def test_a_removed_endpoint_is_said_to_be_gone_not_guessed_at_first(regenerated: GenerationResult) -> None:
    # Before: "did you mean 'getPet'?", an endpoint that reads where the action deleted.
    found = _at(regenerated, "remove")
    assert found.code == "M201" and "called DELETE /pets/{petId} with it" in found.message
    assert found.hint is not None and not found.hint.startswith("did you mean")
    assert found.hint.startswith("DELETE /pets/{petId} is not in the spec either: the API removed it.")
    assert "Remove the action, or map the operation that replaces it" in found.hint


def test_an_operation_id_bound_to_another_endpoint_is_a_located_warning(
    regenerated: GenerationResult,
) -> None:
    found = _at(regenerated, "projects")
    assert (found.level, found.code) == (Level.WARNING, "M219")
    assert found.source is not None and found.source.pointer == "/tools/1/actions/0/operation"
    assert found.message == (
        "operationId 'projects/list-for-org' now names GET /orgs/{org}/projectsV2: action 'projects' called "
        f"GET /orgs/{{org}}/projects with it when the package was last generated ({LOCK_SHOWN}), so it now "
        "calls another endpoint"
    )
    assert found.hint is not None
    assert (
        "check that action 'projects' still does what agents expect of it on GET /orgs/{org}/projectsV2"
        in (found.hint)
    )
    assert "GET /orgs/{org}/projects is no longer in the spec. Then regenerate." in found.hint
    assert "`mcpgen diff` reports this as a breaking change" in found.hint


def test_a_fixed_mapping_generates_with_the_rebinding_warning_only(
    pair: tuple[Path, Path, Path], before_lock: dict[str, Any], tmp_path: Path
) -> None:
    _, after, mapping = pair
    fixed = tmp_path / "zoo.mapping.yaml"
    text = mapping.read_text(encoding="utf-8")
    for old, new in [
        ("operation: listPets", "operation: pets/list"),
        ("operation: showPetById", "operation: getPet"),
        ("operation: listMembers", "operation: GET /orgs/{org}/members"),
        ("      - name: remove\n        operation: deletePet\n        description: Remove one pet.\n", ""),
    ]:
        assert old in text
        text = text.replace(old, new)
    fixed.write_text(text, encoding="utf-8")
    result = generate(after, fixed, previous=previous_lock(before_lock, LOCK_SHOWN))
    assert result.ok
    assert [(d.level, d.code) for d in result.diagnostics] == [(Level.WARNING, "M219")]
    # Once the regenerated lock records the new endpoint, the warning is not repeated.
    lock = json.loads(next(f.content for f in result.files if f.path == LOCK_FILE))
    again = generate(after, fixed, previous=previous_lock(lock, LOCK_SHOWN))
    assert again.ok and again.diagnostics == ()


def test_without_a_previous_lock_the_diagnostics_are_the_plain_ones(pair: tuple[Path, Path, Path]) -> None:
    _, after, mapping = pair
    plain = generate(after, mapping)
    assert [(d.code, d.hint) for d in plain.diagnostics] == [
        ("M201", "did you mean 'listPetsByTag'?"),
        ("M201", "run 'mcpgen validate' to list the spec's operations"),
        ("M201", "did you mean 'getPet'?"),
        ("M201", "run 'mcpgen validate' to list the spec's operations"),
    ]
    assert generate(after, mapping, previous=PreviousLock(LOCK_SHOWN, {})).diagnostics == plain.diagnostics


def test_a_lock_of_another_shape_gives_no_endpoints() -> None:
    odd: list[Any] = [
        None,
        [],
        {"tools": "x"},
        {"tools": [{"actions": ["x", {"operationId": 1, "method": "GET", "path": "/a"}]}]},
        {"tools": [{"actions": [{"operationId": "a", "method": "GET"}]}]},
    ]
    assert [previous_lock(doc, LOCK_SHOWN).endpoints for doc in odd] == [{}] * len(odd)
    found = previous_lock(
        {"tools": [{"actions": [{"operationId": "a", "method": "get", "path": "/a"}]}]}, LOCK_SHOWN
    )
    assert {k: v.key for k, v in found.endpoints.items()} == {"a": "GET /a"}


def test_read_previous_lock_reads_the_out_directorys_lock_or_nothing(
    tmp_path: Path, before_lock: dict[str, Any]
) -> None:
    assert read_previous_lock(tmp_path / "missing") is None
    (tmp_path / LOCK_FILE).write_text("{not json", encoding="utf-8")
    assert read_previous_lock(tmp_path) is None
    (tmp_path / LOCK_FILE).write_text(json.dumps(before_lock), encoding="utf-8")
    found = read_previous_lock(tmp_path)
    assert found is not None and found.file == str(tmp_path / LOCK_FILE)
    assert found.endpoints["projects/list-for-org"].key == "GET /orgs/{org}/projects"


def test_a_reused_id_whose_old_endpoint_remains_says_how_to_keep_calling_it(
    pair: tuple[Path, Path, Path], before_lock: dict[str, Any], tmp_path: Path
) -> None:
    # AFTER with GET /orgs/{org}/projects kept under a new id, as an API that adds a V2 beside the old.
    _, after, mapping = pair
    spec = json.loads(after.read_text(encoding="utf-8"))
    spec["paths"]["/orgs/{org}/projects"] = {"get": dict(BEFORE["paths"]["/orgs/{org}/projects"]["get"])}
    spec["paths"]["/orgs/{org}/projects"]["get"]["operationId"] = "projects/list-classic-for-org"
    kept = tmp_path / "zoo-2-kept.json"
    kept.write_text(json.dumps(spec), encoding="utf-8")
    found = _at(generate(kept, mapping, previous=previous_lock(before_lock, LOCK_SHOWN)), "projects")
    assert found.code == "M219" and found.hint is not None
    assert "to keep calling GET /orgs/{org}/projects, write `operation: projects/list-classic-for-org`" in (
        found.hint
    )
