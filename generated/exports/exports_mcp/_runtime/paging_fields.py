"""What a field or header of a list's answer means for paging, read from its name (R3 pagination).

APIs name the total of a list `total`, `total_records`, `total_transactions`, `itemsTotal`,
`results` or `X-Total-Count`, and hand out the next page as `next_page_token`, `nextLink`,
`@odata.nextLink` or `meta.next_cursor`: a fixed list of names always misses the next one, so a name
is read for its meaning instead. The generator reads the answer's schema with these same functions
(it loads this file: mcpgen/runtime_source.py), and the server reads the answer itself when the spec
did not show where the total or the next page is: both decide alike. Standard library only, for
that reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# Words that make a count one of pages, of this page or of something else than the list's records:
# `total_pages`, `currentPageItems`, `returned_count`, `page_size`, `retry_count`.
_NOT_THE_RECORDS = frozenset(
    "page pages current returned per size limit offset remaining rate ratelimit retry retries "
    "unread error errors warning warnings request requests attempt attempts max min".split()
)
# A number named like a list of records is its count (Linode's {"data": [...], "results": 315}).
_LIST_WORDS = frozenset("results items records entries hits rows objects".split())
# Objects that hold a list's paging beside it: `meta`, `pagination`, `meta.pagination`, `page_info`.
_PAGING_OBJECTS = frozenset(
    "meta metadata pagination paging pageinfo page cursor cursors links info listmetadata "
    "responsemetadata pagemeta".split()
)
_MORE_HEADERS = frozenset(("hasmore", "hasnext", "hasnextpage", "more"))
# A body flag saying more follows: `has_more`, `hasNextPage`, `moreResults`, AWS's `IsTruncated`.
_MORE_FLAGS = _MORE_HEADERS | frozenset(
    ("hasmoreitems", "hasmoreresults", "moreresults", "moreitems", "istruncated")
)
# What names the next page after a `next` or `continuation`: `next_page_token`, `nextLink`,
# `@odata.nextLink`, `NextMarker`, `continuationToken`, `links.next`; never `next_run_at`.
_NEXT_WORDS = frozenset(("next", "continuation"))
_HANDLE_WORDS = frozenset(
    "page token cursor link marker key url uri href start odata number".split()
)
_MAX_DEPTH = (
    2  # `meta.pagination.total_entries` (Hetzner Cloud): no API nests paging deeper
)
_CONTENT_RANGE = re.compile(r"(\d+)\s*-\s*(\d+)\s*/\s*(\d+)\s*$")


def words(name: str) -> list[str]:
    """'itemsTotal' -> ['items', 'total']; 'X-Total-Count' -> ['x', 'total', 'count']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def is_total(name: str, *, said: bool = False) -> bool:
    """A field that counts every record of the list, not this page's or the pages: `total`,
    `total_count`, `totalResults`, `total_records`, `total_transactions`, `itemsTotal`. A `count`, an
    `item_count` or a number called `results` may count this page only (anchore's `item_count`): it
    is a total only where the spec `said` what it counts, never on its name alone."""
    found = words(name)
    if not found or any(w in _NOT_THE_RECORDS for w in found):
        return False
    if "total" in found:
        return True
    return said and (found[-1] == "count" or "".join(found) in _LIST_WORDS)


def is_total_header(name: str) -> bool:
    """`X-Total`, `X-Total-Count`, `Total-Count`, `X-WP-Total`; never `X-Total-Pages`."""
    found = words(name)
    if any(any(n in w for n in ("page", "limit", "rate", "remaining")) for w in found):
        return False
    return "total" in found


def is_more_header(name: str) -> bool:
    """`X-HasMore`, `X-Has-More`, `Has-More`: the API's own "more to come" flag."""
    found = [w for w in words(name) if w != "x"]
    return "".join(found) in _MORE_HEADERS


def is_next_field(name: str) -> bool:
    """`next_page_token`, `nextLink`, `@odata.nextLink`, `NextMarker`, `continuation_token`, `next`:
    a field whose value names the list's next page (null or empty on the last)."""
    found = words(name)
    return (
        bool(found)
        and bool(set(found) & _NEXT_WORDS)
        and set(found) <= _NEXT_WORDS | _HANDLE_WORDS
    )


def is_more_flag(name: str) -> bool:
    """`has_more`, `hasNextPage`, `moreResults`, `IsTruncated`: the answer's own "more to come"."""
    return "".join(words(name)) in _MORE_FLAGS


def is_paging_object(name: str) -> bool:
    """`meta`, `pagination`, `paging`, `page_info`, `pageInfo`: an object holding a list's paging."""
    joined = "".join(words(name))
    return joined in _PAGING_OBJECTS or "pagination" in joined or "paging" in joined


def whole(value: Any) -> int | None:
    """A count as a whole number ("315" from a header, 315.0 from a lenient encoder), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 18:
        return int(value.strip())
    return None


def total_in(body: Any, headers: Mapping[str, str], beside: str | None) -> int | None:
    """The list's total wherever this answer says it: a field beside the list (`beside`, the list's
    own top-level field, is skipped), one inside a paging object (two levels at most), or a header
    (`X-Total-Count`; `Content-Range: items 0-24/319`). None when it says none."""
    if isinstance(body, dict):
        found = _total_field(body, beside, _MAX_DEPTH)
        if found is not None:
            return found
    for name, value in headers.items():
        if is_total_header(name) and whole(value) is not None:
            return whole(value)
        if name.lower() == "content-range":
            matched = _CONTENT_RANGE.search(value)
            if matched:
                return int(matched.group(3))
    return None


def _total_field(node: dict[str, Any], beside: str | None, depth: int) -> int | None:
    for key, value in node.items():
        if key != beside and is_total(key) and whole(value) is not None:
            return whole(value)
    if depth == 0:
        return None
    for key, value in node.items():
        if key != beside and isinstance(value, dict) and is_paging_object(key):
            found = _total_field(value, None, depth - 1)
            if found is not None:
                return found
    return None


def next_in(body: Any, skip: frozenset[str] = frozenset()) -> str | None:
    """Where this answer names a next page, whatever the spec said: a non-empty next token or link
    (`next_page_token`, `nextLink`), a next page number, or a true "more" flag, beside the list or in a
    paging object (two levels at most); its dotted path, or None when it names none. `skip` holds the
    paths the action already reads (its configured cursor or link)."""
    return _next_field(body, "", skip, _MAX_DEPTH) if isinstance(body, dict) else None


def _next_field(
    node: dict[str, Any], prefix: str, skip: frozenset[str], depth: int
) -> str | None:
    for key, value in node.items():
        path = f"{prefix}{key}"
        if path in skip or isinstance(value, list):
            continue
        if isinstance(value, dict):
            # HAL's `_links.next: {"href": ...}`: the next page's link one object down.
            if is_next_field(key) and any(
                _names_a_page(v)
                for k, v in value.items()
                if set(words(k)) <= _HANDLE_WORDS
            ):
                return path
            continue
        if is_more_flag(key) and (
            value is True or str(value).strip().lower() == "true"
        ):
            return path
        if is_next_field(key) and _names_a_page(value):
            return path
    if depth == 0:
        return None
    for key, value in node.items():
        if isinstance(value, dict) and (is_paging_object(key) or is_next_field(key)):
            found = _next_field(value, f"{prefix}{key}.", skip, depth - 1)
            if found is not None:
                return found
    return None


def _names_a_page(value: Any) -> bool:
    """A next token, link or page number; null, "", false and 0 name none (the last page)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return value > 0
    return isinstance(value, str) and value.strip() not in ("", "null")


def more_in(headers: Mapping[str, str]) -> bool | None:
    """The API's "more to come" header (`X-HasMore: true`), or None when it sends none."""
    for name, value in headers.items():
        if is_more_header(name) and value.strip().lower() in (
            "true",
            "false",
            "1",
            "0",
        ):
            return value.strip().lower() in ("true", "1")
    return None
