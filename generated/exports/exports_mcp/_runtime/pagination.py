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
from .paging_fields import more_in, next_in, total_in, whole
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
    offset: str | None = (
        None  # offset style: the API's offset (dotted when inside a body object)
    )
    offset_in_body: bool = (
        False  # the offset is a body field (a search sent by POST), not in the query
    )
    next_cursor: str | None = None  # cursor style: body path of the next cursor
    has_more: str | None = None  # dotted path of the API's own "more to come" flag
    total: str | None = None  # dotted path of the total count
    total_header: str | None = (
        None  # the response header the spec says carries the total
    )
    next_page: str | None = (
        None  # page style: the API's next page (number or URL), null on the last
    )
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
        paths = (
            self.next_cursor,
            self.has_more,
            self.total,
            self.next_link,
            self.next_page,
        )
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
    offset = _offset(paging, values)
    if offset is not None and paging.offset and not paging.offset_in_body:
        return [(paging.offset, str(offset))]
    if paging.style == "link" and values.get(CURSOR_ARG):
        inner, _ = split_cursor(str(values[CURSOR_ARG]))
        return decode_cursor(inner) if inner else []
    return []


def place_offset(
    body: dict[str, Any], paging: Paging | None, values: Mapping[str, Any]
) -> None:
    """The offset computed from `page` and `limit`, put at its place in a JSON body (`options.offset`,
    Plaid's /transactions/get) beside what the agent passed in that object (copied, never changed in
    place)."""
    offset = _offset(paging, values) if paging is not None else None
    if (
        offset is None
        or paging is None
        or not paging.offset
        or not paging.offset_in_body
    ):
        return
    *objects, last = paging.offset.split(".")
    holder = body
    for key in objects:
        inner = holder.get(key)
        holder[key] = dict(inner) if isinstance(inner, dict) else {}
        holder = holder[key]
    holder[last] = offset


def _offset(paging: Paging, values: Mapping[str, Any]) -> int | None:
    """Offset style: how many records come before the agent's `page`; None on page 1."""
    if paging.style != "offset" or not paging.offset:
        return None
    page = whole_number(PAGE_ARG, values.get(PAGE_ARG, 1))
    limit = (
        whole_number(paging.limit, values[paging.limit])
        if paging.limit and paging.limit in values
        else 0
    )
    return (page - 1) * limit if page > 1 else None


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
    headers: Mapping[str, str] | None = None,
    items: str | None = None,
) -> dict[str, Any]:
    """has_more, next_page or next_cursor, and total_count, for a page of `count` records.

    `has_more` is always there: true only with its next call; null with `rest` saying what is unknown
    when more may follow and nothing reaches it, or the answer does not say; false only when the
    answer shows the list ends here. A partial list never reads as whole, and never promises a page it
    cannot fetch (R3 pagination; R4 truncation is announced). The total is where the build found it
    in the spec, else wherever this answer says it (paging_fields.py); `items` is the list's own path,
    never read as a total."""
    headers = headers or {}
    total = _total(paging, body, headers, items)
    if paging is None:
        info = _unpaged(count, total, next_link)
    else:
        info = _paged(
            paging, body, values, count, next_link, sent_query, headers, total
        )
    if info.get("has_more") is False:
        # Whatever the spec showed, an answer that itself names more never reads as whole.
        shown = _more_shown(paging, body, values, count, total, next_link)
        if shown is not None:
            reach = (
                "and this action has no page or cursor that reaches the rest"
                if paging is None or paging.style == "limit"
                else "though the paging this action reads says the list ends here"
            )
            info = _unreachable(f"{shown}, {reach}")
    if total is not None:
        info["total_count"] = total
    return info


def _more_shown(
    paging: Paging | None,
    body: Any,
    values: Mapping[str, Any],
    count: int,
    total: int | None,
    next_link: str | None,
) -> str | None:
    """What in this answer says more follows beyond what the action's paging read: a next token,
    link, page number or "more" flag found by its name (paging_fields.py), a next Link header, or on
    a first page a total above the records shown. None when the answer says nothing more."""
    read = (
        (paging.next_cursor, paging.next_link, paging.next_page, paging.has_more)
        if paging is not None
        else ()
    )
    found = next_in(body, frozenset(p for p in read if p))
    if found is not None:
        return f"the API names a next page at '{found}'"
    if next_link is not None and (paging is None or paging.style != "link"):
        return "the API says more items follow (a next link)"
    first = not values.get(CURSOR_ARG) and values.get(PAGE_ARG, 1) in (1, "1")
    if first and total is not None and total > count:
        return f"the API counts {total} items and this answer holds {count}"
    return None


def _total(
    paging: Paging | None, body: Any, headers: Mapping[str, str], items: str | None
) -> int | None:
    if paging is not None and paging.total:
        found = whole(lookup(body, paging.total))
        if found is not None:
            return found
    if paging is not None and paging.total_header:
        found = whole(headers.get(paging.total_header))
        if found is not None:
            return found
    return total_in(body, headers, items.split(".")[0] if items else None)


def _flag(paging: Paging, body: Any, headers: Mapping[str, str]) -> bool | None:
    """The API's own "more to come": its body flag, or a header such as X-HasMore."""
    flag = lookup(body, paging.has_more) if paging.has_more else None
    if isinstance(flag, str) and flag.strip().lower() in ("true", "false"):
        flag = flag.strip().lower() == "true"
    return flag if isinstance(flag, bool) else more_in(headers)


def _paged(
    paging: Paging,
    body: Any,
    values: Mapping[str, Any],
    count: int,
    next_link: str | None,
    sent_query: list[tuple[str, str]],
    headers: Mapping[str, str],
    total: int | None,
) -> dict[str, Any]:
    flag = _flag(paging, body, headers)
    limit = values.get(paging.limit) if paging.limit else None
    limit = limit if isinstance(limit, int) and not isinstance(limit, bool) else None
    if paging.style in ("page", "offset"):
        return _by_page(paging, body, values, count, next_link, flag, total, limit)
    if paging.style == "cursor":
        return _by_cursor(paging, body, values, flag)
    if paging.style == "link":
        link = next_link or _body_link(body, paging.next_link)
        cursor = encode_cursor(link, sent_query) if link else None
        if cursor:
            return {"has_more": True, "next_cursor": cursor}
        if link or flag:
            return _unreachable(
                "the API says more items follow, at a link this server cannot follow"
            )
        return {"has_more": False}
    # limit: one page. A full one may hide more, and saying so keeps it from looking whole.
    if flag or (total is not None and total > count):
        return _unreachable(
            f"the API says more items follow ({total if total is not None else 'more'} in all), "
            "and this API takes no page or cursor to reach them"
        )
    if limit is not None and count >= limit > 0 and flag is None:
        return _unreachable(
            f"this page is full ({count} items, the limit): there may be more, and this API takes no page "
            "or cursor to reach them"
        )
    return {"has_more": False}


def _by_page(
    paging: Paging,
    body: Any,
    values: Mapping[str, Any],
    count: int,
    next_link: str | None,
    flag: bool | None,
    total: int | None,
    limit: int | None,
) -> dict[str, Any]:
    """Page and offset styles: the API's flag, then its next page (null on the last: Hetzner's
    meta.pagination.next_page), a next Link, the total, and last a full page."""
    page = whole_number(PAGE_ARG, values.get(PAGE_ARG, 1))
    following = _next_page(body, paging.next_page)
    unknown = (
        "the API does not say whether more items follow: call again with next_page to see "
        "(an empty page is the end)"
    )
    if flag is not None:
        more: bool | None = flag
    elif following is not None:
        more = following
    elif next_link is not None:
        more = True
    elif total is not None and (limit is not None or page == 1):
        more, unknown = _by_total(page, limit, count, total)
    elif limit is not None:
        more = count >= limit > 0
    else:
        more = None if count else False
    info: dict[str, Any] = {"has_more": more}
    if more is not False:
        info["next_page"] = page + 1
    if more is None:
        info["rest"] = unknown
    return info


def _by_total(
    page: int, limit: int | None, count: int, total: int
) -> tuple[bool | None, str]:
    """More follows while the records of the pages so far stay under the total. A short page under the
    total (fewer than the limit asked: the API's own smaller page, or a list that changed) says more
    exists, but not whether next_page reaches it."""
    before = (page - 1) * limit if limit is not None else 0
    if before + count >= total:
        return False, ""
    if count > 0 and (limit is None or count >= limit):
        return True, ""
    asked = f" of the {limit} asked for" if limit is not None else ""
    return None, (
        f"the API counts {total} items and this page holds {count}{asked}: call again with "
        "next_page to see whether it reaches the others (an empty page is the end)"
    )


def _next_page(body: Any, path: str | None) -> bool | None:
    """Whether the API's next-page field names a page: null, "" or false on the last page."""
    if not path or not isinstance(body, dict):
        return None
    head = path.split(".")[0]
    if head not in body:
        return None  # the answer has no such field: it says nothing either way
    value = lookup(body, path)
    if isinstance(value, bool):
        return value
    return value not in (None, "", 0)


def _by_cursor(
    paging: Paging, body: Any, values: Mapping[str, Any], flag: bool | None
) -> dict[str, Any]:
    cursor = lookup(body, paging.next_cursor) if paging.next_cursor else None
    if isinstance(cursor, (dict, list)):
        return _unreachable(
            f"the API's next cursor at '{paging.next_cursor}' is not a token this server can pass back"
        )
    # A blank token is no token: Zoom ends its lists with "next_page_token": "" (or " ").
    given = (
        cursor is not None
        and not isinstance(cursor, bool)
        and str(cursor).strip() != ""
    )
    sent = values.get(CURSOR_ARG)
    if given and sent is not None and str(cursor) == split_cursor(str(sent))[0]:
        given = False  # the same cursor again would return this page again
    if given and flag is not False:
        return {"has_more": True, "next_cursor": str(cursor)}
    if flag:
        return _unreachable("the API says more items follow but gave no cursor to them")
    return {"has_more": False}


def _unpaged(count: int, total: int | None, next_link: str | None) -> dict[str, Any]:
    """A list this action cannot page: whole, unless the answer itself says there is more."""
    if total is not None and total > count:
        return _unreachable(
            f"the API counts {total} items and this answer holds {count}; this action takes no page "
            "or cursor to reach the others"
        )
    if next_link is not None:
        return _unreachable(
            "the API says more items follow (a next link), and this action takes no page or cursor"
        )
    return {"has_more": False}


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
