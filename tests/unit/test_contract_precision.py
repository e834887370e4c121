"""Diff precision on small lock files: unit changes, renames that need evidence, deprecation's class (C1, T5)."""

from __future__ import annotations

from typing import Any

from mcpgen.contract.diff import Impact, diff_contracts
from tests.unit.test_contract_diff import edited, lock, param

CENTS = {"agent": "USD", "upstream": "cents", "factor": 100.0}


def _with_unit(unit: dict[str, Any] | None, arg: str = "limit") -> dict[str, Any]:
    def change(tool: dict[str, Any]) -> None:
        tool["inputSchema"]["properties"][arg] = tool["inputSchema"]["properties"].pop("limit")
        entry = param(arg, wire="limit") | ({"unit": unit} if unit else {})
        tool["actions"][0]["params"] = [entry, param("sort")]

    return edited(change)


def test_a_parameter_that_changes_unit_is_a_behaviour_change() -> None:
    diff = diff_contracts(_with_unit(None), _with_unit(CENTS))
    (change,) = diff.changes
    assert (change.code, change.impact, change.action, change.param) == (
        "param-unit-changed",
        Impact.BEHAVIOUR,
        "list",
        "limit",
    )
    assert change.before is None and change.after == CENTS
    assert "USD (sent as cents, x100.0)" in change.message
    factor = diff_contracts(_with_unit(CENTS), _with_unit(CENTS | {"factor": 1000.0}))
    assert [c.code for c in factor.changes] == ["param-unit-changed"]


def test_a_rename_that_brings_a_unit_says_both() -> None:
    diff = diff_contracts(_with_unit(None), _with_unit(CENTS, arg="limit_usd"))
    assert {(c.code, c.impact) for c in diff.changes} == {
        ("param-renamed", Impact.BREAKING),
        ("param-unit-changed", Impact.BEHAVIOUR),
    }


def test_unrelated_parameters_are_removed_and_added_not_renamed() -> None:
    def swap(tool: dict[str, Any]) -> None:
        schema = tool["inputSchema"]["properties"]
        schema["name"] = {"type": "string", "description": "A name."}
        del schema["sort"]
        tool["actions"][0]["params"] = [param("limit"), param("name")]

    diff = diff_contracts(lock(), edited(swap))
    assert {c.code for c in diff.changes} >= {"param-removed", "param-added"}
    assert not [c for c in diff.changes if c.code == "param-renamed"]


def test_the_same_operation_id_on_another_endpoint_breaks_and_another_endpoint_alone_does_not() -> None:
    def move(tool: dict[str, Any]) -> None:
        tool["actions"][0]["path"] = "/v2/items"

    rebound = diff_contracts(lock(), edited(move))
    assert [(c.code, c.impact) for c in rebound.changes] == [("operation-id-rebound", Impact.BREAKING)]

    def move_and_rename(tool: dict[str, Any]) -> None:
        move(tool)
        tool["actions"][0]["operationId"] = "listItemsV2"

    moved = diff_contracts(lock(), edited(move_and_rename))
    assert [(c.code, c.impact) for c in moved.changes] == [("action-endpoint-changed", Impact.BEHAVIOUR)]


def test_a_newly_deprecated_operation_is_a_deprecation_and_bumps_the_minor() -> None:
    def deprecate(tool: dict[str, Any]) -> None:
        tool["actions"][0]["operation"]["parts"]["deprecated"] = {
            "pointer": "/paths/list/deprecated",
            "sha256": "d",
        }

    diff = diff_contracts(lock(), edited(deprecate))
    (change,) = diff.changes
    assert (change.code, change.impact, change.action) == ("action-deprecated", Impact.DEPRECATION, "list")
    assert (diff.bump, diff.suggested_version) == ("minor", "1.3.0")
