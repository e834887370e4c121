"""The generated ads server, installed in its own venv, run as a stdio subprocess, driven by the official
MCP client, calling a real HTTP upstream on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import TOKEN, InstalledServer, server_env
from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import GENERATED

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

# (tool, arguments, expected method, path, query, json body)
CALLS: list[tuple[str, dict[str, Any], str, str, dict[str, list[str]], Any]] = [
    (
        "ads_campaigns_find",
        {"action": "list", "status": "active", "limit": 5, "page": 2},
        "GET",
        "/campaigns",
        {"status": ["active"], "per_page": ["5"], "page": ["2"]},
        None,
    ),
    (
        "ads_campaigns_find",
        {"action": "search", "query": "winter"},
        "GET",
        "/campaigns/search",
        {"q": ["winter"], "limit": ["20"]},
        None,
    ),  # R3: the default limit is sent, not left to the API
    (
        "ads_campaigns_find",
        {"action": "get", "campaign_id": "cmp_002"},
        "GET",
        "/campaigns/cmp_002",
        {},
        None,
    ),
    (
        "ads_campaign_change",
        {"action": "create", "name": "Year End", "daily_budget_krw": 250000, "objective": "traffic"},
        "POST",
        "/campaigns",
        {},
        {"name": "Year End", "daily_budget": 250000, "objective": "traffic"},
    ),
    (
        "ads_campaign_change",
        {"action": "pause", "campaign_id": "cmp_005"},
        "POST",
        "/campaigns/cmp_005/pause",
        {},
        None,
    ),
    (
        "ads_campaign_change",
        {"action": "resume", "campaign_id": "cmp_004"},
        "POST",
        "/campaigns/cmp_004/resume",
        {},
        None,
    ),
    (
        "ads_campaign_change",
        {"action": "delete", "campaign_id": "cmp_006", "confirm": "CONFIRM_DELETE"},
        "DELETE",
        "/campaigns/cmp_006",
        {},
        None,
    ),
    (
        "ads_reports",
        {
            "action": "campaign_stats",
            "campaign_id": "cmp_007",
            "from_date": "2026-11-01",
            "to_date": "2026-11-30",
        },
        "GET",
        "/campaigns/cmp_007/stats",
        {"from_date": ["2026-11-01"], "to_date": ["2026-11-30"]},
        None,
    ),
    ("ads_reports", {"action": "account"}, "GET", "/account", {}, None),
]


def _expected_contract() -> list[dict[str, Any]]:
    # generated/ads is checked against the code by test_golden, so it is the reviewed contract.
    return json.loads((GENERATED / "ads" / "ads_mcp" / "tools.json").read_text(encoding="utf-8"))


async def test_lists_the_contract_verbatim_in_name_order(ads_server: InstalledServer, ads_upstream) -> None:
    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        listing = await client.list_tools()
    tools = tool_dicts(listing)
    assert tools == _expected_contract()
    assert [t["name"] for t in tools] == [
        "ads_budget_change_apply",
        "ads_budget_change_preview",
        "ads_campaign_change",
        "ads_campaigns_find",
        "ads_reports",
    ]
    change = next(t for t in tools if t["name"] == "ads_campaign_change")
    schema = change["inputSchema"]
    assert schema["additionalProperties"] is False and schema["required"] == ["action"]  # T2, T6
    assert schema["properties"]["action"]["enum"] == ["create", "pause", "resume", "delete"]
    assert schema["properties"]["daily_budget_krw"]["type"] == "integer"  # T5: unit in the name
    assert "daily_budget" not in schema["properties"]
    assert not any(k in json.dumps(schema) for k in ('"$ref"', '"oneOf"', '"anyOf"', '"allOf"'))
    # The title is the tool's own `title`, said once: the annotations do not repeat it.
    assert change["title"] == "Change a campaign"
    assert change["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }  # S4
    find = next(t for t in tools if t["name"] == "ads_campaigns_find")
    assert find["annotations"]["readOnlyHint"] is True and "destructiveHint" not in find["annotations"]


async def test_every_action_reaches_the_upstream_as_specified(
    ads_server: InstalledServer, ads_upstream
) -> None:
    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        for tool, arguments, method, path, query, body in CALLS:
            ads_upstream.clear()
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, (tool, arguments, result_text(result))
            assert result.structured_content == result_json(result)  # R5: same JSON in text and structure
            [seen] = ads_upstream.requests
            assert (seen.method, seen.path, seen.query, seen.json) == (method, path, query, body), (
                tool,
                arguments,
            )
            assert seen.headers["authorization"] == f"Bearer {TOKEN}"


async def test_list_result_is_the_upstream_page(ads_server: InstalledServer, ads_upstream) -> None:
    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        result = await client.call_tool("ads_campaigns_find", {"action": "list", "limit": 3})
    data = result.structured_content
    assert [c["id"] for c in data["items"]] == ["cmp_045", "cmp_044", "cmp_043"]  # R3: one paging shape
    assert (data["has_more"], data["next_page"], data["total_count"]) == (True, 2, 45)


@pytest.mark.parametrize("hostile", ["../account", "a/b", "..", "cmp_1?x=1#y"])
async def test_path_values_never_change_the_path(
    ads_server: InstalledServer, ads_upstream, hostile: str
) -> None:
    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        # The schema's pattern would refuse these values; call the action whose parameter has none.
        await client.call_tool(
            "ads_reports",
            {
                "action": "campaign_stats",
                "campaign_id": hostile,
                "from_date": "2026-11-01",
                "to_date": "2026-11-02",
            },
        )
        await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": hostile})
    for seen in ads_upstream.requests:
        segments = seen.path.split("/")
        assert segments[1] == "campaigns" and len(segments) in (3, 4), seen.path
        assert "/" not in segments[2].replace("%2F", "") and segments[2] not in (".", "..")


async def test_per_action_requirements_are_named(ads_server: InstalledServer, ads_upstream) -> None:
    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        missing = await client.call_tool(
            "ads_campaign_change", {"action": "create", "name": "A", "objective": "traffic"}
        )
        foreign = await client.call_tool(
            "ads_campaigns_find", {"action": "get", "campaign_id": "cmp_001", "query": "x"}
        )
        unknown_action = await client.call_tool("ads_reports", {"action": "forecast"})
        unconfirmed = await client.call_tool(
            "ads_campaign_change", {"action": "delete", "campaign_id": "cmp_001"}
        )
        misconfirmed = await client.call_tool(
            "ads_campaign_change", {"action": "delete", "campaign_id": "cmp_001", "confirm": "yes"}
        )
        confirm_elsewhere = await client.call_tool(
            "ads_campaign_change", {"action": "pause", "campaign_id": "cmp_001", "confirm": "CONFIRM_DELETE"}
        )
        wrong_type = await client.call_tool(
            "ads_campaign_change",
            {"action": "create", "name": "A", "objective": "traffic", "daily_budget_krw": "lots"},
        )
    assert missing.is_error and "action 'create' needs daily_budget_krw (integer)" in result_text(missing)
    assert foreign.is_error and "'query' is not used by action 'get' (it is used by: search)" in result_text(
        foreign
    )
    assert unknown_action.is_error and "campaign_stats, account" in result_text(unknown_action)
    assert wrong_type.is_error and "daily_budget_krw: 'lots' is not of type 'integer'" in result_text(
        wrong_type
    )
    assert (
        unconfirmed.is_error
        and "action 'delete' needs confirm (string one of \"CONFIRM_DELETE\")" in result_text(unconfirmed)
    )
    assert misconfirmed.is_error and "confirm: 'yes' is not one of ['CONFIRM_DELETE']" in result_text(
        misconfirmed
    )
    assert confirm_elsewhere.is_error and "'confirm' is not used by action 'pause'" in result_text(
        confirm_elsewhere
    )
    assert ads_upstream.requests == []  # nothing invalid reaches the upstream


async def test_unknown_tool_is_a_protocol_error(ads_server: InstalledServer, ads_upstream) -> None:
    from mcp.shared.exceptions import MCPError

    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        with pytest.raises(MCPError, match="Unknown tool"):
            await client.call_tool("ads_nothing", {})
        # The previewed action is reachable only through preview and apply (S1), not by the tool's own name.
        with pytest.raises(MCPError, match="Unknown tool"):
            await client.call_tool(
                "ads_budget_change", {"action": "set", "campaign_id": "cmp_001", "new_daily_budget_krw": 5000}
            )
    assert ads_upstream.requests == []


async def test_missing_credentials_are_reported_at_call_time(
    ads_server: InstalledServer, ads_upstream, tmp_path: Path
) -> None:
    env = {"ADS_BASE_URL": ads_upstream.base_url}
    stderr = tmp_path / "stderr.log"
    async with stdio_client(ads_server.command, env, stderr_file=stderr) as client:
        assert len((await client.list_tools()).tools) == 5  # the server starts and lists without them
        result = await client.call_tool("ads_reports", {"action": "account"})
    assert result.is_error and "ADS_API_TOKEN is not set" in result_text(result)
    assert ads_upstream.requests == []


async def test_logs_go_to_stderr_and_never_carry_the_token(
    ads_server: InstalledServer, ads_upstream, tmp_path: Path
) -> None:
    stderr = tmp_path / "stderr.log"
    ads_upstream.fail_next(401, {"message": f"token {TOKEN} was revoked"})
    async with stdio_client(ads_server.command, server_env(ads_upstream), stderr_file=stderr) as client:
        refused = await client.call_tool("ads_reports", {"action": "account"})
        await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_001"})
    log = stderr.read_text()
    assert "ads_campaigns_find action=get -> HTTP 200" in log  # R6: the log exists, on stderr
    assert (
        refused.is_error and TOKEN not in result_text(refused) and "[redacted]" in result_text(refused)
    )  # E5
    assert TOKEN not in log
