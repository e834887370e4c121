"""Diff precision on small lock files: unit changes, renames that need evidence, deprecation's class (C1, T5);
and on a small shop spec and mapping: a concise field the spec dropped, `params:` renames the mapping made."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcpgen.cli.operands import load_operand
from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.diff.kinds import Impact
from mcpgen.contract.diff.model import ContractDiff
from tests.unit.test_contract_diff import edited, lock, param

CENTS = {"agent": "USD", "upstream": "cents", "factor": 100.0}


def _with_unit(unit: dict[str, Any] | None, arg: str = "limit") -> dict[str, Any]:
    def change(tool: dict[str, Any]) -> None:
        tool["inputSchema"]["properties"][arg] = tool["inputSchema"]["properties"].pop("limit")
        entry = param(arg, wire="limit") | ({"unit": unit} if unit else {})
        tool["actions"][0]["params"] = [entry, param("sort")]

    return edited(change)


def test_a_parameter_that_changes_unit_breaks_calls() -> None:
    # A call that keeps sending the same number now means another amount: breaking, under its own kind.
    diff = diff_contracts(_with_unit(None), _with_unit(CENTS))
    (change,) = diff.changes
    assert (change.code, change.impact, change.action, change.param) == (
        "param-unit-changed",
        Impact.BREAKING,
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
        ("param-unit-changed", Impact.BREAKING),
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


# --- from a spec and a mapping (SPEC::MAPPING operands, as `mcpgen diff` reads them) ---------------

ITEM_FIELDS = {"id": "integer", "name": "string", "color": "string", "price": "number"}


def shop_operand(
    where: Path,
    side: str,
    *,
    fields: Iterable[str] = ITEM_FIELDS,
    concise: Iterable[str] = ("id", "name", "color"),
    params: dict[str, str] | None = None,
    search: bool = False,
) -> str:
    """A small shop API (GET /items, and GET /items/search when `search`, both filtered by `status`)
    and its mapping, written under `where`: `SPEC::MAPPING` for `load_operand`. `params` is the list
    action's `params:` renames (wire name -> agent name)."""
    status = {"name": "status", "in": "query", "schema": {"type": "string", "enum": ["active", "sold"]}}
    per_page = {"name": "per_page", "in": "query", "schema": {"type": "integer"}}

    def operation(operation_id: str) -> dict[str, Any]:
        return {
            "operationId": operation_id,
            "summary": operation_id,
            "parameters": [per_page, status],
            "responses": {
                "200": {
                    "description": "The items",
                    "content": {
                        "application/json": {
                            "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}
                        }
                    },
                }
            },
        }

    paths = {"/items": {"get": operation("listItems")}}
    if search:
        paths["/items/search"] = {"get": operation("searchItems")}
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1.0.0"},
        "servers": [{"url": "https://shop.example.test"}],
        "paths": paths,
        "components": {
            "schemas": {
                "Item": {"type": "object", "properties": {f: {"type": ITEM_FIELDS[f]} for f in fields}}
            }
        },
    }
    renames = "".join(f"\n          {wire}: {{name: {name}}}" for wire, name in (params or {}).items())
    mapping = f"""mcpgen: 1
server:
  name: shop
  version: 1.0.0
  description: Find the shop's items.
tools:
  - name: items_find
    title: Find items
    description: Find the shop's items page by page. Returns item records with id, name and color.
    actions:
      - name: list
        operation: listItems
        description: List items page by page.{"" if not params else chr(10) + "        params:" + renames}
        response:
          concise: [{", ".join(concise)}]
"""
    if search:
        mapping += (
            "      - name: search\n        operation: searchItems\n        description: Search items.\n"
        )
    (where / f"{side}.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    (where / f"{side}.mapping.yaml").write_text(mapping, encoding="utf-8")
    return f"{where / side}.json::{where / side}.mapping.yaml"


def diff_operands(old: str, new: str) -> ContractDiff:
    before, after = load_operand(old, Path.cwd()), load_operand(new, Path.cwd())
    return diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)


def test_a_response_field_the_concise_list_relies_on_removed_breaks_agents(tmp_path: Path) -> None:
    old = shop_operand(tmp_path, "old")
    new = shop_operand(tmp_path, "new", fields=("id", "name", "price"))  # `color` is gone from Item
    (change,) = diff_operands(old, new).changes
    assert (change.code, change.impact, change.tool) == (
        "output-field-removed",
        Impact.BREAKING,
        "shop_items_find",
    )
    assert change.before == ["items[].color"] and "`items[].color`" in change.message
    assert [(c.origin, c.change, c.pointer) for c in change.causes] == [
        ("spec", "removed", "/components/schemas/Item/properties/color")
    ]
    # The lock files alone say it too: the served output schema no longer promises `color`.
    locks = diff_contracts(load_operand(old, Path.cwd()).lock, load_operand(new, Path.cwd()).lock)
    assert [(c.code, c.impact) for c in locks.changes] == [("output-field-removed", Impact.BREAKING)]
    assert locks.bump == "major"


def test_a_response_field_outside_the_concise_list_removed_changes_no_tool(tmp_path: Path) -> None:
    old = shop_operand(tmp_path, "old")
    new = shop_operand(tmp_path, "new", fields=("id", "name", "color"))  # `price`: detailed view only
    diff = diff_operands(old, new)
    assert diff.changes == () and diff.bump == "patch"
    assert [i.pointer for i in diff.other_inputs] == ["/components/schemas/Item/properties/price"]


def test_a_params_rename_added_to_the_mapping_is_cited_with_its_line(tmp_path: Path) -> None:
    old = shop_operand(tmp_path, "old")
    new = shop_operand(tmp_path, "new", params={"status": "item_status"})
    (change,) = diff_operands(old, new).changes
    assert (change.code, change.before, change.after) == ("param-renamed", "status", "item_status")
    lines = (tmp_path / "new.mapping.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "status: {name: item_status}" in text)
    assert change.message == (
        "parameter `status` renamed to `item_status`, by the mapping's params rule "
        f"`status: {{name: item_status}}` ({tmp_path / 'new.mapping.yaml'} line {line})"
    )
    first = change.causes[0]
    assert (first.origin, first.change, first.pointer, first.rule, first.detail) == (
        "mapping",
        "added",
        "/tools/0/actions/0/params/status/name",
        "shop_items_find.list",
        '"item_status"',
    )


def test_a_params_rename_changed_in_the_mapping_names_both_names(tmp_path: Path) -> None:
    old = shop_operand(tmp_path, "old", params={"status": "item_status"})
    new = shop_operand(tmp_path, "new", params={"status": "state_filter"})
    (change,) = diff_operands(old, new).changes
    assert (change.code, change.before, change.after) == ("param-renamed", "item_status", "state_filter")
    assert "by the mapping's params rule `status: {name: state_filter}`" in change.message
    assert [(c.change, c.pointer, c.detail) for c in change.causes] == [
        ("changed", "/tools/0/actions/0/params/status/name", '"item_status" -> "state_filter"')
    ]


def test_a_params_rename_in_one_of_two_actions_is_cited_on_the_drop_and_the_addition(tmp_path: Path) -> None:
    old = shop_operand(tmp_path, "old", search=True)
    new = shop_operand(tmp_path, "new", search=True, params={"status": "item_status"})
    changes = {(c.code, c.action, c.param): c for c in diff_operands(old, new).changes}
    # `search` still takes `status`: the tool keeps it, `list` drops it and the tool gains `item_status`.
    assert set(changes) == {
        ("action-param-dropped", "list", "status"),
        ("param-added", None, "item_status"),
    }
    for change in changes.values():
        assert "renamed by the mapping's params rule `status: {name: item_status}`" in change.message
        assert change.causes[0].pointer == "/tools/0/actions/0/params/status/name"


def test_a_paging_parameter_renamed_by_the_mapping_is_cited(tmp_path: Path) -> None:
    old = shop_operand(tmp_path, "old")
    new = shop_operand(tmp_path, "new", params={"per_page": "page_size_items"})
    (change,) = diff_operands(old, new).changes
    assert change.code == "param-renamed" and change.after == "page_size_items"
    assert "by the mapping's params rule `per_page: {name: page_size_items}`" in change.message


def test_an_output_schema_that_stops_listing_record_fields_says_less_and_breaks_nothing() -> None:
    def output(items: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "properties": {"items": items, "has_more": {"type": "boolean"}}}

    listed = output({"type": "array", "items": {"properties": {"id": {}, "color": {}}}})
    # A tool whose actions' records differ declares `items: {}`: any records, none promised away.
    diff = diff_contracts(lock(outputSchema=listed), lock(outputSchema=output({})))
    assert [(c.code, c.impact) for c in diff.changes] == [("output-schema", Impact.BEHAVIOUR)]
    fewer = output({"type": "array", "items": {"properties": {"id": {}}}})
    (change,) = diff_contracts(lock(outputSchema=listed), lock(outputSchema=fewer)).changes
    assert (change.code, change.impact, change.before) == (
        "output-field-removed",
        Impact.BREAKING,
        ["items[].color"],
    )
