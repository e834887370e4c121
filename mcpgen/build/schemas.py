"""Turn OpenAPI schemas into simple, honest JSON Schema for a tool's inputSchema (T6).

References are inlined (no `$ref` reaches the client), `allOf` is merged, `oneOf`/`anyOf` are
flattened (T2: no combinators), nesting stops at two object levels inside an argument (arrays add
none), objects with fields are closed (`additionalProperties: false`), and OpenAPI-only keywords are
dropped. The server re-checks every value itself, so a looser schema here never loosens validation
there; what is cut, or cannot be checked, is reported with the schema's location.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, info, rule_name, warning
from mcpgen.load.refs import Located, RefResolver
from mcpgen.runtime_source import runtime_module

# Object levels inside one argument (T6): `start.dateTime` is 1, `reminders.overrides[].minutes` 2.
# An array adds no level: its items sit where the array is, so a list of objects keeps its fields.
MAX_DEPTH = 2
BODY_DEPTH = -1  # a body's own level: its fields are the arguments, at depth 0
_KEPT = (
    "type", "format", "enum", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "multipleOf",
)  # fmt: skip
_NUMERIC_KEYWORDS = frozenset(
    ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "multipleOf")
)
_SIMPLE_TYPES = ("string", "integer", "number", "boolean")
_CUT_NAMES_SHOWN = 8


@dataclass(frozen=True, slots=True)
class Variant:
    """One branch of a `oneOf`/`anyOf` object body, flattened into the one parameter set (T2): the
    server checks that a call's body fields fit one of them."""

    name: str
    fields: tuple[str, ...]  # wire names the branch has
    required: tuple[str, ...]  # wire names the branch needs


def input_schema(
    located: Located | None,
    resolver: RefResolver,
    *,
    for_request: bool = True,
    depth: int = 0,
    notes: list[Diagnostic] | None = None,
) -> dict[str, Any]:
    """The simplified schema of one parameter (depth 0), or of a body whose fields are the
    parameters (`depth=BODY_DEPTH`). What had to be cut or cannot be checked goes to `notes`."""
    if located is None:
        return {"type": "string"}
    return _simplify(located, resolver, depth=depth, seen=frozenset(), for_request=for_request, notes=notes)


def _simplify(
    located: Located,
    resolver: RefResolver,
    *,
    depth: int,
    seen: frozenset[str],
    for_request: bool,
    notes: list[Diagnostic] | None,
) -> dict[str, Any]:
    if isinstance(located.value, dict) and "$ref" in located.value:
        key = located.value["$ref"]
        if key in seen:
            return {"type": "object", "description": "Recursive structure; give only the fields you need."}
        seen = seen | {key}
    located = resolver.deref(located)
    raw = located.value
    if not isinstance(raw, dict):
        return {}
    if "allOf" in raw:
        raw = _merge_all_of(located, resolver)
    if "oneOf" in raw or "anyOf" in raw:  # also one an allOf part brought in (linqr's ContactData)
        choice = Located(located.document, located.pointer, raw)
        raw = _flatten_alternatives(choice, resolver, "oneOf" if "oneOf" in raw else "anyOf")
    out: dict[str, Any] = {}
    type_ = _plain_type(raw)
    if type_ is not None:
        out["type"] = type_
    for key in _KEPT[1:]:
        if key in raw and key != "type" and _usable_keyword(key, raw[key], located, notes):
            out[key] = raw[key]
    _fix_exclusive_bounds(raw, out)
    if "const" in raw and "enum" not in out:
        out["enum"] = [raw["const"]]
    if isinstance(out.get("enum"), list):
        out["enum"] = _enum_of_type([v for v in out["enum"] if v is not None], type_)
        if not out["enum"]:
            del out["enum"]
    if "default" in raw and raw["default"] is not None:
        out["default"] = raw["default"]
    if raw.get("description"):
        out["description"] = lean_text(str(raw["description"]), 120 if depth > 0 else 200)
    if _has_type(type_, "array") or "items" in raw:
        items = raw.get("items")
        if isinstance(items, dict) and items:
            out["items"] = _simplify(
                Located(located.document, located.pointer + "/items", items),
                resolver,
                depth=depth,  # an array adds no level (MAX_DEPTH)
                seen=seen,
                for_request=for_request,
                notes=notes,
            )
        else:
            out["items"] = {}
    if _has_type(type_, "object") or "properties" in raw:
        out.update(
            _object_members(
                located, raw, resolver, depth=depth, seen=seen, for_request=for_request, notes=notes
            )
        )
        if depth >= MAX_DEPTH and isinstance(raw.get("properties"), dict) and raw["properties"]:
            out["description"] = _cut_description(out.get("description"), raw["properties"])
            _note(
                notes,
                codes.M241,
                f"the fields of this object nest deeper than the {MAX_DEPTH} levels a tool's schema shows "
                f"({rule_name('T6')}); the model sees their names in the description only, and the server "
                "does not check them",
                located,
                "map the nested part as its own parameters, or accept that the API checks it",
            )
    return out


def _enum_of_type(values: list[Any], type_: Any) -> list[Any]:
    """A string enum written with YAML's bare true/false or numbers (apptigent's `lower`:
    `type: string, enum: [true, false]`) would refuse every value; its values are meant as text."""
    if type_ != "string" or all(isinstance(v, str) for v in values):
        return values
    spelled = [
        json.dumps(v) if isinstance(v, bool) else v if isinstance(v, str) else json.dumps(v) for v in values
    ]
    return list(dict.fromkeys(spelled))


def _has_type(type_: Any, wanted: str) -> bool:
    return type_ == wanted or (isinstance(type_, list) and wanted in type_)


def _usable_keyword(key: str, value: Any, located: Located, notes: list[Diagnostic] | None) -> bool:
    """A constraint the server can check as written; a malformed one is dropped, with a note."""
    if key in _NUMERIC_KEYWORDS and (isinstance(value, bool) or not isinstance(value, (int, float))):
        _note(notes, codes.M240, f"'{key}' is {value!r}, not a number; it is not passed on", located, None)
        return False
    if key == "enum" and not isinstance(value, list):
        _note(notes, codes.M240, f"'enum' is {value!r}, not a list; it is not passed on", located, None)
        return False
    if key == "pattern":
        if not isinstance(value, str):
            _note(
                notes, codes.M240, f"'pattern' is {value!r}, not a string; it is not passed on", located, None
            )
            return False
        if python_pattern(value) is None:
            _note(
                notes,
                codes.M240,
                f"the pattern {value!r} uses regular-expression syntax the generated server cannot "
                "compile, so the server does not check it (the API still does)",
                located,
                "nothing to do, unless you want the server to check it: rewrite the pattern without it",
            )
    return True


def _cut_description(description: str | None, properties: dict[str, Any]) -> str:
    names = list(properties)
    shown = ", ".join(names[:_CUT_NAMES_SHOWN]) + (", ..." if len(names) > _CUT_NAMES_SHOWN else "")
    lead = (description or "An object.").rstrip()
    lead = lead if lead.endswith((".", "!", "?")) else lead + "."
    return f"{lead} Fields: {shown}."


def _note(
    notes: list[Diagnostic] | None, code: str, message: str, located: Located, hint: str | None
) -> None:
    """A located note; a cut (M241) is information, the schema it leaves is still honest."""
    if notes is not None:
        make = info if code == codes.M241 else warning
        notes.append(make(code, message, located.source, hint=hint))


def _object_members(
    located: Located,
    raw: dict[str, Any],
    resolver: RefResolver,
    *,
    depth: int,
    seen: frozenset[str],
    for_request: bool,
    notes: list[Diagnostic] | None,
) -> dict[str, Any]:
    properties = raw.get("properties")
    if not isinstance(properties, dict) or depth >= MAX_DEPTH:
        return {}
    members: dict[str, Any] = {}
    kept = {}
    base = Located(located.document, located.pointer, raw)
    for name, prop in properties.items():
        prop_located = base.child("properties", name)  # after an allOf merge the pointer is approximate
        if for_request and isinstance(prop, dict) and resolver.deref(prop_located).value.get("readOnly"):
            continue  # readOnly properties are never sent in requests
        kept[name] = _simplify(
            prop_located, resolver, depth=depth + 1, seen=seen, for_request=for_request, notes=notes
        )
    members["properties"] = kept
    required = [r for r in raw.get("required") or () if r in kept]
    if required:
        members["required"] = required
    # T6, issue 17: a nested object is as strict as the top level, so `start.datetime` (for
    # `dateTime`) is refused rather than sent; an object the spec leaves open to other keys stays so.
    if for_request and kept and depth > BODY_DEPTH and raw.get("additionalProperties") in (None, False):
        members["additionalProperties"] = False
    return members


def _merge_all_of(located: Located, resolver: RefResolver) -> dict[str, Any]:
    merged: dict[str, Any] = {k: v for k, v in located.value.items() if k != "allOf"}
    properties: dict[str, Any] = dict(merged.get("properties") or {})
    required: list[str] = list(merged.get("required") or ())
    for index in range(len(located.value["allOf"])):
        part = resolver.deref(located.child("allOf", index)).value
        if not isinstance(part, dict):
            continue
        if "allOf" in part:
            part = _merge_all_of(resolver.deref(located.child("allOf", index)), resolver)
        for key, value in part.items():
            if key == "properties" and isinstance(value, dict):
                properties.update(value)
            elif key == "required" and isinstance(value, list):
                required.extend(r for r in value if r not in required)
            else:
                merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
        merged.setdefault("type", "object")
    if required:
        merged["required"] = required
    return merged


_NESTED_CHOICES = 4  # a oneOf inside a oneOf (linqr's ContactData): flattened this many levels deep


def _branches(
    located: Located, resolver: RefResolver, keyword: str, nested: int = 0
) -> list[tuple[Located, dict[str, Any]]]:
    """The non-null branches of a combinator, each with its allOf parts merged and its own
    oneOf/anyOf flattened."""
    found = []
    for index in range(len(located.value[keyword])):
        branch = resolver.deref(located.child(keyword, index))
        value = branch.value
        if not isinstance(value, dict):
            continue
        if "allOf" in value:
            value = _merge_all_of(branch, resolver)
        inner = "oneOf" if "oneOf" in value else "anyOf" if "anyOf" in value else None
        if inner and nested < _NESTED_CHOICES and isinstance(branch.value.get(inner), list):
            value = {**value, **_flatten_alternatives(branch, resolver, inner, nested + 1)}
            value.pop(inner, None)
        if _plain_type(value) == "null" or value.get("type") == "null":
            continue
        found.append((branch, value))
    return found


def _flatten_alternatives(
    located: Located, resolver: RefResolver, keyword: str, nested: int = 0
) -> dict[str, Any]:
    """`oneOf`/`anyOf` without combinators (T2): one branch as it is; otherwise every branch's type,
    and the object branches' fields as one flat set (none of them required: which are is a
    question of the branch, checked by the server, see `body_variants`)."""
    base = {k: v for k, v in located.value.items() if k not in ("oneOf", "anyOf")}
    branches = _branches(located, resolver, keyword, nested)
    if len(branches) == 1:
        return {**branches[0][1], **base}
    types: list[str] = []
    properties: dict[str, Any] = {}
    items: Any = None
    for _, value in branches:
        type_ = _plain_type(value)
        for one in type_ if isinstance(type_, list) else [type_]:
            if one is not None and one not in types:
                types.append(one)
        if isinstance(value.get("properties"), dict):
            for name, prop in value["properties"].items():
                properties.setdefault(name, prop)
        if items is None and isinstance(value.get("items"), dict):
            items = value["items"]
    if not branches or None in [_plain_type(v) for _, v in branches]:
        return base  # a branch of any type: nothing honest to say but "any value"
    out = {**base, "type": types[0] if len(types) == 1 else types}
    if properties:
        out["properties"] = properties
    if items is not None:
        out["items"] = items
    if "integer" in types and "number" in types:
        types.remove("integer")
        out["type"] = types[0] if len(types) == 1 else types
    return out


def body_variants(located: Located, resolver: RefResolver) -> tuple[Variant, ...]:
    """The object branches of a `oneOf`/`anyOf` body, for the server's per-variant check (T2);
    () when the body has no such choice."""
    located = resolver.deref(located)
    raw = located.value
    if not isinstance(raw, dict):
        return ()
    keyword = "oneOf" if "oneOf" in raw else "anyOf" if "anyOf" in raw else None
    if keyword is None:
        return ()
    branches = _branches(located, resolver, keyword)
    if len(branches) < 2 or not all(_plain_type(v) == "object" for _, v in branches):
        return ()
    shared_required = [r for r in raw.get("required") or () if isinstance(r, str)]
    variants = []
    for index, (_, value) in enumerate(branches):
        fields = tuple(value.get("properties") or ())
        required = tuple(dict.fromkeys([*shared_required, *(value.get("required") or ())]))
        variants.append(Variant(name=_variant_name(located, index, value), fields=fields, required=required))
    return tuple(variants)


def _variant_name(parent: Located, index: int, value: dict[str, Any]) -> str:
    title = value.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    ref = next(
        (v.get("$ref") for v in [parent.value[k][index] for k in ("oneOf", "anyOf") if k in parent.value]),
        None,
    )
    if isinstance(ref, str) and "/" in ref:
        return ref.rsplit("/", 1)[1]
    return f"variant {index + 1}"


def _plain_type(raw: dict[str, Any]) -> Any:
    type_ = raw.get("type")
    if isinstance(type_, list):
        concrete = [t for t in type_ if t != "null"]
        return concrete[0] if len(concrete) == 1 else (concrete or None)
    if type_ is None and "properties" in raw:
        return "object"
    return type_


def _fix_exclusive_bounds(raw: dict[str, Any], out: dict[str, Any]) -> None:
    # OpenAPI 3.0 writes exclusiveMinimum: true beside minimum; JSON Schema 2020-12 wants the number.
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if isinstance(raw.get(exclusive), bool):
            out.pop(exclusive, None)
            if raw[exclusive] and bound in raw:
                out[exclusive] = out.pop(bound)


def json_type_of(schema: dict[str, Any]) -> str:
    """A comparable summary of a schema's type, for spotting one parameter used with two types."""
    type_ = schema.get("type")
    if isinstance(type_, list):
        return "|".join(sorted(type_))
    if type_ == "array":
        return f"array<{json_type_of(schema.get('items') or {})}>"
    return str(type_ or "any")


_SPACE = re.compile(r"\s+")
_TAGS = re.compile(r"<[^>]+>")


def short_text(text: str, limit: int) -> str:
    """Collapse whitespace and HTML, and keep whole sentences within `limit` characters (T7): the
    first, then those that state a rule ('required unless ...', 'must be ...', up to twice the limit),
    then the rest, each in its place. Only a first sentence longer than the limit is cut, at a word,
    with ' ...'."""
    clean = _SPACE.sub(" ", _TAGS.sub("", text)).strip()
    if len(clean) <= limit:
        return clean
    parts = sentences(clean)
    if len(parts[0]) > limit:
        cut = clean[:limit]
        end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
        return cut[: end + 1] if end > limit // 3 else cut.rsplit(" ", 1)[0] + " ..."
    rules = [i for i in range(1, len(parts)) if _RULE.search(parts[i])]
    others = [i for i in range(1, len(parts)) if i not in rules]
    kept, used = [0], len(parts[0])
    for i in rules + others:
        # A rule the agent needs to make a valid call may take up to the limit again.
        if used + 1 + len(parts[i]) <= (2 * limit if i in rules else limit):
            kept.append(i)
            used += 1 + len(parts[i])
    return " ".join(parts[i] for i in sorted(kept))


_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)\s]*\)")
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')]))\s+")
_POINTER_SENTENCE = re.compile(
    r"^(for more (information|details)|for details|to learn more|see also)\b", re.I
)
# A sentence that says what a value must be: the one a cut must not drop (issue 17: "an offset is
# required unless a time zone is given in timeZone" was cut away).
_RULE = re.compile(
    r"\b(must|required|requires|mandatory|unless|only|cannot|can't|not allowed|at most|at least|"
    r"no more than|maximum|minimum|exactly|never)\b",
    re.I,
)
# Abbreviations whose period ends no sentence: "e.g. \"Europe/Zurich\"" stays one sentence.
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|no|approx)|\b[A-Z])\.$", re.I)


def sentences(text: str) -> list[str]:
    """The sentences of a one-line text, not split after 'e.g.', 'i.e.', 'etc.' or an initial."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] += " " + piece
        else:
            out.append(piece)
    return out


def lean_text(text: str, limit: int) -> str:
    """`short_text`, after dropping what costs an agent tokens without telling it anything it can use
    in a call: link targets (the link text stays) and 'For more information, see ...' sentences."""
    clean = _MARKDOWN_LINK.sub(r"\1", _SPACE.sub(" ", _TAGS.sub("", text)).strip())
    kept = [s for s in sentences(clean) if not _POINTER_SENTENCE.match(s)]
    return short_text(" ".join(kept) or clean, limit)  # a description that is only a pointer stays


def python_pattern(pattern: str) -> str | None:
    """The pattern as the generated server compiles it; None when the server cannot check it."""
    # the generated server's own translator (stdlib only), so the generator warns about exactly the
    # patterns the server will not check
    translated: str | None = runtime_module("patterns").python_pattern(pattern)
    return translated
