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
from mcpgen.build.answers import (
    at,
    file_answer,
    is_list,
    items_are_records,
    list_items,
    properties,
    response_schema,
)
from mcpgen.build.paging import plan_paging
from mcpgen.build.records import bare_field, derived_concise, key_field_checks, unreadable_response
from mcpgen.diagnostics import Diagnostic, error, warning
from mcpgen.ir import ActionSpec, JsonSchema, PagingSpec, ParamSpec, ResultShape
from mcpgen.load.mapping import ActionRule, ResponseRule, did_you_mean
from mcpgen.load.openapi import Operation, Spec
from mcpgen.load.refs import Located
from mcpgen.names import READ_METHODS

FORMAT_ARG = "response_format"

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
    media = file_answer(spec, operation)
    if media is not None:  # a file is returned as it came: no records, formats or pages
        problems = tuple(_not_json(operation, rule, media))
        return ResultPlan(tuple(params), tuple(defaults), None, None, (), problems)
    body = response_schema(spec, operation)
    if not reads(operation.method, rule):
        fields = tuple(properties(spec, body))
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
    shape = replace(shape, record=envelope, lists=_other_lists(spec, body, items))
    diagnostics += found
    paged = plan_paging(spec, operation, rule, params, defaults, body, items)
    paging, params, defaults, server_params = paged.paging, paged.params, paged.defaults, paged.server_params
    diagnostics += paged.diagnostics
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
    fields = tuple(properties(spec, record))
    return ResultPlan(
        tuple(params), tuple(defaults), shape, paging, tuple(server_params), tuple(diagnostics), fields
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
        if setting is not None and not (isinstance(setting, ResponseRule) and setting.only_units)
    ]


def _not_json(operation: Operation, rule: ActionRule, media: str) -> list[Diagnostic]:
    return [
        error(
            codes.M214,
            f"'{key}' of action '{rule.name}' applies to answers in JSON; {operation.key} answers a file "
            f"({media}), which the tool returns whole with its name, type and size",
            setting.source,
            hint=f"remove '{key}' from action '{rule.name}'",
        )
        for key, setting in (("response", rule.response), ("pagination", rule.pagination))
        if setting is not None
    ]


# --- the records --------------------------------------------------------------------------------


def _records(
    spec: Spec, operation: Operation, body: Located | None, rule: ResponseRule | None
) -> tuple[str | None, Located | None, list[Diagnostic]]:
    """(dotted path of the record list or None for one record, the schema of one record, problems).

    A list is what the schema or the mapping says is one (R3): a top-level array, or an object whose
    fields besides one list of records are paging and envelope fields (`{"backups": [...],
    "nextPageToken": ..., "unreachable": [...]}`). A record is a record, however many array fields it
    has (`GET /webhooks/{id}` with its `triggers`)."""
    if rule is not None and rule.items is not None:
        found = at(spec, body, rule.items)
        if body is not None and not is_list(found):
            names = list(properties(spec, body))
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
        return rule.items, list_items(spec, found) if found is not None else None, []
    if body is None:
        return None, None, []
    if rule is not None and rule.single:
        return None, body, []
    if is_list(body):
        return "", list_items(spec, body), []
    name, problem = _list_field(spec, operation, body)
    if name is None:
        return None, body, [problem] if problem is not None else []
    return name, list_items(spec, properties(spec, body)[name]), []


def _list_field(spec: Spec, operation: Operation, body: Located) -> tuple[str | None, Diagnostic | None]:
    """The field of an object answer that holds its list of records, or None when it is one record
    (with a warning when the spec leaves that open)."""
    fields = properties(spec, body)
    arrays = {n: f for n, f in fields.items() if is_list(f) and not is_envelope_field(n)}
    if not arrays:
        return None, None
    plain = [n for n, f in fields.items() if n not in arrays and not is_envelope_field(n)]
    of_records = [n for n, f in arrays.items() if items_are_records(spec, f)]
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


def derived_list(spec: Spec, operation: Operation) -> str | None:
    """The path of the answer's list of records as the build derives it with no mapping; None for one
    record (`mcpgen init` drafts a search sent by POST only when it has a list to page)."""
    return _records(spec, operation, response_schema(spec, operation), None)[0]


def undecided_lists(spec: Spec, operation: Operation) -> bool:
    """True when the answer has several lists and nothing says which holds its records (M225): `mcpgen
    init` then drafts `response: {single: true}`, the reading the build takes, so the draft says it."""
    body = response_schema(spec, operation)
    if body is None or is_list(body):
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


def _other_lists(spec: Spec, body: Located | None, items: str | None) -> tuple[str, ...]:
    """The answer's other lists of records beside its top-level list (a sync's `modified` and
    `removed` beside `added`, Plaid's /transactions/sync; TransactionsSyncResponse): kept in every
    format, since concise must not drop a list the answer holds."""
    if not items or "." in items:
        return ()
    return tuple(
        name
        for name, field in properties(spec, body).items()
        if name != items and is_list(field) and not is_envelope_field(name) and items_are_records(spec, field)
    )


def _last_word(path: str) -> str:
    segments = [s for s in path.split("/") if s and not s.startswith("{")]
    last = segments[-1].lower() if segments else ""
    return last.removesuffix(".json").removesuffix(".xml")  # discourse's /groups/{id}/members.json


def _envelope_record(spec: Spec, body: Located | None) -> tuple[str | None, Located | None]:
    """A one-record envelope the schema shows: `{"payment": {...}}`, beside nothing but envelope
    fields (Square's `errors`). (its field, the record's schema), or (None, None)."""
    fields = properties(spec, body)
    own = [n for n in fields if not is_envelope_field(n)]
    if len(own) != 1:
        return None, None
    inner = fields[own[0]]
    value = inner.value if isinstance(inner.value, dict) else {}
    if is_list(inner) or not properties(spec, inner) or value.get("type") not in (None, "object"):
        return None, None
    return own[0], inner


def _shape(
    spec: Spec, operation: Operation, record: Located | None, items: str | None, rule: ActionRule
) -> tuple[ResultShape, list[Diagnostic]]:
    fields = properties(spec, record)
    response = rule.response
    diagnostics: list[Diagnostic] = []
    if response is not None and fields and record is not None:
        where = f"records of {operation.key} ({record.pointer or '/'})"
        for key, paths in (("concise", response.concise or ()), ("drop", response.drop)):
            for path in paths:
                if at(spec, record, path) is None:
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
# What the result of an action answering a file says of it (templates/runtime/file_answers.py); the
# file itself is the result's image, audio or resource content, never a field of this JSON.
_FILE_OUTPUT: JsonSchema = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "media_type": {"type": "string"},
        "size_bytes": {"type": "integer"},
    },
    "required": ["name", "media_type", "size_bytes"],
}
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
    reading = [a for a in actions if a.shape is not None or a.file_answer is not None]
    if not reading:
        return None
    properties: dict[str, JsonSchema] = {}
    for action in reading:
        for name, schema in _read_output(action).items():
            # Two actions that disagree about a field leave it open: each one's results still validate.
            properties[name] = schema if properties.get(name, schema) == schema else {}
    # A field of a record or of a change's answer that shares a name with one the server writes is
    # the API's, whatever its type: it stays open.
    written = SERVER_FIELDS | ({"file"} if "file" in properties else set())
    for action in actions:
        if action.file_answer is None and (action.shape is None or action.shape.items is None):
            for name in written.intersection(_shown_fields(action, every=True)):
                properties[name] = {}
    properties.setdefault("truncated", _TRUNCATED_OUTPUT)
    # Any result may say how its answer differs from the tool's promise (templates/runtime/notes.py): a
    # record unwrapped, concise fields missing, a value left in the API's unit (T5).
    properties.setdefault("note", _NOTE_OUTPUT)
    return {"type": "object", "properties": properties}


def _read_output(action: ActionSpec) -> dict[str, JsonSchema]:
    """One read action's properties: its records' fields and the paging fields its results carry; an
    action answering a file, what its result says of the file."""
    if action.shape is None:
        return {"file": _FILE_OUTPUT}
    fields: dict[str, JsonSchema] = {name: {} for name in _shown_fields(action)}
    if action.shape.items is None:
        paging = _paging_output(action.paging) if action.paging is not None else {}
        return {**paging, **fields}  # a field of the record beats a paging field of the same name
    records: JsonSchema = {"type": "array", "items": {"properties": fields}} if fields else {"type": "array"}
    lists: dict[str, JsonSchema] = {name: {"type": "array"} for name in action.shape.lists}
    # A list always says has_more (null with `rest` when its paging cannot be read), and a total
    # wherever the answer gives one (R3, R4).
    return {"items": records, **lists, **_paging_output(action.paging)}


def _paging_output(paging: PagingSpec | None) -> dict[str, JsonSchema]:
    names = ["has_more"]
    if paging is not None and paging.style in ("page", "offset"):
        names.append("next_page")
    if paging is not None and paging.style in ("cursor", "link"):
        names.append("next_cursor")
    names += ["rest", "total_count"]  # rest: why has_more is null; the total: wherever the answer says it
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
