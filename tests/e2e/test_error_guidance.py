"""Every error class of docs/errors.md, end to end: the installed ads server as a stdio subprocess, the
official MCP client, and the loopback Ads API answering for real or scripted with `fail_next`.

Each case checks what the agent reads (E1-E3): the kind of recovery, the agent-facing argument, the
action that helps next. Every case also captures the server's stderr and checks that the token never
appears in a result or a log line (E5), and that an error result carries no structuredContent, so it
cannot contradict an outputSchema (R5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import TOKEN, InstalledServer, server_env
from tests.support.mcp_client import result_text, stdio_client

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

STATS = {
    "action": "campaign_stats",
    "campaign_id": "cmp_001",
    "from_date": "2026-11-01",
    "to_date": "2026-11-30",
}
CREATE = {"action": "create", "name": "Year End", "daily_budget_krw": 250000, "objective": "traffic"}

# id: (scripted reply as fail_next kwargs or None for the real API, env changes, tool, arguments, expected)
CASES: dict[str, tuple[dict[str, Any] | None, dict[str, str], str, dict[str, Any], list[str]]] = {
    "422 real, the API's field": (
        None,
        {},
        "ads_reports",
        {**STATS, "from_date": "2026-12-01"},
        [
            "the API rejected the arguments of 'campaign_stats' (HTTP 422).",
            "The API said: to_date must not be before from_date",
            "The argument is to_date.",
            "Next step (fix the input): Correct to_date and call again.",
        ],
    ),
    "400 names the agent's argument, not the wire name": (
        {
            "status": 400,
            "body": {
                "code": "invalid",
                "message": "daily_budget exceeds the account limit",
                "field": "daily_budget",
            },
        },
        {},
        "ads_campaign_change",
        CREATE,
        [
            "(HTTP 400). The API said: daily_budget exceeds the account limit",
            "The argument is daily_budget_krw (the API calls it daily_budget).",
            "Next step (fix the input): Correct daily_budget_krw and call again.",
        ],
    ),
    "401 real, wrong token": (
        None,
        {"ADS_API_TOKEN": "not-the-token"},
        "ads_reports",
        {"action": "account"},
        [
            "the API refused the credentials in ADS_API_TOKEN for 'account' (HTTP 401)",
            "Next step (needs credentials or permission): This needs the user: ask them to set ADS_API_TOKEN "
            "to a valid credential",
        ],
    ),
    "403 names the scope the API asks for": (
        {
            "status": 403,
            "body": {"message": f"token {TOKEN} may not delete campaigns"},
            "headers": {"www-authenticate": 'Bearer error="insufficient_scope", scope="campaigns:delete"'},
        },
        {},
        "ads_campaign_change",
        {"action": "delete", "campaign_id": "cmp_006", "confirm": "CONFIRM_DELETE"},
        [
            "the credentials in ADS_API_TOKEN may not run 'delete' (HTTP 403). It needs the scope campaigns:delete.",
            "token [redacted] may not delete campaigns",
            "Next step (needs credentials or permission): This needs the user: ask them to grant the scope "
            "campaigns:delete to that credential (or set ADS_API_TOKEN to one that has it",
        ],
    ),
    "404 real, names the action that finds the id": (
        None,
        {},
        "ads_campaigns_find",
        {"action": "get", "campaign_id": "cmp_999"},
        [
            "not found (HTTP 404): 'get' found nothing for the campaign_id given. The API said: no campaign cmp_999",
            "Next step (fix the input): Find the right campaign_id with ads_campaigns_find (action list or search)",
        ],
    ),
    "404 from another tool points at the finding tool": (
        None,
        {},
        "ads_reports",
        {**STATS, "campaign_id": "cmp_999"},
        ["Find the right campaign_id with ads_campaigns_find (action list or search), then call again"],
    ),
    "409 real, read the state first": (
        None,
        {},
        "ads_campaign_change",
        {"action": "pause", "campaign_id": "cmp_004"},
        [
            "'pause' conflicts with the current state (HTTP 409). The API said: campaign cmp_004 is already paused",
            "Read the current state with ads_campaigns_find (action get), then decide",
        ],
    ),
    "429 waits for Retry-After": (
        {"status": 429, "body": {"message": "slow down"}, "headers": {"retry-after": "17"}},
        {},
        "ads_campaigns_find",
        {"action": "list"},
        [
            "the API is rate limiting this server (HTTP 429). The API said: slow down",
            "Next step (wait and retry): Wait 17 seconds (the API's Retry-After), then call 'list' again.",
        ],
    ),
    "500 on a read, retry later, no stack trace": (
        {
            "status": 500,
            "body": "Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'x'",
        },
        {},
        "ads_campaigns_find",
        {"action": "get", "campaign_id": "cmp_001"},
        [
            "the API failed (HTTP 500) while running 'get'.",
            "Next step (wait and retry): Wait a minute and retry",
        ],
    ),
    "503 on a change, check before retrying": (
        {"status": 503, "body": {"message": "maintenance"}},
        {},
        "ads_campaign_change",
        CREATE,
        [
            "the API failed (HTTP 503) while running 'create'. The API said: maintenance",
            "Before calling 'create' again, check with ads_campaigns_find (action list) that it did not take effect.",
        ],
    ),
    "cannot connect, wait and retry": (
        None,
        {"ADS_BASE_URL": "http://127.0.0.1:9"},
        "ads_campaign_change",
        CREATE,
        [
            "cannot reach the API at http://127.0.0.1:9 (ConnectError).",
            "Next step (wait and retry): Wait and retry; if it keeps failing, ask the user to check that the API "
            "is up and that ADS_BASE_URL points at it.",
        ],
    ),
    "missing token, fix steps": (
        None,
        {"ADS_API_TOKEN": ""},
        "ads_reports",
        {"action": "account"},
        [
            "no credentials: the environment variable ADS_API_TOKEN is not set",
            "1. get an access token for the API; 2. set ADS_API_TOKEN to it",
            "3. restart the server",
        ],
    ),
    "input validation, per action": (
        None,
        {},
        "ads_campaign_change",
        {"action": "pause"},
        [
            "invalid arguments for ads_campaign_change action 'pause': action 'pause' needs campaign_id (string).",
            "Next step (fix the input)",
        ],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_each_error_class_says_what_why_and_how(
    ads_server: InstalledServer, ads_upstream, tmp_path: Path, case: str
) -> None:
    scripted, env_changes, tool, arguments, expected = CASES[case]
    if scripted is not None:
        ads_upstream.fail_next(**scripted)
    env = {k: v for k, v in {**server_env(ads_upstream), **env_changes}.items() if v}
    stderr = tmp_path / "stderr.log"
    async with stdio_client(ads_server.command, env, stderr_file=stderr) as client:
        result = await client.call_tool(tool, arguments)
    text = result_text(result)
    assert result.is_error, text
    assert result.structured_content is None  # R5: nothing that could contradict an outputSchema
    for fragment in expected:
        assert fragment in text, (fragment, text)
    assert TOKEN not in text and TOKEN not in stderr.read_text()  # E5
    assert "Traceback" not in text and 'File "' not in text  # E5
    assert f"{tool} action={arguments['action']} -> error" in stderr.read_text()  # logged, on stderr (R6)
