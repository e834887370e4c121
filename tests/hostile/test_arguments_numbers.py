"""Hostile numbers from the agent: huge integers, NaN, Infinity (issue 11, finding 7).

A number the server cannot hold as a finite float is refused as an argument to fix (E2), before
anything is sent (finite numbers only), and never escapes as a JSON-RPC "Internal server error" (E1):
the server's one catch-all turns whatever it did not foresee into a result without internals (E5).
Each test runs a generated server as a subprocess, against a recording upstream on 127.0.0.1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.runtime_servers import (
    SECRET,
    command,
    environment,
    example_env,
    generate,
    generate_from,
    has_traceback,
    raw_stdio_call,
)
from tests.support.mcp_client import result_text, stdio_client
from tests.upstreams.ads import AdsUpstream
from tests.upstreams.deploy import DeployUpstream
from tests.upstreams.units import ShippingUpstream

pytestmark = [pytest.mark.e2e]

UNITS = Path(__file__).resolve().parents[1] / "fixtures" / "units"
HUGE = 10**400  # a whole number no float can hold


@pytest.fixture(scope="module")
def ads_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate("ads", tmp_path_factory.mktemp("hostile-numbers"))


@pytest.fixture(scope="module")
def units_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile-units") / "units"
    return generate_from(UNITS / "shipping.openapi.yaml", UNITS / "mapping.yaml", out)


@pytest.fixture
def ads_upstream():
    with AdsUpstream(token=SECRET) as upstream:
        yield upstream


@pytest.fixture
def units_upstream():
    with ShippingUpstream(api_key=SECRET) as upstream:
        yield upstream


def _units_env(out: Path, upstream: ShippingUpstream) -> dict[str, str]:
    return environment(out, SHIP_BASE_URL=upstream.base_url, SHIP_API_KEY=SECRET)


def _with_literal(arguments: dict[str, object], literal: str) -> str:
    """The arguments as JSON text with the value "@" written as `literal` (which JSON cannot say)."""
    return json.dumps(arguments).replace('"@"', literal)


def _refused_as_argument(text: str, argument: str) -> None:
    assert argument in text and "(fix the input)" in text, text
    assert "finite" in text, text
    assert not has_traceback(text) and SECRET not in text


@pytest.mark.anyio
async def test_a_huge_integer_in_a_guarded_preview_is_an_argument_error(
    ads_package: Path, ads_upstream: AdsUpstream, tmp_path: Path
) -> None:
    """Today: OverflowError in the guard's percentage, a JSON-RPC "Internal server error"."""
    env = example_env("ads", ads_package, ads_upstream, tmp_path / "p.db")
    stderr = tmp_path / "stderr.log"
    async with stdio_client(command("ads_mcp"), env, stderr_file=stderr) as client:
        preview = await client.call_tool(
            "ads_budget_change_preview", {"campaign_id": "cmp_003", "new_daily_budget_krw": HUGE}
        )
        create = await client.call_tool(
            "ads_campaign_change",
            {"action": "create", "name": "Huge", "daily_budget_krw": -HUGE, "objective": "traffic"},
        )
    for result, argument in ((preview, "new_daily_budget_krw"), (create, "daily_budget_krw")):
        assert result.is_error
        _refused_as_argument(result_text(result), argument)
        assert len(result_text(result)) < 1000  # the 401 digits are not quoted in full
    assert ads_upstream.requests == []  # refused before the preview's read, and before any change
    assert not has_traceback(stderr.read_text())


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_nan_and_infinity_never_reach_the_api(
    units_package: Path, units_upstream: ShippingUpstream, literal: str
) -> None:
    """Today: Infinity passes `minimum` and is sent; NaN passes `minimum`/`maximum` and then fails
    converting to grams, an unexpected error. A raw client is the only one that can send them:
    the official client writes NaN as null."""
    env = _units_env(units_package, units_upstream)
    create = _with_literal(
        {"action": "create", "recipient": "Kim", "weight_kg": "@", "declared_value_usd": 1}, literal
    )
    value = _with_literal(
        {"action": "create", "recipient": "Kim", "weight_kg": 1, "declared_value_usd": "@"}, literal
    )
    listing = _with_literal({"action": "list", "max_transit_s": "@"}, literal)
    for tool, arguments, argument in (
        ("ship_shipment_change", create, "weight_kg"),
        ("ship_shipment_change", value, "declared_value_usd"),
        ("ship_shipments_find", listing, "max_transit_s"),
    ):
        answer = raw_stdio_call("ship_mcp", env, tool, arguments)
        assert "error" not in answer, answer  # a tool result, not a JSON-RPC error (E1)
        result = answer["result"]
        assert result["isError"] is True, result
        _refused_as_argument(result["content"][0]["text"], argument)
    assert units_upstream.requests == []


@pytest.mark.anyio
async def test_a_huge_integer_with_a_unit_is_refused_not_overflowed(
    units_package: Path, units_upstream: ShippingUpstream
) -> None:
    """Today: 10**400 s converted to milliseconds overflows a float: an unexpected error (needs a human)."""
    async with stdio_client(command("ship_mcp"), _units_env(units_package, units_upstream)) as client:
        listing = await client.call_tool("ship_shipments_find", {"action": "list", "max_transit_s": HUGE})
        nested = await client.call_tool("ship_shipments_find", {"action": "list", "max_transit_s": [HUGE]})
    assert listing.is_error
    _refused_as_argument(result_text(listing), "max_transit_s")
    assert nested.is_error and "(fix the input)" in result_text(nested)  # a list is not a number
    assert units_upstream.requests == []


def test_finite_large_numbers_still_work(units_package: Path, units_upstream: ShippingUpstream) -> None:
    """The refusal is about what no float holds, not about size: 1e300 s is a (silly) valid bound."""
    env = _units_env(units_package, units_upstream)
    answer = raw_stdio_call(
        "ship_mcp", env, "ship_shipments_find", json.dumps({"action": "list", "max_transit_s": 1e300})
    )
    assert "error" not in answer
    [request] = units_upstream.requests
    assert float(request.param("max_transit")) == pytest.approx(1e303)


@pytest.fixture(scope="module")
def deploy_discovery_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The deploy example with on-demand discovery: tools/list serves deploy_search_tools and
    deploy_call_tool, which runs a catalog tool from `arguments_json` text."""
    return generate(
        "deploy",
        tmp_path_factory.mktemp("hostile-discovery"),
        lambda mapping: mapping.replace("server:\n", "server:\n  discovery: search_tools\n", 1),
    )


@pytest.mark.anyio
async def test_the_discovery_tools_answer_hostile_text_with_results(
    deploy_discovery_package: Path, tmp_path: Path
) -> None:
    """Today: arguments_json nested 100,000 deep raises RecursionError past the discovery path's
    handler, a JSON-RPC "Internal server error"; NaN and 1e400 in it are JSON to Python."""
    deep = "[" * 100_000 + "]" * 100_000
    with DeployUpstream(key=SECRET) as upstream:
        env = example_env("deploy", deploy_discovery_package, upstream, tmp_path / "p.db")
        stderr = tmp_path / "stderr.log"
        async with stdio_client(command("deploy_mcp"), env, stderr_file=stderr) as client:
            nested = await client.call_tool(
                "deploy_call_tool", {"tool": "deploy_deployments_find", "arguments_json": deep}
            )
            finite = [
                await client.call_tool(
                    "deploy_call_tool",
                    {
                        "tool": "deploy_deployments_find",
                        "arguments_json": _with_literal(
                            {"action": "list", "service": "checkout", "limit": "@"}, literal
                        ),
                    },
                )
                for literal in ("NaN", "1e400", "1" + "0" * 400)
            ]
            searched = await client.call_tool("deploy_search_tools", {"query": "x" * 100_000, "limit": HUGE})
        assert upstream.requests == []
    assert nested.is_error and "(needs a human)" in result_text(nested)
    assert not has_traceback(result_text(nested)) and "RecursionError" in result_text(nested)
    for result in finite:
        assert result.is_error
        _refused_as_argument(result_text(result), "limit")
    assert searched.is_error and len(result_text(searched)) < 1000
    log = stderr.read_text()
    assert not has_traceback(log)
    assert "deploy_call_tool -> unexpected RecursionError at " in log  # the type and where (E5)


def test_a_whole_number_written_as_a_float_is_sent_as_an_integer(
    ads_package: Path, ads_upstream: AdsUpstream, tmp_path: Path
) -> None:
    """JSON Schema counts 20.0 an integer, so it passes; the API must still get `per_page=20`, never
    `per_page=20.0` (found by the fuzz test as `GET /pet/0.0`)."""
    env = example_env("ads", ads_package, ads_upstream, tmp_path / "previews.sqlite3")
    answer = raw_stdio_call("ads_mcp", env, "ads_campaigns_find", '{"action": "list", "limit": 20.0}')
    assert "error" not in answer and not answer["result"].get("isError"), answer
    [request] = ads_upstream.requests
    assert request.param("per_page") == "20"
