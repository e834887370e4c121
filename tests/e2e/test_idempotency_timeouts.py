"""Idempotency keys on POST (E4) and the timeout of every upstream call (P5): the ads example with
`idempotency_key` and a one-second timeout, generated into a temp dir and served in this process,
calling the Ads API on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.e2e.conftest import TOKEN
from tests.e2e.packages import imported, write_package
from tests.support.mcp_client import result_text
from tests.support.paths import SPECS
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.e2e]

CREATE = {"action": "create", "name": "Year End", "daily_budget_krw": 250000, "objective": "traffic"}


def _variant(tmp_path: Path) -> Path:
    """specs/ads with an Idempotency-Key header on POST and a timeout of one second."""
    mapping = (SPECS / "ads" / "mapping.yaml").read_text(encoding="utf-8")
    mapping = mapping.replace(
        "  timeout_s: 30\n", "  timeout_s: 1\n  idempotency_key: {header: Idempotency-Key}\n"
    )
    assert "idempotency_key" in mapping
    (tmp_path / "mapping.yaml").write_text(mapping, encoding="utf-8")
    (tmp_path / "ads.openapi.yaml").write_bytes((SPECS / "ads" / "ads.openapi.yaml").read_bytes())
    out = tmp_path / "out"
    write_package(tmp_path / "ads.openapi.yaml", tmp_path / "mapping.yaml", out)
    return out


def _spec_declares_the_header(tmp_path: Path) -> Path:
    """specs/ads unchanged but for createCampaign declaring an Idempotency-Key header."""
    spec = (SPECS / "ads" / "ads.openapi.yaml").read_text(encoding="utf-8")
    anchor = "      operationId: createCampaign\n"
    assert anchor in spec
    spec = spec.replace(
        anchor,
        anchor + "      parameters:\n        - {name: Idempotency-Key, in: header, "
        "description: Makes a retried request apply once., schema: {type: string}}\n",
    )
    (tmp_path / "ads.openapi.yaml").write_text(spec, encoding="utf-8")
    (tmp_path / "mapping.yaml").write_bytes((SPECS / "ads" / "mapping.yaml").read_bytes())
    out = tmp_path / "out"
    write_package(tmp_path / "ads.openapi.yaml", tmp_path / "mapping.yaml", out)
    return out


def _calls(out: Path, script: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        with imported(out, "ads_mcp") as server_module:
            from ads_mcp._runtime.app import build_server  # type: ignore[import-not-found]

            async with Client(build_server(server_module.CONFIG, server_module.TOOLS)) as client:
                return [await client.call_tool(name, arguments) for name, arguments in script]

    return anyio.run(run)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with AdsUpstream(token=TOKEN) as upstream:
        monkeypatch.setenv("ADS_BASE_URL", upstream.base_url)
        monkeypatch.setenv("ADS_API_TOKEN", TOKEN)
        yield _variant(tmp_path), upstream


def test_every_post_carries_its_own_idempotency_key(served) -> None:
    out, upstream = served
    results = _calls(
        out,
        [
            ("ads_campaign_change", CREATE),
            ("ads_campaign_change", CREATE),
            ("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_001"}),
        ],
    )
    assert not any(r.is_error for r in results), [result_text(r) for r in results]
    first, second, read = upstream.requests
    assert first.method == second.method == "POST" and read.method == "GET"
    assert len(first.headers["idempotency-key"]) >= 16
    assert first.headers["idempotency-key"] != second.headers["idempotency-key"]  # two calls, two changes
    assert "idempotency-key" not in read.headers


def test_a_timed_out_post_is_sent_again_with_the_same_key(served) -> None:
    out, upstream = served
    upstream.fail_next(503, delay_s=3.0)  # answered only after the server's 1 s timeout
    [created] = _calls(out, [("ads_campaign_change", CREATE)])
    assert not created.is_error, result_text(created)
    timed_out, retried = upstream.requests
    assert timed_out.headers["idempotency-key"] == retried.headers["idempotency-key"]


def test_a_post_that_times_out_twice_says_check_before_repeating(served) -> None:
    out, upstream = served
    upstream.fail_next(503, delay_s=3.0, times=2)
    [unknown] = _calls(out, [("ads_campaign_change", CREATE)])
    text = result_text(unknown)
    assert (
        unknown.is_error
        and "did not answer within 1 s" in text
        and "the outcome of 'create' is unknown" in text
    )
    assert "Do not repeat 'create' yet" in text  # E4: an unknown outcome is not "retry"


def test_a_key_the_spec_declares_is_filled_by_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _spec_declares_the_header(tmp_path)
    contract = json.loads((out / "ads_mcp" / "tools.json").read_text(encoding="utf-8"))
    change = next(t for t in contract if t["name"] == "ads_campaign_change")
    assert not any(
        "idempotency" in name for name in change["inputSchema"]["properties"]
    )  # not the agent's to invent
    with AdsUpstream(token=TOKEN) as upstream:
        monkeypatch.setenv("ADS_BASE_URL", upstream.base_url)
        monkeypatch.setenv("ADS_API_TOKEN", TOKEN)
        [created, paused] = _calls(
            out,
            [
                ("ads_campaign_change", CREATE),
                ("ads_campaign_change", {"action": "pause", "campaign_id": "cmp_001"}),
            ],
        )
    assert not created.is_error and not paused.is_error
    create, pause = upstream.requests
    assert len(create.headers["idempotency-key"]) >= 16
    assert (
        "idempotency-key" not in pause.headers
    )  # its operation declares none, and no mapping-wide key is set


def test_an_apply_that_timed_out_is_never_sent_again(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """E4 for previews: the PATCH may have taken effect, so the id is spent; the agent checks first."""
    out, upstream = served
    monkeypatch.setenv("MCP_STORE_URL", f"sqlite://{tmp_path / 'p.db'}")

    async def run() -> list[Any]:
        with imported(out, "ads_mcp") as server_module:
            from ads_mcp._runtime.app import build_server  # type: ignore[import-not-found]

            async with Client(build_server(server_module.CONFIG, server_module.TOOLS)) as client:
                preview = await client.call_tool(
                    "ads_budget_change_preview", {"campaign_id": "cmp_003", "new_daily_budget_krw": 110_000}
                )
                upstream.fail_next(200, {"id": "cmp_003"}, delay_s=3.0)  # both tries answer too late
                upstream.fail_next(200, {"id": "cmp_003"}, delay_s=3.0)
                preview_id = preview.structured_content["preview_id"]
                first = await client.call_tool("ads_budget_change_apply", {"preview_id": preview_id})
                again = await client.call_tool("ads_budget_change_apply", {"preview_id": preview_id})
                return [first, again]

    first, again = anyio.run(run)
    assert first.is_error and "the outcome of 'set' is unknown" in result_text(first)
    assert "(check the outcome before doing anything else)" in result_text(first)
    assert again.is_error and "this id is not sent again" in result_text(again)
    assert "call ads_budget_change_preview again" in result_text(again)
    assert [r.method for r in upstream.requests].count("PATCH") == 1
