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
