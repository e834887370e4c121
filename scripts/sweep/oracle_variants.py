"""Answers in the shapes real APIs use, made from Prism's: the upstream layer of the oracle's variant steps.

Prism answers only in the spec's shapes. Real APIs wrap a record in `{"data": ...}`, page by a
`next_page_token`, a `Link` header or totals (`X-Total`, `total_records`, `pagination.itemsTotal`), put
their error text under `error_message`, `invalid-params`, `problems[]` or `{"errors": {"field": [...]}}`,
and report failures inside a 200 (`success: false`, `ok: false`, a nonzero `error_code`). The recording
proxy (oracle_upstream.Recorder) asks Prism first, so the request is still checked against the spec,
and reshapes only a 2xx answer of a valid request; which variant a call gets is a hash of the spec, the
operation and the step (deterministic). Every variant leaves a note on the exchange, the judge's truth.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from urllib.parse import urlencode

MARK = "oracle-7c1e"
LAST_PAGE = 3  # token and link paging: pages 1 and 2 say more follows, page 3 is the last
PAGING_KINDS = ("token", "link", "x-total", "body-total", "last-page", "extra-array")
ERROR_KINDS = ("error_message", "invalid-params", "problems", "errors-by-field")
FAILURE_KINDS = ("success-false", "ok-false", "error-code")
WRAP_KEYS = ("data", "result")
_PAGE = re.compile(r"oracle-page-(\d+)")
_NEXTISH = re.compile(r"(next|cursor|more|continuation)", re.I)


def pick(options: tuple[str, ...], *key: str) -> str:
    digest = hashlib.sha256(":".join(key).encode()).digest()
    return options[int.from_bytes(digest[:4], "big") % len(options)]


def error_text(kind: str) -> str:
    return f"the amount must be positive ({kind}, {MARK})"


def failure_text(kind: str) -> str:
    return f"the account is locked ({kind}, {MARK})"


def page_of(query: list[tuple[str, str]], body: Any) -> int:
    """The page a request asks for: a token or link this layer gave (`oracle-page-N`, `oracle_page=N`), else 1."""
    for name, value in query:
        if name == "oracle_page" and value.isdigit():
            return int(value)
        found = _PAGE.search(value)
        if found:
            return int(found.group(1))
    found = _PAGE.search(json.dumps(body, default=str)) if body is not None else None
    return int(found.group(1)) if found else 1


def records_of(body: Any) -> tuple[list[Any] | None, str | None]:
    """The list of records an answer carries: the body itself, or its one (or list-named) array of objects."""
    if isinstance(body, list):
        return body, ""
    if not isinstance(body, dict):
        return None, None
    arrays = [k for k, v in body.items() if isinstance(v, list) and all(isinstance(i, dict) for i in v)]
    named = [k for k in arrays if k.lower() in ("items", "data", "results", "value", "records", "entries")]
    key = (named or arrays or [None])[0]
    return (body[key], key) if key is not None else (None, None)


def reshape(variant: dict[str, Any], *, base_url: str, path: str, query: list[tuple[str, str]], body_sent: Any,
            status: int, headers: dict[str, str], body: Any) -> tuple[int, dict[str, str], Any, dict[str, Any]]:  # fmt: skip
    """The answer as the variant's API gives it, and the note the judge reads. Only a 2xx answer is reshaped."""
    kind = variant["kind"]
    if not 200 <= status < 300:
        return status, headers, body, {"kind": "none", "why": f"Prism answered {status}"}
    if kind in ERROR_KINDS:
        return _error(kind, headers)
    if kind in FAILURE_KINDS:
        return (
            200,
            {**headers, "content-type": "application/json"},
            _failure(kind),
            {"kind": kind, "text": failure_text(kind)},
        )
    if kind in WRAP_KEYS:
        if (
            isinstance(body, dict)
            and records_of(body)[0] is None
            and not (len(body) == 1 and next(iter(body)) in WRAP_KEYS)
        ):
            return status, headers, {kind: body}, {"kind": "wrap", "key": kind}
        return status, headers, body, {"kind": "none", "why": "not a record to wrap"}
    if kind in PAGING_KINDS:
        return _paging(kind, base_url, path, query, body_sent, status, headers, body)
    return status, headers, body, {"kind": "none"}


def _error(kind: str, headers: dict[str, str]) -> tuple[int, dict[str, str], Any, dict[str, Any]]:
    text = error_text(kind)
    media = "application/json"
    if kind == "error_message":  # Plaid
        status, body = 400, {"error_type": "INVALID_REQUEST", "error_code": "INVALID_FIELD", "error_message": text,
                             "display_message": text, "request_id": MARK}  # fmt: skip
    elif kind == "invalid-params":  # RFC 7807's own example
        media = "application/problem+json"
        status, body = 400, {"type": "https://example.net/validation-error",
                             "title": "Your request parameters didn't validate.",
                             "invalid-params": [{"name": "amount", "reason": text}]}  # fmt: skip
    elif kind == "problems":
        media = "application/problem+json"
        status, body = 422, {"type": "about:blank", "title": "Unprocessable Entity", "status": 422,
                             "problems": [{"field": "amount", "detail": text}]}  # fmt: skip
    else:  # Rails
        status, body = 422, {"errors": {"amount": [text]}}
    out = {k: v for k, v in headers.items() if k not in ("link", "x-total", "x-total-count")}
    return status, {**out, "content-type": media}, body, {"kind": kind, "text": text}


def _failure(kind: str) -> dict[str, Any]:
    text = failure_text(kind)
    if kind == "success-false":
        return {"success": False, "error": {"code": "ACCOUNT_LOCKED", "message": text}}
    if kind == "ok-false":  # Slack
        return {"ok": False, "error": text}
    return {"error_code": 4031, "error_message": text, "data": None}


def _paging(kind: str, base_url: str, path: str, query: list[tuple[str, str]], body_sent: Any, status: int,
            headers: dict[str, str], body: Any) -> tuple[int, dict[str, str], Any, dict[str, Any]]:  # fmt: skip
    records, where = records_of(body)
    if records is None:
        return status, headers, body, {"kind": "none", "why": "no list of records in the answer"}
    page = page_of(query, body_sent)
    shown = len(records)
    more = page < LAST_PAGE
    note: dict[str, Any] = {"kind": kind, "page": page, "shown": shown, "field": where}
    headers = dict(headers)
    if kind == "token" and isinstance(body, dict):
        token, link = f"oracle-page-{page + 1}", _link(base_url, path, query, page + 1)
        kept = _with_next(body, token, link) if more else _no_next(body)
        body = {**kept, "next_page_token": token if more else ""}
        note["more"] = more
    elif kind in ("token", "link"):
        link = _link(base_url, path, query, page + 1)
        if more:
            headers["link"] = f'<{link}>; rel="next"'
        if isinstance(body, dict):
            body = _with_next(body, f"oracle-page-{page + 1}", link) if more else _no_next(body)
        note.update(kind="link", more=more)
    elif kind == "x-total":
        headers["x-total"] = str(shown + 7)
        note.update(total=shown + 7, more=True)
    elif kind == "body-total" and isinstance(body, dict):
        body, found = _set_totals(body, shown + 7)
        if not found and pick(("flat", "nested"), path) == "flat":
            body = {**body, "total_records": shown + 7}
        elif not found:
            body = {**body, "pagination": {"itemsTotal": shown + 7, "page": 1, "pageSize": max(shown, 1)}}
        note.update(total=shown + 7, more=True)
    elif kind == "last-page" and isinstance(body, dict):
        body, found = _set_totals(_no_next(body), shown)
        body = {**body, "next_page": None, **({} if found else {"total": shown})}
        note.update(total=shown, more=False)
    elif kind == "extra-array" and isinstance(body, dict):
        body = {
            **body,
            "included": [{"id": f"{MARK}-included-{i}", "type": "user"} for i in range(shown + 2)],
        }
    elif kind in ("body-total", "last-page", "extra-array"):  # a top-level array: the totals go in headers
        headers["x-total-count"] = str(shown if kind == "last-page" else shown + 7)
        note.update(kind="x-total", total=int(headers["x-total-count"]), more=kind != "last-page")
    return status, headers, body, note


_TOTAL = re.compile(
    r"^(total|total_?count|total_?records|total_?results|total_?items|items_?total|count|"
    r"total_?elements|total_?size|totalhits|total_?hits)$",
    re.I,
)


def _set_totals(body: dict[str, Any], n: int) -> tuple[dict[str, Any], bool]:
    """Every total the answer already gives (its own fields, and those of an object field) set to n."""
    out, found = {}, False
    for key, value in body.items():
        if _TOTAL.match(key) and isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key], found = n, True
        elif isinstance(value, dict) and not isinstance(body, list):
            inner = {k: n if _TOTAL.match(k) and isinstance(v, (int, float)) and not isinstance(v, bool) else v
                     for k, v in value.items()}  # fmt: skip
            found = found or inner != value
            out[key] = inner
        else:
            out[key] = value
    return out, found


def _link(base_url: str, path: str, query: list[tuple[str, str]], page: int) -> str:
    kept = [(k, v) for k, v in query if k != "oracle_page"] + [("oracle_page", str(page))]
    return f"{base_url}{path}?{urlencode(kept)}"


def _with_next(body: dict[str, Any], token: str, link: str) -> dict[str, Any]:
    """The answer's own next-page fields (Prism's example may carry one) pointing at this layer's next page:
    a URL becomes its link, any other string its token."""
    return {k: (link if v.startswith("http") else token) if isinstance(v, str) and _NEXTISH.search(k) else v
            for k, v in body.items()}  # fmt: skip


def _no_next(body: dict[str, Any]) -> dict[str, Any]:
    """The answer with every next-page field of its own emptied (Prism's example may carry one)."""
    return {k: (False if "more" in k.lower() else None) if _NEXTISH.search(k) and not isinstance(v, list) else v
            for k, v in body.items()}  # fmt: skip
