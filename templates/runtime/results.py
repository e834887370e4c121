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
from .notes import with_note
from .pagination import already_shown, page_info
from .routing import Action
from .shaping import (
    ResponseFormat,
    Shape,
    concise_or_more,
    lookup,
    response_format,
    shape_record,
    unwrap,
    unwrap_unsaid,
)
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
        "note",
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
    # The body's size as its Content-Length declared it (the wire's; None when not declared).
    declared_bytes: int | None = None

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
        declared = response.headers.get("content-length", "")
        answer.declared_bytes = int(declared) if declared.isdigit() else None
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
    shape whatever the API's (R3 pagination): items, has_more, next_page or next_cursor, total_count.
    Where the answer is not what the spec said (a record wrapped, a list that is not one, concise
    fields missing) the result's note says so, and shows what there is (notes.py)."""
    form = response_format(values)
    records = lookup(body, shape.items) if shape.items is not None else body
    if records is None and shape.items and isinstance(body, dict):
        records = []  # the list's field left out of the answer: Google's APIs omit an empty one
    listed = _list_inside(body) if shape.items == "" else None
    if listed is not None:
        # The spec says the answer is a list; the API wraps it (SalesLoft's {"metadata", "data": [...]}).
        records = body[listed]
    next_link = response.links.get("next", {}).get("url")
    sent = response.request.url.params.multi_items()
    paging = action.paging
    if not isinstance(records, list):
        shaped = _one_record(body, shape, form)
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
        if shape.items is not None:
            where = f"in its '{shape.items}' field" if shape.items else ""
            shaped = with_note(
                shaped,
                f"The spec describes a list of records {where}, but the API answered "
                f"{_kind(records if shape.items else body)}: shown as it came.",
            )
        return shaped
    # A resumed cut page (truncation.py): the records an earlier result already showed are skipped.
    skip = already_shown(paging, values)
    items, notes = _records_shown(records[skip:], shape, form)
    shaped = {"items": items}
    if isinstance(body, dict):
        # The answer's other lists of records (a sync's `modified` and `removed` beside `added`) are
        # kept in every format under their own names: a list is never left out of concise.
        shaped.update(
            (k, body[k]) for k in shape.lists if isinstance(body.get(k), list)
        )
    count = len(records)
    headers = response.headers
    list_path = listed if listed is not None else shape.items
    shaped.update(
        page_info(paging, body, values, count, next_link, sent, headers, list_path)
    )
    if form == "detailed" and isinstance(body, dict):
        # What else the API said beside the list, minus what the paging shape already carries.
        skip_keys = {
            (shape.items or listed or "").split(".")[0],
            *(paging.consumed if paging else ()),
            *SERVER_FIELDS,
        }
        shaped.update(
            {k: v for k, v in body.items() if k not in skip_keys and k not in shaped}
        )
    if listed is not None:
        notes.insert(
            0,
            f"The spec describes the answer as a list; the API answered an object with the list in "
            f"'{_named(listed)}': its records are shown.",
        )
    for note in notes:
        shaped = with_note(shaped, note)
    return shaped


def _list_inside(body: Any) -> str | None:
    """The one field of an object answer that holds a list of records, when there is one."""
    if not isinstance(body, dict):
        return None
    lists = [
        key
        for key, value in body.items()
        if isinstance(value, list) and all(isinstance(v, dict) for v in value)
    ]
    return lists[0] if len(lists) == 1 else None


def _one_record(body: Any, shape: Shape, form: ResponseFormat) -> dict[str, Any]:
    """One record in the requested format, with a note where it is not what the spec said."""
    inner = unwrap(body, shape.record)
    # An envelope that says more than its record is shown whole: the concise fields are the
    # record's, and would find nothing at the envelope's level.
    kept = "detailed" if shape.record and inner is body else form
    inner, key = (inner, None) if inner is not body else unwrap_unsaid(inner, shape)
    missing: tuple[str, ...] = ()
    whole = False
    if kept == "concise":
        record, missing, whole = concise_or_more(inner, shape)
    else:
        record = shape_record(inner, shape, kept)
    notes = [_unwrapped_note(key, 1, 1)] if key else []
    if missing:
        notes.append(_missing_note(missing, whole, 1, 1))
    shaped = record if isinstance(record, dict) else {"value": record}
    for note in notes:
        shaped = with_note(shaped, note)
    return shaped


def _records_shown(
    records: list[Any], shape: Shape, form: ResponseFormat
) -> tuple[list[Any], list[str]]:
    """A page's records in the requested format, and the notes on those the spec did not describe:
    records wrapped in an envelope of one key, records without the concise fields."""
    shown: list[Any] = []
    wrapped: dict[str, int] = {}
    missing: dict[str, int] = {}
    whole = 0
    for record in records:
        inner, key = unwrap_unsaid(record, shape)
        if key:
            wrapped[key] = wrapped.get(key, 0) + 1
        if form == "concise":
            one, lacked, shown_whole = concise_or_more(inner, shape)
            whole += shown_whole
            missing.update((name, missing.get(name, 0) + 1) for name in lacked)
        else:
            one = shape_record(inner, shape, form)
        shown.append(one)
    notes = [_unwrapped_note(k, n, len(records)) for k, n in wrapped.items()]
    if missing:
        lacking = max(missing.values())
        notes.append(
            _missing_note(tuple(missing), whole == lacking, lacking, len(records))
        )
    return shown, notes


def _unwrapped_note(key: str, count: int, total: int) -> str:
    which = "The record" if total == 1 else f"{_of(count, total)} records"
    return (
        f"{which} came wrapped in '{_named(key)}', an envelope the spec does not describe: "
        "shown is what it held."
    )


def _missing_note(missing: tuple[str, ...], whole: bool, count: int, total: int) -> str:
    """Concise fields an answer lacked: which, and what is shown instead (R1 meaningful fields, R2 concise or detailed)."""
    names = ", ".join(_named(m) for m in missing[:6])
    names += f" and {len(missing) - 6} more" if len(missing) > 6 else ""
    one = total == 1
    which = "The record lacks" if one else f"{_of(count, total)} records lack"
    instead = (
        f"{'it is' if one else 'they are'} shown whole instead"
        if whole
        else f"{'its' if one else 'their'} id and name fields are shown instead "
        "(response_format=detailed shows every field)"
    )
    return f"{which} the concise field{'s' if len(missing) > 1 else ''} {names}: {instead}."


def _named(key: str) -> str:
    """A field name of the API's as a note quotes it: on one line, at most 60 characters."""
    key = " ".join(key.split())
    return key if len(key) <= 60 else key[:57] + "..."


def _of(count: int, total: int) -> str:
    return "All" if count == total else f"{count} of {total}"


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    return "no list" if value is None else f"a {type(value).__name__}"


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
