"""The judge: what the tools promise against what came back. Pure functions over the calls made.

Every judgement reads the upstream's raw answer (as the loopback proxy saw it) and the tool result as
the client got it; nothing the runtime says about itself is taken on trust, except a `note` it puts in
a result, which is itself a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from mcpgen import codes
from mcpgen.check.model import CHECKS, Call, Finding, Skip
from mcpgen.check.session import UpstreamKind, is_read
from mcpgen.check.spec_facts import AnswerFacts, json_readable
from mcpgen.check.upstream import Exchange
from mcpgen.diagnostics import SourceRef
from mcpgen.ir import ActionSpec, ParamSpec, ResultUnitSpec, ServerSpec, ToolSpec
from mcpgen.load.sources import Document, join_pointer, split_pointer
from mcpgen.runtime_source import runtime_module

# Fields a list result carries that are the server's own, not a record's.
SERVER_FIELDS = frozenset(
    ("items", "has_more", "next_page", "next_cursor", "total_count", "rest", "truncated", "note")
)
# What a name means (a total of the list, not of this page): the generated server's own rules, so
# check and server judge a field alike.
_FIELDS = runtime_module("paging_fields")
_PAGING_KEYS = (
    ("next_cursor", "next_cursor"),
    ("has_more", "has_more"),
    ("total", "total"),
    ("next_link", "next_link"),
)
_SNIPPET = 40  # characters of an API message looked for in the tool's error text


@dataclass(frozen=True, slots=True)
class Context:
    server: ServerSpec
    mapping: Document
    facts: dict[tuple[str, str], AnswerFacts]
    kind: UpstreamKind


def judge(context: Context, calls: Iterable[Call], skips: Iterable[Skip]) -> list[Finding]:
    calls = list(calls)
    found: list[Finding] = []
    for tool in context.server.tools:
        for action in tool.actions:
            mine = [c for c in calls if c.tool == tool.name and c.action == action.name]
            found += _action(context, tool, action, mine)
        probes = [c for c in calls if c.tool == tool.name and c.step == "probe"]
        for probe in probes:
            action = next(a for a in tool.actions if a.name == probe.action)
            found += _probe(context, tool, action, probe)
    found += _unit_schema(context)
    for skip in skips:
        tool = next(t for t in context.server.tools if t.name == skip.tool)
        skipped = next((a for a in tool.actions if a.name == skip.action), None)
        where = skipped.source if skipped is not None else tool.source
        found.append(_finding(codes.K900, tool, skipped, skip.why, where))
    return found


def _action(context: Context, tool: ToolSpec, action: ActionSpec, calls: list[Call]) -> list[Finding]:
    found = [*_notes(tool, action, calls), *_refusals(tool, action, calls)]
    reads = [c for c in calls if c.step in ("concise", "detailed", "next")]
    if not reads:
        if not is_read(action):
            found += _declared_media(context, tool, action)
        return found
    failed = [c for c in reads if c.is_error]
    if failed:
        return found + _failure(context, tool, action, failed[0])
    found += _concise(context, tool, action, reads)
    found += _paging(context, tool, action, reads)
    found += _units(context, tool, action, reads)
    return found


# ---- failures and media types ---------------------------------------------------------------------


def _failure(context: Context, tool: ToolSpec, action: ActionSpec, call: Call) -> list[Finding]:
    said = _first_line(call.failure or call.text)
    if call.failure is not None:
        return [_finding(codes.K701, tool, action, f"the call failed: {said}", action.source)]
    if not call.exchanges:
        return [
            _finding(
                codes.K900, tool, action,
                f"not checked: the server refused the arguments check made from the spec ({_args(call)}): {said}",
                action.source,
                "give the spec an example for each required parameter, so that check calls with real values",
            )
        ]  # fmt: skip
    answer = call.exchanges[-1]
    if 200 <= answer.status < 300:
        if not (json_readable(answer.content_type) and answer.is_json):
            return [_media(tool, action, answer, said)]
        return [
            _finding(
                codes.K701,
                tool,
                action,
                f"the API answered HTTP {answer.status} and the tool failed: {said}",
                action.source,
            )
        ]
    if context.kind == "url" and answer.status == 404:
        return [
            _finding(
                codes.K900, tool, action,
                f"not checked: the sandbox holds no record for the arguments check made ({_args(call)})", action.source,
            )
        ]  # fmt: skip
    return [
        _finding(
            codes.K701, tool, action,
            f"the upstream refused the request the tool sent for {_args(call)} (HTTP {answer.status}): {said}",
            action.source,
        )
    ]  # fmt: skip


def _media(tool: ToolSpec, action: ActionSpec, answer: Exchange, said: str) -> Finding:
    kind = answer.content_type or "no content type"
    return _finding(
        codes.K501, tool, action,
        f"the API answered HTTP {answer.status} with {kind}, which the tool cannot read: {said}",
        action.source,
        "map an operation that answers JSON, or leave this one out of the mapping",
    )  # fmt: skip


def _declared_media(context: Context, tool: ToolSpec, action: ActionSpec) -> list[Finding]:
    types = context.facts.get((tool.name, action.name), AnswerFacts((), ())).success_types
    if not types or any(json_readable(t) for t in types) or action.file_answer:  # a file is returned as one
        return []
    return [
        _finding(
            codes.K501, tool, action,
            f"the spec says {action.method} {action.path} answers {', '.join(types)}, which the tool cannot read "
            "(check sends no write to find out)",
            action.source,
            "map an operation that answers JSON, or leave this one out of the mapping",
        )
    ]  # fmt: skip


# ---- concise records ------------------------------------------------------------------------------


def _concise(context: Context, tool: ToolSpec, action: ActionSpec, reads: list[Call]) -> list[Finding]:
    shape = action.shape
    concise_calls = [c for c in reads if c.step in ("concise", "next") and c.structured is not None]
    detailed = next((c for c in reads if c.step == "detailed" and c.structured is not None), None)
    shown = [r for c in concise_calls for r in _records(c.structured)]
    if shape is None or detailed is None or not concise_calls:
        return []
    full = _records(detailed.structured)
    if not shown and not full:
        return [
            _finding(
                codes.K900,
                tool,
                action,
                "concise fields not checked: every answer was an empty list",
                action.source,
            )
        ]
    found: list[Finding] = []
    raw = [r for c in reads for r in _raw_records(action, c)]
    for index, field in enumerate(shape.concise):
        if any(_has(record, field) for record in shown):
            continue
        pointer = join_pointer(action.source.pointer, "response", "concise", index)
        nested = next((p for r in raw if (p := _nested_path(r, field)) is not None), None)
        where = (
            f"; the answer has it at {nested}"
            if nested
            else f"; the answer's records have {_keys(raw or full)}"
        )
        found.append(
            _finding(
                codes.K101, tool, action,
                f"concise field {field!r} is in no concise record{where}",
                _place(context.mapping, pointer, action.source),
                "name fields the answer's records have, as dotted paths inside the record",
            )
        )  # fmt: skip
    empty = sum(
        1
        for c, d in zip(_records(concise_calls[0].structured), full, strict=False)
        if not _filled(c) and _filled(d)
    )
    if empty:
        sample = next(
            d
            for c, d in zip(_records(concise_calls[0].structured), full, strict=False)
            if not _filled(c) and _filled(d)
        )
        found.append(
            _finding(
                codes.K102, tool, action,
                f"{empty} concise record(s) are empty while the detailed record has fields ({_keys([sample])})"
                + _wrapped(sample),
                _place(context.mapping, join_pointer(action.source.pointer, "response"), action.source),
                "set response.concise to fields of the record, or response.items / single to the record's place",
            )
        )  # fmt: skip
    return found


def _records(result: dict[str, Any] | None) -> list[dict[str, Any]]:
    if result is None:
        return []
    items = result.get("items")
    if isinstance(items, list):
        return [r for r in items if isinstance(r, dict)]
    return [{k: v for k, v in result.items() if k not in SERVER_FIELDS}]


def _raw_records(action: ActionSpec, call: Call) -> list[dict[str, Any]]:
    """The records of the upstream's own answer to `call`, found where the tool looks for them."""
    answer = call.exchanges[-1] if call.exchanges else None
    if answer is None or not answer.is_json:
        return []
    body = answer.body
    shape = action.shape
    if shape is not None and shape.items is not None:
        listed = _lookup(body, shape.items) if shape.items else body
        if isinstance(listed, list):
            return [r for r in listed if isinstance(r, dict)]
    if isinstance(body, list):
        return [r for r in body if isinstance(r, dict)]
    if shape is not None and shape.record and isinstance(_lookup(body, shape.record), dict):
        return [_lookup(body, shape.record)]
    return [body] if isinstance(body, dict) else []


def _filled(record: dict[str, Any]) -> bool:
    return any(value not in (None, "", [], {}) for value in record.values())


def _wrapped(record: dict[str, Any]) -> str:
    inner = [k for k, v in record.items() if isinstance(v, dict) and v]
    if len(record) <= 3 and inner:
        return f": the record looks wrapped in {inner[0]!r}, and the concise fields are inside it"
    return ""


def _nested_path(record: dict[str, Any], field: str, prefix: str = "", depth: int = 0) -> str | None:
    """Where `field` sits one or two levels down (data.id), when it is not where the tool looks."""
    for key, value in record.items():
        if not isinstance(value, dict) or depth > 1:
            continue
        if _has(value, field):
            return f"{prefix}{key}.{field}"
        deeper = _nested_path(value, field, f"{prefix}{key}.", depth + 1)
        if deeper:
            return deeper
    return None


# ---- paging ---------------------------------------------------------------------------------------


def _paging(context: Context, tool: ToolSpec, action: ActionSpec, reads: list[Call]) -> list[Finding]:
    found: list[Finding] = []
    block = join_pointer(action.source.pointer, "pagination")
    at_block = _place(context.mapping, block, action.source)
    lists = [c for c in reads if isinstance((c.structured or {}).get("items"), list)]
    verdictless = [c for c in lists if "has_more" not in (c.structured or {})]
    if verdictless:
        found.append(
            _finding(
                codes.K201, tool, action,
                f"the {verdictless[0].step} list result has no has_more: the agent cannot tell a whole list "
                f"from a first page ({_args(verdictless[0])})",
                at_block,
                "add pagination: to the action (style and the body fields the answer pages with)",
            )
        )  # fmt: skip
    bodies = [c.exchanges[-1].body for c in reads if c.exchanges and c.exchanges[-1].is_json]
    paging = action.paging
    for key, attribute in _PAGING_KEYS if paging is not None else ():
        path = getattr(paging, attribute)
        if not path or any(_lookup_has(body, path) for body in bodies):
            continue
        keys = _keys([b for b in bodies if isinstance(b, dict)])
        if context.kind == "url" and key in ("next_cursor", "next_link"):
            # A sandbox's last page may rightly leave the link out; Prism's dynamic answers never do.
            found.append(
                _finding(
                    codes.K900, tool, action,
                    f"paging not checked: no answer had {path!r} ({key.replace('_', ' ')}), as on a last page; "
                    "run check where the list has more than one page",
                    _place(context.mapping, join_pointer(block, key), at_block),
                )
            )  # fmt: skip
            continue
        found.append(
            _finding(
                codes.K202, tool, action,
                f"the tool reads {key.replace('_', ' ')} at {path!r}, which no answer has (they have {keys}): "
                "its paging verdict is a guess",
                _place(context.mapping, join_pointer(block, key), at_block),
                "name the body field the answers carry in pagination:, or remove it",
            )
        )  # fmt: skip
    for call in lists:
        total = _total(call.exchanges[-1].body) if call.exchanges and call.exchanges[-1].is_json else None
        if total is not None and "total_count" not in (call.structured or {}):
            found.append(
                _finding(
                    codes.K203, tool, action,
                    f"the answer says {total[0]} is {total[1]}, and the result has no total_count",
                    _place(context.mapping, join_pointer(block, "total"), at_block),
                    f"add pagination: {{total: {total[0]}}} to the action",
                )
            )  # fmt: skip
            break
    return found


def _total(body: Any) -> tuple[str, int] | None:
    if not isinstance(body, dict):
        return None
    for key, value in body.items():
        if _FIELDS.is_total(key) and _FIELDS.whole(value) is not None:
            return key, _FIELDS.whole(value)
    for key, value in body.items():
        if isinstance(value, dict):
            inner = _total({k: v for k, v in value.items() if not isinstance(v, dict)})
            if inner is not None:
                return f"{key}.{inner[0]}", inner[1]
    return None


# ---- units ----------------------------------------------------------------------------------------


def _unit_place(context: Context, unit: ResultUnitSpec) -> SourceRef | None:
    """The `unit:` of the parameter that converts this result field."""
    for param in _unit_params(context.server):
        if param.arg_name == unit.name and param.wire_path == unit.field:
            return _place(context.mapping, join_pointer(param.source.pointer, "unit"), param.source)
    return None


def _unit_params(server: ServerSpec) -> Iterator[ParamSpec]:
    # As the build picks them (build/units.py result_units): a body or query argument with a unit.
    for tool in server.tools:
        for action in tool.actions:
            yield from (p for p in action.params if p.unit is not None and p.location in ("body", "query"))


def _unit_schema(context: Context) -> list[Finding]:
    """A converted field that no response schema has: the field the declaring action answers with, or
    any read action's records."""
    found = []
    reads = [a for t in context.server.tools for a in t.actions if is_read(a)]
    for tool in context.server.tools:
        for action in tool.actions:
            for param in (p for p in action.params if p.unit is not None and p.location in ("body", "query")):
                head = param.wire_name
                if any(head in a.result_fields for a in (action, *reads)):
                    continue
                known = ", ".join(action.result_fields) or "no fields at all"
                found.append(
                    _finding(
                        codes.K302, tool, action,
                        f"results are to show {param.wire_path!r} as {param.arg_name!r} "
                        f"({param.unit.upstream if param.unit else ''} -> {param.unit.agent if param.unit else ''}), "
                        f"and no response schema has {head!r} ({action.method} {action.path} answers with {known})",
                        _place(context.mapping, join_pointer(param.source.pointer, "unit"), param.source),
                        "a unit converts results only where the answer has the field: check the field's name in the spec",
                    )
                )  # fmt: skip
    return found


def _units(context: Context, tool: ToolSpec, action: ActionSpec, reads: list[Call]) -> list[Finding]:
    found = []
    detailed = [c for c in reads if c.step == "detailed"]
    for unit in action.result_units:
        raw = [
            _lookup(r, unit.field)
            for c in detailed
            for r in _raw_records(action, c)
            if _lookup_has(r, unit.field)
        ]
        shown = [r[unit.name] for c in detailed for r in _records(c.structured) if unit.name in r]
        bad = next((v for v in [*raw, *shown] if not _number(v) and v is not None), None)
        if bad is None:
            continue
        found.append(
            _finding(
                codes.K301, tool, action,
                f"{unit.field!r} is to come back in {unit.unit.agent} as {unit.name!r}, and the answer has "
                f"{_quoted(bad)}, not a number",
                _unit_place(context, unit) or action.source,
                "put units only on fields whose answers are numbers",
            )
        )  # fmt: skip
    return found


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ---- error texts ----------------------------------------------------------------------------------


def _probe(context: Context, tool: ToolSpec, action: ActionSpec, call: Call) -> list[Finding]:
    refused = [e for e in call.exchanges if e.status >= 400]
    if call.failure is not None:
        return [
            _finding(
                codes.K701,
                tool,
                action,
                f"the error probe failed: {_first_line(call.failure)}",
                action.source,
            )
        ]
    if not refused:
        why = (
            "the server sent nothing"
            if not call.exchanges
            else f"the API answered HTTP {call.exchanges[-1].status}"
        )
        return [
            _finding(
                codes.K900,
                tool,
                action,
                f"error text not checked: {why} to the error probe ({_args(call)})",
                action.source,
            )
        ]
    answer = refused[-1]
    said = _strings(answer.body)
    asked = f" (asked for with Prefer: {answer.forced})" if answer.forced else ""
    if not call.is_error:
        return [
            _finding(
                codes.K401, tool, action,
                f"the API refused the request with HTTP {answer.status}{asked}, and the tool's result is not an error",
                action.source,
            )
        ]  # fmt: skip
    if not said:
        return [
            _finding(
                codes.K900,
                tool,
                action,
                f"error text not checked: the HTTP {answer.status} answer has no text",
                action.source,
            )
        ]
    if any(_carries(call.text, s) for s in said):
        return []
    return [
        _finding(
            codes.K401, tool, action,
            f"the API answered HTTP {answer.status}{asked} saying {_quoted(said[0])}, and the tool error carries "
            f"none of its text: {_quoted(_first_line(call.text))}",
            action.source,
            "the server reads the usual error shapes (message, error, detail, errors[]); "
            f"this API's body is {_quoted(answer.body)}",
        )
    ]  # fmt: skip


def _strings(body: Any, depth: int = 0) -> list[str]:
    """The texts of an error body, those with words first (the message before a code)."""
    if isinstance(body, str):
        leaves = [body.strip()[:500]] if body.strip() else []
    elif isinstance(body, dict) and depth < 6:
        leaves = [s for v in body.values() for s in _strings(v, depth + 1)]
    elif isinstance(body, list) and depth < 6:
        leaves = [s for v in body[:20] for s in _strings(v, depth + 1)]
    else:
        leaves = []
    return leaves if depth else sorted(leaves, key=lambda s: (" " not in s, -len(s)))


def _carries(text: str, said: str) -> bool:
    """Whether the tool's text repeats `said` (its first words, as a whole word or words)."""
    snippet = re.escape(_normal(said)[:_SNIPPET])
    return re.search(rf"(?<!\w){snippet}", _normal(text)) is not None


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# ---- notes and writes -----------------------------------------------------------------------------


def _notes(tool: ToolSpec, action: ActionSpec, calls: list[Call]) -> Iterator[Finding]:
    said: set[str] = set()
    for call in calls:
        note = (call.structured or {}).get("note")
        if isinstance(note, str) and note not in said:
            said.add(note)
            yield _finding(
                codes.K601, tool, action,
                f"the server says, in the {call.step} result for {_args(call)}: {_quoted(note, 500)}",
                action.source,
            )  # fmt: skip


def _refusals(tool: ToolSpec, action: ActionSpec, calls: list[Call]) -> Iterator[Finding]:
    for call in calls:
        if call.step != "refuse":
            continue
        if call.exchanges:
            sent = ", ".join(f"{e.method} {e.path}" for e in call.exchanges)
            yield _finding(
                codes.K702, tool, action,
                f"{call.served} with {_args(call)} must be refused before anything is sent, and {sent} went upstream",
                action.source,
            )  # fmt: skip
        elif not call.is_error and call.failure is None:
            yield _finding(
                codes.K702, tool, action,
                f"{call.served} with {_args(call)} must be refused, and returned a success: {_first_line(call.text)}",
                action.source,
            )  # fmt: skip


# ---- helpers --------------------------------------------------------------------------------------


def _finding(
    code: str,
    tool: ToolSpec,
    action: ActionSpec | None,
    message: str,
    source: SourceRef,
    hint: str | None = None,
) -> Finding:
    level: Literal["error", "note"] = "note" if code == codes.K900 else "error"
    return Finding(
        code, CHECKS[code], level, tool.name, action.name if action else None, message, source, hint
    )


def _place(document: Document, pointer: str, fallback: SourceRef) -> SourceRef:
    """The mapping's place at `pointer`, or at the nearest part of it the file has, else `fallback`."""
    tokens = split_pointer(pointer)
    node: Any = document.data
    kept: list[str] = []
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
        kept.append(token)
    if not kept:
        return fallback
    return document.locate(join_pointer("", *kept))


def _has(record: Any, path: str) -> bool:
    if isinstance(record, dict) and path in record:
        return True
    head, dot, rest = path.partition(".")
    return bool(dot) and isinstance(record, dict) and _has(record.get(head), rest)


def _lookup_has(data: Any, path: str) -> bool:
    return _has(data, path)


def _lookup(data: Any, path: str) -> Any:
    if isinstance(data, dict) and path in data:
        return data[path]
    node = data
    for key in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _keys(records: list[dict[str, Any]]) -> str:
    keys: list[str] = []
    for record in records:
        keys += [k for k in record if k not in keys]
    shown = ", ".join(keys[:12]) + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
    return shown or "no fields"


def _args(call: Call) -> str:
    return _quoted(call.arguments, 160)


def _quoted(value: Any, limit: int = 200) -> str:
    import json

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = json.dumps(text, ensure_ascii=False) if isinstance(value, str) else text
    return text if len(text) <= limit else text[:limit] + "..."


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "(no text)"
    return line.removeprefix("Error: ")[:300]
