"""What the build decides for previews (S1), guard rules (S2), scopes (P3) and confirmations: pure
(spec, mapping) -> IR -> files, checked on the two examples."""

from __future__ import annotations

import json
from typing import Any

from mcpgen import generate
from mcpgen.build.contract import contract
from mcpgen.load.mapping import mapping_schema
from tests.support.paths import SPECS


def _built(example: str) -> Any:
    spec = next((SPECS / example).glob("*.openapi.*"))
    result = generate(spec, SPECS / example / "mapping.yaml")
    assert result.ok, result.diagnostics
    return result


def _by_name(tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in tools}


def test_a_previewed_tool_is_served_as_preview_and_apply() -> None:
    server = _built("ads").server
    budget = next(t for t in server.tools if t.name == "ads_budget_change")
    assert budget.served_names == ("ads_budget_change_preview", "ads_budget_change_apply")
    preview = budget.preview
    assert preview.read.operation_id == "getCampaign" and preview.ttl_minutes == 10
    assert preview.compared == (("new_daily_budget_krw", "daily_budget"),)
    [guard] = preview.guards
    assert (guard.arg_name, guard.current_field, guard.max_increase_pct) == (
        "new_daily_budget_krw",
        "daily_budget",
        50,
    )
    tools = _by_name(contract(server))
    assert "ads_budget_change" not in tools  # only the pair is served
    shown = tools["ads_budget_change_preview"]
    assert "action" not in shown["inputSchema"]["properties"]  # one thing to do, no action enum
    assert shown["inputSchema"]["required"] == ["campaign_id", "new_daily_budget_krw"]
    assert shown["annotations"]["readOnlyHint"] is True  # a preview only reads (S4)
    assert "more than 50% above the current value is refused" in shown["description"]
    apply = tools["ads_budget_change_apply"]
    assert apply["inputSchema"]["properties"].keys() == {"preview_id"}
    assert apply["title"] == "Change a daily budget: apply"  # once: not again in the annotations
    assert apply["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,  # it overwrites the budget (issue 12 defect 7)
        "idempotentHint": True,
        "openWorldHint": True,
    }
    assert "valid for 10 minutes" in apply["description"]


def test_the_lock_file_traces_both_served_tools_to_the_action() -> None:
    result = _built("ads")
    lock = json.loads(next(f.content for f in result.files if f.path == "tools.lock.json"))
    entries = _by_name(lock["tools"])
    for name in ("ads_budget_change_preview", "ads_budget_change_apply"):
        [action] = entries[name]["actions"]
        assert action["operationId"] == "updateCampaignBudget"


def test_scopes_destructive_and_confirm_reach_the_contract_and_tables() -> None:
    result = _built("deploy")
    tools = _by_name(contract(result.server))
    rollback = tools["deploy_rollback"]
    assert rollback["annotations"]["destructiveHint"] is True  # the mapping says so; the method is POST
    assert list(rollback["inputSchema"]["properties"])[-1] == "confirm"  # placed last
    assert rollback["inputSchema"]["properties"]["confirm"]["enum"] == ["CONFIRM_ROLLBACK"]
    files = {f.path: f.content for f in result.files}
    assert 'scopes=("deploy:rollback",)' in files["deploy_mcp/tools/rollback.py"]
    assert 'confirm="CONFIRM_ROLLBACK"' in files["deploy_mcp/tools/rollback.py"]
    server_py = files["deploy_mcp/server.py"]
    assert (
        'issuer="https://auth.example.com"' in server_py
        and 'audience="https://deploy-mcp.example.com/mcp"' in server_py
    )
    # No previews, but the user is asked for the rollback's reason (ask_user), and each question's
    # one-use answer is recorded in the store replicas share: hence the redis extra.
    assert "pyjwt" in files["pyproject.toml"] and 'redis = ["redis' in files["pyproject.toml"]


def test_every_new_mapping_knob_is_described_for_editors() -> None:
    defs = mapping_schema()["$defs"]
    knobs = [
        defs["server"]["properties"]["idempotency_key"],
        defs["access"],
        defs["tool"]["properties"]["scopes"],
        defs["tool"]["properties"]["destructive"],
        defs["action"]["properties"]["confirm"],
        defs["action"]["properties"]["preview"],
        defs["action"]["properties"]["confirm_param"],
        defs["param"]["properties"]["max_increase_pct"],
        defs["param"]["properties"]["current"],
    ]
    assert all(len(k.get("description", "")) > 40 for k in knobs)


def test_the_preview_read_takes_the_actions_renamed_path_parameter(tmp_path: Any) -> None:
    """A synthetic pair (no real spec names the id differently on read and update): the read's `{id}`
    sits where the update's `{thing_id}` does, so it is fed by the update's argument, renamed (M231)."""
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Things", "version": "1"},
        "paths": {
            "/things/{id}": {
                "get": {
                    "operationId": "getThing",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            },
            "/things/{thing_id}/size": {
                "put": {
                    "operationId": "resizeThing",
                    "parameters": [
                        {"name": "thing_id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {"type": "object", "properties": {"size": {"type": "integer"}}}
                            }
                        }
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            },
        },
    }
    (tmp_path / "things.openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    (tmp_path / "mapping.yaml").write_text(
        "mcpgen: 1\nserver: {name: things}\ntools:\n"
        "  - name: size_change\n    description: Resize a thing. Returns the thing.\n    actions:\n"
        "      - name: set\n        operation: resizeThing\n        confirm: preview\n"
        "        preview: {read: getThing}\n        params:\n          thing_id: {name: thing_ref}\n",
        encoding="utf-8",
    )
    result = generate(tmp_path / "things.openapi.json", tmp_path / "mapping.yaml")
    assert result.ok, [d.message for d in result.diagnostics]
    [tool] = result.server.tools
    read = tool.preview.read
    assert [(p.arg_name, p.wire_name) for p in read.params] == [("thing_ref", "id")]
    assert read.required_args == ("thing_ref",)
    assert read.name == "things_size_change_preview"
