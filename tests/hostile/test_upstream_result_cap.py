"""The result cap holds for every kind of result (issue 11, finding 4; R4): a single record, a change's
result and an apply's result, with the nested list that made them big cut and named (how many of how
many). The ads server's budget is 20,000 tokens (JSON characters / 4); a mapping's smaller budget holds
for discovery search results, previews, applies and server info too."""

# ruff: noqa: F401, F811 - hostile_package and hostile_upstream are pytest fixtures, imported to be used by name
from __future__ import annotations

import importlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.hostile.upstream_server import BUDGET_TOKENS, ads_client, hostile_package, hostile_upstream
from tests.support.mcp_client import result_json, result_text
from tests.support.paths import SPECS
from tests.support.venvs import run_mcpgen
from tests.upstreams.hostile import HostileUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

EVENTS = 30_000  # a history of about 3.3 MB


def _assert_cut_and_named(result: Any) -> dict[str, Any]:
    text = result_text(result)
    assert not result.is_error, text[:500]
    assert len(text) / 4 <= BUDGET_TOKENS, len(text)
    data = result_json(result)
    assert data == result.structured_content  # R5: the same JSON in both places
    assert 0 < len(data["history"]) < EVENTS and data["id"] == "cmp_001" and "daily_budget" in data
    assert f"history ({len(data['history'])} of {EVENTS} entries)" in data["truncated"]["lists_cut"]
    return data


async def test_a_nested_list_in_a_record_is_cut_and_named(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.nested_next(EVENTS)
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(
            "ads_campaigns_find", {"action": "get", "campaign_id": "cmp_001", "response_format": "detailed"}
        )
    _assert_cut_and_named(result)


async def test_a_change_result_is_cut_and_named(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.nested_next(EVENTS)
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool("ads_campaign_change", {"action": "resume", "campaign_id": "cmp_001"})
    _assert_cut_and_named(result)


async def test_an_apply_result_is_cut_and_named_and_so_is_its_replay(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        preview = await client.call_tool(
            "ads_budget_change_preview", {"campaign_id": "cmp_001", "new_daily_budget_krw": 110_000}
        )
        hostile_upstream.nested_next(EVENTS)
        applied = await client.call_tool(
            "ads_budget_change_apply", {"preview_id": preview.structured_content["preview_id"]}
        )
        replayed = await client.call_tool(
            "ads_budget_change_apply", {"preview_id": preview.structured_content["preview_id"]}
        )
    first = _assert_cut_and_named(applied)
    assert _assert_cut_and_named(replayed) == first


@pytest.fixture
def truncation(hostile_package: Path) -> Iterator[ModuleType]:
    """The runtime's truncation module, as generated into the hostile package."""
    sys.path.insert(0, str(hostile_package))
    try:
        yield importlib.import_module("ads_mcp._runtime.truncation")
    finally:
        sys.path.remove(str(hostile_package))
        for name in [n for n in sys.modules if n == "ads_mcp" or n.startswith("ads_mcp.")]:
            del sys.modules[name]


def test_cap_result_cuts_any_result_and_says_where(truncation: ModuleType) -> None:
    """The one function for results without a paging plan (previews, applies, server info)."""
    preview_like = {
        "preview_id": "pv.x.y",
        "target": {"campaign_id": "cmp_001"},
        "changes": [{"field": "tags", "before": [f"tag-{n}" for n in range(50_000)], "after": ["one"]}],
        "deep": {"a": {"b": {"c": {"d": list(range(100_000))}}}},
        "wide": {f"k{n}": n for n in range(100_000)},
    }
    capped = truncation.cap_result(preview_like, 2_000)
    assert len(json.dumps(capped, ensure_ascii=False)) / 4 <= 2_000
    assert capped["preview_id"] == "pv.x.y" and capped["target"] == {"campaign_id": "cmp_001"}
    cut = capped["truncated"]["lists_cut"]
    assert "changes[0].before (" in cut and "of 50000 entries" in cut and "deep.a.b.c.d (" in cut
    assert "wide (" in cut and "of 100000 fields" in cut
    assert capped["changes"][0]["after"] == ["one"]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    if depth > 3 or rng.random() < 0.35:
        return rng.choice(
            [None, True, 12, -2.5, 10**80, "x" * rng.randint(0, 3000), "\u0000" * 300, "é" * 40]
        )
    width = rng.choice([0, 1, 3, 30, 300] if depth < 2 else [0, 1, 3])
    if rng.random() < 0.5:
        return [_random_value(rng, depth + 1) for _ in range(width)]
    return {"k" * rng.randint(0, 300) + str(n): _random_value(rng, depth + 1) for n in range(min(width, 30))}


def test_any_result_fits_its_budget_and_a_cut_one_says_what_was_cut(truncation: ModuleType) -> None:
    rng = random.Random(11)
    for _ in range(300):
        data = {"a": _random_value(rng), "items": _random_value(rng)}
        budget = rng.choice([300, 1000, 2000, 20_000])
        capped = truncation.cap_result(data, budget)
        assert truncation.estimate_tokens(capped) <= budget
        # fit() cuts a result of more than 8 characters a token of budget without counting it whole.
        if (
            len(json.dumps(data, ensure_ascii=False)) <= 8 * budget
            and truncation.estimate_tokens(data) <= budget
        ):
            assert capped is data
        else:
            assert set(capped["truncated"]) - {"reason"}, capped["truncated"]  # a cut is always named


SMALL_BUDGET = 500  # the least max_result_tokens a mapping may set


@pytest.fixture(scope="module")
def small_budget_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """specs/ads with max_result_tokens 500, on-demand discovery and the server_info tool: every kind
    of result that has no paging plan (search, preview/apply, server info) must keep to that budget."""
    work = tmp_path_factory.mktemp("small-budget")
    mapping = (SPECS / "ads" / "mapping.yaml").read_text(encoding="utf-8")
    assert mapping.count("  timeout_s: 30\n") == 1
    mapping = mapping.replace(
        "  timeout_s: 30\n",
        f"  timeout_s: 30\n  max_result_tokens: {SMALL_BUDGET}\n  discovery: search_tools\n  server_info: true\n",
    )
    (work / "mapping.yaml").write_text(mapping, encoding="utf-8")
    out = work / "ads"
    completed = run_mcpgen(
        "generate", SPECS / "ads" / "ads.openapi.yaml", "-m", work / "mapping.yaml", "-o", out
    )
    assert completed.returncode == 0, completed.stderr
    return out


def _cut_to_the_small_budget(result: Any) -> dict[str, Any]:
    text = result_text(result)
    assert not result.is_error, text[:500]
    data = result_json(result)
    assert "truncated" in data, text[:500]
    # Cut at the mapping's budget, not the runtime's default of 20,000 tokens (R4).
    assert len(text) <= 2 * 4 * SMALL_BUDGET, len(text)
    return data


async def test_every_result_kind_keeps_the_mappings_budget(
    small_budget_package: Path, hostile_upstream: HostileUpstream
) -> None:
    long_base_url = hostile_upstream.base_url + "/" + "v" * 3_000
    async with ads_client(small_budget_package, hostile_upstream) as client:
        found = await client.call_tool("ads_search_tools", {"query": "campaign budget change find reports"})
        call = "ads_call_tool"
        preview = await client.call_tool(
            call,
            {
                "tool": "ads_budget_change_preview",
                "arguments": {"campaign_id": "cmp_001", "new_daily_budget_krw": 110_000},
            },
        )
        assert not preview.is_error, result_text(preview)
        hostile_upstream.nested_next(EVENTS)
        applied = await client.call_tool(
            call,
            {
                "tool": "ads_budget_change_apply",
                # Through the call tool a result is sent once, as text (the meta-tools declare no outputSchema).
                "arguments": {"preview_id": result_json(preview)["preview_id"]},
            },
        )
    _cut_to_the_small_budget(found)
    _cut_to_the_small_budget(applied)
    async with ads_client(small_budget_package, hostile_upstream, ADS_BASE_URL=long_base_url) as client:
        info = await client.call_tool(call, {"tool": "ads_server_info", "arguments": {}})
    assert _cut_to_the_small_budget(info)["server"] == "ads"
