"""Turn OpenAPI schemas into simple, honest JSON Schema for a tool's inputSchema (T6).

References are inlined (no `$ref` reaches the client), `allOf` is merged, `oneOf`/`anyOf` are
flattened (T2: no combinators), nesting stops at depth 2, and OpenAPI-only keywords are dropped.
The server re-checks every value itself, so a looser schema here never loosens validation there.
"""

from __future__ import annotations

import re
from typing import Any

from mcpgen.load.refs import Located, RefResolver

MAX_DEPTH = 2
_KEPT = (
    "type", "format", "enum", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "multipleOf",
)  # fmt: skip
_SIMPLE_TYPES = ("string", "integer", "number", "boolean")


def input_schema(
    located: Located | None, resolver: RefResolver, *, for_request: bool = True
) -> dict[str, Any]:
    """The simplified schema of one parameter (depth 0)."""
    if located is None:
        return {"type": "string"}
    return _simplify(located, resolver, depth=0, seen=frozenset(), for_request=for_request)


def _simplify(
    located: Located, resolver: RefResolver, *, depth: int, seen: frozenset[str], for_request: bool
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
    elif "oneOf" in raw or "anyOf" in raw:
        raw = _flatten_alternatives(located, resolver, "oneOf" if "oneOf" in raw else "anyOf")
    out: dict[str, Any] = {}
    type_ = _plain_type(raw)
    if type_ is not None:
        out["type"] = type_
    for key in _KEPT[1:]:
        if key in raw and key != "type":
            out[key] = raw[key]
    _fix_exclusive_bounds(raw, out)
    if "const" in raw and "enum" not in out:
        out["enum"] = [raw["const"]]
    if isinstance(out.get("enum"), list):
        out["enum"] = [v for v in out["enum"] if v is not None]
        if not out["enum"]:
            del out["enum"]
    if "default" in raw and raw["default"] is not None:
        out["default"] = raw["default"]
    if raw.get("description"):
        out["description"] = lean_text(str(raw["description"]), 120 if depth else 200)
    if type_ == "array" or "items" in raw:
        items = raw.get("items")
        if isinstance(items, dict) and items:
            out["items"] = (
                {"type": "object"}
                if depth >= MAX_DEPTH
                else _simplify(
                    Located(located.document, located.pointer + "/items", items),
                    resolver,
                    depth=depth + 1,
                    seen=seen,
                    for_request=for_request,
                )
            )
        else:
            out["items"] = {}
    if type_ == "object" or "properties" in raw:
        out.update(_object_members(located, raw, resolver, depth=depth, seen=seen, for_request=for_request))
    return out


def _object_members(
    located: Located,
    raw: dict[str, Any],
    resolver: RefResolver,
    *,
    depth: int,
    seen: frozenset[str],
    for_request: bool,
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
        kept[name] = _simplify(prop_located, resolver, depth=depth + 1, seen=seen, for_request=for_request)
    members["properties"] = kept
    required = [r for r in raw.get("required") or () if r in kept]
    if required:
        members["required"] = required
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
            if key == "properties":
                properties.update(value)
            elif key == "required":
                required.extend(r for r in value if r not in required)
            else:
                merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
        merged.setdefault("type", "object")
    if required:
        merged["required"] = required
    return merged


def _flatten_alternatives(located: Located, resolver: RefResolver, keyword: str) -> dict[str, Any]:
    """`oneOf`/`anyOf` without combinators: one branch, a list of simple types, or a loose object."""
    base = {k: v for k, v in located.value.items() if k not in ("oneOf", "anyOf")}
    branches = []
    for index in range(len(located.value[keyword])):
        branch = resolver.deref(located.child(keyword, index))
        if (
            isinstance(branch.value, dict)
            and _plain_type(branch.value) != "null"
            and branch.value.get("type") != "null"
        ):
            branches.append(branch)
    if len(branches) == 1:
        only = branches[0].value
        merged = {**only, **base}
        if "allOf" in only:
            merged = {**_merge_all_of(branches[0], resolver), **base}
        return merged
    types = [_plain_type(b.value) for b in branches]
    if branches and all(t in _SIMPLE_TYPES for t in types):
        unique = list(dict.fromkeys(t for t in types if t))
        return {**base, "type": unique[0] if len(unique) == 1 else unique}
    if branches and all(t == "object" for t in types):
        properties: dict[str, Any] = {}
        for branch in branches:
            value = _merge_all_of(branch, resolver) if "allOf" in branch.value else branch.value
            properties.update(value.get("properties") or {})
        return {**base, "type": "object", "properties": properties}
    return base


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
