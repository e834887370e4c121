"""What the server says about the rest of a list (R3 pagination, R4 truncation is announced), from the
answer itself where the spec did not show it: the runtime's pagination.py as generated into
generated/ads. A list result always says has_more; true only with the call that gets the rest."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import GENERATED


@pytest.fixture(scope="module")
def pagination() -> Iterator[ModuleType]:
    sys.path.insert(0, str(GENERATED / "ads"))
    try:
        yield importlib.import_module("ads_mcp._runtime.pagination")
    finally:
        sys.path.remove(str(GENERATED / "ads"))
        for name in [n for n in sys.modules if n == "ads_mcp" or n.startswith("ads_mcp.")]:
            del sys.modules[name]


def info(pagination: ModuleType, paging: Any, body: Any, count: int, **kwargs: Any) -> dict[str, Any]:
    values = kwargs.pop("values", {})
    return pagination.page_info(paging, body, values, count, kwargs.pop("next_link", None), [], **kwargs)


def test_a_total_the_spec_did_not_show_is_read_from_the_answer(pagination: ModuleType) -> None:
    page = pagination.Paging(style="page", limit="limit")
    values = {"limit": 10, "page": 1}
    # Zoom-style total_records beside the list; api.video's inside its pagination object; Hetzner's two
    # levels down; gitea's header; PostgREST's Content-Range.
    for body, headers, total in (
        ({"users": [], "total_records": 23}, {}, 23),
        ({"data": [], "pagination": {"pagesTotal": 3, "itemsTotal": 23}}, {}, 23),
        ({"actions": [], "meta": {"pagination": {"last_page": 3, "total_entries": 23}}}, {}, 23),
        ([], {"X-Total-Count": "23", "X-Total-Pages": "3"}, 23),
        ([], {"Content-Range": "0-9/23"}, 23),
    ):
        found = info(pagination, page, body, 10, values=values, headers=headers, items="users")
        assert found == {"has_more": True, "next_page": 2, "total_count": total}, (body, headers)


def test_a_count_that_may_be_this_pages_is_never_read_as_a_total_on_its_name(pagination: ModuleType) -> None:
    page = pagination.Paging(style="page", limit="limit")
    body = {"results": [{}] * 10, "item_count": 10, "count": 10, "page_count": 4}
    found = info(pagination, page, body, 10, values={"limit": 10}, items="results")
    assert "total_count" not in found and found["has_more"] is True


def test_an_unpaged_list_the_answer_says_is_partial_says_so(pagination: ModuleType) -> None:
    partial = info(pagination, None, {"items": [1, 2], "total": 5}, 2, items="items")
    assert partial["has_more"] is None and partial["total_count"] == 5 and "counts 5 items" in partial["rest"]
    assert info(pagination, None, [1, 2], 2) == {"has_more": False}


def test_a_page_without_a_limit_or_a_total_is_unknown_not_whole(pagination: ModuleType) -> None:
    page = pagination.Paging(style="page")
    found = info(pagination, page, [1, 2, 3], 3, values={"page": 2})
    assert found["has_more"] is None and found["next_page"] == 3 and "does not say" in found["rest"]
    assert info(pagination, page, [], 0, values={"page": 3}) == {"has_more": False}


def test_cursors_blank_or_unreadable(pagination: ModuleType) -> None:
    cursor = pagination.Paging(style="cursor", next_cursor="next_page_token")
    assert info(pagination, cursor, {"next_page_token": " "}, 3) == {"has_more": False}  # Zoom's last page
    odd = info(pagination, cursor, {"next_page_token": {"after": "x"}}, 3)
    assert odd["has_more"] is None and "is not a token" in odd["rest"]


def test_the_api_s_more_header_and_next_page_decide_before_a_full_page(pagination: ModuleType) -> None:
    page = pagination.Paging(style="page", limit="limit", next_page="pagination.next_page")
    last = {"data": [{}] * 10, "pagination": {"next_page": None, "page": 2}}
    assert info(pagination, page, last, 10, values={"limit": 10, "page": 2}) == {"has_more": False}
    gitea = pagination.Paging(style="page", limit="limit")
    ended = info(pagination, gitea, [{}] * 4, 4, values={"limit": 4}, headers={"X-HasMore": "false"})
    assert ended == {"has_more": False}


def test_an_offset_in_the_body_goes_inside_its_object(pagination: ModuleType) -> None:
    paging = pagination.Paging(style="offset", limit="limit", offset="options.offset", offset_in_body=True)
    body = {"options": {"count": 10, "account_ids": ["a"]}}
    values = {"limit": 10, "page": 3}
    assert pagination.page_query(paging, values) == []
    pagination.place_offset(body, paging, values)
    assert body == {"options": {"count": 10, "account_ids": ["a"], "offset": 20}}
    first = {"options": {"count": 10}}
    pagination.place_offset(first, paging, {"limit": 10})
    assert first == {"options": {"count": 10}}  # page 1 sends no offset


def test_an_answer_that_names_a_next_page_the_action_cannot_ask_for_is_not_whole(
    pagination: ModuleType,
) -> None:
    # No page or cursor in the spec, yet the answer hands out the next page: a token (Google's
    # nextPageToken), Azure's nextLink, OData's, a paging object's cursor, HAL's link, AWS's IsTruncated.
    for body, where in (
        ({"value": [{}], "next_page_token": "p2"}, "next_page_token"),
        ({"value": [{}], "nextLink": "https://api.example/x?$skiptoken=2"}, "nextLink"),
        ({"value": [{}], "@odata.nextLink": "https://api.example/x?$skip=1"}, "@odata.nextLink"),
        ({"data": [{}], "meta": {"next_cursor": "c2"}}, "meta.next_cursor"),
        ({"items": [{}], "_links": {"next": {"href": "/x?page=2"}}}, "_links.next"),
        ({"Contents": [{}], "IsTruncated": True}, "IsTruncated"),
    ):
        found = info(pagination, None, body, 1, items=next(iter(body)))
        assert found["has_more"] is None and f"'{where}'" in found["rest"], body
    # The last page names none: an empty token, null links, a false flag; and `next_run_at` is no page.
    for body in (
        {"value": [{}], "next_page_token": "", "nextLink": None, "IsTruncated": False},
        {"value": [{}], "next_run_at": "2026-01-01T00:00:00Z", "_links": {"next": {"href": None}}},
    ):
        assert info(pagination, None, body, 1, items="value") == {"has_more": False}, body


def test_a_total_above_the_first_page_is_more_whatever_the_style(pagination: ModuleType) -> None:
    # Azure's list with a nextLink in its schema, answered without one but with X-Total: 9 over 2 records.
    link = pagination.Paging(style="link", next_link="nextLink")
    first = info(pagination, link, {"value": [{}, {}]}, 2, headers={"X-Total": "9"}, items="value")
    assert first["has_more"] is None and first["total_count"] == 9 and "counts 9 items" in first["rest"]
    # A later page of a cursor or link style holds fewer than the total, as every page does.
    later = info(pagination, link, {"value": [{}, {}]}, 2, headers={"X-Total": "9"}, items="value",
                 values={"cursor": "b2Zmc2V0PTI"})  # fmt: skip
    assert later == {"has_more": False, "total_count": 9}
    # A cursor the style reads is not read twice: the same token again ends the list as before.
    cursor = pagination.Paging(style="cursor", next_cursor="next_page_token")
    again = info(pagination, cursor, {"next_page_token": "t"}, 3, values={"cursor": "t"})
    assert again == {"has_more": False}


def test_page_arithmetic_counts_the_records_the_api_sent(pagination: ModuleType) -> None:
    offset = pagination.Paging(style="offset", limit="limit", offset="startIndex", total="totalItems")
    # Asked for 1, the API sent all 3 of its 3: the list ends here.
    whole = info(
        pagination, offset, {"items": [{}] * 3, "totalItems": 3}, 3, values={"limit": 1}, items="items"
    )
    assert whole == {"has_more": False, "total_count": 3}
    # Asked for 50, sent 2 of 9: more exists, and whether next_page reaches it is unknown.
    page = pagination.Paging(style="page", limit="limit")
    short = info(pagination, page, [{}, {}], 2, values={"limit": 50, "page": 1}, headers={"X-Total": "9"})
    assert short["has_more"] is None and short["next_page"] == 2 and "2 of the 50 asked for" in short["rest"]
    # No limit: a first page under the total has more, at the API's own page size.
    bare = pagination.Paging(style="page", total="totalCount")
    found = info(
        pagination, bare, {"results": [{}] * 100, "totalCount": 251}, 100, values={"page": 1}, items="results"
    )
    assert found == {"has_more": True, "next_page": 2, "total_count": 251}


def test_an_answer_contradicting_its_own_end_is_unknown_not_whole(pagination: ModuleType) -> None:
    # The API's flag says the list ends, its total says 9 of which 2 are here: neither is taken alone.
    page = pagination.Paging(style="page", limit="limit", has_more="has_more")
    found = info(
        pagination,
        page,
        {"data": [{}, {}], "has_more": False, "total": 9},
        2,
        values={"limit": 2},
        items="data",
    )
    assert found["has_more"] is None and found["total_count"] == 9
    assert "counts 9 items" in found["rest"] and "says the list ends here" in found["rest"]
    # An empty first page under a total of 4: more exists, and whether page 2 holds it is unknown.
    bare = pagination.Paging(style="page", total="totalCount")
    empty = info(pagination, bare, {"results": [], "totalCount": 4}, 0, values={"page": 1}, items="results")
    assert empty["has_more"] is None and "holds 0:" in empty["rest"]
