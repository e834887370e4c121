"""Provider strict-mode profiles: what each accepts in a tool's inputSchema, and a pure transform to it.

`lint --profile NAME` checks a tool list against a profile; `generate --profile NAME` serves schemas
transformed by `apply_profile`. A constraint a provider rejects is not lost: it moves into the
description as a sentence the model can read (T6), and the generated server keeps validating with the
untransformed schema (written beside tools.json as input_schemas.json).

Sources (read 2026-12; re-check when a provider changes its rules):
- anthropic-strict: Anthropic, "Structured outputs", JSON Schema limitations
  (platform.claude.com/docs/en/build-with-claude/structured-outputs): `additionalProperties: false`
  on every object; no numerical constraints (minimum, maximum, multipleOf), no string length
  constraints (minLength, maxLength), array constraints beyond minItems 0 or 1 unsupported;
  formats date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid; at most 20 strict
  tools, 24 optional parameters and 16 union-typed parameters per request. `pattern` supports only a
  regex subset, so the profile moves it into the description too.
- openai-strict: OpenAI, "Structured Outputs", Supported schemas
  (platform.openai.com/docs/guides/structured-outputs#supported-schemas), which function calling
  with `strict: true` shares: every object `additionalProperties: false` and every property listed
  in `required` (optional ones as a union with "null"); the root an object, not `anyOf`; supported
  keywords pattern, format (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid),
  multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minItems, maxItems; not allOf,
  not, if/then/else, dependentRequired, dependentSchemas (and no oneOf); at most 5,000 properties,
  10 levels of nesting, 1,000 enum values and 120,000 characters of names and enum values; 128 tools
  a request. Non-null `default` values are rejected by Azure OpenAI's strict mode
  (openai/openai-agents-python#4390, #4529), so the profile drops them (descriptions state defaults).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

JsonSchema = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    removed: frozenset[str]  # keywords the provider rejects; the transform describes them in words
    formats: frozenset[str]  # string formats it accepts
    forbidden: frozenset[str]  # keywords no transform can express away (combinators)
    all_required: bool  # every property listed in `required`, optional ones nullable
    max_min_items: int | None  # largest minItems accepted (None: any)
    max_tools: int  # tools a request may carry in strict mode
    max_optional_params: int | None  # optional parameters a request may carry in strict mode
    max_union_params: int | None  # parameters with a type list or anyOf, a request
    max_depth: int | None
    max_properties: int | None
    max_enum_values: int | None
    max_schema_chars: int | None  # characters of property names and enum values


ANTHROPIC_STRICT = Profile(
    name="anthropic-strict",
    removed=frozenset(
        {
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "pattern",
            "maxItems",
            "uniqueItems",
            "minProperties",
            "maxProperties",
            "patternProperties",
            "propertyNames",
        }
    ),  # fmt: skip
    formats=frozenset(
        {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
    ),
    forbidden=frozenset({"not", "if", "then", "else", "dependentRequired", "dependentSchemas"}),
    all_required=False,
    max_min_items=1,
    max_tools=20,
    max_optional_params=24,
    max_union_params=16,
    max_depth=None,
    max_properties=None,
    max_enum_values=None,
    max_schema_chars=None,
)

OPENAI_STRICT = Profile(
    name="openai-strict",
    removed=frozenset(
        {
            "minLength",
            "maxLength",
            "uniqueItems",
            "minProperties",
            "maxProperties",
            "patternProperties",
            "propertyNames",
            "unevaluatedProperties",
            "unevaluatedItems",
            "contains",
            "minContains",
            "maxContains",
            "default",
        }
    ),  # fmt: skip
    formats=frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}),
    forbidden=frozenset(
        {"allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas"}
    ),
    all_required=True,
    max_min_items=None,
    max_tools=128,
    max_optional_params=None,
    max_union_params=None,
    max_depth=10,
    max_properties=5000,
    max_enum_values=1000,
    max_schema_chars=120_000,
)

_SIZE_FORMATS = frozenset({"int32", "int64", "float", "double"})

PROFILES = {p.name: p for p in (ANTHROPIC_STRICT, OPENAI_STRICT)}
# What a schema may hold when nothing says what it is (OpenAI needs a type on every schema).
ANY_SCALAR = ["string", "number", "boolean"]


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile '{name}'; known: {', '.join(sorted(PROFILES))}") from None


@dataclass(frozen=True, slots=True)
class ProfileNote:
    """Something the transform could not keep as it was, for the generate report."""

    tool: str
    pointer: str  # into the tool's inputSchema
    message: str


def apply_profile(
    tools: list[dict[str, Any]], profile: Profile
) -> tuple[list[dict[str, Any]], list[ProfileNote]]:
    """The tool list with every inputSchema transformed to pass `profile`; the input is not changed."""
    notes: list[ProfileNote] = []
    out = []
    for tool in tools:
        found: list[tuple[str, str]] = []
        schema = _transform(tool.get("inputSchema") or {}, profile, "", found, required=True)
        out.append({**tool, "inputSchema": schema})
        notes += [ProfileNote(str(tool.get("name")), pointer, message) for pointer, message in found]
    return out, notes


def _transform(
    node: Any, profile: Profile, pointer: str, notes: list[tuple[str, str]], *, required: bool
) -> Any:
    if not isinstance(node, dict):
        return node
    out: JsonSchema = {}
    said: list[str] = []
    for key, value in node.items():
        if key in profile.removed:
            if key != "default" or "efault" not in str(node.get("description", "")):
                said.append(_in_words(key, value))
        elif key == "minItems" and profile.max_min_items is not None and value > profile.max_min_items:
            said.append(_in_words(key, value))
        elif key == "format" and value not in profile.formats:
            if value not in _SIZE_FORMATS:  # 'int64' says nothing a model can use
                said.append(f"Format: {value}.")
        else:
            out[key] = value
    said = [text for text in said if text]
    if said:
        description = str(out.get("description", "")).rstrip()
        out["description"] = " ".join([description, *said]).strip() if description else " ".join(said)
    type_ = out.get("type")
    # A flattened oneOf can be ["object", "string"]: its object form is closed too.
    is_object = type_ == "object" or (isinstance(type_, list) and "object" in type_) or "properties" in out
    if is_object:
        _strict_object(out, profile, pointer, notes)
    if profile.all_required and out.get("type") == "array" and "items" not in out:
        out["items"] = {}
    if "items" in out:
        out["items"] = _transform(out["items"], profile, pointer + "/items", notes, required=True)
    if profile.all_required and not is_object and not _has_type(out):
        out["type"] = list(ANY_SCALAR)
        notes.append((pointer, "no type given; offered as string, number or boolean"))
    if profile.all_required and not required:
        _make_nullable(out)
    return out


def _strict_object(out: JsonSchema, profile: Profile, pointer: str, notes: list[tuple[str, str]]) -> None:
    properties = out.get("properties")
    if not isinstance(properties, dict):
        properties = {}
    if out.get("additionalProperties") not in (None, False) or not properties:
        # A free-form map cannot be expressed in strict mode; the server still accepts what it accepts.
        notes.append((pointer, "free-form object: strict mode lets the model send only the listed keys"))
    out["additionalProperties"] = False
    originally = set(out.get("required") or ())
    out["properties"] = {
        name: _transform(
            schema,
            profile,
            f"{pointer}/properties/{name}",
            notes,
            required=name in originally or not profile.all_required,
        )
        for name, schema in properties.items()
    }
    if profile.all_required:
        out["required"] = list(out["properties"])


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


def _in_words(keyword: str, value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=False)
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
    }.get(keyword, f"{keyword}: {shown}.")
