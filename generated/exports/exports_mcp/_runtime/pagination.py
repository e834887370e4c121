"""One paging shape for every upstream style (R3 pagination).

Whatever the API uses (page/per_page, offset/limit, a cursor field in the body, a Link header), the
agent passes `limit` and `page` or `cursor`, and reads `items`, `has_more`, `next_page` or
`next_cursor`, and `total_count` when the API says it. Pages start at 1. `has_more: true` always comes
with the call that gets the rest; when the API gives no way to it, `has_more` is null and `rest` says
why (R3 pagination; R4 truncation is announced).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

from .errors import Recovery, ToolError, quoted
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
    next_link: str | None = None  # link style: body path of the next page's URL

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
        paths = (self.next_cursor, self.has_more, self.total, self.next_link)
        return tuple(_top(p) for p in paths if p) + self.echoed


def _top(path: str) -> str:
    # '@odata.nextLink' is one key with a dot in it, not a path.
    return path if path.startswith("@") else path.split(".")[0]


def page_query(
    paging: Paging | None, values: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """Query parameters the server adds for the agent's `page` or `cursor` (offset and link styles)."""
    if paging is None:
        return []
    check_limit(paging, values)
    if paging.style == "offset" and paging.offset:
        page = whole_number(PAGE_ARG, values.get(PAGE_ARG, 1))
        limit = (
            whole_number(paging.limit, values[paging.limit])
            if paging.limit and paging.limit in values
            else 0
        )
        return [(paging.offset, str((page - 1) * limit))] if page > 1 else []
    if paging.style == "link" and values.get(CURSOR_ARG):
        inner, _ = split_cursor(str(values[CURSOR_ARG]))
        return decode_cursor(inner) if inner else []
    return []


# A cut page (truncation.py) continues inside the same upstream page: the cursor it hands out is the
# upstream cursor plus how many of that page's records were already shown.
_SKIP_MARK = "~mcpgen~"
_MAX_SKIP = 100_000


def resume_cursor(inner: str, skip: int) -> str:
    """The cursor that asks for the upstream page at `inner` again, without its first `skip` records."""
    return f"{_SKIP_MARK}{skip}~{inner}"


def split_cursor(cursor: str) -> tuple[str, int]:
    """(the upstream cursor, records of its page already shown); (cursor, 0) for any other cursor."""
    if not cursor.startswith(_SKIP_MARK):
        return cursor, 0
    count, sep, inner = cursor[len(_SKIP_MARK) :].partition("~")
    if not sep or not count.isdigit() or not 0 < int(count) <= _MAX_SKIP:
        raise ToolError(
            f"cursor {cursor[:40]!r} is not one this server handed out.",
            "Pass the next_cursor (or the truncated note's next_call) of the previous result exactly as "
            "it was, or leave cursor out to start from the first page.",
            Recovery.FIX_INPUT,
        )
    return inner, int(count)


def upstream_values(
    paging: Paging | None, values: Mapping[str, Any]
) -> Mapping[str, Any]:
    """The arguments as the API gets them: a resumed cursor without its skip (cursor style; the link
    style's cursor never goes upstream as it is)."""
    if paging is None or paging.style != "cursor" or not values.get(CURSOR_ARG):
        return values
    inner, skip = split_cursor(str(values[CURSOR_ARG]))
    if not skip:
        return values
    out = {k: v for k, v in values.items() if k != CURSOR_ARG}
    if inner:
        out[CURSOR_ARG] = inner
    return out


def already_shown(paging: Paging | None, values: Mapping[str, Any]) -> int:
    """How many leading records of this upstream page an earlier, cut result showed."""
    if (
        paging is None
        or paging.style not in ("cursor", "link")
        or not values.get(CURSOR_ARG)
    ):
        return 0
    return split_cursor(str(values[CURSOR_ARG]))[1]


def whole_number(name: str, value: Any) -> int:
    """A page number or limit as a whole number: an API that types them as strings (GOV.UK Pay's
    `page`) leaves the schema open, so "x" is refused here instead of crashing the call
    (E1 tool errors are results)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 18:
        return int(value.strip())
    raise ToolError(
        f"{name}: {quoted(value)} is not a whole number.",
        f"Pass {name} as a whole number such as 2, and call again.",
        Recovery.FIX_INPUT,
    )


def check_limit(paging: Paging, values: Mapping[str, Any]) -> None:
    """The tool's schema states one bound for every action's limit; each action's own is checked here,
    and page and limit are whole numbers before anything is sent."""
    if paging.style in ("page", "offset") and PAGE_ARG in values:
        whole_number(PAGE_ARG, values[PAGE_ARG])
    limit = values.get(paging.limit) if paging.limit else None
    if limit is not None and paging.limit is not None:
        limit = whole_number(paging.limit, limit)
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
    """has_more, next_page or next_cursor, and total_count, for a page of `count` records.

    `has_more: true` only with its next call; when more may follow and nothing reaches it, `has_more`
    is null and `rest` says so: a partial list never reads as whole, and never promises a page it
    cannot fetch (R3 pagination; R4 truncation is announced)."""
    if paging is None:
        return {}
    total = lookup(body, paging.total) if paging.total else None
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    limit = values.get(paging.limit) if paging.limit else None
    flag = lookup(body, paging.has_more) if paging.has_more else None
    flag = flag if isinstance(flag, bool) else None
    info: dict[str, Any] = {}
    if paging.style in ("page", "offset"):
        page = whole_number(PAGE_ARG, values.get(PAGE_ARG, 1))
        if flag is not None:
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
        given = cursor not in (None, "") and not isinstance(cursor, (dict, list, bool))
        sent = values.get(CURSOR_ARG)
        if given and sent is not None and str(cursor) == split_cursor(str(sent))[0]:
            given = False  # the same cursor again would return this page again
        if given and flag is not False:
            info["has_more"] = True
            info["next_cursor"] = str(cursor)
        elif flag:
            info.update(
                _unreachable(
                    "the API says more items follow but gave no cursor to them"
                )
            )
        else:
            info["has_more"] = False
    elif paging.style == "link":
        link = next_link or _body_link(body, paging.next_link)
        cursor = encode_cursor(link, sent_query) if link else None
        if cursor:
            info["has_more"] = True
            info["next_cursor"] = cursor
        elif link or flag:
            info.update(
                _unreachable(
                    "the API says more items follow, at a link this server cannot follow"
                )
            )
        else:
            info["has_more"] = False
    elif isinstance(limit, int) and count >= limit > 0:
        # limit: one page; a full one may hide more, and saying so keeps it from looking whole (R4 truncation is announced)
        info.update(
            _unreachable(
                f"this page is full ({count} items, the limit): there may be more, and this API takes no page "
                "or cursor to reach them"
            )
        )
    else:
        info["has_more"] = False
    if total is not None:
        info["total_count"] = total
    return info


def _unreachable(why: str) -> dict[str, Any]:
    return {
        "has_more": None,
        "rest": f"{why}; narrow the request (filters, a smaller range) to see the others",
    }


def _body_link(body: Any, path: str | None) -> str | None:
    link = lookup(body, path) if path else None
    return link if isinstance(link, str) and link.strip() else None


def encode_cursor(next_link: str, sent_query: list[tuple[str, str]]) -> str:
    """The next link's query parameters that differ from this request's, as an opaque token; ''
    when none differ.

    Only the differences travel: the path and host always come from the action (a link can never
    send the server elsewhere), and a credential sent in the query never reaches the agent (E5 no internals).
    """
    sent = set(sent_query)
    try:
        query = urlsplit(next_link).query
    except ValueError:
        return ""
    changed = [
        pair for pair in parse_qsl(query, keep_blank_values=True) if pair not in sent
    ]
    if not changed:
        return ""  # the link asks for nothing this request did not: following it repeats this page
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
