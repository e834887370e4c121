"""One paging shape for every upstream style (R3 pagination).

Whatever the API uses (page/per_page, offset/limit, a cursor field in the body, a Link header), the
agent passes `limit` and `page` or `cursor`, and reads `items`, `has_more`, `next_page` or
`next_cursor`, and `total_count` when the API says it. Pages start at 1.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

from .errors import Recovery, ToolError
from .shaping import lookup

PAGE_ARG = "page"
CURSOR_ARG = "cursor"

Style = Literal["page", "offset", "cursor", "link", "limit"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Paging:
    """How one list action pages upstream.

    page: the API takes a page number (the agent's `page`); offset: the API takes an offset, which the
    server computes from `page` and `limit`; cursor: the API takes a cursor and returns the next one at
    `next_cursor`; link: the API returns the next page's URL in a Link header, which the server hands
    out as an opaque `cursor`; limit: one page only, its size set by `limit`.
    """

    style: Style
    limit: str | None = None  # the agent argument that carries the page size
    offset: str | None = None  # offset style: the API's offset query parameter
    next_cursor: str | None = None  # cursor style: body path of the next cursor
    has_more: str | None = None  # dotted path of the API's own "more to come" flag
    total: str | None = None  # dotted path of the total count
    echoed: tuple[str, ...] = ()  # body fields that only repeat the paging; never shown
    max_limit: int | None = None  # the largest limit this action accepts

    @property
    def virtual_args(self) -> tuple[str, ...]:
        """Agent arguments the API has no parameter for: the server translates them."""
        if self.style == "offset":
            return (PAGE_ARG,)
        if self.style == "link":
            return (CURSOR_ARG,)
        return ()

    @property
    def consumed(self) -> tuple[str, ...]:
        """Top-level body fields folded into the one shape, so not repeated beside it."""
        paths = (self.next_cursor, self.has_more, self.total)
        return tuple(p.split(".")[0] for p in paths if p) + self.echoed


def page_query(
    paging: Paging | None, values: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """Query parameters the server adds for the agent's `page` or `cursor` (offset and link styles)."""
    if paging is None:
        return []
    check_limit(paging, values)
    if paging.style == "offset" and paging.offset:
        page = int(values.get(PAGE_ARG, 1))
        limit = (
            int(values[paging.limit]) if paging.limit and paging.limit in values else 0
        )
        return [(paging.offset, str((page - 1) * limit))] if page > 1 else []
    if paging.style == "link" and values.get(CURSOR_ARG):
        return decode_cursor(str(values[CURSOR_ARG]))
    return []


def check_limit(paging: Paging, values: Mapping[str, Any]) -> None:
    """The tool's schema states one bound for every action's limit; each action's own is checked here."""
    limit = values.get(paging.limit) if paging.limit else None
    if (
        isinstance(limit, int)
        and paging.max_limit is not None
        and limit > paging.max_limit
    ):
        more = "next_page" if paging.style in ("page", "offset") else "next_cursor"
        raise ToolError(
            f"{paging.limit} {limit} is more than this action returns at once (at most {paging.max_limit}).",
            f"Pass {paging.limit} between 1 and {paging.max_limit}, and follow {more} for the rest.",
            Recovery.FIX_INPUT,
        )


def merge_query(
    query: list[tuple[str, str]], extra: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """`query` with every name in `extra` replaced by extra's values."""
    names = {name for name, _ in extra}
    return [(n, v) for n, v in query if n not in names] + extra


def page_info(
    paging: Paging | None,
    body: Any,
    values: Mapping[str, Any],
    count: int,
    next_link: str | None,
    sent_query: list[tuple[str, str]],
) -> dict[str, Any]:
    """has_more, next_page or next_cursor, and total_count, for a page of `count` records."""
    if paging is None:
        return {}
    total = lookup(body, paging.total) if paging.total else None
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    limit = values.get(paging.limit) if paging.limit else None
    flag = lookup(body, paging.has_more) if paging.has_more else None
    info: dict[str, Any] = {}
    if paging.style in ("page", "offset"):
        page = int(values.get(PAGE_ARG, 1))
        if isinstance(flag, bool):
            more = flag
        elif next_link is not None:
            more = True
        elif total is not None and isinstance(limit, int):
            more = page * limit < total
        else:
            more = isinstance(limit, int) and count >= limit > 0
        info["has_more"] = more
        if more:
            info["next_page"] = page + 1
    elif paging.style == "cursor":
        cursor = lookup(body, paging.next_cursor) if paging.next_cursor else None
        more = flag if isinstance(flag, bool) else cursor not in (None, "")
        info["has_more"] = bool(more and cursor not in (None, ""))
        if info["has_more"]:
            info["next_cursor"] = str(cursor)
    elif paging.style == "link":
        info["has_more"] = next_link is not None
        if next_link is not None:
            info["next_cursor"] = encode_cursor(next_link, sent_query)
    else:  # limit: one page; a full one may hide more, and saying so keeps it from looking whole (R4 truncation is announced)
        info["has_more"] = isinstance(limit, int) and count >= limit > 0
    if total is not None:
        info["total_count"] = total
    return info


def encode_cursor(next_link: str, sent_query: list[tuple[str, str]]) -> str:
    """The next link's query parameters that differ from this request's, as an opaque token.

    Only the differences travel: the path and host always come from the action (a link can never
    send the server elsewhere), and a credential sent in the query never reaches the agent (E5 no internals).
    """
    sent = set(sent_query)
    changed = [
        pair
        for pair in parse_qsl(urlsplit(next_link).query, keep_blank_values=True)
        if pair not in sent
    ]
    return base64.urlsafe_b64encode(urlencode(changed).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> list[tuple[str, str]]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=bool(text))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ToolError(
            f"cursor {cursor[:40]!r} is not one this server handed out.",
            "Pass the next_cursor of the previous result exactly as it was, or leave cursor out "
            "to start from the first page.",
            Recovery.FIX_INPUT,
        ) from None
    return pairs
