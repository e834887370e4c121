"""The pure transform of a tool list to what a profile accepts (the rules and their sources are in
catalog.py).

`generate --profile NAME` serves schemas transformed by `apply_profile`. A constraint a provider rejects
is not lost: it moves into the description as a sentence the model can read (T6), and the generated
server keeps validating with the untransformed schema (written beside tools.json as input_schemas.json).
Names are never changed here: a tool's name is the mapping's decision, and the lint says which names a
client's prefix pushes past its limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcpgen.profiles.catalog import Profile

JsonSchema = dict[str, Any]
# What a schema may hold when nothing says what it is (OpenAI needs a type on every schema).
ANY_SCALAR = ["string", "number", "boolean"]
_SIZE_FORMATS = frozenset({"int32", "int64", "float", "double"})  # say nothing a model can use
_LOCAL_DEFS = ("$defs", "definitions")


@dataclass(frozen=True, slots=True)
class ProfileNote:
    """Something the transform could not keep as it was, for the generate report."""

    tool: str
    pointer: str  # into the tool's inputSchema
    message: str


@dataclass(frozen=True, slots=True)
class _Walk:
    profile: Profile
    defs: dict[str, Any]  # the root's $defs / definitions, for inlining
    notes: list[tuple[str, str]]


def apply_profile(
    tools: list[dict[str, Any]], profile: Profile
) -> tuple[list[dict[str, Any]], list[ProfileNote]]:
    """The tool list with every inputSchema transformed to pass `profile`; the input is not changed."""
    notes: list[ProfileNote] = []
    out = []
    for tool in tools:
        schema = tool.get("inputSchema") or {}
        walk = _Walk(profile, _root_defs(schema) if profile.inline_refs else {}, [])
        transformed = _transform(schema, walk, "", required=True, seen=())
        out.append({**tool, "inputSchema": transformed})
        notes += [ProfileNote(str(tool.get("name")), pointer, message) for pointer, message in walk.notes]
    return out, notes


def _root_defs(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    found: dict[str, Any] = {}
    for key in _LOCAL_DEFS:
        if isinstance(schema.get(key), dict):
            found.update({f"#/{key}/{name}": value for name, value in schema[key].items()})
    return found


def _transform(node: Any, walk: _Walk, pointer: str, *, required: bool, seen: tuple[str, ...]) -> Any:
    if not isinstance(node, dict):
        return node
    profile = walk.profile
    if profile.inline_refs and isinstance(node.get("$ref"), str):
        node, seen = _inlined(node, walk, pointer, seen)
    out, said = _keywords(node, profile)
    said += _single_type(out, walk, pointer)
    said = [text for text in said if text]
    if said:
        description = str(out.get("description", "")).rstrip()
        out["description"] = " ".join([description, *said]).strip() if description else " ".join(said)
    type_ = out.get("type")
    # A flattened oneOf can be ["object", "string"]: its object form is closed too.
    is_object = type_ == "object" or (isinstance(type_, list) and "object" in type_) or "properties" in out
    if is_object:
        _object(out, walk, pointer, seen)
    if profile.array_items and out.get("type") == "array" and "items" not in out:
        out["items"] = {}
    if "items" in out:
        out["items"] = _transform(out["items"], walk, pointer + "/items", required=True, seen=seen)
    if profile.typed and not is_object:
        _typed(out, walk, pointer)
    if profile.all_required and not required:
        _make_nullable(out)
    return out


def _typed(out: JsonSchema, walk: _Walk, pointer: str) -> None:
    """A type for a schema that has none: JSON Schema profiles count an enum or $ref as one; Gemini's
    schema needs `type` itself (an enum of strings is a string)."""
    if walk.profile.nullable == "type-list":
        if not _has_type(out):
            out["type"] = list(ANY_SCALAR)
            walk.notes.append((pointer, "no type given; offered as string, number or boolean"))
        return
    if "type" in out or "anyOf" in out:
        return
    out["type"] = "string"
    if not (isinstance(out.get("enum"), list) and all(isinstance(v, str) for v in out["enum"])):
        walk.notes.append((pointer, "no type given; offered as a string"))


def _keywords(node: JsonSchema, profile: Profile) -> tuple[JsonSchema, list[str]]:
    """The keywords `profile` keeps, and sentences for the ones it does not."""
    out: JsonSchema = {}
    said: list[str] = []
    for key, value in node.items():
        if key in _LOCAL_DEFS and profile.inline_refs:
            continue
        if key in profile.removed:
            if key != "default" or "efault" not in str(node.get("description", "")):
                said.append(_in_words(key, value))
        elif key == "const" and profile.const_as_enum:
            if profile.string_enums and not isinstance(value, str):
                said.append(f"Always {_shown(value)}.")
            else:
                out["enum"] = [value]
        elif key == "enum" and profile.string_enums and _non_string(value):
            said.append("One of " + ", ".join(_shown(v) for v in value if v is not None) + ".")
        elif key == "additionalProperties" and profile.objects == "drop":
            continue
        elif key == "minItems" and profile.max_min_items is not None and value > profile.max_min_items:
            said.append(_in_words(key, value))
        elif key == "format" and profile.formats is not None and value not in profile.formats:
            if value not in _SIZE_FORMATS:
                said.append(f"Format: {value}.")
        else:
            out[key] = value
    return out, said


def _single_type(out: JsonSchema, walk: _Walk, pointer: str) -> list[str]:
    """Where a profile writes null as `nullable: true`, a type list becomes one type."""
    if walk.profile.nullable != "keyword":
        return []
    said = []
    type_ = out.get("type")
    enum = out.get("enum")
    nullable = (isinstance(type_, list) and "null" in type_) or (isinstance(enum, list) and None in enum)
    if isinstance(enum, list) and None in enum:
        out["enum"] = [v for v in enum if v is not None]
    if isinstance(type_, list):
        kinds = [t for t in type_ if t != "null"]
        out["type"] = kinds[0] if kinds else "string"
        if len(kinds) > 1:
            said.append(f"Also accepts {' or '.join(kinds[1:])}.")
            walk.notes.append((pointer, f"one type kept of {', '.join(kinds)}: {kinds[0]}"))
    if nullable:
        out["nullable"] = True
    return said


def _object(out: JsonSchema, walk: _Walk, pointer: str, seen: tuple[str, ...]) -> None:
    profile = walk.profile
    properties = out.get("properties")
    if not isinstance(properties, dict):
        properties = {}
    if profile.objects == "close":
        if out.get("additionalProperties") not in (None, False) or not properties:
            # A free-form map cannot be expressed in strict mode; the server still accepts what it accepts.
            walk.notes.append(
                (pointer, "free-form object: strict mode lets the model send only the listed keys")
            )
        out["additionalProperties"] = False
    originally = [name for name in out.get("required") or () if isinstance(name, str)]
    kept: JsonSchema = {}
    for name, schema in properties.items():
        at = f"{pointer}/properties/{name}"
        is_required = name in originally or not profile.all_required
        transformed = _transform(schema, walk, at, required=is_required, seen=seen)
        if profile.object_properties and _inexpressible(transformed):
            walk.notes.append(
                (
                    at,
                    f"left out: {profile.name} cannot describe an object without properties (the server still accepts it)",
                )
            )
            continue
        kept[name] = transformed
    if "properties" in out or kept:
        out["properties"] = kept
    if profile.all_required:
        out["required"] = list(kept)
    elif "required" in out:
        out["required"] = [name for name in originally if name in kept or name not in properties]


def _inexpressible(schema: Any) -> bool:
    """An object without properties, or a list of them (after the transform: no $ref is left)."""
    if not isinstance(schema, dict):
        return False
    type_ = schema.get("type")
    if type_ == "array":
        return _inexpressible(schema.get("items"))
    return (type_ == "object" or "properties" in schema) and not schema.get("properties")


def _inlined(
    node: JsonSchema, walk: _Walk, pointer: str, seen: tuple[str, ...]
) -> tuple[JsonSchema, tuple[str, ...]]:
    """`node` with its local $ref replaced by what it points to (the node's own keywords win)."""
    ref = node["$ref"]
    rest = {k: v for k, v in node.items() if k != "$ref"}
    target = walk.defs.get(ref)
    if not isinstance(target, dict):
        walk.notes.append((pointer, f"$ref '{ref}' is not a local definition; left out"))
        return rest, seen
    if ref in seen:  # a recursive shape: cut where it repeats
        walk.notes.append((pointer, f"$ref '{ref}' refers to itself; its repetition is left out"))
        return {**rest, "type": rest.get("type", "object")}, seen
    return {**target, **rest}, (*seen, ref)


def _make_nullable(schema: JsonSchema) -> None:
    type_ = schema.get("type")
    if isinstance(type_, str) and type_ != "null":
        schema["type"] = [type_, "null"]
    elif isinstance(type_, list) and "null" not in type_:
        schema["type"] = [*type_, "null"]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]


def _has_type(schema: JsonSchema) -> bool:
    return any(k in schema for k in ("type", "enum", "const", "anyOf", "$ref"))


def _non_string(values: Any) -> bool:
    return isinstance(values, list) and any(not isinstance(v, str) for v in values if v is not None)


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _in_words(keyword: str, value: Any) -> str:
    shown = _shown(value)
    return {
        "minimum": f"At least {shown}.",
        "maximum": f"At most {shown}.",
        "exclusiveMinimum": f"Greater than {shown}.",
        "exclusiveMaximum": f"Less than {shown}.",
        "multipleOf": f"A multiple of {shown}.",
        "minLength": f"At least {shown} characters.",
        "maxLength": f"At most {shown} characters.",
        "pattern": f"Matches the pattern {shown}.",
        "minItems": f"At least {shown} items.",
        "maxItems": f"At most {shown} items.",
        "uniqueItems": "Items are unique." if value else "",
        "minProperties": f"At least {shown} keys.",
        "maxProperties": f"At most {shown} keys.",
        "default": f"Default: {shown}.",
        "examples": f"Examples: {', '.join(_shown(v) for v in value)}." if isinstance(value, list) else "",
        "deprecated": "Deprecated." if value else "",
        "readOnly": "",
        "writeOnly": "",
        "$schema": "",
        "$id": "",
        "$comment": "",
    }.get(keyword, f"{keyword}: {shown}.")
