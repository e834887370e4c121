"""Realistic edits of GitHub's spec, each classified right and traced to the place it was made (C1).

Every case is checked twice: with both specs at hand (SPEC::MAPPING operands: the exact pointer of
the edit) and from the two lock files alone (the pointer of the changed parameter or operation).
"""

from __future__ import annotations

import pytest

from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.diff.kinds import Impact, Kind
from mcpgen.contract.diff.model import ContractChange, ContractDiff, InputChange
from tests.github_edits import variant

LIST = "GET /repos/{owner}/{repo}/issues"
LIST_AT = "/paths/~1repos~1{owner}~1{repo}~1issues/get"
ISSUE_AT = "/paths/~1repos~1{owner}~1{repo}~1issues~1{issue_number}"
PIN_AT = "/paths/~1repos~1{owner}~1{repo}~1issues~1{issue_number}~1pin/put"


def _diff(name: str, *, with_specs: bool) -> ContractDiff:
    old, new = variant("base"), variant(name)
    if with_specs:
        return diff_contracts(old.lock, new.lock, old_sources=old.sources, new_sources=new.sources)
    return diff_contracts(old.lock, new.lock)


def _change(diff: ContractDiff, code: str, **fields: str) -> ContractChange:
    found = [c for c in diff.changes if c.code == code and all(getattr(c, k) == v for k, v in fields.items())]
    assert len(found) == 1, f"{code} {fields}: {[(c.code, c.tool, c.action, c.param) for c in diff.changes]}"
    return found[0]


def _pointers(items: tuple[InputChange, ...]) -> set[str]:
    return {i.pointer for i in items}


@pytest.fixture(params=[True, False], ids=["specs", "locks"])
def with_specs(request: pytest.FixtureRequest) -> bool:
    return request.param


def test_narrowed_enum_is_breaking_and_traced_to_the_enum(with_specs: bool) -> None:
    diff = _diff("release", with_specs=with_specs)
    change = _change(diff, "param-enum-value-removed", tool="github_issues_find", param="state")
    assert change.impact is Impact.BREAKING
    assert change.before == ["open", "closed", "all"] and change.after == ["open", "closed"]
    expected = f"{LIST_AT}/parameters/3" + ("/schema/enum" if with_specs else "")
    assert _pointers(change.causes) == {expected}
    (cause,) = change.causes
    assert (cause.operation, cause.part) == (LIST, "parameter query.state")
    if with_specs:
        assert cause.detail == 'removed "all"'


def test_parameter_made_required_is_breaking_for_its_action(with_specs: bool) -> None:
    diff = _diff("release", with_specs=with_specs)
    change = _change(diff, "param-required", tool="github_issues_find", action="list", param="milestone")
    assert change.impact is Impact.BREAKING
    expected = f"{LIST_AT}/parameters/2" + ("/required" if with_specs else "")
    assert _pointers(change.causes) == {expected}


def test_reworded_shared_description_is_behaviour_in_every_tool_that_shows_it(with_specs: bool) -> None:
    diff = _diff("release", with_specs=with_specs)
    expected = "/components/parameters/issue-number" + ("/description" if with_specs else "")
    for tool in ("github_issues_find", "github_issues_write"):
        change = _change(diff, "param-description-changed", tool=tool, param="issue_number")
        assert change.impact is Impact.BEHAVIOUR
        assert "as shown in its URL" in change.after
        assert _pointers(change.causes) == {expected}
    # The same component is used by operations no tool maps: listed, not lost. A lock holds only a
    # fingerprint of those, so without the specs the pointer is the operation's.
    untouched = [i for i in diff.other_inputs if i.change == "changed"]
    assert len(untouched) > 20 and all(
        not i.used_by and "{issue_number}" in str(i.operation) for i in untouched
    )
    if with_specs:
        assert _pointers(tuple(untouched)) == {expected}
    else:
        assert all(i.pointer.startswith("/paths/") for i in untouched)


def test_the_release_is_breaking(with_specs: bool) -> None:
    diff = _diff("release", with_specs=with_specs)
    assert diff.impact is Impact.BREAKING
    assert (diff.bump, diff.suggested_version) == ("minor", "0.4.0")  # 0.3.0: breaking bumps the minor


def test_every_change_is_in_a_class_its_kind_is_registered_with(with_specs: bool) -> None:
    diff = _diff("release", with_specs=with_specs)
    assert diff.changes
    assert [c.id for c in diff.changes if c.impact not in Kind(c.code).impacts] == []


def test_renamed_parameter_is_breaking_and_traced_to_both_names(with_specs: bool) -> None:
    diff = _diff("release", with_specs=with_specs)
    change = _change(diff, "param-renamed", tool="github_issues_find", param="author")
    assert change.impact is Impact.BREAKING
    assert (change.before, change.after) == ("creator", "author")
    assert {(c.change, c.part) for c in change.causes} == {
        ("removed", "parameter query.creator"),
        ("added", "parameter query.author"),
    }
    assert _pointers(change.causes) == {f"{LIST_AT}/parameters/6"}
    assert {c.code for c in diff.changes if c.impact is Impact.BREAKING} == {
        "param-renamed",
        "param-enum-value-removed",
        "param-required",
    }


def test_spec_changes_that_touch_no_tool_are_listed(with_specs: bool) -> None:
    diff = _diff("release", with_specs=with_specs)
    other = {(i.change, i.pointer, i.operation) for i in diff.other_inputs}
    assert ("added", PIN_AT, "PUT /repos/{owner}/{repo}/issues/{issue_number}/pin") in other
    assert ("removed", f"{ISSUE_AT}/patch", "PATCH /repos/{owner}/{repo}/issues/{issue_number}") in other
    assert all(not i.used_by for i in diff.other_inputs)


def test_removed_and_added_endpoints_with_the_mapping_following(with_specs: bool) -> None:
    diff = _diff("mapping_follows", with_specs=with_specs)
    removed = _change(diff, "action-removed", tool="github_issues_write", action="comment")
    assert removed.impact is Impact.BREAKING
    assert {(c.origin, c.change, c.pointer) for c in removed.causes} == {
        ("spec", "removed", f"{ISSUE_AT}~1comments/post"),
        ("mapping", "removed", "/tools/1/actions/1"),
    }
    added = _change(diff, "action-added", tool="github_issues_write", action="pin")
    assert added.impact is Impact.ADDITIVE
    assert {(c.origin, c.change, c.pointer) for c in added.causes} == {
        ("spec", "added", PIN_AT),
        ("mapping", "added", "/tools/1/actions/1"),
    }
    # issue_number was only the comment action's in this tool; pin takes it again, and requires it. Which
    # action needs it is said once, in the tool description ("Needs: ..."), so the parameter is unchanged.
    assert _change(diff, "tool-description-changed", tool="github_issues_write")
    assert not [c for c in diff.changes if c.code == "param-description-changed"]
    assert not [c for c in diff.changes if c.code == "param-removed"]


def test_no_change_is_no_change() -> None:
    base = variant("base")
    diff = diff_contracts(base.lock, base.lock, old_sources=base.sources, new_sources=base.sources)
    assert diff.changes == () and diff.other_inputs == ()
    assert (diff.bump, diff.suggested_version) == ("none", "0.3.0")
