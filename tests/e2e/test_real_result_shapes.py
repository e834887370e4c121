"""Result shapes of real APIs (issue 12 defects 1, 3, 9; issue 17 defects 8, 10), each from a fragment of
a real spec (tests/fixtures/shapes/shapes.openapi.yaml names the spec and JSON pointer of each): the
generated server runs as a stdio subprocess driven by the official MCP client, against a recording
loopback upstream that answers as the real API does (tests/upstreams/shapes.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.support.venvs import run_mcpgen
from tests.upstreams.shapes import (
    ACCOUNT_COUNT,
    BACKUP_COUNT,
    CHANNEL_COUNT,
    CUSTOMER_COUNT,
    ORDER_COUNT,
    PAYMENT_COUNT,
    ShapesUpstream,
)

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

SHAPES = ROOT / "tests" / "fixtures" / "shapes"
TOOL = "shapes_records_find"
BUDGET = 1500  # max_result_tokens in tests/fixtures/shapes/mapping.yaml
# Prism judges every request the stand-in receives against the spec it answers for (tests/support/prism.py).
PRISM_SPECS = {ShapesUpstream: SHAPES / "shapes.openapi.yaml"}


def o200k_tokens(text: str) -> int:
    import bpe_openai

    return len(bpe_openai.get_encoding("o200k_base").encode(text))


@pytest.fixture(scope="module")
def shapes_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shapes") / "shapes"
    completed = run_mcpgen(
        "generate", SHAPES / "shapes.openapi.yaml", "-m", SHAPES / "mapping.yaml", "-o", out
    )
    assert completed.returncode == 0, completed.stderr
    return out


@pytest.fixture
def upstream():
    with ShapesUpstream() as server:
        yield server


def client_for(package: Path, upstream: ShapesUpstream):
    env = {"PYTHONPATH": str(package), "SHAPES_BASE_URL": upstream.base_url}
    return stdio_client([sys.executable, "-m", "shapes_mcp"], env)


def assert_honest(data: dict[str, Any]) -> None:
    """has_more: true always comes with the call that gets the rest (issue 17 defect 8, R3, R4)."""
    if data.get("has_more") is True:
        assert "next_cursor" in data or "next_page" in data or "next_call" in data.get("truncated", {}), data


async def walk(client: Any, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Every result up to the last page, following a cut page's next_call or else next_cursor."""
    results: list[dict[str, Any]] = []
    for _ in range(40):  # bounded: a paging bug must fail, not loop
        result = await client.call_tool(TOOL, arguments)
        assert not result.is_error, result_text(result)
        assert o200k_tokens(result_text(result)) <= BUDGET  # issue 12 defect 9: the budget in real tokens
        data = result_json(result)
        assert_honest(data)
        results.append(data)
        if "next_call" in data.get("truncated", {}):
            arguments = data["truncated"]["next_call"]["arguments"]
        elif data["has_more"]:
            arguments = {**arguments, "cursor": data["next_cursor"]}
        else:
            return results
    raise AssertionError("paging never ended")


async def test_a_get_with_one_array_field_is_that_record(
    shapes_package: Path, upstream: ShapesUpstream
) -> None:
    """Issue 12 defect 1. box.com.json /paths/~1webhooks~1{webhook_id}/get: a Webhook has one array
    field, `triggers`; the result used to be {"items": [...triggers]}."""
    async with client_for(shapes_package, upstream) as client:
        data = result_json(await client.call_tool(TOOL, {"action": "webhook", "webhook_id": "3321123"}))
    assert "items" not in data and "has_more" not in data
    assert data["id"] == "3321123" and data["triggers"] == ["FILE.UPLOADED", "FILE.DOWNLOADED"]
    assert data["address"] == "https://example.com/webhooks"


async def test_a_google_list_envelope_is_a_list_paged_by_its_token(
    shapes_package: Path, upstream: ShapesUpstream
) -> None:
    """googleapis.com/metastore.json /paths/~1v1beta~1{parent}~1backups/get: {backups, nextPageToken,
    unreachable} has two arrays and used to be taken for one record."""
    async with client_for(shapes_package, upstream) as client:
        results = await walk(client, {"action": "backups", "parent": "projects/p1/services/s1", "limit": 5})
    names = [b["name"].rsplit("/", 1)[1] for r in results for b in r["items"]]
    assert names == [f"b{n:02d}" for n in range(1, BACKUP_COUNT + 1)]
    assert all("truncated" not in r for r in results)
    assert [(r.param("pageToken"), r.param("pageSize")) for r in upstream.requests] == [
        (None, "5"), ("tok-5", "5"), ("tok-10", "5"), ("tok-15", "5"), ("tok-20", "5"),
    ]  # fmt: skip


async def test_a_cut_cursor_page_goes_on_right_after_the_last_item_shown(
    shapes_package: Path, upstream: ShapesUpstream
) -> None:
    """Issue 12 defect 9: pages of 20 backups do not fit the budget; each cut result's next call shows
    the rest of that page, never an item already shown, and then the API's next page."""
    async with client_for(shapes_package, upstream) as client:
        results = await walk(client, {"action": "backups", "parent": "projects/p1/services/s1", "limit": 20})
    names = [b["name"].rsplit("/", 1)[1] for r in results for b in r["items"]]
    assert names == [f"b{n:02d}" for n in range(1, BACKUP_COUNT + 1)]  # each once, in order
    cut = [r for r in results if "truncated" in r]
    assert cut and all(r["has_more"] is True and "next_cursor" not in r for r in cut)
    assert cut[0]["truncated"]["shown"] == f"items 1-{len(cut[0]['items'])} of this page of 20"
    # Every request asks the API for a page of 20: a resumed page is the same page, less what was shown.
    assert {r.param("pageSize") for r in upstream.requests} == {"20"}
    assert {r.param("pageToken") for r in upstream.requests} == {None, "tok-20"}


async def test_azure_next_link_pages(shapes_package: Path, upstream: ShapesUpstream) -> None:
    """azure.com/storage.json /paths/~1subscriptions~1{subscriptionId}~1providers~1Microsoft.Storage~1
    storageAccounts/get: {value, nextLink}; the list used to end after the first page, without has_more."""
    async with client_for(shapes_package, upstream) as client:
        results = await walk(client, {"action": "accounts", "subscription_id": "sub1"})
    assert [a["name"] for r in results for a in r["items"]] == [
        f"acct{n}" for n in range(1, ACCOUNT_COUNT + 1)
    ]
    assert [r["has_more"] for r in results] == [True, True, False]
    assert "127.0.0.1" not in results[0]["next_cursor"]  # opaque: the host and path stay the server's
    assert [(r.param("api-version"), r.param("$skiptoken")) for r in upstream.requests] == [
        ("2021-01-01", None), ("2021-01-01", "3"), ("2021-01-01", "6"),
    ]  # fmt: skip
    assert all("nextLink" not in r for r in results)


async def test_square_cursor_answered_in_the_body_next_to_errors(
    shapes_package: Path, upstream: ShapesUpstream
) -> None:
    """Issue 17 defect 8. squareup.com.json /paths/~1v2~1payments/get: the `cursor` query parameter is
    answered by the body's `cursor`, beside `errors` and `payments` (two arrays)."""
    async with client_for(shapes_package, upstream) as client:
        results = await walk(client, {"action": "payments", "limit": 5})
    assert [p["id"] for r in results for p in r["items"]] == [
        f"pay_{n:02d}" for n in range(1, PAYMENT_COUNT + 1)
    ]
    assert [r.param("cursor") for r in upstream.requests] == [None, "c5", "c10"]
    assert [r.get("next_cursor") for r in results] == ["c5", "c10", None]


async def test_twilio_next_page_url_pages(shapes_package: Path, upstream: ShapesUpstream) -> None:
    """Issue 17 defect 8. twilio.com/twilio_flex_v1.json /paths/~1v1~1Channels/get: PageSize, Page and
    PageToken, answered with meta.next_page_url; the agent used to get no way to page 2."""
    async with client_for(shapes_package, upstream) as client:
        results = await walk(client, {"action": "channels", "limit": 2})
    assert len([c for r in results for c in r["items"]]) == CHANNEL_COUNT
    assert [r["has_more"] for r in results] == [True, True, False]
    assert [r.param("PageToken") for r in upstream.requests] == [None, "PT2", "PT4"]
    assert {r.param("PageSize") for r in upstream.requests} == {"2"}
    assert "meta" not in results[0]


async def test_a_search_sent_by_post_pages_by_a_cursor_in_its_body(
    shapes_package: Path, upstream: ShapesUpstream
) -> None:
    """Issue 17 defect 8 (body cursor). squareup.com.json /paths/~1v2~1customers~1search/post: the
    request body's `cursor` and `limit` (/components/schemas/SearchCustomersRequest) are answered by the
    body's `cursor` (/components/schemas/SearchCustomersResponse); the mapping marks it read-only. Only
    GETs used to page, so the agent had no way past the first page."""
    query = {"filter": {"email_address": {"fuzzy": "example.com"}}}
    async with client_for(shapes_package, upstream) as client:
        results = await walk(client, {"action": "customers_search", "limit": 3, "query": query})
    assert [c["id"] for r in results for c in r["items"]] == [
        f"cus_{n:02d}" for n in range(1, CUSTOMER_COUNT + 1)
    ]  # every customer once, in order, over three pages
    assert [(r["has_more"], r.get("next_cursor")) for r in results] == [
        (True, "sc3"), (True, "sc6"), (False, None),
    ]  # fmt: skip
    # The cursor travels in the body, beside the agent's own query and page size; never in the URL.
    assert [(r.method, r.query, r.json) for r in upstream.requests] == [
        ("POST", {}, {"limit": 3, "query": query}),
        ("POST", {}, {"cursor": "sc3", "limit": 3, "query": query}),
        ("POST", {}, {"cursor": "sc6", "limit": 3, "query": query}),
    ]
    assert all("cursor" not in r and "customers" not in r for r in results)


async def test_a_cut_page_of_a_post_search_resumes_by_its_body_cursor(
    shapes_package: Path, upstream: ShapesUpstream
) -> None:
    """Issue 17 defect 8 with issue 12 defect 9: six long customers (squareup.com.json
    /paths/~1v2~1customers~1search/post) do not fit the result budget; the cut result's next call asks
    for the same page again (no cursor in the body) and shows the rest, then the body's cursor goes on."""
    async with client_for(shapes_package, upstream) as client:
        results = await walk(client, {"action": "customers_search", "limit": 6})
    assert [c["id"] for r in results for c in r["items"]] == [
        f"cus_{n:02d}" for n in range(1, CUSTOMER_COUNT + 1)
    ]  # each once, in order
    assert any("truncated" in r for r in results)
    assert {r.json["limit"] for r in upstream.requests} == {6}
    cursors = [r.json.get("cursor") for r in upstream.requests]
    assert cursors[-1] == "sc6" and set(cursors[:-1]) == {None}  # the resume marker never goes upstream


async def test_a_search_the_mapping_pages_sends_its_default_limit_in_the_body(
    shapes_package: Path, upstream: ShapesUpstream
) -> None:
    """Issue 17 defect 8 (body cursor). squareup.com.json /paths/~1v2~1orders~1search/post: `pagination:`
    on the search (default_limit 4) makes it a list; `orders` is named beside `order_entries`
    (/components/schemas/SearchOrdersResponse)."""
    async with client_for(shapes_package, upstream) as client:
        [tool] = [t for t in tool_dicts(await client.list_tools()) if t["name"] == TOOL]
        results = await walk(client, {"action": "orders_search", "location_ids": ["L1"]})
    assert tool["annotations"]["readOnlyHint"] is True  # a paged search reads (S4), so the tool still does
    assert [o["id"] for r in results for o in r["items"]] == [
        f"ord_{n:02d}" for n in range(1, ORDER_COUNT + 1)
    ]
    assert [r["has_more"] for r in results] == [True, True, False]
    assert [r.json for r in upstream.requests] == [
        {"limit": 4, "location_ids": ["L1"]},
        {"cursor": "sc4", "limit": 4, "location_ids": ["L1"]},
        {"cursor": "sc8", "limit": 4, "location_ids": ["L1"]},
    ]


async def test_a_one_key_envelope_is_unwrapped_in_both_formats(
    shapes_package: Path, upstream: ShapesUpstream
) -> None:
    """Issue 17 defect 10. squareup.com.json /paths/~1v2~1payments~1{payment_id}/get: GetPaymentResponse
    is {errors, payment}; the answer {"payment": {...}} used to come back wrapped, concise = detailed."""
    async with client_for(shapes_package, upstream) as client:
        concise = result_json(await client.call_tool(TOOL, {"action": "payment", "payment_id": "pay_03"}))
        detailed = result_json(
            await client.call_tool(
                TOOL, {"action": "payment", "payment_id": "pay_03", "response_format": "detailed"}
            )
        )
    assert "payment" not in concise and "payment" not in detailed
    assert concise["id"] == detailed["id"] == "pay_03"
    assert detailed["amount_money"] == {"amount": 300, "currency": "USD"} and "amount_money" not in concise
    assert o200k_tokens(str(concise)) < o200k_tokens(str(detailed))  # they were equal (270/270)
