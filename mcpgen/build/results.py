"""Pure: how a read action's results reach the agent (R1-R3), decided from the spec and the mapping.

A read action gets `response_format` (concise by default) and a `ResultShape`: where its records are
and which fields each format shows. A list action also gets a `PagingSpec`: whatever the API uses
(page/per_page, offset/limit, a cursor in the body, a Link header), the agent passes `limit` and
`page` or `cursor` and reads one shape back. A search sent by POST is a read once the mapping says so
(`hints: {read_only: true}` or `pagination:`), and its page size and cursor may be body fields. The
mapping only writes what cannot be derived.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from mcpgen import codes
from mcpgen.build.records import bare_field, derived_concise, key_field_checks, unreadable_response
from mcpgen.build.records import response_schema as _response_schema
from mcpgen.diagnostics import Diagnostic, SourceRef, error, warning
from mcpgen.ir import ActionSpec, JsonSchema, PagingSpec, PagingStyle, ParamSpec, ResultShape
from mcpgen.load.mapping import ActionRule, PaginationRule, ResponseRule, did_you_mean
from mcpgen.load.openapi import Operation, Spec
from mcpgen.load.refs import Located
from mcpgen.names import READ_METHODS

DEFAULT_LIMIT = 20
DEFAULT_MAX_LIMIT = 100
PAGE_ARG, LIMIT_ARG, CURSOR_ARG, FORMAT_ARG = "page", "limit", "cursor", "response_format"

# Names APIs use for each role, most common first.
_PAGE_PARAMS = ("page", "page_number", "pageNumber", "currentPage", "current_page", "Page")
_LIMIT_PARAMS = (
    "per_page", "perPage", "page_size", "pageSize", "PageSize", "limit", "max_results", "maxResults",
    "MaxResults", "max_items", "maxItems", "size", "$top",
)  # fmt: skip
_OFFSET_PARAMS = ("offset", "skip", "start", "$skip", "startIndex", "start_index")
_CURSOR_PARAMS = (
    "cursor", "after", "page_token", "pageToken", "PageToken", "next_token", "nextToken", "NextToken",
    "starting_after", "start_cursor", "startCursor", "continuation_token", "continuationToken", "marker",
    "Marker", "$skiptoken",
)  # fmt: skip
_TOTAL_FIELDS = ("total", "total_count", "totalCount", "total_results", "totalResults", "totalItems")
_NEXT_FIELDS = (
    "next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next_token", "nextToken", "NextToken",
    "continuation_token", "continuationToken", "next_marker", "nextMarker", "NextMarker", "cursor",
)  # fmt: skip
# The next page's whole URL, in the body (Azure, OData, Twilio, HAL-style links).
_NEXT_LINK_FIELDS = (
    "nextLink", "@odata.nextLink", "odata.nextLink", "next_page_url", "nextPageUrl", "next_url", "nextUrl",
    "next_link", "next_href",
)  # fmt: skip
_MORE_FIELDS = ("has_more", "hasMore", "has_next", "hasNext", "more")
_WRAPPERS = ("meta", "pagination", "paging", "page_info", "pageInfo", "links")  # where paging fields nest
# Fields of a list's envelope, not of its records: paging, counts, links, the API's warnings.
_ENVELOPE_WORDS = frozenset(
    "next prev previous cursor cursors page pages total count offset limit marker token more skiptoken "
    "nextlink continuation links link meta metadata paging pagination kind etag self odata errors "
    "warnings unreachable object took has info url href uri size num start end first last version".split()
)
# 'total_results', 'next_page_url', 'items_count': named for the envelope by their first or last word.
_ENVELOPE_FIRST = frozenset("next prev previous total has num".split())
_ENVELOPE_LAST = frozenset("count total token cursor link marker".split())
_ENVELOPE_NAMES = frozenset(("order", "sort", "status", "success", "message", "code", "has_more"))
# 'pageNumber', 'page_size', 'pageIndex': which page this is (unicourt.com.json
# /components/schemas/PartyAttorneyAssociationList beside its ...Array); a lone 'number' is a record's own.
_PAGE_POSITION = frozenset("number index size no num".split())
# Names a list of records goes by, beside the path's own last word.
_LIST_WORDS = frozenset(
    "items data results values value records entries list elements content hits rows objects resources "
    "collection".split()
)

_FORMAT_PARAM_SCHEMA = {
    "type": "string",
    "enum": ["concise", "detailed"],
    "default": "concise",
    "description": "concise (the default) returns the fields most tasks need, ids included; detailed "
    "returns every field.",
}


@dataclass(frozen=True, slots=True)
class ResultPlan:
    params: tuple[ParamSpec, ...]  # the action's own parameters, paging ones renamed or removed
    defaults: tuple[tuple[str, Any], ...]
    shape: ResultShape | None
    paging: PagingSpec | None
    server_params: tuple[ParamSpec, ...]
    diagnostics: tuple[Diagnostic, ...]
    result_fields: tuple[str, ...] = ()  # top-level fields of one record of the answer (R5)


def plan_results(
    spec: Spec,
    operation: Operation,
    rule: ActionRule,
    params: list[ParamSpec],
    defaults: list[tuple[str, Any]],
) -> ResultPlan:
    body = _response_schema(spec, operation)
    if not reads(operation.method, rule):
        fields = tuple(_properties(spec, body))
        return ResultPlan(
            tuple(params), tuple(defaults), None, None, (), tuple(_not_a_read(operation, rule)), fields
        )
    diagnostics: list[Diagnostic] = []
    items, record, found = _records(spec, operation, body, rule.response)
    diagnostics += found
    diagnostics += unreadable_response(spec, operation, rule)
    envelope = None
    if items is None and record is not None:
        envelope, inner = _envelope_record(spec, record)
        record = inner if envelope is not None else record
    shape, found = _shape(spec, operation, record, items, rule)
    shape = replace(shape, record=envelope)
    diagnostics += found
    paging, params, defaults, server_params, found = _paging(
        spec, operation, rule, params, defaults, body, is_list=items is not None
    )
    diagnostics += found
    format_param = ParamSpec(
        arg_name=FORMAT_ARG,
        wire_name=FORMAT_ARG,
        location="query",
        required=False,
        schema=dict(_FORMAT_PARAM_SCHEMA),
        source=rule.source,
    )
    server_params = [*server_params, format_param]
    diagnostics += _clashes(operation, params, server_params)
    fields = tuple(_properties(spec, record))
    return ResultPlan(
        tuple(params), tuple(defaults), shape, paging, tuple(server_params), tuple(diagnostics), fields
    )


def reads(method: str, rule: ActionRule) -> bool:
    """The action's answer is shown as a read's (R1-R3): a GET, or a query sent by POST that the
    mapping says reads (`hints: {read_only: true}`) or pages (`pagination:` on a search)."""
    if method in READ_METHODS:
        return True
    marked = rule.hints.read_only if rule.hints is not None else None
    return bool(marked) or (marked is None and method == "POST" and rule.pagination is not None)


def _not_a_read(operation: Operation, rule: ActionRule) -> list[Diagnostic]:
    return [
        error(
            codes.M214,
            f"'{key}' of action '{rule.name}' applies to read actions (GET, or a query sent by POST that "
            f"the mapping marks read-only); {operation.key} is not one",
            setting.source,
            hint=f"remove '{key}' from action '{rule.name}', or if it only reads (a search sent by POST), "
            "say so:  hints: {read_only: true}",
        )
        for key, setting in (("response", rule.response), ("pagination", rule.pagination))
        if setting is not None
    ]


# --- the response body --------------------------------------------------------------------------


def _declares_link_header(spec: Spec, operation: Operation) -> bool:
    responses = operation.located.value.get("responses")
    for status in responses if isinstance(responses, dict) else ():
        if str(status).startswith("2"):
            response = spec.resolver.deref(operation.located.child("responses", status))
            headers = response.value.get("headers") if isinstance(response.value, dict) else None
            if isinstance(headers, dict) and any(str(h).lower() == "link" for h in headers):
                return True
    return False


def _properties(spec: Spec, schema: Located | None) -> dict[str, Located]:
    """An object schema's properties, each dereferenced; `allOf` parts merged."""
    if schema is None:
        return {}
    schema = spec.resolver.deref(schema)
    value = schema.value
    if not isinstance(value, dict):
        return {}
    found: dict[str, Located] = {}
    for index, part in enumerate(value.get("allOf") or ()):
        if isinstance(part, dict):
            found.update(_properties(spec, schema.child("allOf", index)))
    for name in value.get("properties") or {}:
        found[name] = spec.resolver.deref(schema.child("properties", name))
    return found


def _is_list(schema: Located | None) -> bool:
    return (
        schema is not None
        and isinstance(schema.value, dict)
        and (schema.value.get("type") == "array" or isinstance(schema.value.get("items"), dict))
    )


def _list_items(spec: Spec, schema: Located) -> Located | None:
    return spec.resolver.deref(schema.child("items")) if isinstance(schema.value.get("items"), dict) else None


def _at(spec: Spec, schema: Located | None, path: str) -> Located | None:
    node = schema
    for key in path.split("."):
        node = _properties(spec, node).get(key)
        if node is None:
            return None
    return node


def _records(
    spec: Spec, operation: Operation, body: Located | None, rule: ResponseRule | None
) -> tuple[str | None, Located | None, list[Diagnostic]]:
    """(dotted path of the record list or None for one record, the schema of one record, problems).

    A list is what the schema or the mapping says is one (R3): a top-level array, or an object whose
    fields besides one list of records are paging and envelope fields (`{"backups": [...],
    "nextPageToken": ..., "unreachable": [...]}`). A record is a record, however many array fields it
    has (`GET /webhooks/{id}` with its `triggers`)."""
    if rule is not None and rule.items is not None:
        found = _at(spec, body, rule.items)
        if body is not None and not _is_list(found):
            names = list(_properties(spec, body))
            close = did_you_mean(rule.items, names)
            return (
                rule.items,
                None,
                [
                    warning(
                        codes.M215,
                        f"response.items '{rule.items}' is not a list field of the response of {operation.key}",
                        rule.source,
                        hint=(f"did you mean {close}? " if close else "")
                        + f"its fields are: {', '.join(names) or 'none'}",
                    )
                ],
            )
        return rule.items, _list_items(spec, found) if found is not None else None, []
    if body is None:
        return None, None, []
    if rule is not None and rule.single:
        return None, body, []
    if _is_list(body):
        return "", _list_items(spec, body), []
    name, problem = _list_field(spec, operation, body)
    if name is None:
        return None, body, [problem] if problem is not None else []
    return name, _list_items(spec, _properties(spec, body)[name]), []


def _list_field(spec: Spec, operation: Operation, body: Located) -> tuple[str | None, Diagnostic | None]:
    """The field of an object answer that holds its list of records, or None when it is one record
    (with a warning when the spec leaves that open)."""
    fields = _properties(spec, body)
    arrays = {n: f for n, f in fields.items() if _is_list(f) and not is_envelope_field(n)}
    if not arrays:
        return None, None
    plain = [n for n, f in fields.items() if n not in arrays and not is_envelope_field(n)]
    of_records = [n for n, f in arrays.items() if _items_are_records(spec, f)]
    last = _last_word(operation.path)
    named = [n for n in arrays if n.lower() in _LIST_WORDS or n.lower() in (last, last.rstrip("s"))]
    by_id = operation.path.rstrip("/").endswith("}")
    if plain:
        # Records beside fields of their own: one record, unless the one list of records is named as
        # the path's list and the path names no single thing (apideck's {status, service, data}).
        listed = [n for n in of_records if n in named]
        return (listed[0], None) if len(listed) == 1 and len(of_records) == 1 and not by_id else (None, None)
    candidates = of_records or named
    if len(candidates) == 1:
        return candidates[0], None
    chosen = [n for n in candidates if n in named]
    if len(chosen) == 1:
        return chosen[0], None
    if len(candidates) < 2:
        return None, None  # {"tags": ["a", "b"]}: a record of one field
    return None, warning(
        codes.M225,
        f"the answer of {operation.key} has {len(candidates)} lists ({', '.join(candidates)}) and nothing "
        "says which holds its records, so it is shown as one record",
        body.source,
        hint=f"if it is a list, name it in the mapping:  response: {{items: {candidates[0]}}}; if it is one "
        "record, say so:  response: {single: true}",
    )


def undecided_lists(spec: Spec, operation: Operation) -> bool:
    """True when the answer has several lists and nothing says which holds its records (M225): `mcpgen
    init` then drafts `response: {single: true}`, the reading the build takes, so the draft says it."""
    body = _response_schema(spec, operation)
    if body is None or _is_list(body):
        return False
    _, problem = _list_field(spec, operation, body)
    return problem is not None


def is_envelope_field(name: str) -> bool:
    """'nextPageToken', 'total_count', '@odata.nextLink', 'errors': a list's envelope, not a record."""
    if name in _ENVELOPE_NAMES:
        return True
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    words = [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]
    if not words:
        return False
    # Every word, not any: 'metadataImports' is a list of records, 'metadata' an envelope.
    return (
        all(w in _ENVELOPE_WORDS for w in words)
        or words[0] in _ENVELOPE_FIRST
        or words[-1] in _ENVELOPE_LAST
        or (len(words) == 2 and words[0] == "page" and words[1] in _PAGE_POSITION)
    )


def _items_are_records(spec: Spec, schema: Located) -> bool:
    items = _list_items(spec, schema)
    if items is None or not isinstance(items.value, dict):
        return False
    value = items.value
    return (
        value.get("type") == "object"
        or "properties" in value
        or any(isinstance(value.get(k), list) for k in ("allOf", "oneOf", "anyOf"))
    )


def _last_word(path: str) -> str:
    segments = [s for s in path.split("/") if s and not s.startswith("{")]
    last = segments[-1].lower() if segments else ""
    return last.removesuffix(".json").removesuffix(".xml")  # discourse's /groups/{id}/members.json


def _envelope_record(spec: Spec, body: Located | None) -> tuple[str | None, Located | None]:
    """A one-record envelope the schema shows: `{"payment": {...}}`, beside nothing but envelope
    fields (Square's `errors`). (its field, the record's schema), or (None, None)."""
    fields = _properties(spec, body)
    own = [n for n in fields if not is_envelope_field(n)]
    if len(own) != 1:
        return None, None
    inner = fields[own[0]]
    value = inner.value if isinstance(inner.value, dict) else {}
    if _is_list(inner) or not _properties(spec, inner) or value.get("type") not in (None, "object"):
        return None, None
    return own[0], inner


def _shape(
    spec: Spec, operation: Operation, record: Located | None, items: str | None, rule: ActionRule
) -> tuple[ResultShape, list[Diagnostic]]:
    fields = _properties(spec, record)
    response = rule.response
    diagnostics: list[Diagnostic] = []
    if response is not None and fields and record is not None:
        where = f"records of {operation.key} ({record.pointer or '/'})"
        for key, paths in (("concise", response.concise or ()), ("drop", response.drop)):
            for path in paths:
                if _at(spec, record, path) is None:
                    close = did_you_mean(path, list(fields))
                    diagnostics.append(
                        warning(
                            codes.M215,
                            f"response.{key} names '{path}', which {where} do not have",
                            (response.concise_source if key == "concise" else None) or response.source,
                            hint=(f"did you mean {close}? " if close else "")
                            + f"their fields are: {', '.join(fields)}",
                        )
                    )
    diagnostics += key_field_checks(operation, rule, record, fields)
    concise = response.concise if response is not None and response.concise is not None else None
    shape = ResultShape(
        items=items,
        concise=tuple(concise if concise is not None else derived_concise(fields)),
        drop=tuple(response.drop if response is not None else ()),
        bare=bare_field(fields),
        named=bool(concise),
    )
    return shape, diagnostics


# --- paging -------------------------------------------------------------------------------------


def _paging(
    spec: Spec,
    operation: Operation,
    rule: ActionRule,
    params: list[ParamSpec],
    defaults: list[tuple[str, Any]],
    body: Located | None,
    *,
    is_list: bool,
) -> tuple[PagingSpec | None, list[ParamSpec], list[tuple[str, Any]], list[ParamSpec], list[Diagnostic]]:
    wanted = rule.pagination
    if wanted is not None and wanted.style == "none":
        return None, params, defaults, [], []
    diagnostics: list[Diagnostic] = []
    query = {p.wire_name: p for p in params if p.location == "query"}
    # A search sent by POST takes its cursor, page and page size in the body (Square's SearchCustomers):
    # the agent passes them as for every other style, and the server sends them where they go.
    in_body = {} if operation.method in READ_METHODS else _body_fields(params)

    def role(
        explicit: str | None, names: tuple[str, ...], key: str, *, body: bool = True
    ) -> ParamSpec | None:
        known = {**(in_body if body else {}), **query}  # a query parameter wins over a body field
        if explicit is None:
            return next((known[n] for n in names if n in known), None)
        if explicit not in known:
            assert wanted is not None
            diagnostics.append(_not_a_paging_field(operation, wanted, key, explicit, known, in_body))
        return known.get(explicit)

    w = wanted or _NO_RULE
    page = role(w.page, _PAGE_PARAMS, "page")
    limit = role(w.limit, _LIMIT_PARAMS, "limit")
    # The server computes an offset into the query (pagination.py page_query); a body offset stays the
    # agent's own argument rather than be computed into the wrong place.
    offset = role(w.offset, _OFFSET_PARAMS, "offset", body=False)
    cursor = role(w.cursor, _CURSOR_PARAMS, "cursor")
    total = w.total or _body_field(spec, body, _TOTAL_FIELDS)
    next_cursor = w.next_cursor or _body_field(spec, body, _NEXT_FIELDS)
    has_more = w.has_more or _body_field(spec, body, _MORE_FIELDS)
    next_link = w.next_link or _body_field(spec, body, _NEXT_LINK_FIELDS)
    link = _declares_link_header(spec, operation)
    style: PagingStyle | None = w.style or _derived_style(  # type: ignore[assignment]
        page, limit, offset, cursor, next_cursor, link, next_link
    )
    if style is None or (wanted is None and not is_list) or diagnostics:
        return None, params, defaults, [], diagnostics
    if wanted is not None and not is_list:
        diagnostics.append(_paging_on_a_record(operation, rule, wanted, body))
    found = _incomplete(style, operation, wanted, rule, page, limit, offset, cursor, next_cursor)
    if found:
        return None, params, defaults, [], [*diagnostics, *found]
    named = {p.wire_name for p in rule.params if p.name}  # a limit the mapping names keeps its name
    server_params: list[ParamSpec] = []
    out: list[ParamSpec] = []
    defaults = list(defaults)
    for param in params:
        if param is offset and style == "offset" or style == "link" and param in (cursor, page, offset):
            continue  # the server computes it from page, or takes it from the next link
        if param is limit:
            before = param.arg_name
            param, default = _limit_param(param, w, dict(defaults).get(before), named)
            defaults = [(n, v) for n, v in defaults if n not in (before, param.arg_name)]
            defaults.append((param.arg_name, default))
        elif param is page and style == "page":
            # In the query a page number reads the same whatever type the spec gives it ("2" or 2), so
            # the server's `page` is one whole number in every action of a tool (M207; vtex's
            # GET /api/oms/user/orders types it a string, GET /api/oms/pvt/orders an integer).
            param = _renamed(param, PAGE_ARG, _page_schema({} if param.location == "query" else param.schema))
        elif param is cursor and style == "cursor":
            param = _renamed(param, CURSOR_ARG, _cursor_schema())
        out.append(param)
    if style == "offset":
        server_params.append(_server_param(PAGE_ARG, _page_schema({}), rule.source))
    if style == "link":
        server_params.append(_server_param(CURSOR_ARG, _cursor_schema(), rule.source))
    limited = next(
        (
            p
            for p in out
            if limit is not None
            and p.wire_name == limit.wire_name
            and p.location == limit.location
            and not p.path
        ),
        None,
    )
    echoed = tuple(
        name
        for name in _properties(spec, body)
        if name in {p.wire_name for p in (page, limit, offset) if p is not None}
    )
    paging = PagingSpec(
        style=style,
        limit_arg=limited.arg_name if limited is not None else None,
        offset_wire=offset.wire_name if offset is not None and style == "offset" else None,
        next_cursor=next_cursor if style == "cursor" else None,
        has_more=has_more,
        total=total,
        echoed=echoed,
        max_limit=limited.schema.get("maximum") if limited is not None else None,
        next_link=next_link if style == "link" and not link else None,
    )
    return paging, out, defaults, server_params, diagnostics


def _not_a_paging_field(
    operation: Operation,
    wanted: PaginationRule,
    key: str,
    explicit: str,
    known: dict[str, ParamSpec],
    in_body: dict[str, ParamSpec],
) -> Diagnostic:
    where = "query parameter" + (" or body field" if in_body else "")
    if explicit in in_body:  # only an offset is looked for in the query alone
        return error(
            codes.M216,
            f"pagination.{key} '{explicit}' is a body field of {operation.key}; the server computes an offset "
            "into the query only, so it cannot page by an offset sent in the body",
            wanted.source,
            hint=f"remove pagination.{key}: '{explicit}' stays an argument the agent passes as it is",
        )
    close = did_you_mean(explicit, list(known))
    return error(
        codes.M216,
        f"pagination.{key} '{explicit}' is not a {where} of {operation.key}",
        wanted.source,
        hint=(f"did you mean {close}? " if close else "") + f"its {where}s are: {', '.join(known) or 'none'}",
    )


def _body_fields(params: list[ParamSpec]) -> dict[str, ParamSpec]:
    """Top-level fields of the request body by wire name (never one the mapping lifted out of an object)."""
    return {p.wire_name: p for p in params if p.location == "body" and not p.path}


def _paging_on_a_record(
    operation: Operation, rule: ActionRule, wanted: PaginationRule, body: Located | None
) -> Diagnostic:
    """Pagination set on an answer that is one record (R3, R4): said at build time, with where."""
    where = f" ({body.pointer})" if body is not None else ""
    return warning(
        codes.M226,
        f"action '{rule.name}' sets pagination, but the answer of {operation.key}{where} is one record, not "
        "a list: the server passes on whatever the API says about more to come, but cannot show records "
        "a page at a time",
        wanted.source,
        hint="if the answer holds the list, name it:  response: {items: <field>}; otherwise remove pagination",
    )


_NO_RULE = PaginationRule(
    style=None,
    page=None,
    limit=None,
    offset=None,
    cursor=None,
    next_cursor=None,
    has_more=None,
    total=None,
    default_limit=None,
    max_limit=None,
    source=SourceRef(file=""),
    next_link=None,
)


def _derived_style(
    page: ParamSpec | None,
    limit: ParamSpec | None,
    offset: ParamSpec | None,
    cursor: ParamSpec | None,
    next_cursor: str | None,
    link: bool,
    next_link: str | None,
) -> PagingStyle | None:
    if cursor is not None and next_cursor is not None:
        return "cursor"
    if next_link is not None:  # the API's own next URL beats any arithmetic (Azure, Twilio)
        return "link"
    if page is not None:  # an API with both takes the page number as it is
        return "page"
    if offset is not None and limit is not None:
        return "offset"
    if link:
        return "link"
    if limit is not None:
        return "limit"
    return None


def _incomplete(
    style: str,
    operation: Operation,
    wanted: PaginationRule | None,
    rule: ActionRule,
    page: ParamSpec | None,
    limit: ParamSpec | None,
    offset: ParamSpec | None,
    cursor: ParamSpec | None,
    next_cursor: str | None,
) -> list[Diagnostic]:
    needed: dict[str, list[tuple[str, object]]] = {
        "page": [("page", page)],
        "offset": [("offset", offset), ("limit", limit)],
        "cursor": [("cursor", cursor), ("next_cursor", next_cursor)],
        "limit": [("limit", limit)],
        "link": [],
    }
    missing = [key for key, found in needed[style] if found is None]
    if not missing:
        return []
    return [
        error(
            codes.M216,
            f"{style} paging of {operation.key} needs {' and '.join(missing)}, which the spec does not show",
            (wanted.source if wanted is not None else rule.source),
            hint="name them under pagination:, e.g.  pagination: {"
            + ", ".join(f"{key}: ..." for key in missing)
            + "}",
        )
    ]


def _body_field(spec: Spec, body: Located | None, names: tuple[str, ...]) -> str | None:
    """The dotted path of the first field with one of `names`, at the top or inside a paging wrapper."""
    fields = _properties(spec, body)
    for name in names:
        if name in fields:
            return name
    for wrapper in _WRAPPERS:
        inner = _properties(spec, fields.get(wrapper))
        for name in names:
            if name in inner:
                return f"{wrapper}.{name}"
    return None


def _renamed(param: ParamSpec, arg_name: str, schema: dict[str, Any]) -> ParamSpec:
    # Always `page` and `cursor`, whatever the mapping calls them: they answer next_page and next_cursor.
    return replace(param, arg_name=arg_name, schema=schema)


def _limit_param(
    param: ParamSpec, rule: PaginationRule, mapped_default: Any, named: set[str]
) -> tuple[ParamSpec, int]:
    spec_max = param.schema.get("maximum")
    most = rule.max_limit or (spec_max if isinstance(spec_max, int) else DEFAULT_MAX_LIMIT)
    if rule.max_limit and isinstance(spec_max, int):
        most = min(most, spec_max)
    spec_default = param.schema.get("default")
    default = (
        rule.default_limit or mapped_default or (spec_default if isinstance(spec_default, int) else None)
    )
    default = min(default or DEFAULT_LIMIT, most)
    own = param.schema
    if param.location == "query":
        # A count reads the same in a query whatever type the spec gives it: a whole number, as the
        # server pages by it (azure.com/automation-softwareUpdateConfigurationMachineRun.json types `$top` a string).
        own = {k: v for k, v in own.items() if k not in _STRING_KEYWORDS} | {"type": "integer"}
    schema = {
        **own,
        "minimum": max(int(param.schema.get("minimum", 1)), 1),
        "maximum": most,
        "default": default,
        "description": f"Most items one call returns, 1 to {most}. Default: {default}.",
    }
    if param.wire_name in named and param.arg_name != LIMIT_ARG:
        return replace(param, schema=schema), default
    return replace(param, arg_name=LIMIT_ARG, schema=schema), default


_STRING_KEYWORDS = ("pattern", "minLength", "maxLength", "format", "enum", "example", "examples")


def _page_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": schema.get("type", "integer"),  # some APIs take the number as a string
        "minimum": 1,
        "default": 1,
        "description": "Which page to return, starting at 1: pass next_page from the previous result. "
        "Default: 1.",
    }


def _cursor_schema() -> dict[str, Any]:
    return {
        "type": "string",
        "description": "Where to continue: the next_cursor of the previous result, exactly as it was. "
        "Leave it out for the first page.",
    }


def _server_param(arg_name: str, schema: dict[str, Any], source: SourceRef) -> ParamSpec:
    return ParamSpec(
        arg_name=arg_name, wire_name=arg_name, location="query", required=False, schema=schema, source=source
    )


def _clashes(operation: Operation, params: list[ParamSpec], server: list[ParamSpec]) -> list[Diagnostic]:
    own = {p.arg_name: p for p in params}
    return [
        error(
            codes.M217,
            f"parameter '{own[s.arg_name].wire_name}' of {operation.key} would be called '{s.arg_name}', "
            "a name the server uses for paging or response_format",
            own[s.arg_name].source,
            hint=f"rename it in the mapping:  params: {{{own[s.arg_name].wire_name}: {{name: ...}}}}",
        )
        for s in server
        if s.arg_name in own
    ]


def merge_limit_properties(properties: dict[str, Any], actions: list[ActionSpec]) -> dict[str, Any]:
    """One `limit` property for actions whose bounds differ: the widest maximum, each action's own in words.

    The tool's inputSchema is one flat set (T2); the server checks each action's own maximum (R3).
    """
    bounds: dict[str, list[tuple[str, Any, Any]]] = {}
    for action in actions:
        arg = action.paging.limit_arg if action.paging is not None else None
        for param in action.params:
            if arg is not None and param.arg_name == arg:
                bounds.setdefault(arg, []).append(
                    (action.name, param.schema.get("maximum"), param.schema.get("default"))
                )
    merged = dict(properties)
    for arg, found in bounds.items():
        if len({(most, default) for _, most, default in found}) < 2:
            continue
        schema = {k: v for k, v in merged[arg].items() if k != "default"}
        schema["maximum"] = max(most for _, most, _ in found)
        schema["description"] = (
            "Most items one call returns, per action: "
            + "; ".join(f"{name} 1 to {most} (default {default})" for name, most, default in found)
            + "."
        )
        merged[arg] = schema
    return merged


# --- the outputSchema (R5) ----------------------------------------------------------------------
#
# A tool has one outputSchema for all its actions, and it is paid for in every tools/list: it names
# what the agent can count on and no more. The fields this server writes itself (the one paging
# shape, the truncation note) are typed, because the runtime guarantees their types. A record's
# fields are named, without a type: their values are the API's, and a spec wrong about one type
# must not make a client reject a good result. Nothing is required (a cut result may lack any
# field), and other properties are allowed (response_format=detailed shows every field).

_TRUNCATED_OUTPUT: JsonSchema = {
    "type": "object",
    "properties": {
        "reason": {"type": "string"},
        "shown": {"type": "string"},
        "rest": {"type": "string"},
        "next_call": {"type": "object"},
    },
}
_PAGING_OUTPUT: dict[str, JsonSchema] = {
    "has_more": {"type": ["boolean", "null"]},  # null: more may follow, and `rest` says why it cannot be had
    "next_page": {"type": "integer"},
    "next_cursor": {"type": "string"},
    "total_count": {"type": "integer"},
    "rest": {"type": "string"},
}
# Where a result says how the answer differs from what the tool promises (templates/runtime/notes.py):
# every tool with an outputSchema declares it, so any result may carry one (R4, R5).
_NOTE_OUTPUT: JsonSchema = {"type": "string"}
# The top-level fields the runtime itself writes: a record field of the same name is the API's.
SERVER_FIELDS = frozenset({"items", "truncated", "note", *_PAGING_OUTPUT})
# What a preview returns (templates/runtime/preview.py): the server's own shape, every type known.
PREVIEW_OUTPUT: JsonSchema = {
    "type": "object",
    "properties": {
        "preview_id": {"type": "string"},
        "expires_at": {"type": "string"},
        "valid_minutes": {"type": "integer"},
        "target": {"type": "object"},
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "parameter": {"type": "string"},
                    "field": {"type": "string"},
                    "before": {},
                    "after": {},
                    "difference": {"type": "number"},
                    "difference_pct": {"type": "number"},
                },
            },
        },
        "impact": {"type": "array", "items": {"type": "string"}},
        "unchanged": {"type": "array", "items": {"type": "string"}},
        "next_step": {"type": "string"},
        "truncated": _TRUNCATED_OUTPUT,
        "note": _NOTE_OUTPUT,
    },
}


def output_schema(actions: tuple[ActionSpec, ...]) -> JsonSchema | None:
    """The outputSchema of a tool with these actions: every result any of them returns validates
    (records, pages, cut pages, the answers of its change actions); None when none of them reads."""
    reading = [a for a in actions if a.shape is not None]
    if not reading:
        return None
    properties: dict[str, JsonSchema] = {}
    for action in reading:
        for name, schema in _read_output(action).items():
            # Two actions that disagree about a field leave it open: each one's results still validate.
            properties[name] = schema if properties.get(name, schema) == schema else {}
    # A field of a record or of a change's answer that shares a name with one the server writes is
    # the API's, whatever its type: it stays open.
    for action in actions:
        if action.shape is None or action.shape.items is None:
            for name in SERVER_FIELDS.intersection(_shown_fields(action, every=True)):
                properties[name] = {}
    properties.setdefault("truncated", _TRUNCATED_OUTPUT)
    properties.setdefault("note", _NOTE_OUTPUT)
    return {"type": "object", "properties": properties}


def _read_output(action: ActionSpec) -> dict[str, JsonSchema]:
    """One read action's properties: its records' fields and the paging fields its results carry."""
    assert action.shape is not None
    fields: dict[str, JsonSchema] = {name: {} for name in _shown_fields(action)}
    paging = _paging_output(action.paging)
    if action.shape.items is None:
        return {**paging, **fields}  # a field of the record beats a paging field of the same name
    records: JsonSchema = {"type": "array", "items": {"properties": fields}} if fields else {"type": "array"}
    # A list always may say has_more: a page cut to the size budget does (R4).
    return {"items": records, "has_more": _PAGING_OUTPUT["has_more"], **paging}


def _paging_output(paging: PagingSpec | None) -> dict[str, JsonSchema]:
    if paging is None:
        return {}
    names = ["has_more"]
    names += ["next_page"] if paging.style in ("page", "offset") else ["next_cursor"]
    if paging.style in ("cursor", "link", "limit"):
        names.append("rest")  # the API says more follows but gives no way to it
    if paging.style == "limit":
        names.remove("next_cursor")
    if paging.total:
        names.append("total_count")
    return {name: _PAGING_OUTPUT[name] for name in names}


def _shown_fields(action: ActionSpec, *, every: bool = False) -> list[str]:
    """The top-level fields of a record as the default format (or, `every`, any format) shows it,
    under the agent's names (a result converted to the agent's unit is shown under its argument's
    name)."""
    shape = action.shape
    if shape is not None and shape.concise and not every:
        names = list(dict.fromkeys(path.split(".")[0] for path in shape.concise))
        # A concise field the records no longer have (M215) is not promised: `mcpgen diff` then
        # reports it removed, breaking for agents that read it (issue 13).
        known = set(action.result_fields)
        names = [name for name in names if name in known] if known else names
    else:
        dropped = set(shape.drop) if shape is not None else set()
        names = [name for name in action.result_fields if name not in dropped]
    renamed = {u.field: u.name for u in action.result_units if "." not in u.field}
    return list(dict.fromkeys(renamed.get(name, name) for name in names))
