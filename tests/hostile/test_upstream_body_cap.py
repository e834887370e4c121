"""Upstream bodies are bounded (issue 11, finding 4): an answer past the byte cap is refused without being
read whole, and `timeout_s` bounds the whole exchange, a body that trickles in included. These tests
measure elapsed time because the issue itself demands "within timeout_s + 1 s"."""

# ruff: noqa: F401, F811 - hostile_package and hostile_upstream are pytest fixtures, imported to be used by name
from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.hostile.upstream_server import CAP_BYTES, TIMEOUT_S, ads_client, hostile_package, hostile_upstream
from tests.support.mcp_client import result_json, result_text
from tests.upstreams.hostile import HostileUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FIND = "ads_campaigns_find"
MB = 1024 * 1024


@pytest.mark.parametrize(
    "declare_length", [True, False], ids=["with Content-Length", "without Content-Length"]
)
async def test_a_50_mb_answer_is_refused_within_the_timeout(
    hostile_package: Path, hostile_upstream: HostileUpstream, declare_length: bool
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_001"})  # the server is warm
        hostile_upstream.huge_next(50 * MB, declare_length=declare_length)
        started = time.monotonic()
        result = await client.call_tool(FIND, {"action": "list"})
        elapsed = time.monotonic() - started
    text = result_text(result)
    assert result.is_error and "the API answered with more than 8 MB" in text, text
    assert "Next step (fix the input): Narrow the request" in text
    assert elapsed <= TIMEOUT_S + 1, elapsed


async def test_a_body_that_trickles_in_times_out_within_the_timeout(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_001"})
        hostile_upstream.drip_next(200, pause_s=0.1)  # 20 s for the whole body, a byte at a time
        started = time.monotonic()
        result = await client.call_tool(FIND, {"action": "list"})
        elapsed = time.monotonic() - started
    text = result_text(result)
    assert result.is_error and f"the API did not answer within {TIMEOUT_S:g} s" in text, text
    assert elapsed <= TIMEOUT_S + 1, elapsed


async def test_an_answer_just_under_the_cap_is_read_and_cut_to_the_budget(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.huge_next(CAP_BYTES - 1024)
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, {"action": "search", "query": "Sale"})
    assert not result.is_error, result_text(result)
    data = result_json(result)
    assert len(result_text(result)) / 4 <= 20_000
    # A list body without the mapped 'campaigns' key is shown as the API sent it, cut and announced (R4).
    assert data["truncated"]["reason"].startswith("the full result is larger than")
