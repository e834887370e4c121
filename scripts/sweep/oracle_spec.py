"""The oracle's own reading of an OpenAPI document: operations, parameters, bodies, responses, and
values that the spec says are valid. Deliberately independent of mcpgen's loader, so the instrument
does not share the interpretation of the code it measures.
"""

from __future__ import annotations

import base64
import copy
import functools
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import jsonschema

MAX_DEPTH = 6  # recursive schemas are cut here, both for values and for validation
JSON_TYPES = ("application/json", "text/json")
FORM_TYPES = ("application/x-www-form-urlencoded",)
# Words of body fields that carry a list's paging or envelope rather than its records.
PAGING_TOKENS = frozenset(
    "next prev previous cursor page pages total count offset limit marker token more size start skip top order "
    "sort link links meta metadata paging pagination position continuation truncated kind etag self first last "
    "end took num has odata nextlink href object url status success message code errors warnings request "
    "requestid timestamp time version chunk stream results_count".split()
)
LIST_WORDS = ("items", "data", "results", "values", "value", "records", "entries", "list", "elements",
              "content", "hits", "rows", "objects", "resources", "collection")  # fmt: skip


class SpecDoc:
    """A parsed OpenAPI 3.x document with local `$ref`s resolved on demand."""

    def __init__(self, raw: dict[str, Any]):
        self.raw = raw

    def resolve(self, node: Any) -> Any:
        for _ in range(32):  # bounded: a $ref chain that loops stays a $ref
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                return node
            target = self._pointer(node["$ref"])
            if target is None:
                return {}
            node = target
        return node

    def _pointer(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            return None
        node: Any = self.raw
        for part in ref[2:].split("/"):
            part = unquote(part).replace("~1", "/").replace("~0", "~")  # a URI fragment: %7B is '{'

            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node

    def operation(self, method: str, path: str) -> Operation | None:
        item = self.resolve((self.raw.get("paths") or {}).get(path))
        if not isinstance(item, dict):
            return None
        op = self.resolve(item.get(method.lower()))
        if not isinstance(op, dict):
            return None
        params: dict[tuple[str, str], dict[str, Any]] = {}
        for raw in [*(item.get("parameters") or []), *(op.get("parameters") or [])]:
            p = self.resolve(raw)
            if isinstance(p, dict) and "name" in p and "in" in p:
                params[(str(p["in"]), str(p["name"]))] = p
        servers = op.get("servers") or item.get("servers") or []
        return Operation(method.upper(), path, op, params, servers, self)


@dataclass
class Operation:
    method: str
    path: str
    raw: dict[str, Any]
    params: dict[tuple[str, str], dict[str, Any]]
    servers: list[Any]
    doc: SpecDoc = field(repr=False)

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    def pointer(self, *parts: str) -> str:
        escaped = [p.replace("~", "~0").replace("/", "~1") for p in (self.path, self.method.lower(), *parts)]
        return "/paths/" + "/".join(escaped)

    def path_pointer(self, *parts: str) -> str:
        escaped = [p.replace("~", "~0").replace("/", "~1") for p in (self.path, *parts)]
        return "/paths/" + "/".join(escaped)

    def param(self, at: str, wire: str) -> dict[str, Any] | None:
        found = self.params.get((at, wire))
        if found is None and at == "header":  # header names are case-insensitive
            found = next(
                (p for (i, n), p in self.params.items() if i == at and n.lower() == wire.lower()), None
            )
        return found

    def body_schema(self, encoding: str | None) -> tuple[str | None, Any]:
        """The request body's media type and resolved schema (the one the server sends)."""
        body = self.doc.resolve(self.raw.get("requestBody"))
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, dict):
            return None, None
        wanted = FORM_TYPES if encoding == "form" else JSON_TYPES
        for media, entry in content.items():
            base = media.split(";")[0].strip().lower()
            if base in wanted or (encoding != "form" and base.endswith("+json")):
                entry = self.doc.resolve(entry)
                return media, self.doc.resolve(entry.get("schema")) if isinstance(entry, dict) else None
        return None, None

    def body_example(self, encoding: str | None) -> Any:
        media, _ = self.body_schema(encoding)
        body = self.doc.resolve(self.raw.get("requestBody"))
        entry = self.doc.resolve(((body or {}).get("content") or {}).get(media)) if media else None
        return media_example(self.doc, entry) if isinstance(entry, dict) else None

    def responses(self) -> dict[str, dict[str, Any]]:
        out = {}
        for code, raw in (self.raw.get("responses") or {}).items():
            resolved = self.doc.resolve(raw)
            if isinstance(resolved, dict):
                out[str(code)] = resolved
        return out

    def response_schema(self, status: int) -> Any:
        """The JSON schema of the response for `status` (its code, its class, or default); None if none."""
        responses = self.responses()
        entry = (
            responses.get(str(status))
            or responses.get(f"{str(status)[0]}XX")
            or responses.get(f"{str(status)[0]}xx")
        )
        if entry is None and status >= 400:
            entry = responses.get("default")
        content = (entry or {}).get("content") or {}
        # application/json first, as a client asking for JSON is answered (va.gov's Facility, not its
        # GeoJSON Feature listed before it); then JSON of another name; then */*.
        ranked = sorted((json_rank(str(media)), index, media) for index, media in enumerate(content))
        for rank, _, media in ranked:
            if rank < 3:
                value = self.doc.resolve(content[media])
                return self.doc.resolve(value.get("schema")) if isinstance(value, dict) else None
        return None

    def default_error(self) -> bool:
        """The operation documents its errors only as `default`, with a JSON body (Prism answers it for any code)."""
        entry = self.responses().get("default") or {}
        content = entry.get("content") or {}
        return any(m.split(";")[0].strip().lower() in JSON_TYPES or m.endswith("+json") for m in content)

    def error_statuses(self) -> list[int]:
        """Documented 4xx answers that carry a JSON body, lowest first."""
        found = []
        for code, entry in self.responses().items():
            if code.isdigit() and 400 <= int(code) < 500 and int(code) not in (401, 407):
                content = entry.get("content") or {}
                if any(m.split(";")[0].strip().lower() in JSON_TYPES or m.endswith("+json") for m in content):
                    found.append(int(code))
        return sorted(found)


def json_rank(media: str) -> int:
    """How surely an answer of this media type is JSON: 0 application/json (parameters after `;` aside),
    1 JSON of another name (`text/json`, vendor `+json`), 2 a wildcard (`*/*`, `application/*`), 3 not."""
    base = media.split(";")[0].strip().lower()
    if base == "application/json":
        return 0
    if base in JSON_TYPES or base.endswith("+json"):
        return 1
    return 2 if base in ("*/*", "application/*") else 3


def media_example(doc: SpecDoc, entry: dict[str, Any]) -> Any:
    if "example" in entry:
        return entry["example"]
    examples = entry.get("examples")
    if isinstance(examples, dict):
        for value in examples.values():
            value = doc.resolve(value)
            if isinstance(value, dict) and "value" in value:
                return value["value"]
    return None


# ---- values the spec allows ---------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """A value for one argument, and where it came from (example, default, enum, generated)."""

    value: Any
    source: str


_FORMAT_VALUES = {
    "date-time": "2026-01-02T03:04:05Z",
    "date": "2026-01-02",
    "time": "03:04:05",
    "email": "user@example.com",
    "uri": "https://example.com/oracle",
    "url": "https://example.com/oracle",
    "uri-reference": "https://example.com/oracle",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "byte": base64.b64encode(b"oracle").decode(),
    "password": "oracle-secret",
    "int32": "1",
    "int64": "1",
}
_DATE_TIMES = tuple(
    f"2026-01-02T03:04:05{fraction}{zone}"
    for fraction in ("", ".0", ".00", ".000", ".000000", ".000000000")
    for zone in ("Z", "+00:00")
)
_PATTERN_TRIES = ("oracle", "abc", "1", "a1", "ABC", "a", "A1", "abc-123", "123456", "2026-01-02",
                  "2026-01-02T03:04:05Z", "3fa85f64-5717-4562-b3fc-2c963f66afa6", "user@example.com",
                  "https://example.com/oracle", "US", "en", "en-US", "USD", "0", "12", "ab", "AB12",
                  "abcdef0123456789", "a" * 24, "0" * 24, "+15555550100")  # fmt: skip


def param_value(doc: SpecDoc, param: dict[str, Any]) -> Value | None:
    """A value the spec documents for a parameter, else one its schema allows."""
    if "example" in param and param["example"] is not None:
        return Value(param["example"], "example")
    examples = param.get("examples")
    if isinstance(examples, dict):
        for ex in examples.values():
            ex = doc.resolve(ex)
            if isinstance(ex, dict) and ex.get("value") is not None:
                return Value(ex["value"], "example")
    schema = doc.resolve(param.get("schema"))
    if schema is None:
        content = param.get("content") or {}
        entry = doc.resolve(next(iter(content.values()), None))
        schema = doc.resolve(entry.get("schema")) if isinstance(entry, dict) else None
    return schema_value(doc, schema, full=False) if isinstance(schema, dict) else None


def schema_value(doc: SpecDoc, schema: Any, *, full: bool, depth: int = 0) -> Value | None:
    """An example, default, enum value or generated value for `schema`; None when it allows nothing we know."""
    schema = doc.resolve(schema)
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    for key, source in (("example", "example"), ("default", "default")):
        if schema.get(key) is not None:
            return Value(schema[key], source)
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return Value(schema["examples"][0], "example")
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        first = next((v for v in schema["enum"] if v is not None), schema["enum"][0])
        return Value(first, "enum")
    if "const" in schema:
        return Value(schema["const"], "enum")
    for combiner in ("oneOf", "anyOf"):
        variants = schema.get(combiner)
        if isinstance(variants, list) and variants:
            # The first variant that yields a value: as a caller picking one variant would.
            for variant in variants:
                merged = _merge(doc, {k: v for k, v in schema.items() if k != combiner}, variant)
                got = schema_value(doc, merged, full=full, depth=depth + 1)
                if got is not None:
                    return got
            return None
    if isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            merged = _merge(doc, merged, part)
        return schema_value(doc, merged, full=full, depth=depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else None
    if kind == "string":
        return _string_value(schema)
    if kind in ("integer", "number"):
        return Value(_number_value(schema, kind == "integer"), "generated")
    if kind == "boolean":
        return Value(True, "generated")
    if kind == "array":
        item = schema_value(doc, schema.get("items") or {}, full=full, depth=depth + 1)
        if item is None:
            return Value([], "generated") if not schema.get("minItems") else None
        count = max(1, int(schema.get("minItems") or 1))
        return Value([item.value] * count if not schema.get("uniqueItems") or count == 1 else [item.value],
                     "generated")  # fmt: skip
    if kind == "object" or kind is None:
        return _object_value(doc, schema, full=full, depth=depth)
    return None


def _object_value(doc: SpecDoc, schema: dict[str, Any], *, full: bool, depth: int) -> Value | None:
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    out: dict[str, Any] = {}
    for name, prop in props.items():
        prop_r = doc.resolve(prop)
        if isinstance(prop_r, dict) and prop_r.get("readOnly"):
            continue
        if name in required or (full and depth < 2):
            got = schema_value(doc, prop_r, full=full and depth < 1, depth=depth + 1)
            if got is not None:
                out[name] = got.value
            elif name in required:
                return None
    for name in required:
        if name not in out and name not in props:
            out[name] = "oracle"
    return Value(out, "generated")


def merge_schemas(doc: SpecDoc, base: dict[str, Any], part: Any) -> dict[str, Any]:
    """`part` (its allOf parts too) merged into `base`: properties and required joined."""
    return _merge(doc, base, part)


def _merge(doc: SpecDoc, base: dict[str, Any], part: Any) -> dict[str, Any]:
    part = doc.resolve(part)
    if not isinstance(part, dict):
        return base
    merged = dict(base)
    for key, value in part.items():
        if key == "properties" and isinstance(value, dict):
            merged["properties"] = {**(merged.get("properties") or {}), **value}
        elif key == "required" and isinstance(value, list):
            merged["required"] = [*(merged.get("required") or []), *value]
        elif key not in merged:
            merged[key] = value
    if isinstance(part.get("allOf"), list):
        for inner in part["allOf"]:
            merged = _merge(doc, merged, inner)
    return merged


def _string_value(schema: dict[str, Any]) -> Value | None:
    pattern = schema.get("pattern")
    low = int(schema.get("minLength") or 0)
    high = schema.get("maxLength")
    candidates = []
    fmt = schema.get("format")
    if fmt == "date-time":
        # Spellings of one instant, 20 to 32 characters: one fits a length the spec pins (unicourt.com.json
        # /paths/~1callbacks/get/parameters/0: minLength = maxLength = 25), where padding would break the format.
        fitting = [t for t in _DATE_TIMES if low <= len(t) and (not isinstance(high, int) or len(t) <= high)]
        candidates += fitting[:1]
    elif isinstance(fmt, str) and fmt in _FORMAT_VALUES:
        candidates.append(_FORMAT_VALUES[fmt])
    compiled = _python_pattern(pattern) if isinstance(pattern, str) else None
    if compiled is not None:
        # A value the whole of which the pattern matches, long enough without padding: what an agent
        # writes (`us-west-2`), and what mcpgen checks (a pattern is matched against the whole value,
        # issue 11). Padding the short one after it is the last resort (`aa-a-0` -> `aa-a-000`).
        grown = (_from_pattern(compiled.pattern, stretch) for stretch in range(_MAX_STRETCH))
        whole = [t for t in grown if t is not None and compiled.fullmatch(t)]
        candidates += [t for t in whole if len(t) >= low and (not isinstance(high, int) or len(t) <= high)][
            :1
        ]
        candidates += whole[:1]
    candidates += list(_PATTERN_TRIES)
    for text in candidates:
        if text is None:
            continue
        if len(text) < low:
            text = text + (text[-1:] or "x") * (low - len(text))
        if isinstance(high, int) and len(text) > high:
            text = text[:high]
        if compiled is not None and not compiled.search(text):
            continue
        return Value(text, "generated")
    return None


def _python_pattern(pattern: str) -> re.Pattern[str] | None:
    """The spec's (ECMA-262) pattern as a Python regex: Unicode property classes become \\w-like ones."""
    translated = re.sub(r"\\[pP]\{[^}]*\}", lambda m: "\\w" if m.group(0)[1] == "p" else "\\W", pattern)
    try:
        return re.compile(translated)
    except re.error:
        return None


_MAX_STRETCH = 12  # extra repeats tried per open quantifier when a pattern's shortest match is too short


def _from_pattern(pattern: str, stretch: int = 0) -> str | None:
    """A short string `pattern` matches, built from its parse tree (first branch, fewest repeats, plus
    `stretch` more of each repeat that allows them)."""
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]
    except ImportError:  # Python < 3.11
        import sre_parse  # type: ignore[no-redef]
    try:
        return _emit(sre_parse.parse(pattern), sre_parse, 0, stretch)
    except (re.error, ValueError, TypeError, RecursionError, IndexError):
        return None


def _emit(tree: Any, sp: Any, depth: int, stretch: int = 0) -> str:
    if depth > 20:
        return ""
    out = []
    consts = sp  # the opcode names live on the parser module
    for op, arg in tree:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(arg) != "a" else "b")
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_class_char(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            times = max(low, 1) if not stretch else min(high, max(low, 1) + stretch)
            out.append(_emit(sub, consts, depth + 1, stretch) * times)
        elif name == "SUBPATTERN":
            out.append(_emit(arg[-1], consts, depth + 1, stretch))
        elif name == "BRANCH":
            out.append(_emit(arg[1][0], consts, depth + 1, stretch))
        elif name == "CATEGORY":
            out.append(_category_char(str(arg)))
        elif name in ("AT", "ASSERT", "ASSERT_NOT", "GROUPREF"):
            continue
    return "".join(out)


def _class_char(items: Any) -> str:
    negate = any(str(op) == "NEGATE" for op, _ in items)
    for op, arg in items:
        name = str(op)
        if negate:
            return "a" if not any(str(o) == "LITERAL" and a == ord("a") for o, a in items) else "b"
        if name == "LITERAL":
            return chr(arg)
        if name == "RANGE":
            return chr(arg[0])
        if name == "CATEGORY":
            return _category_char(str(arg))
    return "a"


def _category_char(category: str) -> str:
    if "DIGIT" in category:
        return "1" if "NOT" not in category else "a"
    if "SPACE" in category:
        return " " if "NOT" not in category else "a"
    return "a" if "NOT" not in category else "-"


def _number_value(schema: dict[str, Any], integer: bool) -> int | float:
    low = schema.get("minimum")
    high = schema.get("maximum")
    value: float = 1
    if isinstance(low, (int, float)) and not isinstance(low, bool):
        value = low + (1 if schema.get("exclusiveMinimum") is True else 0)
    if isinstance(schema.get("exclusiveMinimum"), (int, float)) and not isinstance(
        schema.get("exclusiveMinimum"), bool
    ):
        value = schema["exclusiveMinimum"] + 1
    if isinstance(high, (int, float)) and not isinstance(high, bool) and value > high:
        value = high
    step = schema.get("multipleOf")
    if isinstance(step, (int, float)) and step > 0 and not isinstance(step, bool):
        value = step * max(1, round(value / step))
    return int(value) if integer or float(value).is_integer() else value


# ---- validation (is the oracle's own value one the spec allows?) ----------------------------------


def json_schema(doc: SpecDoc, schema: Any, depth: int = 0) -> Any:
    """An OpenAPI 3.0/3.1 schema as plain JSON Schema: refs inlined (cut at MAX_DEPTH), `nullable`
    and boolean exclusive bounds rewritten."""
    schema = doc.resolve(schema)
    if not isinstance(schema, dict):
        return {} if schema is None else schema
    if depth > MAX_DEPTH:
        return {}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {k: json_schema(doc, v, depth + 1) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = json_schema(doc, value, depth + 1)
        elif key in ("allOf", "oneOf", "anyOf") and isinstance(value, list):
            out[key] = [json_schema(doc, v, depth + 1) for v in value]
        elif key in ("example", "examples", "xml", "discriminator", "externalDocs", "deprecated",
                     "readOnly", "writeOnly", "nullable", "$ref"):  # fmt: skip
            continue
        else:
            out[key] = copy.deepcopy(value)
    if schema.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if out.get(exclusive) is True and bound in out:
            out[exclusive] = out.pop(bound)
        elif isinstance(out.get(exclusive), bool):
            out.pop(exclusive)
    if isinstance(out.get("required"), list) and not out["required"]:
        out.pop("required")
    if "properties" in out and "type" not in out and not any(k in out for k in ("allOf", "oneOf", "anyOf")):
        out["type"] = "object"
    return out


_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", re.ASCII)


@functools.cache
def format_checker() -> jsonschema.FormatChecker:
    """jsonschema's checker, and `date-time` (RFC 3339 section 5.6), which it skips without an extra package:
    the oracle's value for a date-time must be one (googleapis.com/books.json's `updatedMax` is
    "RFC 3339 timestamp" in prose only, and the tool's inputSchema says date-time)."""
    checker = jsonschema.FormatChecker()
    checker.checks("date-time")(lambda v: not isinstance(v, str) or _RFC3339.fullmatch(v) is not None)
    return checker


def allowed(doc: SpecDoc, schema: Any, value: Any) -> bool:
    """True when `value` validates against the spec's schema (as the oracle reads it)."""
    try:
        jsonschema.Draft202012Validator(json_schema(doc, schema), format_checker=format_checker()).validate(
            value
        )
    except jsonschema.ValidationError:
        return False
    except (jsonschema.SchemaError, RecursionError, TypeError, re.error):
        return True  # a schema the validator cannot read: assume the value is fine
    return True


def valid_for(schema: dict[str, Any], value: Any) -> bool:
    """True when `value` validates against a plain JSON Schema (a tool's inputSchema property)."""
    try:
        jsonschema.Draft202012Validator(schema, format_checker=format_checker()).validate(value)
    except jsonschema.ValidationError:
        return False
    except (jsonschema.SchemaError, RecursionError, TypeError, re.error):
        return True
    return True


# ---- what kind of answer the spec describes -----------------------------------------------------


def is_paging_field(name: str) -> bool:
    """'next_marker', 'totalCount', '@odata.nextLink', 'has_more': fields of a list's envelope."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    tokens = [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t]
    return bool(tokens) and any(t in PAGING_TOKENS for t in tokens)


def answer_kind(doc: SpecDoc, op: Operation, schema: Any) -> tuple[str, str | None]:
    """What the spec's response is: ('list', field) for a list of records (field '' for a top-level
    array), ('record', None) for one record, ('ambiguous', None) when a careful reader could take it
    either way (not judged), ('other', None) when the schema says neither."""
    schema = doc.resolve(schema)
    if not isinstance(schema, dict) or not schema:
        return "other", None
    schema = _flatten(doc, schema)
    kind = schema.get("type")
    if kind == "array" or (kind is None and "items" in schema):
        return "list", ""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    if not props:
        return ("record", None) if kind in ("object", None) else ("other", None)
    arrays = [n for n, p in props.items() if _is_array(doc, p)]
    if not arrays:
        return "record", None
    of_records = [n for n in arrays if _items_are_records(doc, props[n])]
    plain = [n for n in props if n not in arrays and not is_paging_field(n)]
    last = _last_segment(op.path).lower()
    if not plain and of_records:
        named = [n for n in of_records if n.lower() in LIST_WORDS or n.lower() in (last, last.rstrip("s"))]
        if len(of_records) == 1:
            return "list", of_records[0]
        return ("list", named[0]) if len(named) == 1 else ("ambiguous", None)
    if not plain:
        return "ambiguous", None  # {"tags": ["a", "b"]}: a list of strings, or a record of one field
    if op.method == "GET" and op.path.rstrip("/").endswith("}"):
        return "record", None  # GET .../{id} with fields of its own (the defect 1)
    if of_records:
        return "ambiguous", None  # records beside fields of their own: a search result, or one record
    return ("record", None) if len(plain) >= 2 else ("ambiguous", None)


def _items_are_records(doc: SpecDoc, prop: Any) -> bool:
    items = doc.resolve(doc.resolve(prop).get("items")) if isinstance(doc.resolve(prop), dict) else None
    if not isinstance(items, dict):
        return False
    items = _flatten(doc, items)
    return (
        items.get("type") == "object" or "properties" in items or any(k in items for k in ("oneOf", "anyOf"))
    )


def _flatten(doc: SpecDoc, schema: dict[str, Any]) -> dict[str, Any]:
    if isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            merged = _merge(doc, merged, part)
        return merged
    return schema


def _is_array(doc: SpecDoc, prop: Any) -> bool:
    prop = doc.resolve(prop)
    return isinstance(prop, dict) and (
        prop.get("type") == "array" or ("items" in prop and "type" not in prop)
    )


def _last_segment(path: str) -> str:
    parts = [p for p in path.split("/") if p and not p.startswith("{")]
    return parts[-1] if parts else ""
