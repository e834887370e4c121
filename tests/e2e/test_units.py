"""Units and times (T5) and the server_info tool, end to end: the test-only Shipping API
(tests/fixtures/units/) generated into a package, run as a stdio subprocess, driven by the official
MCP client, calling a real HTTP upstream on 127.0.0.1 that counts grams, cents and milliseconds."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.packages import write_package
from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.upstreams.recording import DroppingUpstream
from tests.upstreams.units import ShippingUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FIXTURE = ROOT / "tests" / "fixtures" / "units"
API_KEY = "ship-secret-key-91c2"


@pytest.fixture(scope="module")
def ship_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ship") / "ship"
    write_package(FIXTURE / "shipping.openapi.yaml", FIXTURE / "mapping.yaml", out)
    return out


@pytest.fixture
def shipping() -> Iterator[ShippingUpstream]:
    with ShippingUpstream(api_key=API_KEY) as upstream:
        yield upstream


def ship_command() -> list[str]:
    return [sys.executable, "-m", "ship_mcp"]


def ship_env(package: Path, upstream: ShippingUpstream, **extra: str) -> dict[str, str]:
    return {"PYTHONPATH": str(package), "SHIP_BASE_URL": upstream.base_url, "SHIP_API_KEY": API_KEY, **extra}


async def test_agent_units_reach_the_upstream_in_its_units(
    ship_package: Path, shipping: ShippingUpstream
) -> None:
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        created = await client.call_tool(
            "ship_shipment_change",
            {
                "action": "create",
                "recipient": "Kim Minji",
                "weight_kg": 2.5,
                "declared_value_usd": 19.99,
                "pickup_at": "2026-11-02T09:30:00+09:00",
            },
        )
        listed = await client.call_tool("ship_shipments_find", {"action": "list", "max_transit_s": 86400})
    assert not created.is_error, result_text(created)
    create, listing = shipping.requests
    assert create.json == {
        "recipient": "Kim Minji",
        "weight": 2500,
        "declared_value": 1999,
        "pickup_at": "2026-11-02T09:30:00+09:00",
    }
    assert isinstance(create.json["weight"], int)  # a whole number of grams, not 2500.0
    assert listing.query == {"max_transit": ["86400000"]}
    assert [s["id"] for s in result_json(listed)["items"]] == ["shp_001", "shp_003"]
    # Issue 12 defect 6: results come back in the agent's units and names, as arguments go out.
    first = result_json(listed)["items"][0]
    assert (first["weight_kg"], first["declared_value_usd"]) == (1.2, 50)
    assert "weight" not in first and "declared_value" not in first
    booked = result_json(created)
    assert (booked["weight_kg"], booked["declared_value_usd"]) == (2.5, 19.99)


async def test_the_contract_speaks_the_agents_units(ship_package: Path, shipping: ShippingUpstream) -> None:
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
    change = tools["ship_shipment_change"]["inputSchema"]["properties"]
    assert "weight" not in change and "declared_value" not in change
    weight = change["weight_kg"]
    assert (weight["type"], weight["minimum"], weight["maximum"]) == ("number", 0.001, 30)  # bounds restated
    assert weight["description"].startswith(
        "Weight in kilograms. The server converts it to grams for the API"
    )
    assert (
        tools["ship_shipments_find"]["description"]
        == (
            "List shipments or get one by id. Use it when you need a shipment's id or status, for example before "
            "cancelling it. Not for booking or cancelling; use ship_shipment_change for that. Returns shipment "
            "records in the units the arguments take: weight_kg in kilograms, declared_value_usd in USD. Does not "
            "return tracking "
            "events or the courier's name.\n\nActions (each needs what is in its parentheses):\n- list\n"
            "- get(shipment_id): Get one shipment."  # "List shipments." said nothing list and shipments_find do not
        )
    )  # T7: the mapping's sections, then the generated action list
    pickup = change["pickup_at"]["description"]
    assert "ISO 8601 with a UTC offset" in pickup and "relative times are refused" in pickup


async def test_values_finer_than_the_upstream_unit_are_refused(
    ship_package: Path, shipping: ShippingUpstream
) -> None:
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        result = await client.call_tool(
            "ship_shipment_change",
            {"action": "create", "recipient": "Kim", "weight_kg": 1.0005, "declared_value_usd": 5},
        )
    text = result_text(result)
    assert result.is_error and "weight_kg=1.0005 is finer than the API accepts" in text
    assert "Round weight_kg to a multiple of 0.001" in text and "(fix the input)" in text
    assert shipping.requests == []


@pytest.mark.parametrize("when", ["tomorrow", "2026-11-02T09:30:00", "2026-11-02", "2026-11-31T09:30:00Z"])
async def test_times_need_iso_8601_with_an_offset(
    ship_package: Path, shipping: ShippingUpstream, when: str
) -> None:
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        result = await client.call_tool("ship_shipments_find", {"action": "list", "picked_up_after": when})
    assert result.is_error
    assert (
        f'picked_up_after: "{when}" is not an ISO 8601 date-time with a UTC offset, such as '
        "2026-11-01T09:00:00+09:00"
    ) in result_text(result)
    assert shipping.requests == []


@pytest.mark.parametrize("field", ["weight", None])
async def test_upstream_rejection_names_the_agents_argument_and_unit(
    ship_package: Path, shipping: ShippingUpstream, field: str | None
) -> None:
    # Passes the server's own checks; the API has a rule of its own (with or without naming the field).
    shipping.fail_next(
        422,
        {
            "code": "invalid",
            "message": "weight must be at most 20000 for express pickup",
            **({"field": field} if field else {}),
        },
    )
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        result = await client.call_tool(
            "ship_shipment_change",
            {"action": "create", "recipient": "Kim", "weight_kg": 25, "declared_value_usd": 5},
        )
    text = result_text(result)
    assert result.is_error and "the API rejected the arguments of 'create' (HTTP 422)." in text
    assert "The API said: weight must be at most 20000 for express pickup" in text
    assert "The argument is weight_kg (the API calls it weight)." in text  # the agent's name, not the wire's
    assert "The API counts it in g; this server converts weight_kg from kg (1 kg = 1000 g)." in text
    assert "Next step (fix the input): Correct weight_kg and call again." in text


async def test_timeout_on_a_change_says_check_not_retry(
    ship_package: Path, shipping: ShippingUpstream
) -> None:
    shipping.fail_next(201, {"id": "shp_003"}, delay_s=10)  # slower than the mapping's timeout_s: 2
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        result = await client.call_tool(
            "ship_shipment_change",
            {"action": "create", "recipient": "Kim", "weight_kg": 1, "declared_value_usd": 5},
        )
    text = result_text(result)
    assert result.is_error and "the outcome of 'create' is unknown" in text  # E4
    assert "(check the outcome before doing anything else)" in text
    assert "Check with ship_shipments_find (action list) whether the change happened" in text
    assert "retry" not in text.lower()
    assert len(shipping.requests) == 1  # the server itself never retried


async def test_missing_api_key_gives_fix_steps_and_the_server_still_starts(
    ship_package: Path, shipping: ShippingUpstream, tmp_path: Path
) -> None:
    env = ship_env(ship_package, shipping)
    del env["SHIP_API_KEY"]
    async with stdio_client(ship_command(), env) as client:
        assert len((await client.list_tools()).tools) == 3
        result = await client.call_tool("ship_shipments_find", {"action": "get", "shipment_id": "shp_001"})
    text = result_text(result)
    assert (
        result.is_error and "SHIP_API_KEY is not set" in text and "(needs credentials or permission)" in text
    )
    assert "1. get an API key for the API; 2. set SHIP_API_KEY to it" in text
    assert "3. restart the server and call again" in text
    assert shipping.requests == []


async def test_server_info_says_what_is_configured_never_the_secret(
    ship_package: Path, shipping: ShippingUpstream, tmp_path: Path
) -> None:
    stderr = tmp_path / "stderr.log"
    async with stdio_client(ship_command(), ship_env(ship_package, shipping), stderr_file=stderr) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
        result = await client.call_tool("ship_server_info", {})
    info = tools["ship_server_info"]
    assert info["annotations"]["readOnlyHint"] is True and "outputSchema" in info
    assert not result.is_error and result.structured_content == result_json(result)  # R5
    assert result.structured_content == {
        "server": "ship",
        "version": "0.1.0",
        "base_url": shipping.base_url,
        "base_url_from": "environment variable SHIP_BASE_URL",
        "credentials": [{"env": "SHIP_API_KEY", "kind": "api_key", "configured": True}],
        "upstream": {"reachable": True, "status": 401},  # any HTTP answer: the API is there
    }
    assert API_KEY not in result_text(result) and API_KEY not in stderr.read_text()
    assert all("x-api-key" not in r.headers for r in shipping.requests)  # the probe sends no credentials


async def test_server_info_reports_an_unreachable_api(ship_package: Path, shipping: ShippingUpstream) -> None:
    env = ship_env(ship_package, shipping, SHIP_BASE_URL="http://127.0.0.1:9")
    del env["SHIP_API_KEY"]
    async with stdio_client(ship_command(), env) as client:
        result = await client.call_tool("ship_server_info", {})
    data = result.structured_content
    assert data["credentials"] == [{"env": "SHIP_API_KEY", "kind": "api_key", "configured": False}]
    assert data["upstream"]["reachable"] is False and "cannot connect" in data["upstream"]["problem"]


async def test_a_dropped_connection_on_a_change_says_check_not_retry(
    ship_package: Path, shipping: ShippingUpstream
) -> None:
    with DroppingUpstream() as dropping:
        env = ship_env(ship_package, shipping, SHIP_BASE_URL=dropping.base_url)
        async with stdio_client(ship_command(), env) as client:
            result = await client.call_tool(
                "ship_shipment_change", {"action": "cancel", "shipment_id": "shp_001"}
            )
        received = dropping.received
    text = result_text(result)
    assert received == 1  # the request arrived: it may have taken effect
    assert result.is_error and "so the outcome of 'cancel' is unknown" in text  # E4
    assert "Check with ship_shipments_find (action get) whether the change happened." in text
    assert "retry" not in text.lower()


async def test_values_summed_in_floats_reach_the_api_whole(
    ship_package: Path, shipping: ShippingUpstream
) -> None:
    """Float error is not a finer value: 0.1 + 0.2 kg is 300 g, 0.1 + 0.2 USD is 30 cents."""
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        created = await client.call_tool(
            "ship_shipment_change",
            {"action": "create", "recipient": "Kim", "weight_kg": 0.1 + 0.2, "declared_value_usd": 0.1 + 0.2},
        )
        listed = await client.call_tool("ship_shipments_find", {"action": "list", "max_transit_s": 0.1 + 0.2})
    assert not created.is_error, result_text(created)
    assert not listed.is_error, result_text(listed)
    create, listing = shipping.requests
    assert (create.json["weight"], create.json["declared_value"]) == (300, 30)
    assert listing.query == {"max_transit": ["300"]}


async def test_a_number_the_api_sends_as_a_string_is_left_and_announced(
    ship_package: Path, shipping: ShippingUpstream
) -> None:
    """A converted field that is not a number keeps its name and value, and the result's note says
    so: "1200" under weight_kg would read as 1200 kg."""
    shipping.fail_next(
        200,
        {"id": "shp_009", "recipient": "Lee", "weight": "1200", "declared_value": 5000, "status": "booked"},
    )
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
        result = await client.call_tool(
            "ship_shipments_find", {"action": "get", "shipment_id": "shp_009", "response_format": "detailed"}
        )
    assert not result.is_error, result_text(result)
    assert tools["ship_shipments_find"]["outputSchema"]["properties"]["note"] == {"type": "string"}
    shown = result.structured_content  # the client checked it against the tool's outputSchema
    assert shown == result_json(result)
    assert shown["weight"] == "1200" and "weight_kg" not in shown
    assert shown["declared_value_usd"] == 50  # the number beside it is converted as ever
    assert shown["note"] == "weight was not converted: the API sent a string."


async def test_the_server_s_note_never_writes_into_an_api_field_named_note(
    ship_package: Path, shipping: ShippingUpstream
) -> None:
    """A record with a `note` of its own (Kubernetes' events, Square's payments) keeps it as the API
    sent it; what the server has to say goes beside it, under `server_note` (R4: announced, never
    written into the API's data)."""
    shipping.fail_next(
        200,
        {"id": "shp_010", "recipient": "Kim", "weight": "900", "declared_value": 100, "note": "fragile"},
    )
    async with stdio_client(ship_command(), ship_env(ship_package, shipping)) as client:
        result = await client.call_tool(
            "ship_shipments_find", {"action": "get", "shipment_id": "shp_010", "response_format": "detailed"}
        )
    assert not result.is_error, result_text(result)
    shown = result.structured_content  # the client checked it against the tool's outputSchema
    assert shown["note"] == "fragile"
    assert shown["server_note"] == "weight was not converted: the API sent a string."
