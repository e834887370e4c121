"""Upstream responses become tool results: structured content plus the same JSON as text (R5)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import mcp_types as types

from .errors import Recovery, ToolError
from .pagination import page_info
from .routing import Action
from .shaping import Shape, lookup, response_format, shape_record
from .truncation import fit

_MESSAGE_KEYS = ("message", "error_description", "detail", "error", "title", "msg")


def interpret(
    response: httpx.Response,
    action: Action,
    values: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A JSON object for structuredContent; non-2xx answers raise ToolError with guidance (E2, E3)."""
    if response.status_code >= 400:
        raise http_error(response, action)
    if response.status_code == 204 or not response.content:
        return {"ok": True, "status": response.status_code}
    body = _json_or_none(response)
    if body is None:
        return {
            "ok": True,
            "status": response.status_code,
            "text": response.text[:2000],
        }
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
    """A read action's answer: records in the requested format (R1, R2) and, for a list, one paging
    shape whatever the API's (R3): items, has_more, next_page or next_cursor, total_count."""
    form = response_format(values)
    records = lookup(body, shape.items) if shape.items is not None else body
    if not isinstance(records, list):
        record = shape_record(body, shape, form)
        return record if isinstance(record, dict) else {"value": record}
    shaped: dict[str, Any] = {"items": [shape_record(r, shape, form) for r in records]}
    next_link = response.links.get("next", {}).get("url")
    sent = response.request.url.params.multi_items()
    paging = action.paging
    shaped.update(page_info(paging, body, values, len(records), next_link, sent))
    if form == "detailed" and isinstance(body, dict):
        # What else the API said beside the list, minus what the paging shape already carries.
        skip = {(shape.items or "").split(".")[0], *(paging.consumed if paging else ())}
        shaped.update(
            {k: v for k, v in body.items() if k not in skip and k not in shaped}
        )
    return shaped


def http_error(response: httpx.Response, action: Action) -> ToolError:
    status = response.status_code
    said = _upstream_message(response)
    told = f" The API said: {said}" if said else ""
    if status in (400, 422):
        return ToolError(
            f"the API rejected the arguments of '{action.name}' (HTTP {status}).{told}",
            "Correct the value the API names and call again.",
            Recovery.FIX_INPUT,
        )
    if status in (401, 403):
        return ToolError(
            f"the API refused the credentials for '{action.name}' (HTTP {status}).{told}",
            "Ask the user to check the API credentials configured for this server and their permissions.",
            Recovery.NEEDS_PERMISSION,
        )
    if status == 404:
        return ToolError(
            f"not found (HTTP 404) for '{action.name}'.{told}",
            "Check the identifier; find the right one with a list or search action of this server.",
            Recovery.FIX_INPUT,
        )
    if status == 409:
        return ToolError(
            f"the request conflicts with the current state (HTTP 409).{told}",
            "Read the current state first, then decide whether the change is still needed.",
            Recovery.FIX_INPUT,
        )
    if status == 429:
        wait = response.headers.get("retry-after", "").strip()
        when = f"{wait} seconds" if wait.isdigit() else "a little while"
        return ToolError(
            f"the API is rate limiting this server (HTTP 429).{told}",
            f"Wait {when} and call again.",
            Recovery.RETRY_LATER,
        )
    if status >= 500:
        return ToolError(
            f"the API failed (HTTP {status}).{told}",
            "Wait and retry later; if it keeps failing, tell the user the API is unavailable.",
            Recovery.RETRY_LATER,
        )
    return ToolError(
        f"the API answered HTTP {status}.{told}",
        "Check the arguments and call again.",
        Recovery.FIX_INPUT,
    )


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _upstream_message(response: httpx.Response) -> str:
    body = _json_or_none(response)
    if isinstance(body, dict):
        for key in _MESSAGE_KEYS:
            value = body.get(key)
            if isinstance(value, str) and value.strip():
                field = body.get("field") or body.get("param")
                return value.strip() + (
                    f" (field: {field})" if isinstance(field, str) else ""
                )
            if isinstance(value, dict):
                nested = value.get("message")
                if isinstance(nested, str):
                    return nested.strip()
        return ""
    text = response.text.strip()
    return text[:300] if text and not text.startswith("<") else ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """The most a result may hold, and the call that asked for it (to name the call that gets the rest)."""

    max_tokens: int
    tool: str
    action: Action
    values: Mapping[str, Any]


def success_result(
    data: dict[str, Any], budget: Budget | None = None
) -> types.CallToolResult:
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
    text = json.dumps(data, ensure_ascii=False)
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
    """No secret value ever leaves the server in a message (E5)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text
