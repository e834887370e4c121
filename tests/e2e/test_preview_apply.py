"""Preview, then apply (S1), guard rules (S2) and preview handles (S3), on the generated ads server:
installed in its own venv, run as a subprocess (stdio, or HTTP replicas sharing a SQLite file or a real
redis-server), driven by the official MCP client, against the Ads API on 127.0.0.1."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.e2e.conftest import InstalledServer, server_env
from tests.support.mcp_client import result_json, result_text, stdio_client
from tests.support.processes import free_port, http_server, redis_server
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PREVIEW = "ads_budget_change_preview"
APPLY = "ads_budget_change_apply"
PREVIEW_ID = re.compile(r"^pv\.[A-Za-z0-9_-]{20,64}\.[A-Za-z0-9_-]{16,64}$")
CONCURRENT_APPLIES = 50


def _env(upstream: AdsUpstream, store: Path) -> dict[str, str]:
    return server_env(upstream, MCP_STORE_URL=f"sqlite://{store}")


def _patches(upstream: AdsUpstream) -> list[Any]:
    return [r for r in upstream.requests if r.method == "PATCH"]


async def test_seed_case_find_preview_apply(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, tmp_path: Path
) -> None:
    async with stdio_client(ads_server.command, _env(ads_upstream, tmp_path / "p.db")) as client:
        found = await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_003"})
        assert found.structured_content["daily_budget"] == 100_000
        preview = await client.call_tool(PREVIEW, {"campaign_id": "cmp_003", "new_daily_budget_krw": 150_000})
        assert not preview.is_error, result_text(preview)
        assert _patches(ads_upstream) == []  # a preview changes nothing
        shown = preview.structured_content
        assert shown == result_json(preview)  # R5
        assert PREVIEW_ID.match(shown["preview_id"]) and shown["valid_minutes"] == 10
        assert shown["changes"] == [
            {
                "parameter": "new_daily_budget_krw",
                "field": "daily_budget",
                "before": 100_000,
                "after": 150_000,
                "difference": 50_000,
                "difference_pct": 50.0,
            }
        ]
        assert shown["target"] == {"campaign_id": "cmp_003"} and APPLY in shown["next_step"]
        applied = await client.call_tool(APPLY, {"preview_id": shown["preview_id"]})
        again = await client.call_tool(APPLY, {"preview_id": shown["preview_id"]})
    assert not applied.is_error, result_text(applied)
    assert applied.structured_content["daily_budget"] == 150_000
    assert again.structured_content == applied.structured_content  # the first result, once more
    [patch] = _patches(ads_upstream)  # one id, one effect
    assert patch.path == "/campaigns/cmp_003/budget" and patch.json == {"daily_budget": 150_000}
    assert ads_upstream.campaigns["cmp_003"]["daily_budget"] == 150_000


async def test_a_rise_past_the_guard_names_the_approval_path(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, tmp_path: Path
) -> None:
    async with stdio_client(ads_server.command, _env(ads_upstream, tmp_path / "p.db")) as client:
        refused = await client.call_tool(PREVIEW, {"campaign_id": "cmp_003", "new_daily_budget_krw": 150_001})
    text = result_text(refused)
    assert refused.is_error and refused.structured_content is None
    assert "new_daily_budget_krw 150001 is 50% above the current 100000" in text
    assert "+50% need approval" in text and "owner's approval" in text and "(needs a human)" in text  # S2, E3
    assert _patches(ads_upstream) == [] and ads_upstream.campaigns["cmp_003"]["daily_budget"] == 100_000


async def test_unknown_tampered_and_expired_ids_say_preview_again(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, tmp_path: Path
) -> None:
    store = tmp_path / "p.db"
    async with stdio_client(ads_server.command, _env(ads_upstream, store)) as client:
        preview = await client.call_tool(PREVIEW, {"campaign_id": "cmp_001", "new_daily_budget_krw": 450_000})
        preview_id = preview.structured_content["preview_id"]
        nonce, signature = preview_id.split(".")[1:]
        unknown = await client.call_tool(APPLY, {"preview_id": f"pv.{'A' * 24}.{'B' * 24}"})
        flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
        tampered = await client.call_tool(APPLY, {"preview_id": f"pv.{nonce}.{flipped}"})
        other = nonce[:-1] + ("x" if nonce[-1] != "x" else "y")  # never the same nonce again
        other_nonce = await client.call_tool(APPLY, {"preview_id": f"pv.{other}.{signature}"})
        non_ascii = await client.call_tool(APPLY, {"preview_id": f"pv.{nonce}.{signature[:-1]}é"})
        extra = await client.call_tool(APPLY, {"preview_id": preview_id, "new_daily_budget_krw": 1})
        with sqlite3.connect(store) as db:  # the store is the boundary: age the preview there
            db.execute("UPDATE previews SET expires_at = 1000")
        expired = await client.call_tool(APPLY, {"preview_id": preview_id})
    for refused in (unknown, tampered, other_nonce, non_ascii):
        text = result_text(refused)
        assert refused.is_error and "is not one this server issued to you" in text, text
        assert f"Call {PREVIEW} with the change you want" in text
        # It may be an id from before a lost signing key: never "nothing was changed", check first.
        assert "This call sent nothing" in text and "nothing was changed" not in text
    assert extra.is_error and "takes only preview_id; it got new_daily_budget_krw" in result_text(extra)
    assert expired.is_error and "preview_id expired at 1970-01-01T00:16:40Z" in result_text(expired)
    assert f"Call {PREVIEW} again" in result_text(expired)
    assert _patches(ads_upstream) == []


async def test_apply_after_an_upstream_failure_can_be_repeated(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, tmp_path: Path
) -> None:
    async with stdio_client(ads_server.command, _env(ads_upstream, tmp_path / "p.db")) as client:
        preview = await client.call_tool(PREVIEW, {"campaign_id": "cmp_003", "new_daily_budget_krw": 120_000})
        preview_id = preview.structured_content["preview_id"]
        ads_upstream.fail_next(503, {"message": "budget service unavailable"})
        failed = await client.call_tool(APPLY, {"preview_id": preview_id})
        assert ads_upstream.campaigns["cmp_003"]["daily_budget"] == 100_000
        retried = await client.call_tool(APPLY, {"preview_id": preview_id})
        again = await client.call_tool(APPLY, {"preview_id": preview_id})
    text = result_text(failed)
    assert failed.is_error and "HTTP 503" in text and "budget service unavailable" in text
    assert "The preview stays valid until" in text and "apply the same preview_id again" in text
    assert not retried.is_error and retried.structured_content["daily_budget"] == 120_000
    assert again.structured_content == retried.structured_content
    assert len(_patches(ads_upstream)) == 2  # the failed attempt and the one that took effect


@pytest.mark.parametrize("store_kind", ["sqlite", "redis"])
async def test_concurrent_applies_of_one_id_patch_once(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, tmp_path: Path, store_kind: str
) -> None:
    """Two HTTP replicas share one store; 50 applies of one preview id at once, split between them."""
    with _store(store_kind, tmp_path) as store_url:
        env = {**server_env(ads_upstream), "MCP_STORE_URL": store_url}
        with http_server(ads_server.command, env) as first, http_server(ads_server.command, env) as second:
            async with Client(first) as one, Client(second) as other:
                preview = await one.call_tool(
                    PREVIEW, {"campaign_id": "cmp_005", "new_daily_budget_krw": 900_000}
                )
                assert not preview.is_error, result_text(preview)
                preview_id = preview.structured_content["preview_id"]
                results: list[Any] = []

                async def apply(client: Client) -> None:
                    results.append(await client.call_tool(APPLY, {"preview_id": preview_id}))

                async with anyio.create_task_group() as group:
                    for n in range(CONCURRENT_APPLIES):
                        group.start_soon(apply, one if n % 2 else other)
    assert len(results) == CONCURRENT_APPLIES
    assert [result_text(r) for r in results if r.is_error] == []
    assert {r.structured_content["daily_budget"] for r in results} == {900_000}
    assert len({r.structured_content["updated_at"] for r in results}) == 1  # all got the first result
    [patch] = _patches(ads_upstream)
    assert patch.json == {"daily_budget": 900_000}


def _store(kind: str, tmp_path: Path):
    if kind == "redis":
        return redis_server(tmp_path)
    from contextlib import nullcontext

    return nullcontext(f"sqlite://{tmp_path / 'shared.db'}")


@pytest.mark.parametrize(
    ("store_url", "expected"),
    [
        ("redis://127.0.0.1:{closed_port}/0", "the preview store (Redis) is not available: ConnectionError"),
        ("postgres://127.0.0.1/previews", "MCP_STORE_URL is set to an address this server cannot use"),
    ],
)
async def test_a_store_it_cannot_use_is_a_tool_error_at_call_time(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, store_url: str, expected: str
) -> None:
    env = server_env(ads_upstream, MCP_STORE_URL=store_url.format(closed_port=free_port()))
    async with stdio_client(ads_server.command, env) as client:
        assert len((await client.list_tools()).tools) == 5  # starts and lists without its store (E3)
        refused = await client.call_tool(PREVIEW, {"campaign_id": "cmp_003", "new_daily_budget_krw": 110_000})
    assert refused.is_error and expected in result_text(refused), result_text(refused)
    assert _patches(ads_upstream) == []
