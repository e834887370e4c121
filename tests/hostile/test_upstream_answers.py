"""Hostile upstream answers (issue 11, findings 3, 5, 7 and 9): redirects, 200s that are not JSON, echoed
credentials, Retry-After in both forms, and long upstream values quoted in errors. The generated ads
server runs as a stdio subprocess driven by the official MCP client against tests/upstreams/hostile.py."""

# ruff: noqa: F401, F811 - hostile_package and hostile_upstream are pytest fixtures, imported to be used by name
from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from tests.hostile.upstream_server import TOKEN, ads_client, hostile_package, hostile_upstream
from tests.support.mcp_client import result_text
from tests.upstreams.hostile import HostileUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FIND = "ads_campaigns_find"
GET = {"action": "get", "campaign_id": "cmp_001"}
PAUSE = {"action": "pause", "campaign_id": "cmp_001"}
PREVIEW = "ads_budget_change_preview"
APPLY = "ads_budget_change_apply"


def _patches(upstream: HostileUpstream) -> int:
    return sum(1 for r in upstream.requests if r.method == "PATCH")


# --- redirects are errors, never success (finding 3) --------------------------------------------------


@pytest.mark.parametrize("status", [302, 307])
async def test_a_redirect_to_another_host_is_an_error_and_is_not_followed(
    hostile_package: Path, hostile_upstream: HostileUpstream, status: int
) -> None:
    hostile_upstream.redirect_next(status, "https://login.example.net/sso?session=abc&next=/campaigns")
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, GET)
    text = result_text(result)
    assert result.is_error and result.structured_content is None, text
    assert "the API redirected to https://login.example.net" in text
    assert "does not follow redirects" in text and f"HTTP {status}" in text
    assert "session=abc" not in text  # the redirect's query may carry a session: never quoted
    assert "ADS_BASE_URL" in text  # what the user checks
    assert len(hostile_upstream.requests) == 1  # the server never went to the other host or back


async def test_a_redirected_apply_is_an_error_and_is_not_marked_done(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        preview = await client.call_tool(PREVIEW, {"campaign_id": "cmp_001", "new_daily_budget_krw": 110_000})
        preview_id = preview.structured_content["preview_id"]
        hostile_upstream.redirect_next(307, "https://elsewhere.example.org/campaigns/cmp_001/budget")
        redirected = await client.call_tool(APPLY, {"preview_id": preview_id})
        again = await client.call_tool(APPLY, {"preview_id": preview_id})
    assert redirected.is_error and "the API redirected to https://elsewhere.example.org" in result_text(
        redirected
    )
    assert hostile_upstream.campaigns["cmp_001"]["daily_budget"] == 110_000  # the second apply made it
    # Not recorded as done: the second apply sent the change again instead of replaying a "success".
    assert _patches(hostile_upstream) == 2 and not again.is_error, result_text(again)


# --- 200s whose body is not JSON (finding 3) ----------------------------------------------------------


async def test_a_200_html_login_page_is_an_error_that_says_what_came_back(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.html_next()
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, GET)
    text = result_text(result)
    assert result.is_error and result.structured_content is None, text
    assert "HTTP 200" in text and "text/html" in text and "not valid JSON" in text
    assert "<!DOCTYPE html> <html><head><title>Sign in - Example SSO" in text  # the start of what came back
    assert "padding" not in text and len(text) < 1000  # bounded: about 100 characters of the page


async def test_a_200_with_invalid_json_is_an_error(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.invalid_json_next()
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, {"action": "list"})
    text = result_text(result)
    assert result.is_error and "application/json" in text and "not valid JSON" in text, text
    assert 'It began: "{"campaigns": [{"id": "cmp_001", "name":".' in text


async def test_a_non_json_answer_to_a_change_is_an_unknown_outcome(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.html_next()
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool("ads_campaign_change", PAUSE)
    text = result_text(result)
    # The API said 200, so the pause may have happened; the agent must check, not retry (E4).
    assert result.is_error and "Next step (check the outcome before doing anything else)" in text, text
    assert "Do not repeat 'pause' yet" in text and "ads_campaigns_find (action get)" in text


async def test_an_empty_204_is_still_a_success(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(
            "ads_campaign_change", {"action": "delete", "campaign_id": "cmp_002", "confirm": "CONFIRM_DELETE"}
        )
    assert not result.is_error and result.structured_content == {"ok": True, "status": 204}


# --- the server's own credential never reaches the agent (finding 5) ----------------------------------


async def test_a_success_result_never_carries_the_credential(
    hostile_package: Path, hostile_upstream: HostileUpstream, tmp_path: Path
) -> None:
    hostile_upstream.echo_credentials = True
    stderr = tmp_path / "stderr.log"
    async with ads_client(hostile_package, hostile_upstream, stderr_file=stderr) as client:
        found = await client.call_tool(FIND, {**GET, "response_format": "detailed"})
        preview = await client.call_tool(PREVIEW, {"campaign_id": "cmp_001", "new_daily_budget_krw": 110_000})
        applied = await client.call_tool(APPLY, {"preview_id": preview.structured_content["preview_id"]})
    for result in (found, applied):
        assert not result.is_error, result_text(result)
        assert TOKEN not in result_text(result) and TOKEN not in json.dumps(result.structured_content)
    assert found.structured_content["debug"] == {"request_headers": {"authorization": "Bearer [redacted]"}}
    assert TOKEN not in stderr.read_text()


# --- Retry-After in seconds and as an HTTP date (finding 9) -------------------------------------------


def _http_date(seconds_from_now: float) -> str:
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds_from_now), usegmt=True)


@pytest.mark.parametrize("status", [429, 503])
async def test_retry_after_in_seconds_is_the_wait(
    hostile_package: Path, hostile_upstream: HostileUpstream, status: int
) -> None:
    hostile_upstream.retry_after_next(status, "120")
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, GET)
    text = result_text(result)
    assert (
        result.is_error and "Next step (wait and retry): Wait 120 seconds (the API's Retry-After)" in text
    ), text
    assert "a minute" not in text


@pytest.mark.parametrize("status", [429, 503])
async def test_retry_after_as_an_http_date_is_the_seconds_from_now(
    hostile_package: Path, hostile_upstream: HostileUpstream, status: int
) -> None:
    hostile_upstream.retry_after_next(status, _http_date(90))
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, GET)
    text = result_text(result)
    wait = re.search(r"Wait (\d+) seconds \(the API's Retry-After\)", text)
    assert result.is_error and wait is not None, text
    assert 80 <= int(wait.group(1)) <= 91


@pytest.mark.parametrize(
    "value",
    ["soon", _http_date(72 * 365 * 86400), "99999999999999999999999", "-5", "Wed, 21 Oct 2015 07:28:00"],
    ids=["words", "a date in 72 years", "absurd seconds", "negative", "a date without a zone"],
)
async def test_an_unusable_retry_after_gets_generic_advice(
    hostile_package: Path, hostile_upstream: HostileUpstream, value: str
) -> None:
    hostile_upstream.retry_after_next(429, value)
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, GET)
    text = result_text(result)
    assert result.is_error and "Wait a minute, then call 'get' again." in text, text


async def test_a_retry_after_already_past_means_no_wait(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.retry_after_next(429, _http_date(-3600))
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, GET)
    assert "Wait 0 seconds (the API's Retry-After)" in result_text(result)


# --- long upstream values are quoted at most ~200 characters (finding 7) ------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        {"status": 422, "body": {"message": "bad " + "x" * 1_000_000, "field": "daily_budget"}},
        {"status": 500, "body": "boom " + "y" * 1_000_000},
        {
            "status": 403,
            "body": {"message": "no"},
            "headers": {"www-authenticate": f'Bearer scope="{"s" * 10_000}"'},
        },
        {"status": 302, "headers": {"location": "https://other.example.net/" + "p" * 10_000}},
        {
            "status": 200,
            "body": "<html>" + "h" * 100_000,
            "headers": {"content-type": "text/html" + "c" * 10_000},
        },
    ],
    ids=["422 message", "500 text", "403 scope", "302 location", "200 html and content type"],
)
async def test_an_error_quotes_at_most_about_200_characters_of_an_upstream_value(
    hostile_package: Path, hostile_upstream: HostileUpstream, reply: dict
) -> None:
    hostile_upstream.fail_next(**reply)
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, GET)
    text = result_text(result)
    assert result.is_error, text
    longest_run = max(len(m.group(0)) for m in re.finditer(r"(.)\1*", text))
    assert longest_run <= 200, (longest_run, text[:500])
    assert len(text) < 1500, len(text)


async def test_a_number_past_a_float_is_an_error_not_infinity(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    """`1e999` is JSON, but no float holds it: never passed on as `Infinity`, which JSON cannot say."""
    hostile_upstream.fail_next(
        200, '{"campaigns": [], "total_count": 1e999}', {"content-type": "application/json"}
    )
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, {"action": "list"})
    text = result_text(result)
    assert result.is_error and "past what a 64-bit float can hold (1e999)" in text, text
    assert "Infinity" not in text


async def test_a_path_value_past_the_longest_address_is_an_input_error(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_" + "1" * 70_000})
    text = result_text(result)
    assert result.is_error and "failed unexpectedly" not in text, text
    assert "(fix the input)" in text and "campaign_id (70004 characters)" in text, text
    assert "too long for an HTTP request" in text and hostile_upstream.requests == []
