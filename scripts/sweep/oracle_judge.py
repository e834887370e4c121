"""What the oracle concludes from one tool call: the exchanges Prism saw, and the result the agent got.

Categories (the issue's, plus two the oracle adds for defects Prism cannot see):
    a  requests Prism flags as violating the spec: mcpgen sent something wrong
    b  results whose shape contradicts the operation's response schema
    c  tool errors that are not the API's fault (valid input refused, a valid answer not understood)
    d  tracebacks and JSON-RPC errors
    e  an API error message the tool error drops (error probes: Prism answers a documented 4xx)
    f  spec features the generated package ignores (operation-level servers, untyped bodies)
    g..n  the value classes (oracle_classes.py): units, exact values, concise results, JSON media, partial
          lists, the API's error text, failures inside a 200, credential body fields
    x  not counted: the oracle's own value was not one the spec allows, or Prism/the spec failed
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from scripts.sweep.oracle_classes import (
    CLASS_CATEGORIES,
    VARIANT_STEPS,
    class_findings,
    static_class_findings,
)
from scripts.sweep.oracle_spec import Operation, SpecDoc, answer_kind, is_paging_field
from scripts.sweep.oracle_upstream import Exchange

CATEGORIES = {
    "a": "requests Prism flags as violating the spec",
    "b": "result shapes contradicting the response schema",
    "c": "tool errors that are not the API's fault",
    "d": "tracebacks and JSON-RPC errors",
    "e": "API error messages dropped",
    "f": "spec features the package ignores",
    **CLASS_CATEGORIES,
}
COUNTED = tuple(CATEGORIES)
_PAGING_PARAMS = re.compile(
    r"^(limit|page|page_?size|per_?page|cursor|offset|skip|top|\$top|\$skip|max_?results|page_?token|"
    r"next_?token|marker|starting_?after|ending_?before|page\[.*\]|continuation_?token|\$skiptoken)$",
    re.I,
)
_MESSAGE_KEYS = ("message", "msg", "detail", "details", "title", "error", "error_description", "errormessage",
                 "error_message", "reason", "description", "errors", "faultstring", "fault", "text")  # fmt: skip


@dataclass
class Finding:
    category: str
    kind: str
    tool: str
    action: str
    operation: str
    pointer: str
    detail: str
    cause: str

    def row(self) -> dict[str, Any]:
        return {k: (v[:400] if isinstance(v, str) else v) for k, v in asdict(self).items()}


@dataclass
class Call:
    """One tool call the oracle made, with all it needs to judge it."""

    doc: SpecDoc
    op: Operation
    tool: str  # the served tool name called
    action: Any  # the generated routing.Action
    step: str  # minimal, full, next, probe, preview, apply
    args: dict[str, Any]
    unsure: set[str]  # wire names whose value the oracle could not make valid
    input_properties: dict[str, Any]
    exchanges: list[Exchange] = field(default_factory=list)
    data: Any = None  # structuredContent (or the text's JSON)
    text: str = ""
    is_error: bool = False
    raised: str | None = None  # a JSON-RPC error or a client-side failure
    derived: Any = None  # the derived mapping's own record of its additions (oracle_derive.Derived)
    extra: dict[str, Any] = field(default_factory=dict)  # what a variant step needs to be judged

    def finding(
        self, category: str, kind: str, detail: str, cause: str, pointer: str | None = None
    ) -> Finding:
        return Finding(category, kind, self.tool, self.action.name, self.op.key, pointer or self.op.pointer(),
                       detail, cause)  # fmt: skip


def judge(call: Call) -> list[Finding]:
    found: list[Finding] = []
    if call.raised is not None:
        return [call.finding("d", "json-rpc-error", call.raised, "the server answered with a protocol error "
                             "instead of a tool result (or the call never returned)")]  # fmt: skip
    if "failed unexpectedly" in call.text:
        found.append(call.finding("d", "unexpected-exception", call.text.splitlines()[0], _crash_cause(call)))
    violated = excused = False
    for exchange in call.exchanges:
        for finding in _request_findings(call, exchange):
            violated = violated or finding.category == "a"
            excused = excused or (finding.category == "x" and exchange is call.exchanges[-1])
            found.append(finding)
    last = call.exchanges[-1] if call.exchanges else None
    if call.step in VARIANT_STEPS:
        # The answer is a variant of Prism's (oracle_variants.py): only its values are judged, by their own
        # categories; the request is still Prism's to judge (a), past the pages a variant made up.
        if call.step == "paged-next":
            found = [f for f in found if f.category != "a"]
        return [*found, *class_findings(call)]
    if call.is_error and excused and not violated and last is not None and 400 <= last.status < 500:
        # Prism refused the request for what the judge does not count (a header parameter OpenAPI says
        # to ignore, the oracle's own value): the tool error is that refusal, not mcpgen's doing.
        return [*found, call.finding("x", "refused-for-uncounted", f"HTTP {last.status}",
                                     "Prism refused the request for a reason counted as x above")]  # fmt: skip
    if call.is_error:
        found += _error_findings(call, last, violated)
    elif last is not None and 200 <= last.status < 300 and call.step not in ("preview", "apply"):
        found += _shape_findings(call, last)
    return found + class_findings(call)


def _crash_cause(call: Call) -> str:
    if "(error)" in call.text:  # re.error: a pattern Python's re cannot compile
        for name in call.args:
            for pattern in _patterns(call.input_properties.get(name)):
                try:
                    re.compile(pattern)
                except re.error:
                    return f"the inputSchema pattern of {name} ({pattern[:40]}) is ECMA-262 syntax Python's re cannot compile"
    return "an uncaught exception inside the server's call path"


def _patterns(schema: Any) -> list[str]:
    if isinstance(schema, dict):
        own = [schema["pattern"]] if isinstance(schema.get("pattern"), str) else []
        return own + [p for v in schema.values() for p in _patterns(v)]
    if isinstance(schema, list):
        return [p for v in schema for p in _patterns(v)]
    return []


# ---- a: what Prism says about the request ---------------------------------------------------------


def _request_findings(call: Call, exchange: Exchange) -> list[Finding]:
    kind = exchange.prism_error()
    where = f"{exchange.method} {exchange.path}"
    if kind == "UNAUTHORIZED":
        return [call.finding("a", "unauthorized", f"{where}: Prism: invalid security scheme used; sent: "
                             f"{_sent_credentials(exchange)}", _security_cause(call, exchange),
                             call.op.pointer("security"))]  # fmt: skip
    if kind in ("NO_PATH_MATCHED_ERROR", "NO_METHOD_MATCHED_ERROR") and "#" in call.op.path:
        return [call.finding("x", "prism-cannot-route", f"{where}: Prism: {kind}",
                             "the spec names the operation '<path>#<fragment>' (AWS), which Prism cannot route")]  # fmt: skip
    if kind in ("NO_PATH_MATCHED_ERROR", "NO_METHOD_MATCHED_ERROR"):
        return [call.finding("a", "no-route", f"{where}: Prism: {kind}",
                             "the request's path or method is not the operation's (path template, encoding or base path)")]  # fmt: skip
    if kind == "NOT_ACCEPTABLE":
        return [call.finding("a", "not-acceptable", f"{where}: Prism 406 for accept: "
                             f"{exchange.headers.get('accept')}",
                             "the server asks for JSON from an operation that answers another media type only")]  # fmt: skip
    if kind == "INVALID_CONTENT_TYPE":
        return [call.finding("a", "content-type", f"{where}: content-type {exchange.headers.get('content-type')}",
                             "the body is sent in a media type the operation does not take")]  # fmt: skip
    out = []
    # A oneOf/anyOf body that fails because of a value the oracle could not make valid also fails every
    # other form (nexmo.com/voice.json POST /: `to` breaks 'With NCCO', so Prism also asks for answer_url).
    root_from_oracle = _root_follows_unsure(call, exchange.violations())
    for violation in exchange.violations():
        location = [str(p) for p in violation.get("location") or []]
        if root_from_oracle and location[-1:] == ["body"]:
            out.append(call.finding("x", "oracle-input", f"{where}: {violation.get('message')}",
                                    "a form of the body failed on the oracle's own value, so every form did"))  # fmt: skip
            continue
        if location[:1] == ["response"] or str(violation.get("severity", "")).lower() != "error":
            continue
        message = str(violation.get("message") or "")
        if "invalid security scheme" in message.lower():
            out.append(call.finding("a", "unauthorized", f"{where}: Prism: {message}", _security_cause(call, exchange),
                                    call.op.pointer("security")))  # fmt: skip
            continue
        wire = _violated_name(location, message)
        detail = f"{where}: {'.'.join(location)}: {message}"
        if "#" in call.op.path:
            # '/restapis#mode=import' (amazonaws.com/apigateway.json): Prism drops the fragment and checks
            # the request against the sibling operation at '/restapis', whose body is another.
            out.append(call.finding("x", "prism-cannot-route", detail, "the spec names the operation "
                                    "'<path>#<fragment>' (AWS); Prism checked it as another operation"))  # fmt: skip
            continue
        if {u.lower() for u in call.unsure} & {str(n).lower() for n in (wire, *location) if n}:
            out.append(
                call.finding("x", "oracle-input", detail, "the oracle found no value the spec allows here")
            )
            continue
        if "must be array" in message and _one_form_value(exchange, wire):
            # A form body's one-item array is `Audiences=a` (style form, explode), which reads as a string
            # to Prism (twilio.com/twilio_oauth_v1.json POST /v1/device/code, requestBody `Audiences`).
            out.append(call.finding("x", "prism-form-one-item", detail, "Prism reads a form body's one-item "
                                    "array (name=value, as OpenAPI's form style sends it) as a string"))  # fmt: skip
            continue
        if (
            "required property" in message
            and location[-1:] == ["body"]
            and wire
            and not _declared(call, wire)
        ):
            # dataflowkit.com.json /components/schemas/parserequest requires 'proxy', 'type' and 'url',
            # fields of its `request` (fetchrequest), not its own: no request that names its fields fits.
            out.append(call.finding("x", "spec-requires-undeclared", detail, "the spec's body schema requires a "
                                    "field it does not declare (the spec contradicts itself)"))  # fmt: skip
            continue
        if location[-1:] == ["body"] and "must be object" in message and _binary_with_object_schema(call):
            # googleapis.com/drive.json POST /files: `application/octet-stream` with the `File` object schema
            # (the upload's metadata); the server sends the file's bytes, which no object schema fits.
            out.append(call.finding("x", "spec-binary-object-body", detail, "the spec gives a binary body "
                                    "(application/octet-stream) an object schema (the spec contradicts itself)"))  # fmt: skip
            continue
        if (wire or "").lower() in ("content-type", "authorization") and location[-1:] != ["body"]:
            # OpenAPI: a header parameter named Content-Type or Authorization SHALL be ignored.
            out.append(call.finding("x", "ignored-header-parameter", detail, "Prism checks a header parameter "
                                    "OpenAPI says to ignore"))  # fmt: skip
            continue
        out.append(call.finding("a", "violation", detail, _violation_cause(call, location, message, wire),
                                _violation_pointer(call, location, wire)))  # fmt: skip
    if kind and kind not in ("UNPROCESSABLE_ENTITY",) and not out and exchange.status >= 500:
        out.append(call.finding("x", "prism-failed", f"{where}: Prism {kind}",
                                "Prism could not make an answer from the spec"))  # fmt: skip
    return out


def _binary_with_object_schema(call: Call) -> bool:
    """The operation's only request body is application/octet-stream, and its schema is an object's."""
    body = call.doc.resolve(call.op.raw.get("requestBody"))
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or [str(m).split(";")[0].strip() for m in content] != [
        "application/octet-stream"
    ]:
        return False
    entry = call.doc.resolve(next(iter(content.values())))
    schema = call.doc.resolve(entry.get("schema")) if isinstance(entry, dict) else None
    return isinstance(schema, dict) and (
        schema.get("type") == "object" or isinstance(schema.get("properties"), dict)
    )


def _one_form_value(exchange: Exchange, wire: str | None) -> bool:
    """The form-encoded body carries `wire` exactly once."""
    if (
        not wire
        or not isinstance(exchange.body, str)
        or "form" not in exchange.headers.get("content-type", "")
    ):
        return False
    return [k for k, _ in parse_qsl(exchange.body, keep_blank_values=True)].count(wire) == 1


def _root_follows_unsure(call: Call, violations: list[dict[str, Any]]) -> bool:
    """Prism says the body matches none of its forms, and a field below it is one the oracle was unsure of."""
    unsure = {u.lower() for u in call.unsure}
    root_forms = any(
        [str(p) for p in v.get("location") or []][-1:] == ["body"] and v.get("code") in ("oneOf", "anyOf")
        for v in violations
    )
    below = any(
        {str(p).lower() for p in v.get("location") or []} & unsure
        for v in violations
        if [str(p) for p in v.get("location") or []][-1:] != ["body"]
    )
    return root_forms and below


def _declared(call: Call, wire: str) -> bool:
    """Does the operation's body schema (allOf parts, any oneOf/anyOf form) declare this top-level field?"""
    _, schema = call.op.body_schema(call.action.body)
    schema = call.doc.resolve(schema)
    if not isinstance(schema, dict):
        return True  # nothing to tell by: count it
    forms = [schema, *(call.doc.resolve(f) for k in ("oneOf", "anyOf") for f in schema.get(k) or [])]
    return any(wire in _merged_props(call.doc, f) for f in forms if isinstance(f, dict))


def _security_cause(call: Call, exchange: Exchange) -> str:
    """Which of the spec's security alternatives the request fails, and how."""
    schemes = (call.doc.raw.get("components") or {}).get("securitySchemes") or {}
    wanted = call.op.raw.get("security", call.doc.raw.get("security")) or []
    alternatives = [alt for alt in wanted if isinstance(alt, dict)]
    if not alternatives:
        return "Prism refused the credential although the operation names no security requirement"
    described = []
    for alt in alternatives:
        parts = [(name, _satisfied(call.doc.resolve(schemes.get(name)) or {}, exchange)) for name in alt]
        if len(parts) > 1 and any(ok for _, ok in parts):
            missing = [n for n, ok in parts if not ok]
            return (f"the spec needs {len(parts)} credentials together ({' and '.join(alt)}); the server "
                    f"sends one, so {', '.join(missing)} is missing")  # fmt: skip
        described.append(" and ".join(f"{n} ({_scheme_words(call.doc.resolve(schemes.get(n)) or {})})"
                                      for n in alt) or "none")  # fmt: skip
    sent = _sent_credentials(exchange)
    return f"the server sends {sent}; the spec asks for {' or '.join(described)}"


def _satisfied(scheme: dict[str, Any], exchange: Exchange) -> bool:
    kind = scheme.get("type")
    auth = exchange.headers.get("authorization", "")
    if kind == "apiKey":
        name = str(scheme.get("name") or "").lower()
        if scheme.get("in") == "query":
            return any(k.lower() == name for k, _ in exchange.query)
        if scheme.get("in") == "cookie":
            return name in exchange.headers.get("cookie", "").lower()
        return name in exchange.headers
    if kind == "http":
        return auth.lower().startswith(str(scheme.get("scheme") or "bearer").lower())
    return bool(auth)  # oauth2, openIdConnect: a bearer token


def _scheme_words(scheme: dict[str, Any]) -> str:
    if scheme.get("type") == "apiKey":
        return f"api key in {scheme.get('in')} {scheme.get('name')}"
    if scheme.get("type") == "http":
        return f"http {scheme.get('scheme')}"
    return str(scheme.get("type"))


def _sent_credentials(exchange: Exchange) -> str:
    headers = [
        h for h in exchange.headers if h == "authorization" or "key" in h or "token" in h or "auth" in h
    ]
    query = [k for k, _ in exchange.query if "key" in k.lower() or "token" in k.lower()]
    sent = [f"header {h}" for h in headers] + [f"query {q}" for q in query]
    return ", ".join(sent) or "no credential"


def _violated_name(location: list[str], message: str) -> str | None:
    named = re.search(r"property '([^']+)'", message)
    if named:
        return named.group(1)
    parts = [p for p in location if not p.isdigit() and p not in ("request", "body", "query", "path", "header",
                                                                   "headers", "cookie")]  # fmt: skip
    if parts:
        return parts[0]
    param = re.search(r"parameter (\S+?)(?:\.\d+)? (?:must|is)", message)
    return param.group(1) if param else None


def _violation_cause(call: Call, location: list[str], message: str, wire: str | None) -> str:
    params = {p.wire: p for p in call.action.params}
    lowered = message.lower()
    if "required" in lowered and wire:
        if wire not in params and not _is_body_field_of_whole(call, wire):
            return f"the spec requires '{wire}', and the action has no argument for it (dropped by the draft)"
        if wire not in call.action.required:
            return f"the spec requires '{wire}', and the action does not require its argument"
        return f"'{wire}' was passed but did not reach the request"
    if "additional propert" in lowered:
        return "the server sent a field the spec does not declare for this operation"
    if re.search(r"must be (integer|number|boolean|array|object|string)", lowered):
        return "a value is sent with the wrong JSON type or serialization"
    if "must match format" in lowered or "must match pattern" in lowered:
        return "a value is sent in a format the spec does not allow (converted on the way?)"
    if location[-1:] == ["accept"] or wire == "accept":
        return "the server sends its own accept: application/json where the operation declares other values"
    if "equal to one of the allowed values" in lowered:
        return "a value outside the spec's enum reached the request"
    return "the request does not match the spec here"


def _is_body_field_of_whole(call: Call, wire: str) -> bool:
    return any(p.at == "body_whole" for p in call.action.params)


def _violation_pointer(call: Call, location: list[str], wire: str | None) -> str:
    where = (
        location[1] if location[:1] == ["request"] and len(location) > 1 else location[0] if location else ""
    )
    if where == "body":
        return call.op.pointer("requestBody")
    if wire and where in ("query", "path", "header", "headers", "cookie"):
        for index, raw in enumerate(call.op.raw.get("parameters") or []):
            p = call.doc.resolve(raw)
            if isinstance(p, dict) and p.get("name") == wire:
                return call.op.pointer("parameters", str(index))
        return call.op.pointer("parameters")
    return call.op.pointer()


# ---- b: does the result have the shape the spec's answer has? -------------------------------------


def _shape_findings(call: Call, exchange: Exchange) -> list[Finding]:
    body = exchange.response
    data = call.data
    if not isinstance(data, dict):
        return [call.finding("d", "bad-result", f"structured result is {type(data).__name__}",
                             "a successful result must be a JSON object (structuredContent)")]  # fmt: skip
    truncated = _truncated(data)
    schema = call.op.response_schema(exchange.status)
    pointer = call.op.pointer("responses", str(exchange.status))
    if schema is None:
        kind, field_name = ("list", "") if isinstance(body, list) else ("other", None)
    else:
        kind, field_name = answer_kind(call.doc, call.op, schema)
    if not _structured_as(kind, field_name, body):
        return [call.finding("x", "spec-example-mismatch", f"Prism answered {type(body).__name__} where the "
                             f"schema says {kind}", "the spec's example does not have its own schema's shape",
                             pointer)]  # fmt: skip
    if call.action.shape is None:  # a write: its answer comes back as the API gave it
        if (
            isinstance(body, dict)
            and data != body
            and not truncated
            and not _only_units_renamed(call, body, data)
        ):
            return [call.finding("b", "write-answer-altered", f"keys {sorted(data)[:8]} vs {sorted(body)[:8]}",
                                 "a change's answer should come back as the API gave it", pointer)]  # fmt: skip
        return []
    out: list[Finding] = []
    paging = call.action.paging
    if kind == "record" and isinstance(body, dict):
        if "items" in data and "items" not in body:
            field_hit = next((k for k, v in body.items() if isinstance(v, list) and _same_list(v, data["items"])),
                             None)  # fmt: skip
            out.append(call.finding(
                "b", "get-became-field",
                f"the answer is one record ({len(body)} fields); the result is items=<{field_hit or '?'}>",
                f"the record's array field '{field_hit}' was taken for the list (results list detection)",
                pointer))  # fmt: skip
        elif set(data) == {"value"} and "value" not in body:
            out.append(call.finding("b", "record-wrapped", "the record came back as {'value': ...}",
                                    "the record was not recognised as an object", pointer))  # fmt: skip
        elif not truncated and not set(data) <= set(body) | set(_unwrapped(body)) | _unit_names(call) | {
            "truncated",
            "note",
            "has_more",
            "rest",
        }:
            extra = sorted(set(data) - set(body))[:5]
            out.append(call.finding("b", "record-fields-invented", f"result fields not in the answer: {extra}",
                                    "the result is not the record the API returned", pointer))  # fmt: skip
        if paging is not None:
            out.append(call.finding("b", "paging-on-record", f"paging style {paging.style} on a one-record answer",
                                    "pagination configured on a response that is not a list", pointer))  # fmt: skip
    elif kind == "list":
        records = body if field_name == "" else body.get(field_name) if isinstance(body, dict) else None
        if "items" not in data:
            out.append(call.finding("b", "list-without-items",
                                    f"the answer is a list at '{field_name or '(top level)'}'; result keys "
                                    f"{sorted(data)[:8]}",
                                    "the list response was not recognised: no items in the result", pointer))  # fmt: skip
        else:
            if "has_more" not in data and _paged(call, body):
                out.append(call.finding("b", "list-without-has-more",
                                        "the operation pages, the result has no has_more",
                                        "no pagination configured for a paged list: a partial list reads as whole",
                                        pointer))  # fmt: skip
            if isinstance(records, list) and isinstance(data["items"], list) and not truncated:
                if len(records) != len(data["items"]):
                    out.append(call.finding("b", "items-mismatch", f"{len(data['items'])} items, the answer has "
                                            f"{len(records)}", "the items are not the answer's records", pointer))  # fmt: skip
    return out


def _only_units_renamed(call: Call, body: dict[str, Any], data: dict[str, Any]) -> bool:
    """The answer as the API gave it but for fields shown in the agent's unit under another name (the
    mapping's units; whether each is right is judged under g)."""
    renamed = {u.name for u in getattr(call.action, "result_units", ()) or ()}
    if set(data) == set(body) and len(body) == 1 and isinstance(data[next(iter(body))], dict):
        key = next(iter(body))  # a one-record envelope ({"cluster": {...}}): compare its record
        body, data = body[key], data[key]
        if not isinstance(body, dict):
            return False
    extra = set(data) - set(body)
    return bool(extra) and extra <= renamed and all(data[k] == body[k] for k in set(data) & set(body))


def _unit_names(call: Call) -> set[str]:
    """Result fields the mapping shows in the agent's unit under another name (GOV.UK Pay's `amount`
    in pence, shown as `amount_gbp`): the record's own field, renamed, not an invented one."""
    return {u.name for u in getattr(call.action, "result_units", ()) or () if "." not in u.field}


def _unwrapped(body: dict[str, Any]) -> dict[str, Any]:
    """A one-record envelope's record (`{"payment": {...}}`, other fields empty), as the server shows it."""
    full = [k for k, v in body.items() if v not in (None, "", [], {})]
    if len(full) == 1 and isinstance(body[full[0]], dict):
        return body[full[0]]
    return body


def _structured_as(kind: str, field_name: str | None, body: Any) -> bool:
    if kind == "list":
        return isinstance(body, list) if field_name == "" else isinstance(body, dict) and isinstance(
            body.get(field_name), list)  # fmt: skip
    if kind == "record":
        return isinstance(body, dict)
    return True


def _same_list(a: list[Any], b: Any) -> bool:
    return isinstance(b, list) and len(a) == len(b)


def _truncated(data: dict[str, Any]) -> bool:
    return any("truncat" in str(k).lower() for k in data) or any(
        isinstance(v, str) and "truncated" in v.lower() for v in data.values()
    )


def _paged(call: Call, body: Any) -> bool:
    """The spec says this list comes a page at a time: a paging parameter, or a next-page field."""
    if any(_PAGING_PARAMS.match(name) for (at, name) in call.op.params if at == "query"):
        return True
    return isinstance(body, dict) and any(
        is_paging_field(k) and re.search(r"next|cursor|more|token|marker", k, re.I) for k in body
    )


# ---- c and e: the tool errors ---------------------------------------------------------------------


def _error_findings(call: Call, last: Exchange | None, violated: bool) -> list[Finding]:
    first = call.text.splitlines()[0] if call.text else ""
    if "failed unexpectedly" in call.text:
        return []  # counted under d already
    if "did not answer within" in call.text:
        return [call.finding("x", "prism-slow", first, "Prism took longer than the server's timeout")]
    if last is None:
        if call.unsure:
            return [call.finding("x", "oracle-input", first, "the oracle had no spec-valid value for "
                                 f"{', '.join(sorted(call.unsure))}")]  # fmt: skip
        return [call.finding("c", "refused-valid-input", first, _refusal_cause(first))]
    if 200 <= last.status < 300 and "the most this server reads of one answer" in call.text:
        # P5: the server reads a bounded answer and says so; Prism's --dynamic bodies can be any size.
        return [call.finding("x", "answer-past-size-bound", f"HTTP {last.status}: {first}",
                             "the answer Prism made is past the server's documented size bound")]  # fmt: skip
    if 200 <= last.status < 300 and "reported a failure" in first:
        failed = _failure_in(last.response)
        if failed is not None:
            # mashape.com/geodb.json (--dynamic) /components/schemas/BaseResponse: every 200 schema declares `errors`,
            # and Prism's made-up answer fills it; a non-empty `errors` is the API saying the call failed.
            return [call.finding("x", "prism-answer-reports-failure", f"HTTP {last.status}: {failed}: {first}",
                                 "Prism's made-up answer reports a failure in a field the spec declares for it")]  # fmt: skip
    if 200 <= last.status < 300:
        return [call.finding("c", "failed-on-valid-answer", f"HTTP {last.status}: {first}",
                             "the server could not use a valid answer of the API")]  # fmt: skip
    if last.forced is not None and 400 <= last.status < 500 and not violated:
        return _message_findings(call, last, first)
    if violated or last.prism_error() in ("UNAUTHORIZED", "NO_PATH_MATCHED_ERROR", "NO_METHOD_MATCHED_ERROR",
                                          "NOT_ACCEPTABLE", "INVALID_CONTENT_TYPE"):  # fmt: skip
        return []  # counted under a
    if last.status >= 500:
        return [call.finding("x", "prism-failed", f"HTTP {last.status}: {first}",
                             "Prism could not make an answer from the spec")]  # fmt: skip
    if any(w in call.unsure for w in _all_wires(call)):
        return [
            call.finding("x", "oracle-input", f"HTTP {last.status}: {first}", "the oracle's value was unsure")
        ]
    return [call.finding("c", "error-without-violation", f"HTTP {last.status}: {first}",
                         "the API refused a request Prism found valid")]  # fmt: skip


def _failure_in(body: Any) -> str | None:
    """What at the top of a 2xx answer says the call failed (a non-empty `errors`, a false `success` or `ok`, an
    error code set and not zero), or None."""
    for key, value in body.items() if isinstance(body, dict) else ():
        word = re.sub(r"[^a-z]", "", str(key).lower())
        if word == "errors" and isinstance(value, list) and value:
            return f"{key} is not empty"
        if word in ("success", "ok") and value is False:
            return f"{key} is false"
        if word in ("errorcode", "errcode") and value not in (None, 0, "0", "", "None", "OK"):
            return f"{key} is {json.dumps(value)[:40]}"
    return None


def _all_wires(call: Call) -> list[str]:
    return [p.wire for p in call.action.params]


def _refusal_cause(first: str) -> str:
    if "invalid arguments" in first:
        return "the server's argument check refused a value the spec allows"
    if "no credentials" in first:
        return "the credential variable was set, yet the server says it is missing"
    return "the server refused before calling the API"


def _message_findings(call: Call, exchange: Exchange, first: str) -> list[Finding]:
    said = message_strings(exchange.response)
    if not said:
        return []
    text = " ".join(call.text.split())
    if any(" ".join(s.split())[:80] in text for s in said.values()):
        return []
    path, message = next(iter(said.items()))
    return [call.finding("e", "api-message-dropped",
                         f"HTTP {exchange.status} said {path}={message[:80]!r}; the tool error: {first[:160]}",
                         f"the API's error format ({path}) is not read", call.op.pointer("responses", str(exchange.status)))]  # fmt: skip


def message_strings(body: Any, prefix: str = "", depth: int = 0) -> dict[str, str]:
    """Strings an error body carries under message-like keys, by dotted path ('errors[0].message')."""
    found: dict[str, str] = {}
    if depth > 3:
        return found
    if isinstance(body, list) and body:
        return message_strings(body[0], f"{prefix}[0]", depth + 1)
    if not isinstance(body, dict):
        return found
    for key, value in body.items():
        if str(key).lower() not in _MESSAGE_KEYS:
            continue
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, str) and len(value.strip()) >= 3:
            found[path] = value.strip()
        elif isinstance(value, (dict, list)):
            found.update(message_strings(value, path, depth + 1))
    return found


# ---- f: what the package ignores (read from the spec and the generated files) ---------------------


def static_findings(
    doc: SpecDoc, tools: Any, contract: dict[str, dict[str, Any]], package_text: str
) -> list[Finding]:
    out: list[Finding] = []
    root_servers = {s.get("url") for s in doc.raw.get("servers") or [] if isinstance(s, dict)}
    for tool in tools:
        schema = contract.get(tool.name) or contract.get(f"{tool.name}_preview") or {}
        properties = (schema.get("inputSchema") or {}).get("properties") or {}
        for action in tool.actions:
            op = doc.operation(action.method, action.path)
            if op is None:
                continue
            own = [s.get("url") for s in op.servers if isinstance(s, dict) and s.get("url")]
            if own and not set(own) <= root_servers and not any(u in package_text for u in own):
                level = "operation" if op.raw.get("servers") else "path"
                pointer = op.pointer("servers") if level == "operation" else op.path_pointer("servers")
                out.append(Finding("f", "operation-servers-ignored", tool.name, action.name, op.key, pointer,
                                   f"{level}-level servers {own[:2]}; the package sends to the root base URL",
                                   "path- and operation-level servers are not honoured"))  # fmt: skip
            for p in action.params:
                if p.at not in ("body", "body_whole"):
                    continue
                prop = properties.get(p.arg) or {}
                combinator = _spec_typed(doc, op, action, p) if _untyped(prop) else None
                if combinator:
                    items = prop.get("type") == "array"
                    what = "an array of objects without fields" if items else json.dumps(prop)[:60]
                    out.append(Finding("f", "untyped-array-items" if items else "untyped-body", tool.name, action.name,
                                       op.key, op.pointer("requestBody"), f"argument {p.arg} is {what}; the spec's "
                                       f"schema has {combinator}", _untyped_cause(combinator, items)))  # fmt: skip
    return out + static_class_findings(doc, tools, contract, Finding)


def _untyped_cause(combinator: str, items: bool) -> str:
    if items:
        return ("an array argument's object items lose their fields in the inputSchema (nesting stops at depth 2, "
                "mcpgen/build/schemas.py MAX_DEPTH)")  # fmt: skip
    if combinator in ("oneOf", "anyOf"):
        return f"an {combinator} body schema is left untyped in the inputSchema (no variant's fields)"
    return f"an object body schema ({combinator}) is left untyped in the inputSchema (its fields dropped)"


def _untyped(prop: dict[str, Any]) -> bool:
    if prop.get("type") == "array":
        prop = prop.get("items") or {}
    return prop.get("type") in ("object", None) and not prop.get("properties") and not any(
        k in prop for k in ("oneOf", "anyOf", "allOf", "enum", "$ref")) and not isinstance(
        prop.get("additionalProperties"), dict)  # fmt: skip


def _spec_typed(doc: SpecDoc, op: Operation, action: Any, param: Any) -> str | None:
    """What the spec's schema for a body argument is made of ('oneOf', 'anyOf', 'allOf', 'properties'),
    or None when it has no fields either."""
    _, schema = op.body_schema(action.body)
    schema = doc.resolve(schema)
    if not isinstance(schema, dict):
        return None
    if param.at == "body":
        schema = doc.resolve((schema.get("properties") or {}).get(param.wire))
    if isinstance(schema, dict) and schema.get("type") == "array":
        schema = doc.resolve(schema.get("items"))
    if not isinstance(schema, dict):
        return None
    variants = next((k for k in ("oneOf", "anyOf") if schema.get(k)), None)
    if variants:
        return variants
    # Only fields a request may send count: an object of readOnly fields is rightly empty in a request.
    writable = [n for n, prop in _merged_props(doc, schema).items()
                if not (isinstance(doc.resolve(prop), dict) and doc.resolve(prop).get("readOnly"))]  # fmt: skip
    if not writable:
        return None
    return "allOf" if schema.get("allOf") else "properties"


def _merged_props(doc: SpecDoc, schema: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    props = dict(schema.get("properties") or {}) if isinstance(schema.get("properties"), dict) else {}
    if depth < 8:
        for part in schema.get("allOf") or []:
            part = doc.resolve(part)
            if isinstance(part, dict):
                props.update(_merged_props(doc, part, depth + 1))
    return props
