"""Money, sizes and special values as real APIs send them (issue 17 defects 1 and 2, issue 12 defect 6).

Each server is generated from a fragment of a real spec (tests/fixtures/realspecs/, cut verbatim from
the pinned corpus by extract.py), run as a stdio subprocess, driven by the official MCP client, and
calls a recording stand-in on 127.0.0.1 (tests/upstreams/realspecs.py) that keeps the API's units, so
each test reads what went out on the wire. Prism, serving the same fragment, judges every request the
stand-ins receive (PRISM_SPECS, tests/support/prism.py).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.packages import write_package
from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.upstreams.realspecs import DockerUpstream, LinodeUpstream, SquareUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

REAL = ROOT / "tests" / "fixtures" / "realspecs"
# .cache/corpus/package/api/squareup.com.json: /paths/~1v2~1payments/post (CreatePayment),
# /paths/~1v2~1payments~1{payment_id}/get (GetPayment), /paths/~1v2~1payments~1{payment_id}/put
# (UpdatePayment); money is /components/schemas/Money ({amount: int64 minor units, currency}).
SQUARE = (REAL / "square-payments.json", REAL / "square.mapping.yaml")
# .cache/corpus/package/api/linode.com.json: /paths/~1linode~1instances~1{linodeId}~1disks/post and
# /paths/~1linode~1instances~1{linodeId}~1disks~1{diskId}/get; size is /components/schemas/Disk/properties/size
# ("The size of the Disk in MB.").
LINODE = (REAL / "linode-disks.json", REAL / "linode.mapping.yaml")
# .cache/corpus/package/api/docker.com/engine.json: /paths/~1containers~1{id}~1update/post; MemorySwap is
# /components/schemas/Resources/properties/MemorySwap ("Set as `-1` to enable unlimited swap.").
DOCKER = (REAL / "docker-update.json", REAL / "docker.mapping.yaml")
TOKEN = "sq-test-token-4f1d"
# Prism judges every request these stand-ins receive against the fragment they answer for.
PRISM_SPECS = {SquareUpstream: SQUARE[0], LinodeUpstream: LINODE[0], DockerUpstream: DOCKER[0]}


def _package(tmp_path_factory: pytest.TempPathFactory, pair: tuple[Path, Path], name: str) -> Path:
    out = tmp_path_factory.mktemp(name) / name
    write_package(pair[0], pair[1], out)
    return out


@pytest.fixture(scope="module")
def square_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _package(tmp_path_factory, SQUARE, "square")


@pytest.fixture(scope="module")
def linode_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _package(tmp_path_factory, LINODE, "linode")


@pytest.fixture(scope="module")
def docker_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _package(tmp_path_factory, DOCKER, "docker")


@pytest.fixture
def square() -> Iterator[SquareUpstream]:
    with SquareUpstream() as upstream:
        yield upstream


def serving(package: Path, name: str, base_url: str, tmp: Path) -> tuple[list[str], dict[str, str]]:
    env = {
        "PYTHONPATH": str(package),
        f"{name.upper()}_BASE_URL": base_url,
        f"{name.upper()}_TOKEN": TOKEN,
        "MCP_STORE_URL": f"sqlite://{tmp / 'previews.db'}",
    }
    return [sys.executable, "-m", f"{name}_mcp"], env


def create_args(amount: float, currency: str, **extra: Any) -> dict[str, Any]:
    return {
        "action": "create",
        "source_id": "cnon:card-nonce-ok",
        "idempotency_key": f"key-{currency}-{amount}",
        "amount": amount,
        "currency": currency,
        **extra,
    }


# ---- issue 17 defect 1: ISO 4217 minor units ------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "minor"),
    [
        (500, "JPY", 500),
        (12.34, "USD", 1234),
        (0.99, "EUR", 99),
        (1.5, "KWD", 1500),
        (0.125, "KWD", 125),
        (2.005, "BHD", 2005),
    ],
    ids=[
        "JPY-0-decimals",
        "USD-2-decimals",
        "EUR-2-decimals",
        "KWD-3-decimals",
        "KWD-fils",
        "BHD-3-decimals",
    ],
)
async def test_amounts_go_out_in_the_currencys_own_minor_units(
    square_package: Path, square: SquareUpstream, tmp_path: Path, amount: float, currency: str, minor: int
) -> None:
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    async with stdio_client(command, env) as client:
        result = await client.call_tool("square_payment_create", create_args(amount, currency))
    assert not result.is_error, result_text(result)
    [sent] = square.requests
    assert sent.json["amount_money"] == {"amount": minor, "currency": currency}
    assert isinstance(sent.json["amount_money"]["amount"], int)
    assert sent.headers["authorization"] == f"Bearer {TOKEN}"
    # The answer's amounts are shown in the main unit the agent passed, under a name that says so,
    # inside Square's {"payment": ...} envelope: every Money of it, the ones Square computed too.
    payment = result_json(result)["payment"]
    for money in ("amount_money", "total_money", "approved_money"):
        assert payment[money] == {"amount_major": amount, "currency": currency}, money


@pytest.mark.parametrize(
    ("amount", "currency", "said"),
    [
        (500.5, "JPY", "amount=500.5 is finer than the API accepts: it takes whole JPY minor units"),
        (1.0005, "KWD", "amount=1.0005 is finer than the API accepts: it takes whole KWD minor units"),
        (0.0001, "BHD", "amount=0.0001 is finer than the API accepts: it takes whole BHD minor units"),
        (12.345, "USD", "amount=12.345 is finer than the API accepts"),
        (9.999, "EUR", "amount=9.999 is finer than the API accepts"),
        (5, "XYZ", "currency='XYZ' is not an ISO 4217 currency code this server knows"),
    ],
)
async def test_amounts_no_currency_can_carry_are_refused_before_any_request(
    square_package: Path, square: SquareUpstream, tmp_path: Path, amount: float, currency: str, said: str
) -> None:
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    async with stdio_client(command, env) as client:
        result = await client.call_tool("square_payment_create", create_args(amount, currency))
    assert result.is_error
    assert said in result_text(result)
    assert square.requests == []


async def test_a_currency_left_inside_its_object_still_sets_the_factor(
    square_package: Path, square: SquareUpstream, tmp_path: Path
) -> None:
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    args = create_args(10, "KWD", app_fee=0.25, app_fee_money={"currency": "KWD"})
    async with stdio_client(command, env) as client:
        result = await client.call_tool("square_payment_create", args)
    assert not result.is_error, result_text(result)
    assert square.requests[0].json["app_fee_money"] == {"currency": "KWD", "amount": 250}


async def test_an_amount_without_its_currency_names_the_argument_to_add(
    square_package: Path, square: SquareUpstream, tmp_path: Path
) -> None:
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    args = create_args(10, "USD", tip=2)  # a tip without tip_currency
    async with stdio_client(command, env) as client:
        result = await client.call_tool("square_payment_create", args)
    assert result.is_error
    assert "Pass tip_currency (an ISO 4217 code such as USD, JPY or KWD) with tip" in result_text(result)
    assert square.requests == []


async def test_the_contract_states_the_factor_and_takes_decimals(
    square_package: Path, square: SquareUpstream, tmp_path: Path
) -> None:
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    async with stdio_client(command, env) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
    properties = tools["square_payment_create"]["inputSchema"]["properties"]
    amount = properties["amount"]
    assert amount["type"] == "number" and "format" not in amount  # a decimal amount is not int64
    text = amount["description"]
    assert "1 USD = 100, 1 JPY = 1, 1 KWD = 1000" in text
    assert "the currency that currency names" in text
    assert "smallest denomination" not in text and "cents" not in text  # the spec's minor-unit words go
    assert "amount_money" not in properties  # both of its fields are arguments of their own


# ---- issue 17 defect 2: money inside objects, guarded -----------------------------------------------


async def test_a_tip_raised_25_times_is_refused_with_the_approval_path(
    square_package: Path, square: SquareUpstream, tmp_path: Path
) -> None:
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    async with stdio_client(command, env) as client:
        result = await client.call_tool(
            "square_payment_tip_change_preview",
            {"payment_id": "pay_tip", "idempotency_key": "k-25x", "tip": 75, "tip_currency": "USD"},
        )
    assert result.is_error
    text = result_text(result)
    assert "tip 75 is 2400% above the current 3; changes of more than +50% need approval" in text
    assert "ask the user to confirm it with the buyer" in text
    assert [r.method for r in square.requests] == ["GET"]  # read the current tip, changed nothing


async def test_a_tip_within_the_limit_is_previewed_in_dollars_and_applied_in_cents(
    square_package: Path, square: SquareUpstream, tmp_path: Path
) -> None:
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    async with stdio_client(command, env) as client:
        preview = await client.call_tool(
            "square_payment_tip_change_preview",
            {"payment_id": "pay_tip", "idempotency_key": "k-ok", "tip": 4.25, "tip_currency": "USD"},
        )
        assert not preview.is_error, result_text(preview)
        shown = result_json(preview)
        [change] = [c for c in shown["changes"] if c["parameter"] == "tip"]
        assert (change["field"], change["before"], change["after"]) == ("payment.tip_money.amount", 3, 4.25)
        applied = await client.call_tool(
            "square_payment_tip_change_apply", {"preview_id": shown["preview_id"]}
        )
    assert not applied.is_error, result_text(applied)
    put = square.requests[-1]
    assert (put.method, put.path) == ("PUT", "/v2/payments/pay_tip")
    assert put.json == {
        "idempotency_key": "k-ok",
        "payment": {"tip_money": {"amount": 425, "currency": "USD"}},
    }
    payment = result_json(applied)["payment"]
    assert payment["tip_money"] == {"amount_major": 4.25, "currency": "USD"}  # not renamed 'tip'
    assert payment["amount_money"] == {"amount_major": 10, "currency": "USD"}
    assert payment["total_money"] == {"amount_major": 14.25, "currency": "USD"}


# ---- issue 12 defect 6: results and descriptions in the agent's unit; special values ------------------


async def test_a_disk_size_goes_out_in_mb_and_comes_back_in_gb(linode_package: Path, tmp_path: Path) -> None:
    with LinodeUpstream() as linode:
        command, env = serving(linode_package, "linode", linode.base_url, tmp_path)
        async with stdio_client(command, env) as client:
            tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
            created = await client.call_tool(
                "linode_disk_create", {"action": "create", "linode_id": 123, "size_gb": 2, "label": "data"}
            )
            assert not created.is_error, result_text(created)
            disk_id = result_json(created)["id"]
            got = await client.call_tool(
                "linode_disk_find", {"action": "get", "linode_id": 123, "disk_id": disk_id}
            )
    assert linode.requests[0].json == {"size": 2048, "label": "data"}
    assert result_json(created)["size_gb"] == 2 and "size" not in result_json(created)
    assert result_json(got)["size_gb"] == 2  # another tool's result, the same unit and name
    size = tools["linode_disk_create"]["inputSchema"]["properties"]["size_gb"]["description"]
    assert size.startswith("The size of the Disk in GB.") and " in MB" not in size
    assert "(1 gb = 1024 mb)" in size


@pytest.mark.parametrize(("mib", "sent"), [(512, 536870912), (-1, -1), (0.5, 524288)])
async def test_unlimited_swap_is_sent_as_is_and_other_values_scaled(
    docker_package: Path, tmp_path: Path, mib: float, sent: int
) -> None:
    with DockerUpstream() as docker:
        command, env = serving(docker_package, "docker", docker.base_url, tmp_path)
        async with stdio_client(command, env) as client:
            tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
            result = await client.call_tool(
                "docker_container_limits", {"action": "update", "id": "c2ada9df5af8", "memory_swap_mib": mib}
            )
    assert not result.is_error, result_text(result)
    assert docker.requests[0].json == {"MemorySwap": sent}
    text = tools["docker_container_limits"]["inputSchema"]["properties"]["memory_swap_mib"]["description"]
    assert "Set as `-1` to enable unlimited swap." in text and "-1 is sent as is, not converted." in text


async def test_a_fixed_currency_converts_by_its_own_decimals(
    square_package: Path, square: SquareUpstream, tmp_path: Path
) -> None:
    """{agent: jpy, upstream: minor}: 500 JPY is 500 minor units, not 50000 (the old 'x 100 cents')."""
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    async with stdio_client(command, env) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
        args = {
            "action": "create",
            "source_id": "cash",
            "idempotency_key": "k-jpy",
            "amount_jpy": 500,
            "tip_jpy": 50,
        }
        result = await client.call_tool("square_payment_record_jpy", args)
    assert not result.is_error, result_text(result)
    [sent] = square.requests
    assert sent.json["amount_money"] == {"amount": 500, "currency": "JPY"}
    assert sent.json["tip_money"] == {"amount": 50, "currency": "JPY"}
    properties = tools["square_payment_record_jpy"]["inputSchema"]["properties"]
    assert "1 JPY = 1 minor unit (JPY has no decimals)" in properties["amount_jpy"]["description"]
    assert "In the main unit of JPY," in properties["tip_jpy"]["description"]


# ---- a result unit applies to the schema it was derived from, by JSON pointer ------------------------


async def test_every_amount_of_a_payment_read_is_in_one_unit(
    square_package: Path, square: SquareUpstream, tmp_path: Path
) -> None:
    """The converted arguments are Money amounts (#/components/schemas/Money/properties/amount), so
    every Money of a payment is shown alike, in a tool that converts no argument of its own: never
    amount_money in USD beside total_money in cents, nor tip_money's amount renamed after an argument."""
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    async with stdio_client(command, env) as client:
        result = await client.call_tool(
            "square_payment_find", {"action": "get", "payment_id": "pay_tip", "response_format": "detailed"}
        )
    assert not result.is_error, result_text(result)
    payment = result.structured_content
    assert payment == result_json(result)
    assert payment["amount_money"] == {"amount_major": 10, "currency": "USD"}
    assert payment["tip_money"] == {"amount_major": 3, "currency": "USD"}
    assert payment["total_money"] == {"amount_major": 13, "currency": "USD"}
    assert payment["approved_money"] == {"amount_major": 13, "currency": "USD"}
    assert "note" not in payment  # nothing was left unconverted


async def test_amounts_summed_in_floats_are_whole_cents(
    square_package: Path, square: SquareUpstream, tmp_path: Path
) -> None:
    """0.1 + 0.2 is 0.30000000000000004 in a float: 30 cents all the same, not "finer than the API"."""
    command, env = serving(square_package, "square", square.base_url, tmp_path)
    async with stdio_client(command, env) as client:
        result = await client.call_tool(
            "square_payment_create", create_args(0.1 + 0.2, "USD", tip=1.1 + 2.2, tip_currency="USD")
        )
    assert not result.is_error, result_text(result)
    [sent] = square.requests
    assert sent.json["amount_money"] == {"amount": 30, "currency": "USD"}
    assert sent.json["tip_money"] == {"amount": 330, "currency": "USD"}


async def test_a_volume_keeps_its_own_unit_beside_converted_disks(
    linode_package: Path, tmp_path: Path
) -> None:
    """size_gb converts a Disk's size (MB); a Volume's size is #/components/schemas/Volume/properties/size,
    in GiB already: 100 stays 100 under its own name, never 0.09765625 as size_gb."""
    with LinodeUpstream() as linode:
        command, env = serving(linode_package, "linode", linode.base_url, tmp_path)
        async with stdio_client(command, env) as client:
            disk = await client.call_tool(
                "linode_disk_create", {"action": "create", "linode_id": 123, "size_gb": 2, "label": "d"}
            )
            volume = await client.call_tool(
                "linode_volume_find", {"action": "get", "volume_id": 12345, "response_format": "detailed"}
            )
    assert not disk.is_error and not volume.is_error, result_text(volume)
    assert result_json(disk)["size_gb"] == 2
    shown = volume.structured_content
    assert shown == result_json(volume)
    assert shown["size"] == 100 and "size_gb" not in shown and "note" not in shown
