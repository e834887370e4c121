"""Classification rules of `mcpgen diff`, on small hand-written lock documents (C1)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.diff.kinds import Impact
from mcpgen.contract.diff.schemas import schema_changes
from mcpgen.contract.diff.semver import suggest_version
from mcpgen.contract.format import format_diff, text_change


def action(
    name: str, method: str = "GET", path: str = "/items", params: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"Do {name}.",
        "method": method,
        "path": path,
        "operationId": name,
        "params": params or [],
        "fixed": [],
        "mapping": {"pointer": f"/tools/0/actions/{name}", "sha256": "m-" + name},
        "operation": {"pointer": f"/paths/{name}", "sha256": "o-" + name, "parts": {}},
    }


def lock(*, version: str = "1.2.3", **tool_changes: Any) -> dict[str, Any]:
    tool = {
        "name": "shop_items",
        "title": "Items",
        "description": "Find items.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "get"]},
                "item_id": {"type": "integer", "description": "The item."},
                "limit": {"type": "integer", "maximum": 100, "default": 20, "description": "Page size."},
                "sort": {"type": "string", "enum": ["name", "price"], "description": "Order."},
            },
            "required": ["action"],
            "additionalProperties": False,
        },
        "annotations": {"title": "Items", "readOnlyHint": True, "openWorldHint": True},
        "actions": [
            action("list", params=[param("limit"), param("sort")]),
            action("get", path="/items/{id}", params=[param("item_id", "path", required=True, wire="id")]),
        ],
        "mapping": {"pointer": "/tools/0", "sha256": "tool"},
    }
    tool.update(tool_changes)
    return {
        "lock_version": 1,
        "generator": "mcpgen 0.1.0",
        "server": {
            "name": "shop",
            "version": version,
            "title": "Shop",
            "instructions": "Shop things.",
            "mapping": None,
        },
        "spec_operations": {"GET /items": "a", "GET /items/{id}": "b"},
        "tools": [tool],
    }


def param(
    arg: str, where: str = "query", *, required: bool = False, wire: str | None = None
) -> dict[str, Any]:
    return {"arg": arg, "wire": wire or arg, "in": where, "required": required}


def edited(change: Any) -> dict[str, Any]:
    new = lock()
    change(new["tools"][0])
    return new


def codes(new: dict[str, Any], old: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    diff = diff_contracts(old or lock(), new)
    return [(c.impact.label, c.code) for c in diff.changes]


def test_annotations_that_become_less_safe_break_and_safer_ones_affect_behaviour() -> None:
    def write(tool: dict[str, Any]) -> None:
        tool["annotations"] = {
            "title": "Items",
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": True,
        }

    assert codes(edited(write)) == [("breaking", "annotation-less-safe")]
    writing = edited(write)
    destructive = copy.deepcopy(writing)
    destructive["tools"][0]["annotations"]["destructiveHint"] = True
    assert codes(destructive, writing) == [("breaking", "annotation-less-safe")]
    assert codes(writing, destructive) == [("behaviour-affecting", "annotation-safer")]


def test_tools_actions_and_parameters_removed_or_renamed_break() -> None:
    def rename_action(tool: dict[str, Any]) -> None:
        tool["actions"][1]["name"] = "fetch"

    assert codes(edited(rename_action)) == [("breaking", "action-renamed")]

    def remove_param(tool: dict[str, Any]) -> None:
        del tool["inputSchema"]["properties"]["sort"]
        tool["actions"][0]["params"] = [param("limit")]

    assert codes(edited(remove_param)) == [("breaking", "param-removed")]

    renamed = lock()
    renamed["tools"][0]["name"] = "shop_products"
    assert codes(renamed) == [("breaking", "tool-renamed")]  # same operations: a rename, not a new tool
    assert codes({**lock(), "tools": []}) == [("breaking", "tool-removed")]


def test_new_optional_parameters_and_actions_add_and_new_required_ones_break() -> None:
    def optional(tool: dict[str, Any]) -> None:
        tool["inputSchema"]["properties"]["q"] = {"type": "string", "description": "Text."}
        tool["actions"][0]["params"].append(param("q"))

    assert codes(edited(optional)) == [("additive", "param-added")]

    def required(tool: dict[str, Any]) -> None:
        optional(tool)
        tool["actions"][0]["params"][-1]["required"] = True

    assert codes(edited(required)) == [("breaking", "param-required")]

    def new_action(tool: dict[str, Any]) -> None:
        tool["actions"].append(action("count", path="/items/count"))

    assert codes(edited(new_action)) == [("additive", "action-added")]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({"type": "number"}, {"type": "integer"}, [("breaking", "param-type-narrowed")]),
        ({"type": "integer"}, {"type": "number"}, [("additive", "param-type-widened")]),
        ({"type": "string"}, {"type": "integer"}, [("breaking", "param-type-changed")]),
        ({"type": ["string", "null"]}, {"type": "string"}, [("breaking", "param-type-narrowed")]),
        ({"enum": ["a", "b"]}, {"enum": ["a"]}, [("breaking", "param-enum-value-removed")]),
        ({"enum": ["a"]}, {"enum": ["a", "b"]}, [("additive", "param-enum-value-added")]),
        ({}, {"enum": ["a"]}, [("breaking", "param-enum-introduced")]),
        ({"maximum": 100}, {"maximum": 50}, [("breaking", "param-constraint-tightened")]),
        ({"minLength": 3}, {"minLength": 1}, [("additive", "param-constraint-relaxed")]),
        ({}, {"pattern": "^[a-z]+$"}, [("breaking", "param-constraint-tightened")]),
        ({"default": 20}, {"default": 50}, [("behaviour-affecting", "param-default-changed")]),
        ({"description": "a"}, {"description": "b"}, [("behaviour-affecting", "param-description-changed")]),
        (
            {"items": {"enum": ["x", "y"]}},
            {"items": {"enum": ["x"]}},
            [("breaking", "param-enum-value-removed")],
        ),
        (
            {"properties": {"a": {}}, "required": []},
            {"properties": {"a": {}}, "required": ["a"]},
            [("breaking", "param-member-required")],
        ),
    ],
)
def test_schema_changes_seen_from_a_caller(
    old: dict[str, Any], new: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert [(impact.label, code) for impact, code, *_ in schema_changes(old, new, "x")] == expected


@pytest.mark.parametrize(
    ("version", "impact", "inputs", "expected"),
    [
        ("1.2.3", Impact.BREAKING, True, ("major", "2.0.0")),
        ("1.2.3", Impact.BEHAVIOUR, True, ("minor", "1.3.0")),
        ("1.2.3", Impact.ADDITIVE, True, ("minor", "1.3.0")),
        ("1.2.3", None, True, ("patch", "1.2.4")),
        ("1.2.3", None, False, ("none", "1.2.3")),
        ("0.3.0", Impact.BREAKING, True, ("minor", "0.4.0")),
        ("0.3.0", Impact.ADDITIVE, True, ("patch", "0.3.1")),
    ],
)
def test_semver_suggestion(
    version: str, impact: Impact | None, inputs: bool, expected: tuple[str, str]
) -> None:
    assert suggest_version(version, impact, inputs)[:2] == expected


def test_a_description_change_is_traced_to_the_mapping_rule_it_came_from() -> None:
    new = lock()
    new["tools"][0]["description"] = "Find items in the shop."
    new["tools"][0]["mapping"]["sha256"] = "tool-2"
    (change,) = diff_contracts(lock(), new).changes
    assert change.code == "tool-description-changed"
    assert [(c.origin, c.change, c.pointer, c.rule) for c in change.causes] == [
        ("mapping", "changed", "/tools/0", "shop_items")
    ]


def test_a_change_no_input_explains_is_put_on_the_generator() -> None:
    new = lock()
    new["generator"] = "mcpgen 0.2.0"
    new["tools"][0]["title"] = "Shop items"
    (change,) = diff_contracts(lock(), new).changes
    assert [(c.origin, c.detail) for c in change.causes] == [("generator", "mcpgen 0.1.0 -> mcpgen 0.2.0")]


def test_text_is_coloured_only_when_asked_and_markdown_and_json_carry_the_same_changes() -> None:
    def required(tool: dict[str, Any]) -> None:
        tool["actions"][0]["params"][0]["required"] = True

    diff = diff_contracts(lock(), edited(required))
    plain = format_diff(diff, "text", old_label="a", new_label="b")
    assert "\x1b[" not in plain
    assert "breaking\n  shop_items.list: parameter `limit` is now required for action `list`" in plain
    assert "suggested version 2.0.0 (major: breaking changes)" in plain
    assert "\x1b[31mbreaking\x1b[0m" in format_diff(diff, "text", old_label="a", new_label="b", colour=True)
    markdown = format_diff(diff, "markdown", old_label="a", new_label="b")
    assert "#### Breaking (1)" in markdown and "**`shop_items.list`**" in markdown
    document = json.loads(format_diff(diff, "json", old_label="a", new_label="b"))
    assert document["impact"] == "breaking"
    assert document["suggested"] == {"bump": "major", "version": "2.0.0", "reason": "breaking changes"}
    assert [c["code"] for c in document["changes"]] == ["param-required"]


def test_text_change_shows_the_words_that_differ() -> None:
    same_start = "List the issues of a repository, newest first. Needs: owner, repo"
    same_end = ". Then some more words follow here and there and further on."
    assert text_change(same_start + same_end, same_start + ", milestone" + same_end) == (
        "...newest first. Needs: owner, repo. Then some more words follow here ...",
        "...newest first. Needs: owner, repo, milestone. Then some more words follow here ...",
    )
