"""Upstream responses become tool results: structured content plus the same JSON as text (R5 structured and text)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import mcp_types as types

from .errors import ToolError
from .pagination import already_shown, page_info
from .routing import Action
from .shaping import Shape, lookup, response_format, shape_record, unwrap
from .truncation import DEFAULT_MAX_TOKENS, cap_result, fit

_MAX_DEPTH = 64  # JSON nested deeper than this is refused: no API needs it, and recursion has limits
# The fields of a page this server writes itself, typed in the tool's outputSchema
# (R5 structured and text): an API's own field of the same name beside its list is never shown in
# their place.
SERVER_FIELDS = frozenset(
    (
        "items",
        "has_more",
        "next_page",
        "next_cursor",
        "total_count",
        "rest",
        "truncated",
    )
)
# The text copy of a result is JSON the agent reads: compact separators cost fewer tokens than
# json.dumps' default ", " and ": " (C2 measure on real tasks); key order is the data's own, so the
# same result always gives the same text (R5 structured and text).
_compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class Answer(httpx.Response):
    """The API's answer, read within the byte cap and the timeout (upstream.py), with its JSON body
    parsed once: `data` (credential values already redacted), or `problem` saying why the body is not
    usable ("not valid JSON", "more than 8 MB")."""

    data: Any = None
    problem: str | None = None
    # Past the byte cap: `content` is empty, the body was never read whole.
    too_big: bool = False

    @classmethod
    def of(
        cls,
        response: httpx.Response,
        content: bytes,
        data: Any = None,
        problem: str | None = None,
        too_big: bool = False,
    ) -> Answer:
        # The body is already decoded: the encoding and length headers describe the wire, not it.
        headers = [
            (k, v)
            for k, v in response.headers.multi_items()
            if k.lower()
            not in ("content-encoding", "content-length", "transfer-encoding")
        ]
        answer = cls(
            response.status_code,
            headers=headers,
            content=content,
            request=response.request,
        )
        answer.data, answer.problem, answer.too_big = data, problem, too_big
        return answer


def decode_body(content: bytes, secrets: tuple[str, ...]) -> tuple[Any, str | None]:
    """A body as (JSON value, None), or (None, why it is not usable). Strict JSON only (no NaN or
    Infinity), at most _MAX_DEPTH levels deep; the credential's values are replaced in every string (E5 no internals)."""
    if not content:
        return None, None
    try:
        data = json.loads(
            content, parse_constant=_refuse_constant, parse_float=_finite_float
        )
    except _Overflow as exc:
        return None, f"JSON holding a number past what a 64-bit float can hold ({exc})"
    except (ValueError, RecursionError):
        return None, "not valid JSON"
    try:
        if _may_hold(content, secrets):
            return _redacted(data, secrets, _MAX_DEPTH), None
        _check_depth(data, _MAX_DEPTH)
        return data, None
    except _TooDeep:
        return None, f"nested more than {_MAX_DEPTH} levels deep"


# What JSON's short escapes (\" \\ \/ \b \f \n \r \t) stand for.
_ESCAPED = frozenset('"\\/\b\f\n\r\t')


def _may_hold(content: bytes, secrets: tuple[str, ...]) -> bool:
    """Whether a string or key parsed from `content` may hold one of the secrets `redact` replaces.

    In UTF-8 a parsed string is the body's own bytes between quotes except where an escape stands, so
    a secret that is not in the bytes can be in a string only if escapes spell part of it (\\u any
    character, the short escapes their own few). Most bodies hold no secret and no escape that could
    spell one, and need no walk string by string."""
    if json.detect_encoding(content) not in ("utf-8", "utf-8-sig"):
        return True  # UTF-16 or UTF-32, which json.loads reads too
    unicode_escapes = b"\\u" in content
    short_escapes = b"\\" in content
    for secret in secrets:
        if not secret or len(secret) < 4:
            continue
        if secret.encode() in content or unicode_escapes:
            return True
        if short_escapes and not _ESCAPED.isdisjoint(secret):
            return True
    return False


def _check_depth(value: Any, depth: int) -> None:
    """Raise _TooDeep where `value` nests more than `depth` levels (as `_redacted` would)."""
    stack = [(value, depth)] if isinstance(value, (dict, list)) else []
    while stack:
        value, depth = stack.pop()
        if depth == 0:
            raise _TooDeep
        children = value.values() if isinstance(value, dict) else value
        stack += [
            (child, depth - 1) for child in children if isinstance(child, (dict, list))
        ]


class _TooDeep(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _Overflow(ValueError):
    pass


def _finite_float(text: str) -> float:
    """A JSON number as a float; `1e999` would become infinity, which JSON cannot say back."""
    value = float(text)
    if math.isinf(value):
        raise _Overflow(text if len(text) <= 40 else text[:37] + "...")
    return value


def _redacted(value: Any, secrets: tuple[str, ...], depth: int) -> Any:
    """`value` with the credential's values replaced in every string and key; lists are changed in
    place (the value was just parsed: nothing else holds it). Raises _TooDeep past `depth` levels."""
    if isinstance(value, str):
        return redact(value, secrets)
    if not isinstance(value, (dict, list)):
        return value
    if depth == 0:
        raise _TooDeep
    if isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, (str, dict, list)):
                value[i] = _redacted(item, secrets, depth - 1)
        return value
    return {
        redact(k, secrets): _redacted(v, secrets, depth - 1) for k, v in value.items()
    }


def interpret(
    response: httpx.Response,
    action: Action,
    values: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A successful answer as a JSON object for structuredContent. Refusals, redirects and bodies that
    are not JSON never get here: `upstream.send` turns them into a ToolError with guidance (E2 what, why, how; E3 which kind of recovery)."""
    if response.status_code == 204 or not response.content:
        return {"ok": True, "status": response.status_code}
    body = json_or_none(response)
    if action.shape is not None:
        return present(body, response, action, action.shape, values or {})
    if isinstance(body, dict):
        return body
    if isinstance(body, list):
        return {"items": body}
    return {"value": body}


def present(
    body: Any,
    response: httpx.Response,
    action: Action,
    shape: Shape,
    values: Mapping[str, Any],
) -> dict[str, Any]:
    """A read action's answer: records in the requested format (R1 meaningful fields; R2 concise or detailed) and, for a list, one paging
    shape whatever the API's (R3 pagination): items, has_more, next_page or next_cursor, total_count."""
    form = response_format(values)
    records = lookup(body, shape.items) if shape.items is not None else body
    next_link = response.links.get("next", {}).get("url")
    sent = response.request.url.params.multi_items()
    paging = action.paging
    if not isinstance(records, list):
        inner = unwrap(body, shape.record)
        # An envelope that says more than its record is shown whole: the concise fields are the
        # record's, and would find nothing at the envelope's level.
        kept = "detailed" if shape.record and inner is body else form
        record = shape_record(inner, shape, kept)
        shaped = record if isinstance(record, dict) else {"value": record}
        if paging is not None:
            # Paging on an answer that is not a list (the build warned): whatever the API says about
            # more to come still reaches the agent, so a partial answer never reads as whole (R4 truncation is announced).
            info = page_info(
                paging, body, values, 0, next_link, sent, response.headers, shape.items
            )
            if info.get("has_more") is not False or "total_count" in info:
                shaped = {
                    **shaped,
                    **{k: v for k, v in info.items() if k not in shaped},
                }
        return shaped
    # A resumed cut page (truncation.py): the records an earlier result already showed are skipped.
    skip = already_shown(paging, values)
    shaped = {"items": [shape_record(r, shape, form) for r in records[skip:]]}
    if isinstance(body, dict):
        # The answer's other lists of records (a sync's `modified` and `removed` beside `added`) are
        # kept in every format under their own names: a list is never left out of concise.
        shaped.update(
            (k, body[k]) for k in shape.lists if isinstance(body.get(k), list)
        )
    count = len(records)
    headers = response.headers
    shaped.update(
        page_info(paging, body, values, count, next_link, sent, headers, shape.items)
    )
    if form == "detailed" and isinstance(body, dict):
        # What else the API said beside the list, minus what the paging shape already carries.
        skip_keys = {
            (shape.items or "").split(".")[0],
            *(paging.consumed if paging else ()),
            *SERVER_FIELDS,
        }
        shaped.update(
            {k: v for k, v in body.items() if k not in skip_keys and k not in shaped}
        )
    return shaped


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """The most a result may hold, and the call that asked for it (to name the call that gets the rest)."""

    max_tokens: int
    tool: str
    action: Action
    values: Mapping[str, Any]


def success_result(
    data: dict[str, Any],
    budget: Budget | None = None,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> types.CallToolResult:
    """Every result is capped (R4 truncation is announced): with a `budget`, by its call's paging plan; otherwise (previews,
    applies, server info) at `max_tokens`."""
    if budget is not None:
        paging = budget.action.paging
        data = fit(
            data,
            budget.max_tokens,
            tool=budget.tool,
            arguments={"action": budget.action.name, **budget.values},
            paging=paging,
            limit_arg=paging.limit if paging else None,
        )
    else:
        data = cap_result(data, max_tokens)
    text = _compact_json(data)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=data
    )


def error_result(
    error: ToolError, secrets: tuple[str, ...] = ()
) -> types.CallToolResult:
    text = redact(error.text(), secrets)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=True
    )


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """No secret value ever leaves the server in a message (E5 no internals)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


def json_or_none(response: httpx.Response) -> Any:
    """The answer's JSON body, parsed once when it is an Answer; None when it is not JSON."""
    if isinstance(response, Answer):
        return response.data
    try:
        return response.json()
    except ValueError:
        return None
