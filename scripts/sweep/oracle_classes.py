"""The judge of values: what a result says, compared with what the API answered (oracle_judge.py compares
shapes). It reads the calls of the variant steps (oracle_variants.py: answers in the shapes real APIs use)
and the derived mapping's own record of its units (oracle_derive.py), never mcpgen's.

    g  a result unit applied where the action declares none, to a value that is no number, or by another factor
    h  an exact value refused or misconverted (0.1 + 0.2 dollars is 30 cents)
    i  a concise result emptier than the record (`{}`, items of `{}`, the id dropped)
    j  a JSON answer under another media type (`*/*`, `+json`) not read as its schema
    k  a partial list that looks whole (has_more false while a token, a Link or a total says more; totals
       dropped; has_more true on the last page; items from the wrong array; a next page never asked for)
    l  the API's own error text dropped from the tool error (error_message, invalid-params, problems[],
       errors by field), or an error answer read as success
    m  a failure inside a 200 answer (success: false, ok: false, a nonzero error_code) read as success
    n  a credential-looking request body field offered to the agent as an argument
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, unquote

from scripts.sweep.oracle_derive import record_schema
from scripts.sweep.oracle_spec import SpecDoc, json_rank
from scripts.sweep.oracle_variants import ERROR_KINDS, FAILURE_KINDS, MARK, PAGING_KINDS, records_of

CLASS_CATEGORIES = {
    "g": "result units leaking or misapplied",
    "h": "exact values refused or misconverted",
    "i": "concise results emptier than the record",
    "j": "JSON answers under other media types not read",
    "k": "partial lists that look whole",
    "l": "the API's error text dropped (vendor formats, default-only errors)",
    "m": "failures inside a 200 answer read as success",
    "n": "credential body fields offered to the agent",
}
VARIANT_STEPS = ("concise", "paged", "paged-next", "vendor-error", "fail200", "exact")
EXACT_VALUE = 0.1 + 0.2  # dollars: 30 cents, whatever the float says
META = {"has_more", "next_page", "next_cursor", "total_count", "truncated", "note", "rest", "next_call"}
ID_KEYS = ("id", "uuid")
# (n) The caller's own credential to this API, by name: whatever prefix it has (`ev-api-key`).
_SECRET_NAME = re.compile(r"(apikey|apisecret|accesstoken|refreshtoken|authtoken|apitoken|bearertoken|sessiontoken|"
                          r"clientsecret|secretkey|oauthtoken)$")  # fmt: skip
# A bare name is the caller's only when its description says it is "your" credential; qualified
# (`certificatePrivateKey`, `webhookSecret`) it is the secret of what the request creates: its data.
_SECRET_BARE = frozenset(
    ("secret", "password", "passwd", "key", "token", "privatekey", "auth", "credentials")
)
_SECRET_YOURS = re.compile(r"\byour\b[^.]{0,40}?\b(api[ _-]?(key|secret|token)|client[ _-]?secret|access[ _-]?token|"
                           r"refresh[ _-]?token|secret[ _-]?key|private[ _-]?key|password|secret|credentials?)\b",
                           re.I)  # fmt: skip


def class_findings(call: Any) -> list[Any]:
    """Every value finding on one call (g, h, i, k, l, m)."""
    if call.raised is not None:
        return []
    out = []
    last = call.exchanges[-1] if call.exchanges else None
    note = last.variant if last is not None else None
    if call.step == "exact":
        return _exact(call)
    if call.step == "vendor-error" and note and note["kind"] in ERROR_KINDS:
        return _said(call, note, "l", "vendor-error")
    if call.step == "fail200" and note and note["kind"] in FAILURE_KINDS:
        return _said(call, note, "m", "failure")
    ok = last is not None and 200 <= last.status < 300 and not call.is_error and isinstance(call.data, dict)
    if not ok:
        return out
    assert last is not None
    out += _units(call, last.response)
    if call.action.shape is not None and "response_format" not in call.args:
        out += _concise(call, last.response)
    if call.step in ("paged", "paged-next") and note and note["kind"] in PAGING_KINDS:
        out += _paging(call, note)
    return out


# ---- g: units ---------------------------------------------------------------------------------------


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _meta_free(record: Any) -> Any:
    return {k: v for k, v in record.items() if k not in META} if isinstance(record, dict) else record


def _unwrap(record: Any) -> Any:
    """A one-record envelope's record ({"data": {...}}, other fields empty), as the judge compares it."""
    record = _meta_free(record)
    if not isinstance(record, dict):
        return record
    full = [k for k, v in record.items() if v not in (None, "", [], {})]
    if len(full) == 1 and isinstance(record[full[0]], dict):
        return record[full[0]]
    return record


def record_pairs(body: Any, data: Any) -> tuple[str, list[tuple[dict[str, Any], Any]]]:
    """('list'|'record', [(the API's record, the result's)]): lists paired by position."""
    if not isinstance(data, dict):
        return "none", []
    records, _ = records_of(body)
    items = data.get("items")
    if isinstance(items, list) and records is not None:
        return "list", [(r, i) for r, i in zip(records, items, strict=False) if isinstance(r, dict)]
    if isinstance(body, dict) and "items" not in data:
        raw = _unwrap(body)
        return "record", [(raw, _unwrap(data))] if isinstance(raw, dict) else []
    return "none", []


def _declared(call: Any, field: str) -> bool:
    derived = call.derived
    return any(u.field == field and u.action == call.action.name and call.tool.endswith(u.tool)
               for u in derived.units)  # fmt: skip


def _units(call: Any, body: Any) -> list[Any]:
    derived = call.derived
    if derived is None or not derived.units:
        return []
    out = []
    seen = set()
    for raw, shown in record_pairs(body, call.data)[1]:
        if not isinstance(shown, dict):
            continue
        for unit in derived.units:
            if unit.field not in raw or unit.field in seen:
                continue
            suffix = f"_{unit.agent.lower()}"
            renamed = [k for k in shown if k not in raw and k.lower().endswith(suffix)
                       and _norm(k[: -len(suffix)]) == _norm(unit.field)]  # fmt: skip
            if not renamed:
                continue
            key, value, before = renamed[0], shown[renamed[0]], raw[unit.field]
            if before is None and value is None:
                continue  # a null has no unit: shown under the unit's name, as the outputSchema promises
            seen.add(unit.field)
            where = f"{unit.field}={json.dumps(before)[:40]} shown as {key}={json.dumps(value)[:40]}"
            if not _declared(call, unit.field) and not _same_slot(call, unit):
                out.append(call.finding("g", "unit-leak", f"{where}; the unit is declared on {unit.tool}.{unit.action}",
                                        "a unit declared on another action's parameter converts this result"))  # fmt: skip
            elif not _number(before):
                out.append(call.finding("g", "unit-on-non-number", where,
                                        "a result unit is applied to a value that is not a number"))  # fmt: skip
            elif unit.factor and (
                not _number(value) or abs(value - before / unit.factor) > 1e-9 * max(1, abs(before))
            ):
                out.append(call.finding("g", "unit-wrong-value", f"{where}; expected {before / unit.factor:g}",
                                        "the converted value is not the API's value over the unit's factor"))  # fmt: skip
    return out


# The design's scope of a result unit: the fields written at the converted parameter's schema slot (the
# same property, by JSON pointer, after a `$ref` to a property; allOf parts merged, the last one winning),
# wherever an answer holds that schema. The judge reads the slots from the spec itself.


def _same_slot(call: Any, unit: Any) -> bool:
    """The result field `unit.field` of this call's answer is written at the parameter's own slot."""
    declaring = _operation(call.doc, str(getattr(unit, "operation", "")))
    slot = _param_slot(call.doc, declaring, unit.field) if declaring is not None else None
    return slot is not None and slot in _answer_slots(call.doc, call.op, unit.field)


def _operation(doc: Any, named: str) -> Any:
    """The operation a mapping names: 'METHOD /path' or its operationId."""
    method, _, path = named.partition(" ")
    if path.startswith("/"):
        return doc.operation(method, path)
    for path, item in (doc.raw.get("paths") or {}).items():
        for method, op in item.items() if isinstance(item, dict) and named else ():
            if isinstance(op, dict) and op.get("operationId") == named:
                return doc.operation(method, path)
    return None


def _param_slot(doc: Any, op: Any, name: str) -> str | None:
    """The slot of a query parameter's schema, or of a top-level field of the JSON request body."""
    raw_item = (doc.raw.get("paths") or {}).get(op.path) or {}
    for where, raws in ((op.path_pointer("parameters"), raw_item.get("parameters")),
                        (op.pointer("parameters"), op.raw.get("parameters"))):  # fmt: skip
        for index, raw in enumerate(raws if isinstance(raws, list) else []):
            pointer, param = _deref(doc, f"{where}/{index}", raw)
            if isinstance(param, dict) and param.get("in") == "query" and param.get("name") == name:
                return _identity(doc, f"{pointer}/schema", param.get("schema"))
    pointer, body = _deref(doc, op.pointer("requestBody"), op.raw.get("requestBody"))
    schema = _json_schema(doc, pointer, body)
    found = _slots(doc, *schema).get(name) if schema is not None else None
    return _identity(doc, *found) if found is not None else None


def _answer_slots(doc: Any, op: Any, name: str) -> set[str]:
    """The slots of every field called `name` in the success answer (records in lists and envelopes)."""
    for code, _ in sorted(op.responses().items()):
        if code.startswith("2"):
            pointer, entry = _deref(
                doc, op.pointer("responses", code), (op.raw.get("responses") or {}).get(code)
            )
            schema = _json_schema(doc, pointer, entry)
            return _named_slots(doc, schema, name, 0) if schema is not None else set()
    return set()


def _named_slots(doc: Any, schema: tuple[str, Any], name: str, depth: int) -> set[str]:
    pointer, node = _deref(doc, *schema)
    if depth > 4 or not isinstance(node, dict):
        return set()
    if isinstance(node.get("items"), dict):
        return _named_slots(doc, (f"{pointer}/items", node["items"]), name, depth + 1)
    found = set()
    for key, slot in _slots(doc, pointer, node).items():
        if key == name:
            found.add(_identity(doc, *slot))
        found |= _named_slots(doc, slot, name, depth + 1)
    return found


def _json_schema(doc: Any, pointer: str, entry: Any) -> tuple[str, Any] | None:
    """(slot, schema) of a request body's or response's JSON content: application/json first."""
    content = entry.get("content") if isinstance(entry, dict) else None
    if not isinstance(content, dict):
        return None
    ranked = sorted((json_rank(str(m)), i, str(m)) for i, m in enumerate(content) if json_rank(str(m)) < 3)
    if not ranked:
        return None
    media = ranked[0][2]
    at, value = _deref(doc, f"{pointer}/content/{_escape(media)}", content[media])
    return (f"{at}/schema", value.get("schema")) if isinstance(value, dict) and "schema" in value else None


def _slots(doc: Any, pointer: str, node: Any, depth: int = 0) -> dict[str, tuple[str, Any]]:
    pointer, node = _deref(doc, pointer, node)
    if depth > 8 or not isinstance(node, dict):
        return {}
    found: dict[str, tuple[str, Any]] = {}
    for index, part in enumerate(node.get("allOf") if isinstance(node.get("allOf"), list) else []):
        found.update(_slots(doc, f"{pointer}/allOf/{index}", part, depth + 1))
    properties = node.get("properties")
    for key, prop in properties.items() if isinstance(properties, dict) else ():
        found[key] = (f"{pointer}/properties/{_escape(key)}", prop)
    return found


def _identity(doc: Any, pointer: str, node: Any) -> str:
    """A slot's own pointer, or that of the property its `$ref` names (a `$ref` to a whole schema leaves
    the slot its own)."""
    for _ in range(8):
        ref = node.get("$ref") if isinstance(node, dict) else None
        target = unquote(ref[1:]) if isinstance(ref, str) and ref.startswith("#/") else ""
        if target.split("/")[-2:-1] != ["properties"]:
            break
        pointer, node = target, _at(doc, target)
    return pointer


def _deref(doc: Any, pointer: str, node: Any) -> tuple[str, Any]:
    for _ in range(32):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/")):
            break
        pointer, node = unquote(ref[1:]), _at(doc, unquote(ref[1:]))
    return pointer, node


def _at(doc: Any, pointer: str) -> Any:
    node = doc.raw
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ---- h: exact values --------------------------------------------------------------------------------


def _exact(call: Any) -> list[Any]:
    wire, at = call.extra["wire"], call.extra["at"]
    first = call.text.splitlines()[0] if call.text else ""
    if not call.exchanges:
        # A refusal of the value names its argument; any other (no user to call the API for, a missing
        # setting) stopped the call before its value was weighed: no verdict on exactness.
        if call.is_error and call.extra["arg"] in call.text:
            return [call.finding("h", "exact-value-refused", f"{call.extra['arg']}={EXACT_VALUE!r}: {first[:160]}",
                                 "a value of whole cents was refused as finer than the upstream unit")]  # fmt: skip
        return []
    sent = _sent(call.exchanges[0], wire, at)
    expected = EXACT_VALUE * call.extra["factor"]
    if (
        sent is None or not _number(sent) or sent != round(expected)
    ):  # exactly: 30.000000000000004 is no cent count
        return [call.finding("h", "exact-value-misconverted", f"{call.extra['arg']}={EXACT_VALUE!r} sent as "
                             f"{wire}={json.dumps(sent)}; expected {round(expected)}",
                             "the agent's value did not reach the API as the whole upstream amount")]  # fmt: skip
    return []


def _sent(exchange: Any, wire: str, at: str) -> Any:
    if at == "query":
        value = dict(exchange.query).get(wire)
    elif isinstance(exchange.body, dict):
        value = exchange.body.get(wire)
    elif isinstance(exchange.body, str):
        value = dict(parse_qsl(exchange.body)).get(wire)
    else:
        value = None
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


# ---- i: concise -------------------------------------------------------------------------------------


def _wrapped(call: Any) -> str:
    note = call.exchanges[-1].variant if call.exchanges else None
    return f" (wrapped in '{note['key']}')" if note and note.get("kind") == "wrap" else ""


def _filled(record: Any) -> bool:
    return isinstance(record, dict) and any(v not in (None, "", [], {}) for v in record.values())


def _has_id(raw: dict[str, Any], shown: Any) -> bool:
    ids = [
        k for k in raw if k.lower() in ID_KEYS and isinstance(raw[k], (str, int)) and raw[k] not in ("", None)
    ]
    if not ids:
        return True
    return isinstance(shown, dict) and any(k in shown or raw[k] in shown.values() for k in ids)


def _id_left_out(call: Any) -> bool:
    """The mapping names this action's concise fields, and no id among them: the record shows what the
    mapping asked for (the default's id is what is judged)."""
    concise = getattr(call.derived, "concise", None) or {}
    for key, fields in concise.items():
        tool, _, name = key.rpartition(".")
        if name == call.action.name and call.tool.endswith(tool):
            return not any(str(f).lower() in ID_KEYS for f in fields)
    return False


def _concise(call: Any, body: Any) -> list[Any]:
    kind, pairs = record_pairs(body, call.data)
    if not pairs or any("truncat" in str(k).lower() for k in call.data):
        return []
    out = []
    if kind == "record" and _filled(pairs[0][0]) and not _meta_free(pairs[0][1]):
        wrapped = _wrapped(call)
        out.append(call.finding("i", "concise-empty", f"the API's record{wrapped} has {len(pairs[0][0])} fields; the "
                                f"concise result is {json.dumps(_meta_free(call.data))[:80]}",
                                "the concise record is empty (its fields not found where the result looks)"))  # fmt: skip
        return out
    empty = sum(1 for raw, shown in pairs if _filled(raw) and not _meta_free(shown))
    if kind == "list" and empty:
        out.append(call.finding("i", "concise-empty-items", f"{empty} of {len(pairs)} concise items are {{}}",
                                "the concise fields are missing from the records, and nothing is shown instead"))  # fmt: skip
    dropped = [raw for raw, shown in pairs if not _has_id(raw, _meta_free(shown))]
    if dropped and not empty and not _id_left_out(call):
        idk = next(k for k in dropped[0] if k.lower() in ID_KEYS)
        out.append(call.finding("i", "concise-dropped-id", f"the API's record has {idk}={json.dumps(dropped[0][idk])[:40]};"
                                f" the concise result has no {idk}", "the concise default drops the record's id"))  # fmt: skip
    return out


# ---- k: paging --------------------------------------------------------------------------------------


def _paging(call: Any, note: dict[str, Any]) -> list[Any]:
    data = call.data
    said = {"token": "next_page_token is non-empty", "link": 'a Link rel="next" header',
            "x-total": f"X-Total {note.get('total')}", "body-total": f"a total of {note.get('total')} in the body",
            "last-page": "next_page null and the total shown"}.get(note["kind"], note["kind"])  # fmt: skip
    where = f"page {note.get('page')}, {note.get('shown')} records; {said}"
    out = []
    if call.step == "paged-next" and note["kind"] not in ("token", "link"):
        return out  # only a token or a link names the page asked for: other variants are judged on the first
    if call.step == "paged-next" and note.get("page") == 1:
        last = call.exchanges[-1]
        if call.extra.get("previous") != [sorted(last.query), last.body]:
            return (
                out  # the server asks for its next page its own way (an offset): not a page this layer knows
            )
        out.append(call.finding("k", "next-page-lost", f"{where}: the next call asked for the same page again",
                                "the next page's token or link did not reach the request"))  # fmt: skip
    # has_more null with a `rest` saying what is unknown is the result's announcement that more exists
    # that this action cannot reach (no page or cursor parameter in the spec): not whole, so not missed.
    # A page cut to the server's budget says so in its `truncated` note, with its own `rest`.
    cut = data.get("truncated") if isinstance(data.get("truncated"), dict) else {}
    announced = data.get("has_more") is None and bool(data.get("rest") or cut.get("rest"))
    if _contradicted(call, note):
        return out  # the answer's own total says otherwise than the layer's: no API answers so
    if note.get("more") is True and data.get("has_more") is not True and not announced and _more(call, note):
        out.append(call.finding("k", "has-more-missed", f"{where}; result has_more={data.get('has_more')!r}",
                                f"a partial list reads as whole: {note['kind']} paging is not read"))  # fmt: skip
    if note.get("more") is False and data.get("has_more") is True:
        out.append(call.finding("k", "has-more-on-last-page", f"{where}; result has_more=true",
                                "the last page says more follows"))  # fmt: skip
    if note.get("total") is not None and note.get("more") and "total_count" not in data:
        out.append(call.finding("k", "total-dropped", f"{where}; the result has no total_count",
                                f"the API's total ({note['kind']}) is dropped"))  # fmt: skip
    if note["kind"] == "extra-array" and _wrong_array(data, note):
        out.append(call.finding("k", "items-from-wrong-array", f"{note.get('shown')} records at "
                                f"'{note.get('field')}', {len(data.get('items') or [])} items beside an 'included' array",
                                "a list envelope with several arrays: the items are not the records"))  # fmt: skip
    return out


_COUNT_WORDS = ("count", "total", "results", "items", "records", "entries", "hits", "rows", "elements")


def _contradicted(call: Any, note: dict[str, Any]) -> bool:
    """The layer's total (a header, a field it added) beside a count of the records that the answer
    already had and the layer left as it was (unicourt's `totalCount: 1` beside `X-Total: 8`;
    `totalNormPartyCount` beside an added `total`): the answer contradicts itself, and whichever total
    the result follows, it is not the judge's to say which is true."""
    body = call.exchanges[-1].response if call.exchanges else None
    if note["kind"] not in ("x-total", "body-total", "last-page") or not isinstance(body, dict):
        return False
    fields = [*body.items(), *(kv for v in body.values() if isinstance(v, dict) for kv in v.items())]
    for key, value in fields:
        words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key).lower().replace("_", " ").split()
        counts = (
            "total" in words and "page" not in words and "pages" not in words and words[-1] in _COUNT_WORDS
        )
        if counts and _number(value) and value != note.get("total"):
            return True
    return False


def _more(call: Any, note: dict[str, Any]) -> bool:
    """Whether a total says more follows this page. The layer numbers only the pages its tokens and links
    name; a call that asked for a later page by number (api.video's spec example `page: 2`) has the
    records of the pages before it too: more only while those and this page's stay under the total."""
    if note["kind"] not in ("x-total", "body-total"):
        return True
    page, limit = call.args.get("page"), call.args.get("limit")
    if not isinstance(page, int) or page <= 1:
        return True
    return isinstance(limit, int) and (page - 1) * limit + int(note.get("shown") or 0) < int(note["total"])


def _wrong_array(data: dict[str, Any], note: dict[str, Any]) -> bool:
    """The items are not the answer's records: one of the added `included` array's, or another count
    than the page's records (fewer only where the result says it cut the page to its budget)."""
    items = data.get("items") if isinstance(data.get("items"), list) else []
    if any(isinstance(i, dict) and str(i.get("id", "")).startswith(f"{MARK}-included-") for i in items):
        return True
    cut = isinstance(data.get("truncated"), dict) and "items" in str(data["truncated"].get("shown", ""))
    return len(items) > note.get("shown", 0) or (len(items) < note.get("shown", 0) and not cut)


# ---- l, m: what the API said ------------------------------------------------------------------------


def _said(call: Any, note: dict[str, Any], category: str, what: str) -> list[Any]:
    first = call.text.splitlines()[0] if call.text else json.dumps(call.data)[:160]
    if not call.is_error:
        kind = "error-read-as-success" if category == "l" else "failure-read-as-success"
        return [call.finding(category, kind, f"{note['kind']}: the result is not an error: {first[:160]}",
                             f"a {what} answer ({note['kind']}) is returned as a success")]  # fmt: skip
    if " ".join(note["text"].split()) not in " ".join(call.text.split()):
        return [call.finding(category, f"{what}-text-dropped", f"{note['kind']} said {note['text']!r}; the tool "
                             f"error: {first[:160]}", f"the API's text in its {note['kind']} format is not read")]  # fmt: skip
    return []


# ---- j, n: read from the spec and the package -------------------------------------------------------


JSONISH = re.compile(
    r"^(\*/\*|application/\*|text/json|application/[^;]+\+json|application/json\s*;.*)$", re.I
)


def static_class_findings(
    doc: SpecDoc, tools: Any, contract: dict[str, dict[str, Any]], finding: Any
) -> list[Any]:
    out = []
    for tool in tools:
        schema = contract.get(tool.name) or contract.get(f"{tool.name}_preview") or {}
        out_text = json.dumps(schema.get("outputSchema") or {})
        properties = (schema.get("inputSchema") or {}).get("properties") or {}
        for action in tool.actions:
            op = doc.operation(action.method, action.path)
            if op is None:
                continue
            media = _jsonish_only(op)
            if media and action.shape is not None:
                _, record, own = record_schema(doc, action.method.lower(), action.path)
                names = [n for n in (record or own) if len(n) > 2][:6]
                if names and not _schema_read(action.shape, [*record, *own], out_text):
                    out.append(finding("j", "media-not-read", tool.name, action.name, op.key, op.pointer("responses"),
                                       f"the answer is {media} with fields {names[:4]}; the tool's outputSchema "
                                       "has none of them", f"a JSON schema under {media} is not read"))  # fmt: skip
            out += _secrets(doc, op, tool, action, properties, finding)
    return out


def _schema_read(shape: Any, fields: list[str], out_text: str) -> bool:
    """The package shows it read the answer's schema: it places the records (a list's path, the record
    inside an envelope), which only the schema says, or its outputSchema names a field of the answer.
    One outputSchema serves every action of a tool, and names the default format's fields only, with
    records' fields under `items`, left open (`{}`) when two lists of the tool disagree: it alone is no
    evidence that a list's schema went unread."""
    if getattr(shape, "items", None) is not None or getattr(shape, "record", None) is not None:
        return True
    return any(f'"{n}"' in out_text for n in fields if len(n) > 2)


def _jsonish_only(op: Any) -> str | None:
    for code, entry in sorted(op.responses().items()):
        if not code.startswith("2"):
            continue
        content = entry.get("content") or {}
        keys = [str(m).strip() for m in content]
        if "application/json" in keys:
            return None
        shaped = [m for m in keys if JSONISH.match(m) and isinstance((content[m] or {}).get("schema"), dict)]
        return shaped[0] if shaped else None
    return None


def _secrets(
    doc: SpecDoc, op: Any, tool: Any, action: Any, properties: dict[str, Any], finding: Any
) -> list[Any]:
    _, body = op.body_schema(action.body)
    body = doc.resolve(body)
    fields = (
        body.get("properties") if isinstance(body, dict) and isinstance(body.get("properties"), dict) else {}
    )
    out = []
    for p in action.params:
        if p.at != "body" or p.arg not in properties:
            continue
        why = _caller_credential(p.wire, doc.resolve(fields.get(p.wire)))
        if why is not None:
            out.append(finding("n", "credential-argument", tool.name, action.name, op.key, op.pointer("requestBody"),
                               f"body field {p.wire} ({why}) is the agent argument {p.arg}",
                               "a credential in the request body is asked of the model instead of set by the user"))  # fmt: skip
    return out


def _caller_credential(wire: str, schema: Any) -> str | None:
    """Why a body field is the caller's own credential to this API, or None: a text (no flag, number, object,
    choice of an enum or file: API Gateway's `apiKeyRequired`, `apiKeySource`, Drive's `appProperties`) named
    as one (`client_secret`, `api_key`), or a bare `secret`/`password`/`key`/`token` the description says is
    "your" credential. The secret of what the request creates or uploads (a webhook's `secret`, a domain's
    `certificatePrivateKey`, an imported key file) is the request's data, the agent's to pass."""
    schema = schema if isinstance(schema, dict) else {}
    if schema.get("readOnly") or schema.get("enum") or schema.get("type") not in (None, "string"):
        return None
    if schema.get("format") in ("binary", "byte"):
        return None
    name = _norm(wire)
    yours = _SECRET_YOURS.search(str(schema.get("description") or ""))
    if _SECRET_NAME.search(name):
        return f"named {wire!r}"
    if yours is not None and name in _SECRET_BARE:
        return f"described as {yours.group(0)!r}"
    return None
