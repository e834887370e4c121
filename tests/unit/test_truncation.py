"""The runtime's size budget on its own (R4): the runtime as generated into generated/ads."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support.paths import GENERATED


@pytest.fixture(scope="module")
def runtime() -> Iterator[tuple[ModuleType, ModuleType]]:
    sys.path.insert(0, str(GENERATED / "ads"))
    try:
        yield (
            importlib.import_module("ads_mcp._runtime.truncation"),
            importlib.import_module("ads_mcp._runtime.pagination"),
        )
    finally:
        sys.path.remove(str(GENERATED / "ads"))
        for name in [n for n in sys.modules if n == "ads_mcp" or n.startswith("ads_mcp.")]:
            del sys.modules[name]


def _page(count: int, **extra: object) -> dict:
    return {
        "items": [{"id": f"ev_{n:03d}", "text": "x" * 300} for n in range(count)],
        "has_more": True,
        **extra,
    }


def test_a_result_within_budget_is_returned_as_it_is(runtime) -> None:
    truncation, pagination = runtime
    data = _page(3, next_cursor="c3")
    assert truncation.fit(data, 2000, tool="t", arguments={}, paging=None, limit_arg=None) is data


def test_a_cut_cursor_page_names_the_call_that_continues_right_after_it(runtime) -> None:
    truncation, pagination = runtime
    paging = pagination.Paging(style="cursor", limit="limit", next_cursor="next")
    arguments = {"action": "events", "cursor": "c40", "limit": 40}
    cut = truncation.fit(
        _page(40, next_cursor="c80"), 1000, tool="t", arguments=arguments, paging=paging, limit_arg="limit"
    )
    shown = len(cut["items"])
    assert 1 <= shown < 40 and "next_cursor" not in cut and cut["has_more"] is True
    # Issue 12 defect 9: the next call asks for the same upstream page (same cursor, same limit) less
    # the items shown, never for those items again.
    next_call = cut["truncated"]["next_call"]
    assert next_call["tool"] == "t" and next_call["arguments"]["limit"] == 40
    assert pagination.split_cursor(next_call["arguments"]["cursor"]) == ("c40", shown)
    assert pagination.upstream_values(paging, next_call["arguments"])["cursor"] == "c40"
    assert pagination.already_shown(paging, next_call["arguments"]) == shown
    assert truncation.estimate_tokens(cut) <= 1000


def test_a_list_that_cannot_be_paged_says_so(runtime) -> None:
    truncation, pagination = runtime
    cut = truncation.fit(
        _page(40), 1000, tool="t", arguments={"action": "search"}, paging=None, limit_arg=None
    )
    assert "next_call" not in cut["truncated"] and "narrow the request" in cut["truncated"]["rest"]
    assert cut["truncated"]["shown"] == f"items 1-{len(cut['items'])}; this page had 40"


def test_paging_on_a_one_record_answer_still_says_there_is_more(runtime) -> None:
    """Issue 12 defect 3 at run time: pagination set on an answer the spec shows as one record (the build
    warns, M226); what the API says about more to come still reaches the agent, with the next call."""
    import httpx

    sys.path.insert(0, str(GENERATED / "ads"))
    try:
        results = importlib.import_module("ads_mcp._runtime.results")
        routing = importlib.import_module("ads_mcp._runtime.routing")
        shaping = importlib.import_module("ads_mcp._runtime.shaping")
    finally:
        sys.path.remove(str(GENERATED / "ads"))
    _, pagination = runtime
    paging = pagination.Paging(style="cursor", next_cursor="next_cursor")
    action = routing.Action(name="get", method="GET", path="/things", shape=shaping.Shape(), paging=paging)
    request = httpx.Request("GET", "http://127.0.0.1/things")
    more = httpx.Response(200, json={"id": "t1", "next_cursor": "c2"}, request=request)
    last = httpx.Response(200, json={"id": "t9"}, request=request)
    assert results.interpret(more, action, {}) == {"id": "t1", "next_cursor": "c2", "has_more": True}
    assert results.interpret(last, action, {}) == {"id": "t9"}


def test_an_envelope_with_more_than_its_record_is_shown_whole(runtime) -> None:
    """Issue 17 defect 10's limit: squareup.com.json /components/schemas/GetPaymentResponse is {errors,
    payment}; {"payment": {...}} is unwrapped, but an answer whose errors are not empty keeps both."""
    import httpx

    sys.path.insert(0, str(GENERATED / "ads"))
    try:
        results = importlib.import_module("ads_mcp._runtime.results")
        routing = importlib.import_module("ads_mcp._runtime.routing")
        shaping = importlib.import_module("ads_mcp._runtime.shaping")
    finally:
        sys.path.remove(str(GENERATED / "ads"))
    shape = shaping.Shape(record="payment", concise=("id", "status"))
    action = routing.Action(name="payment", method="GET", path="/v2/payments/p1", shape=shape)
    request = httpx.Request("GET", "http://127.0.0.1/v2/payments/p1")
    payment = {"id": "p1", "status": "COMPLETED", "note": "n"}
    alone = httpx.Response(200, json={"payment": payment, "errors": []}, request=request)
    warned = httpx.Response(200, json={"payment": payment, "errors": [{"code": "W"}]}, request=request)
    assert results.interpret(alone, action, {}) == {"id": "p1", "status": "COMPLETED"}
    assert results.interpret(warned, action, {}) == {"payment": payment, "errors": [{"code": "W"}]}
