"""`mcpgen diff` on GitHub's real releases: every change classed as an independent walk of the two lock
files classes it, rebinding, deprecation, moves and merges said as such, and the pull-request comment fits.

GitHub's spec from @octokit/openapi 16.6.0 and 23.0.2 (`scripts/fetch_specs releases`, pinned by sha256:
github-16.6.0.json and github-23.0.2.json, the whole of /paths), each side with the mapping `mcpgen init`
drafts for it, generated; the two lock files are diffed, as `mcpgen diff OLD_DIR NEW_DIR` does.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.diff.kinds import Impact
from mcpgen.contract.diff.model import ContractDiff
from mcpgen.contract.format import MARKDOWN_BUDGET, format_markdown, markdown_text
from tests.unit.release_truth import disagreements, release_lock, truth

pytestmark = pytest.mark.slow  # init + generate of two GitHub releases: about 30 s on 2 cores


@pytest.fixture(scope="module")
def locks() -> tuple[dict[str, Any], dict[str, Any]]:
    return release_lock("github-16.6.0.json"), release_lock("github-23.0.2.json")


@pytest.fixture(scope="module")
def github_release(locks: tuple[dict[str, Any], dict[str, Any]]) -> ContractDiff:
    return diff_contracts(*locks)


def test_github_16_to_23_every_change_agrees_with_a_walk_of_the_locks(
    locks: tuple[dict[str, Any], dict[str, Any]], github_release: ContractDiff
) -> None:
    assert len(truth(*locks)) > 400
    assert disagreements(*locks, list(github_release.changes)) == []


def test_github_reused_operation_id_is_a_breaking_rebinding(github_release: ContractDiff) -> None:
    # github-23.0.2.json#/paths/~1orgs~1{org}~1projectsV2/get has operationId projects/list-for-org,
    # which github-16.6.0.json#/paths/~1orgs~1{org}~1projects/get had.
    (change,) = [
        c for c in github_release.changes if c.code == "operation-id-rebound" and c.action == "list_for_org"
    ]
    assert change.impact is Impact.BREAKING and change.tool == "github_projects_find"
    assert (change.before, change.after) == ("GET /orgs/{org}/projects", "GET /orgs/{org}/projectsV2")
    assert "`projects/list-for-org`" in change.message


def test_github_deprecated_endpoints_are_their_own_class(github_release: ContractDiff) -> None:
    # github-23.0.2.json#/paths/~1classrooms~1{classroom_id}/get/deprecated (absent in 16.6.0)
    deprecated = [c for c in github_release.changes if c.code == "action-deprecated"]
    assert deprecated and all(c.impact is Impact.DEPRECATION for c in deprecated)
    (classroom,) = [c for c in deprecated if c.action == "get_a_classroom"]
    assert classroom.after == "/paths/~1classrooms~1{classroom_id}/get/deprecated"
    assert any(cause.part == "deprecated" for cause in classroom.causes)
    announced = [c for c in github_release.changes if c.code == "action-breaking-announced"]
    assert announced and all(c.impact is Impact.DEPRECATION for c in announced)
    # Parameters too (GitHub marks some `deprecated: true`), and words that say so, each its own kind.
    kinds = {"action-deprecation-said", "param-deprecated", "param-deprecation-said"}
    others = [c for c in github_release.changes if c.code in kinds]
    assert any(c.code == "param-deprecated" for c in others)
    assert github_release.count(Impact.DEPRECATION) == len(deprecated) + len(announced) + len(others)


def test_github_actions_moved_between_tools_are_moves_with_both_places(github_release: ContractDiff) -> None:
    moved = [c for c in github_release.changes if c.code == "action-moved"]
    assert len(moved) > 10 and all(c.impact is Impact.BREAKING for c in moved)
    for change in moved:
        assert change.after == f"{change.tool}.{change.action}" and change.before != change.after
        assert change.message == f"moved from `{change.before}`"
    gone = {str(c.before) for c in moved}
    came = {str(c.after) for c in moved}
    assert not [
        c for c in github_release.changes if c.code == "action-removed" and f"{c.tool}.{c.action}" in gone
    ]
    assert not [
        c for c in github_release.changes if c.code == "action-added" and f"{c.tool}.{c.action}" in came
    ]
    (merged,) = [c for c in github_release.changes if c.code == "tool-merged"]
    assert (merged.before, merged.after) == ("github_copilot_change", "github_copilot_billing")


def test_github_16_to_23_markdown_fits_a_pull_request_comment(github_release: ContractDiff) -> None:
    diff = github_release
    out = format_markdown(diff, old_label="16.6.0", new_label="23.0.2")
    full = format_markdown(diff, old_label="16.6.0", new_label="23.0.2", budget=10**9)
    assert len(full) > MARKDOWN_BUDGET  # the budget bites on this pair
    assert len(out) <= MARKDOWN_BUDGET
    assert len(diff.changes) > 500
    # Breaking changes come first and additive ones last: what does not fit is additive, and counted.
    unnamed = []
    for change in diff.changes:
        subject = f"{change.tool}.{change.action}" if change.action else change.tool
        if f"**`{subject}`**: {markdown_text(change.message)}" not in out:
            assert change.impact is Impact.ADDITIVE, change.id
            unnamed.append(change)
    assert len(unnamed) < 50
    if unnamed:
        assert f"\n{len(unnamed):,} more contract changes did not fit in this comment: " in out
    assert out.startswith("### Tool contract of `github`: ")
    assert "see the JSON (`mcpgen diff --format json`)" in out
    full_lines = set(full.splitlines())
    assert all(line in full_lines or "see the JSON" in line for line in out.splitlines())
