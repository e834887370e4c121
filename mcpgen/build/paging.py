"""Pure: how a list action pages upstream (R3), decided from its parameters, its answer's schema and
the mapping.

Whatever the API uses (page/per_page, offset/limit, a cursor in the body, a Link header), the agent
passes `limit` and `page` or `cursor` and reads one shape back. Each decision is read from this
operation's own answer schema (its JSON pointer is named when the mapping and the schema disagree),
and what the schema leaves out the server reads from the answer itself (templates/runtime/
paging_fields.py, loaded here too, so both read a name alike). A search sent by POST pages by fields
of its body, also inside a body object (Plaid's `options.count` and `options.offset`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mcpgen import codes
from mcpgen.build.answers import (
    at,
    declares_link_header,
    is_list,
    items_are_records,
    json_types,
    list_items,
    properties,
    response_headers,
)
from mcpgen.diagnostics import Diagnostic, SourceRef, error, warning
from mcpgen.ir import ActionSpec, PagingSpec, PagingStyle, ParamSpec
from mcpgen.load.mapping import ActionRule, PaginationRule, did_you_mean
from mcpgen.load.openapi import Operation, Spec
from mcpgen.load.refs import Located
from mcpgen.names import READ_METHODS
from mcpgen.runtime_source import runtime_module

DEFAULT_LIMIT = 20
DEFAULT_MAX_LIMIT = 100
PAGE_ARG, LIMIT_ARG, CURSOR_ARG = "page", "limit", "cursor"

# Names APIs use for each role, most common first.
PAGE_PARAMS = ("page", "page_number", "pageNumber", "currentPage", "current_page", "Page")
LIMIT_PARAMS = (
    "per_page", "perPage", "page_size", "pageSize", "PageSize", "limit", "max_results", "maxResults",
    "MaxResults", "max_items", "maxItems", "size", "$top", "page_length", "count",
)  # fmt: skip
OFFSET_PARAMS = ("offset", "skip", "start", "$skip", "startIndex", "start_index")
CURSOR_PARAMS = (
    "cursor", "after", "page_token", "pageToken", "PageToken", "next_page_token", "nextPageToken",
    "next_token", "nextToken", "NextToken", "starting_after", "start_cursor", "startCursor",
    "continuation_token", "continuationToken", "marker", "Marker", "$skiptoken",
)  # fmt: skip
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
# The next page's number (Hetzner Cloud's meta.pagination.next_page), null on the last page; a string
# one is a token (Stripe's search `next_page`, taken back as its `page`).
_NEXT_PAGE_FIELDS = ("next_page", "nextPage", "next_page_number", "nextPageNumber")
# A description saying a count is of this page only.
_THIS_PAGE = re.compile(
    r"\b(this|the current|current|each|a single|one) (page|response|result|call|request)\b|\breturned\b", re.I
)
_STRING_KEYWORDS = ("pattern", "minLength", "maxLength", "format", "enum", "example", "examples")

_FIELDS = runtime_module("paging_fields")  # what a name means: the server reads answers with it too


@dataclass(frozen=True, slots=True)
class PagingPlan:
    paging: PagingSpec | None
    params: list[ParamSpec]  # the action's own parameters, paging ones renamed or removed
    defaults: list[tuple[str, Any]]
    server_params: list[ParamSpec]  # page or cursor the server translates
    diagnostics: list[Diagnostic]


@dataclass(frozen=True, slots=True)
class _Roles:
    """The operation's parameters that page it."""

    page: ParamSpec | None
    limit: ParamSpec | None
    offset: ParamSpec | None
    cursor: ParamSpec | None


@dataclass(frozen=True, slots=True)
class _Answer:
    """Where this operation's answer says how paging goes (dotted paths into its schema)."""

    total: str | None
    total_header: str | None
    next_cursor: str | None
    has_more: str | None
    next_link: str | None
    next_page: str | None
    link_header: bool


def plan_paging(
    spec: Spec,
    operation: Operation,
    rule: ActionRule,
    params: list[ParamSpec],
    defaults: list[tuple[str, Any]],
    body: Located | None,
    items: str | None,
) -> PagingPlan:
    """How the action pages: its PagingSpec and its parameters as the agent passes them. `body` is
    the answer's schema, `items` the path of its list (None: the answer is one record)."""
    wanted = rule.pagination
    if wanted is not None and wanted.style == "none":
        return PagingPlan(None, params, defaults, [], [])
    w = wanted or _NO_RULE
    roles, diagnostics = _roles(operation, w, params)
    answer, found = _answer(spec, operation, w, body, items)
    diagnostics += found
    roles = _cursor_by_answer(roles, answer, _known(operation, params))
    style: PagingStyle | None = w.style or _derived_style(roles, answer)  # type: ignore[assignment]
    if style is None or (wanted is None and items is None) or has_error(diagnostics):
        return PagingPlan(None, params, defaults, [], diagnostics)
    if wanted is not None and items is None:
        diagnostics.append(_paging_on_a_record(operation, rule, wanted, body))
    found = _incomplete(style, operation, wanted, rule, roles, answer)
    if found:
        return PagingPlan(None, params, defaults, [], [*diagnostics, *found])
    out, defaults = _agent_params(style, roles, rule, w, params, defaults)
    server_params = []
    if style == "offset":
        server_params.append(_server_param(PAGE_ARG, _page_schema({}), rule.source))
    if style == "link":
        server_params.append(_server_param(CURSOR_ARG, _cursor_schema(), rule.source))
    paging = _paging_spec(spec, style, roles, answer, out, body)
    return PagingPlan(paging, out, defaults, server_params, diagnostics)


def has_error(diagnostics: list[Diagnostic]) -> bool:
    return any(d.code == codes.M216 for d in diagnostics)


def _known(operation: Operation, params: list[ParamSpec]) -> dict[str, ParamSpec]:
    """The parameters that may page: query ones, and for a read sent by POST its body fields (by
    their dotted path when the mapping lifted one out of an object: 'options.count'). A query
    parameter wins over a body field."""
    body = {} if operation.method in READ_METHODS else _body_fields(params)
    return {**body, **{p.wire_name: p for p in params if p.location == "query"}}


def _roles(
    operation: Operation, w: PaginationRule, params: list[ParamSpec]
) -> tuple[_Roles, list[Diagnostic]]:
    known = _known(operation, params)
    diagnostics: list[Diagnostic] = []

    def role(explicit: str | None, names: tuple[str, ...], key: str) -> ParamSpec | None:
        if explicit is None:
            return next((known[n] for n in names if n in known and not known[n].path), None)
        if explicit not in known:
            diagnostics.append(_not_a_paging_field(operation, w, key, explicit, known))
        return known.get(explicit)

    roles = _Roles(
        page=role(w.page, PAGE_PARAMS, "page"),
        limit=role(w.limit, LIMIT_PARAMS, "limit"),
        offset=role(w.offset, OFFSET_PARAMS, "offset"),
        cursor=role(w.cursor, CURSOR_PARAMS, "cursor"),
    )
    return roles, diagnostics


def _cursor_by_answer(roles: _Roles, answer: _Answer, known: dict[str, ParamSpec]) -> _Roles:
    """The parameter that takes back the answer's next cursor, named like it: Zoom's next_page_token
    query parameter answers its next_page_token, Square's `cursor` its `cursor`, Stripe's search
    `page` (a string) its `next_page`."""
    if roles.cursor is not None or answer.next_cursor is None:
        return roles
    last = answer.next_cursor.split(".")[-1]
    bare = last.removeprefix("next_").removeprefix("next")
    bare = bare[:1].lower() + bare[1:]
    for name in dict.fromkeys((last, bare)):
        param = known.get(name)
        if param is not None and json_types_of(param) <= {"string"}:
            return replace(roles, cursor=param, page=None if param is roles.page else roles.page)
    return roles


def json_types_of(param: ParamSpec) -> set[str]:
    kind = param.schema.get("type")
    return {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else set()


def _answer(
    spec: Spec, operation: Operation, w: PaginationRule, body: Located | None, items: str | None
) -> tuple[_Answer, list[Diagnostic]]:
    """Where the answer says how paging goes: the mapping's paths (checked against the answer's schema)
    or what the schema shows, by name."""
    beside = items.split(".")[0] if items else None

    def named(names: tuple[str, ...]) -> Callable[[str, Located], bool]:
        return lambda name, _: name in names

    next_page = w.next_page or _find(spec, body, beside, named(_NEXT_PAGE_FIELDS))
    next_cursor = w.next_cursor or _find(spec, body, beside, named(_NEXT_FIELDS))
    if next_cursor is None and next_page is not None and _is_token(at(spec, body, next_page)):
        next_cursor = next_page  # Stripe's search: a string next_page is a cursor
    answer = _Answer(
        total=w.total or _records_total(spec, body, beside) or _find(spec, body, beside, _is_total),
        total_header=_total_header(spec, operation),
        next_cursor=next_cursor,
        has_more=w.has_more or _find(spec, body, beside, named(_MORE_FIELDS)),
        next_link=w.next_link or _find(spec, body, beside, named(_NEXT_LINK_FIELDS)),
        next_page=next_page,
        link_header=declares_link_header(spec, operation),
    )
    return answer, _unknown_fields(spec, operation, w, body)


def _find(
    spec: Spec,
    body: Located | None,
    beside: str | None,
    wanted: Callable[[str, Located], bool],
    depth: int = 2,
) -> str | None:
    """The dotted path of the first field `wanted` accepts: beside the list, else inside an object named
    for paging (`meta`, `pagination`, `meta.pagination`: two levels at most)."""
    fields = {n: f for n, f in properties(spec, body).items() if n != beside}
    for name, field in fields.items():
        if wanted(name, field):
            return name
    if depth == 0:
        return None
    for name, field in fields.items():
        if _FIELDS.is_paging_object(name) and properties(spec, field):
            inner = _find(spec, field, None, wanted, depth - 1)
            if inner is not None:
                return f"{name}.{inner}"
    return None


def _records_total(spec: Spec, body: Located | None, beside: str | None) -> str | None:
    """Of several totals beside the list, the one that names its records: unicourt.com.json's
    /components/schemas/CaseCountAnalyticsByNormPartyResponse counts `totalCaseCount` and
    `totalNormPartyCount` beside `results` of CaseCountAnalyticsByNormParty, and the parties are the
    records. None when at most one total is there, or none names the records better than another."""
    fields = properties(spec, body)
    totals = [n for n, f in fields.items() if n != beside and _is_total(n, f)]
    listed = fields.get(beside) if beside else None
    if len(totals) < 2 or listed is None:
        return None
    records = list_items(spec, listed)
    named = set(_FIELDS.words(beside or ""))
    if records is not None:
        named |= set(_FIELDS.words(records.pointer.rsplit("/", 1)[-1]))
    named -= {"total", "count", "array", "list", "results", "items", "data"}
    scores = [(len(named & set(_FIELDS.words(n))), n) for n in totals]
    best = max(score for score, _ in scores)
    winners = [n for score, n in scores if score == best]
    return winners[0] if best and len(winners) == 1 else None


def _is_total(name: str, field: Located) -> bool:
    """A number that counts every record (`total_records`, `itemsTotal`, Linode's `results`), unless
    its description says it counts this page (anchore.io.json /components/schemas/EventsList
    `item_count`: "Number of events in this page")."""
    value = field.value if isinstance(field.value, dict) else {}
    said = str(value.get("description") or "")
    return bool(_FIELDS.is_total(name, said=not _THIS_PAGE.search(said))) and bool(
        json_types(field) & {"integer", "number"}
    )


def _is_token(field: Located | None) -> bool:
    value = field.value if field is not None and isinstance(field.value, dict) else {}
    return json_types(field) == {"string"} and value.get("format") not in ("uri", "url")


def _total_header(spec: Spec, operation: Operation) -> str | None:
    """The response header the spec says carries the total (gitea's X-Total, X-Total-Count)."""
    for name, header in response_headers(spec, operation).items():
        schema = header.value.get("schema") if isinstance(header.value, dict) else None
        kind = schema.get("type") if isinstance(schema, dict) else None
        if _FIELDS.is_total_header(name) and kind in (None, "integer", "number"):
            return name
    return None


def _unknown_fields(
    spec: Spec, operation: Operation, w: PaginationRule, body: Located | None
) -> list[Diagnostic]:
    """The mapping's answer paths that the answer's schema does not have: checked before shipping, with
    the schema's pointer, since the server would never find them there."""
    if body is None or not properties(spec, body):
        return []
    named = (
        ("next_cursor", w.next_cursor),
        ("has_more", w.has_more),
        ("total", w.total),
        ("next_link", w.next_link),
        ("next_page", w.next_page),
    )
    fields = list(properties(spec, body))
    return [
        warning(
            codes.M228,
            f"pagination.{key} '{path}' is not a field of the answer of {operation.key} ({body.pointer}): the "
            "server will not find it there, and reads the answer's paging by its names instead",
            w.source,
            hint=(f"did you mean {close}? " if (close := did_you_mean(path, fields)) else "")
            + f"its fields are: {', '.join(fields)}",
        )
        for key, path in named
        if path is not None and at(spec, body, path) is None and not path.startswith("@")
    ]


def _derived_style(roles: _Roles, answer: _Answer) -> PagingStyle | None:
    if roles.cursor is not None and answer.next_cursor is not None:
        return "cursor"
    if answer.next_link is not None:  # the API's own next URL beats any arithmetic (Azure, Twilio)
        return "link"
    if roles.page is not None:  # an API with both takes the page number as it is
        return "page"
    if roles.offset is not None and roles.limit is not None:
        return "offset"
    if answer.link_header:
        return "link"
    if roles.limit is not None:
        return "limit"
    return None


def _incomplete(
    style: str,
    operation: Operation,
    wanted: PaginationRule | None,
    rule: ActionRule,
    roles: _Roles,
    answer: _Answer,
) -> list[Diagnostic]:
    needed: dict[str, list[tuple[str, object]]] = {
        "page": [("page", roles.page)],
        "offset": [("offset", roles.offset), ("limit", roles.limit)],
        "cursor": [("cursor", roles.cursor), ("next_cursor", answer.next_cursor)],
        "limit": [("limit", roles.limit)],
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


def _agent_params(
    style: str,
    roles: _Roles,
    rule: ActionRule,
    w: PaginationRule,
    params: list[ParamSpec],
    defaults: list[tuple[str, Any]],
) -> tuple[list[ParamSpec], list[tuple[str, Any]]]:
    """The action's parameters as the agent passes them: `limit`, `page`, `cursor`; an offset the
    server computes and a link style's own parameters are left out."""
    named = {p.wire_name for p in rule.params if p.name}  # a limit the mapping names keeps its name
    out: list[ParamSpec] = []
    defaults = list(defaults)
    for param in params:
        if (
            param is roles.offset
            and style == "offset"
            or style == "link"
            and param
            in (
                roles.cursor,
                roles.page,
                roles.offset,
            )
        ):
            continue  # the server computes it from page, or takes it from the next link
        if param is roles.limit:
            before = param.arg_name
            param, default = _limit_param(param, w, dict(defaults).get(before), named)
            defaults = [(n, v) for n, v in defaults if n not in (before, param.arg_name)]
            defaults.append((param.arg_name, default))
        elif param is roles.page and style == "page":
            # In the query a page number reads the same whatever type the spec gives it ("2" or 2), so
            # the server's `page` is one whole number in every action of a tool (M207; vtex's
            # GET /api/oms/user/orders types it a string, GET /api/oms/pvt/orders an integer).
            param = replace(
                param,
                arg_name=PAGE_ARG,
                schema=_page_schema({} if param.location == "query" else param.schema),
            )
        elif param is roles.cursor and style == "cursor":
            # Always `cursor`, whatever the API calls it: it answers next_cursor.
            param = replace(param, arg_name=CURSOR_ARG, schema=_cursor_schema())
        out.append(param)
    return out, defaults


def _paging_spec(
    spec: Spec, style: PagingStyle, roles: _Roles, answer: _Answer, out: list[ParamSpec], body: Located | None
) -> PagingSpec:
    limit = roles.limit
    limited = next(
        (
            p
            for p in out
            if limit is not None and p.wire_path == limit.wire_path and p.location == limit.location
        ),
        None,
    )
    echoed = tuple(
        name
        for name in properties(spec, body)
        if name in {p.wire_name for p in (roles.page, roles.limit, roles.offset) if p is not None}
    )
    offset = roles.offset if style == "offset" else None
    return PagingSpec(
        style=style,
        limit_arg=limited.arg_name if limited is not None else None,
        offset_wire=offset.wire_path if offset is not None else None,
        next_cursor=answer.next_cursor if style == "cursor" else None,
        has_more=answer.has_more,
        total=answer.total,
        echoed=echoed,
        max_limit=limited.schema.get("maximum") if limited is not None else None,
        next_link=answer.next_link if style == "link" and not answer.link_header else None,
        offset_in_body=offset is not None and offset.location == "body",
        total_header=answer.total_header if answer.total is None else None,
        next_page=answer.next_page if style in ("page", "offset") else None,
    )


def _not_a_paging_field(
    operation: Operation, wanted: PaginationRule, key: str, explicit: str, known: dict[str, ParamSpec]
) -> Diagnostic:
    in_body = operation.method not in READ_METHODS
    where = "query parameter" + (" or body field" if in_body else "")
    close = did_you_mean(explicit, list(known))
    return error(
        codes.M216,
        f"pagination.{key} '{explicit}' is not a {where} of {operation.key}",
        wanted.source,
        hint=(f"did you mean {close}? " if close else "") + f"its {where}s are: {', '.join(known) or 'none'}",
    )


def _body_fields(params: list[ParamSpec]) -> dict[str, ParamSpec]:
    """Fields of the request body by their dotted path ('cursor', 'options.count')."""
    return {p.wire_path: p for p in params if p.location == "body"}


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
        # The bounds and the default are the schema's keywords; a profile that drops them says them (T6).
        "description": "Most items one call returns.",
    }
    if param.wire_name in named and param.arg_name != LIMIT_ARG:
        return replace(param, schema=schema), default
    return replace(param, arg_name=LIMIT_ARG, schema=schema), default


def _page_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": schema.get("type", "integer"),  # some APIs take the number as a string
        "minimum": 1,
        "default": 1,
        "description": "The page to return: next_page of the previous result.",
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


def body_paging(spec: Spec, body: Located | None) -> dict[str, str]:
    """The request body fields that page a search sent by POST, by role, top-level or one object down,
    as `pagination:` names them (Plaid's {'limit': 'options.count', 'offset': 'options.offset'},
    Square's {'limit': 'limit', 'cursor': 'cursor'}); {} when the body shows no way to page."""
    top = properties(spec, body)
    found: dict[str, str] = {}
    for role, names in (
        ("page", PAGE_PARAMS),
        ("limit", LIMIT_PARAMS),
        ("offset", OFFSET_PARAMS),
        ("cursor", CURSOR_PARAMS),
    ):
        inner = (
            f"{holder}.{n}" for holder, field in top.items() for n in names if n in properties(spec, field)
        )
        path = next((n for n in names if n in top), None) or next(inner, None)
        if path is not None:
            found[role] = path
    pages = "cursor" in found or "page" in found or {"offset", "limit"} <= set(found)
    return found if pages else {}


def counted_list(spec: Spec, answer: Located | None) -> str | None:
    """The one list of records an answer's total names (Plaid's `transactions`, counted by
    `total_transactions` beside `accounts`), or None."""
    fields = properties(spec, answer)
    totals = [_FIELDS.words(n) for n, f in fields.items() if _is_total(n, f)]
    named = [
        n
        for n, f in fields.items()
        if is_list(f)
        and items_are_records(spec, f)
        and any(w in ws for ws in totals for w in _FIELDS.words(n))
    ]
    return named[0] if len(named) == 1 else None


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
