"""Upstream responses become tool results: structured content plus the same JSON as text (R5)."""

from __future__ import annotations

import email.utils
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import mcp_types as types

from .errors import Recovery, ToolError
from .pagination import page_info
from .routing import Action, Param
from .shaping import Shape, lookup, response_format, shape_record
from .truncation import fit

_MESSAGE_KEYS = ("message", "error_description", "detail", "error", "title", "msg")


def interpret(
    response: httpx.Response,
    action: Action,
    values: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A successful answer as a JSON object for structuredContent. Refusals never get here:
    `upstream.send` turns them into a ToolError with guidance (E2, E3)."""
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


def http_error(
    response: httpx.Response, action: Action, credential_env: str | None = None
) -> ToolError:
    """An upstream refusal as what happened, why, and what to do next (E2, E3); see docs/errors.md."""
    status = response.status_code
    said, field = _upstream_problem(response)
    if said and not said.endswith((".", "!", "?")):
        said += "."
    told = f" The API said: {said}" if said else ""
    if status in (400, 422):
        return _rejected(status, told, said, field, action)
    if status == 401:
        return _unauthorized(told, action, credential_env)
    if status == 403:
        return _forbidden(response, told, action, credential_env)
    if status == 404:
        return _not_found(told, action)
    if status == 409:
        check = action.check_with or "a read action of this server"
        return ToolError(
            f"'{action.name}' conflicts with the current state (HTTP 409).{told}",
            f"Read the current state with {check}, then decide whether the change is still needed.",
            Recovery.FIX_INPUT,
        )
    if status == 429:
        wait = _retry_after_s(response.headers.get("retry-after", ""))
        when = (
            f"{wait} seconds (the API's Retry-After)"
            if wait is not None
            else "a minute"
        )
        return ToolError(
            f"the API is rate limiting this server (HTTP 429).{told}",
            f"Wait {when}, then call '{action.name}' again.",
            Recovery.RETRY_LATER,
        )
    if status >= 500:
        how = "Wait a minute and retry; if it keeps failing, tell the user the API is unavailable."
        if not action.idempotent:
            check = action.check_with or "a read action of this server"
            how = f"Before calling '{action.name}' again, check with {check} that it did not take effect. {how}"
        return ToolError(
            f"the API failed (HTTP {status}) while running '{action.name}'.{told}",
            how,
            Recovery.RETRY_LATER,
        )
    return ToolError(
        f"the API answered HTTP {status} to '{action.name}'.{told}",
        "Check the arguments and call again.",
        Recovery.FIX_INPUT,
    )


def _rejected(
    status: int, told: str, said: str, field: str | None, action: Action
) -> ToolError:
    """400/422: the API's own words, and the argument it is about under the agent's name for it."""
    param = _param_named(action, field, said)
    if param is None:
        return ToolError(
            f"the API rejected the arguments of '{action.name}' (HTTP {status}).{told}",
            "Correct the value the API names and call again.",
            Recovery.FIX_INPUT,
        )
    about = f" The argument is {param.arg}"
    about += f" (the API calls it {param.wire})." if param.wire != param.arg else "."
    if param.unit is not None:
        unit = param.unit
        about += (
            f" The API counts it in {unit.upstream}; this server converts {param.arg} from "
            f"{unit.agent} (1 {unit.agent} = {unit.factor:g} {unit.upstream})."
        )
    return ToolError(
        f"the API rejected the arguments of '{action.name}' (HTTP {status}).{told}{about}",
        f"Correct {param.arg} and call again.",
        Recovery.FIX_INPUT,
    )


def _unauthorized(told: str, action: Action, env: str | None) -> ToolError:
    if env is None:
        return ToolError(
            f"the API wants credentials for '{action.name}' (HTTP 401), and this server sends none.{told}",
            "This needs the user: the server's mapping needs server.auth; ask them to add it and regenerate.",
            Recovery.NEEDS_HUMAN,
        )
    return ToolError(
        f"the API refused the credentials in {env} for '{action.name}' (HTTP 401): they are wrong, "
        f"expired or revoked.{told}",
        f"This needs the user: ask them to set {env} to a valid credential in this MCP server's "
        "environment and restart the server. Calling again before that fails the same way.",
        Recovery.NEEDS_PERMISSION,
    )


def _forbidden(
    response: httpx.Response, told: str, action: Action, env: str | None
) -> ToolError:
    scope = _wanted_scope(response.headers.get("www-authenticate", ""))
    needs = f" It needs the scope {scope}." if scope else ""
    whose = f"the credentials in {env}" if env else "this server"
    grant = f"the scope {scope}" if scope else f"permission for '{action.name}'"
    fix = f" (or set {env} to one that has it and restart the server)" if env else ""
    return ToolError(
        f"{whose} may not run '{action.name}' (HTTP 403).{needs}{told}",
        f"This needs the user: ask them to grant {grant} to that credential{fix}. "
        "Calling again before that fails the same way.",
        Recovery.NEEDS_PERMISSION,
    )


def _not_found(told: str, action: Action) -> ToolError:
    if action.find_with and action.finds:
        return ToolError(
            f"not found (HTTP 404): '{action.name}' found nothing for the {action.finds} given.{told}",
            f"Find the right {action.finds} with {action.find_with}, then call again with it.",
            Recovery.FIX_INPUT,
        )
    return ToolError(
        f"not found (HTTP 404) for '{action.name}'.{told}",
        "Check the identifiers in the arguments and call again.",
        Recovery.FIX_INPUT,
    )


def _param_named(action: Action, field: str | None, said: str) -> Param | None:
    """The parameter an error is about: the field the API names, or the one wire name its message uses."""
    if field:
        leaf = re.split(r"[./\[\]]+", field.strip("/[]. "))[-1]
        for param in action.params:
            if leaf in (param.wire, param.arg):
                return param
    mentioned = [
        p for p in action.params if re.search(rf"\b{re.escape(p.wire)}\b", said)
    ]
    return mentioned[0] if len(mentioned) == 1 else None


def _retry_after_s(value: str) -> int | None:
    """Retry-After as seconds: delta-seconds, or an HTTP date measured from now."""
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0, math.ceil((when - datetime.now(UTC)).total_seconds()))


_SCOPE = re.compile(r'scope="([^"]*)"')


def _wanted_scope(challenge: str) -> str | None:
    found = _SCOPE.search(challenge)
    scope = found.group(1).strip() if found else ""
    return scope or None


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


_MAX_SAID = 300
# Lines of a stack trace (Python, Java/JS, Go): never passed on to the agent (E5).
_TRACE = re.compile(
    r"Traceback \(most recent call last\)|^\s+File \"|^\s+at \S|goroutine \d+", re.M
)


def _upstream_problem(response: httpx.Response) -> tuple[str, str | None]:
    """The API's own message about a failure, and the field it names, if any."""
    body = _json_or_none(response)
    if isinstance(body, dict):
        field = body.get("field") or body.get("param") or body.get("parameter")
        for key in _MESSAGE_KEYS:
            value = body.get(key)
            if isinstance(value, dict):
                field = field or value.get("field") or value.get("param")
                value = value.get("message")
            if isinstance(value, str) and value.strip():
                return _clean(value), field if isinstance(field, str) else None
        return "", None
    text = response.text.strip()
    if not text or text.startswith("<"):
        return "", None  # an HTML error page says nothing the agent can use
    return _clean(text.splitlines()[0]), None


def _clean(message: str) -> str:
    found = _TRACE.search(message)
    if found:
        message = message[: found.start()]
    message = " ".join(message.split())
    return message if len(message) <= _MAX_SAID else message[: _MAX_SAID - 3] + "..."


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
