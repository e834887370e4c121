"""What each client and model provider accepts in a tool list, with the source of every rule.

A profile is data: the keywords its provider rejects (the transform moves them into the description),
the string formats it takes, how a nullable type and an open object are written, whether `$ref`s are
inlined, and the documented limits the lint checks: tool count, name pattern, name length with the
client's own prefix, nesting, enum sizes. Rules were read in 2026-12 unless a date says otherwise;
re-check a source when its provider changes its rules.

Sources (the short names the fields below cite):
- anthropic-tools: Anthropic, "Tool use", defining tools (platform.claude.com/docs/en/agents-and-tools/
  tool-use/implement-tool-use): `name` must match ^[a-zA-Z0-9_-]{1,64}$; `input_schema` is a JSON
  Schema object. The API answers a top-level combinator with "input_schema does not support oneOf,
  allOf, or anyOf at the top level".
- anthropic-strict: Anthropic, "Structured outputs", JSON Schema limitations (platform.claude.com/docs/
  en/build-with-claude/structured-outputs): `additionalProperties: false` on every object; no numerical
  constraints (minimum, maximum, multipleOf), no string length constraints; minItems 0 or 1 only;
  formats date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid; at most 20 strict
  tools, 24 optional parameters and 16 union-typed parameters a request. The `anthropic` SDK's
  `lib/_parse/_transform.py` (2.10.0, 2026-11) keeps only type, enum, const, anyOf, allOf, description,
  title, properties, additionalProperties, required, those formats, items and minItems 0/1, and moves
  everything else (`pattern`, `default` among them) into the description, and refuses a schema with
  neither a type nor an enum, const or combinator: the profile does the same.
- openai-strict: OpenAI, "Structured Outputs", Supported schemas (platform.openai.com/docs/guides/
  structured-outputs#supported-schemas), which function calling with `strict: true` shares: every
  object `additionalProperties: false` and every property in `required` (optional ones nullable); the
  root an object, not `anyOf`; formats date-time, time, date, duration, email, hostname, ipv4, ipv6,
  uuid (no `uri`); not allOf, not, if/then/else, dependentRequired, dependentSchemas; at most 5,000
  properties, 10 levels of nesting, 1,000 enum values and 120,000 characters of names and enum values.
  Non-null `default` values are rejected by Azure OpenAI's strict mode (openai/openai-agents-python
  #4390, #4529), so the profile drops them. The `openai` SDK's `lib/_pydantic.py`
  (`_ensure_strict_json_schema`, 3.60.0) makes a schema strict; a strict schema is its fixed point.
- openai-tools: OpenAI Chat Completions and Responses API reference, `tools`: a function name matches
  ^[a-zA-Z0-9_-]{1,64}$ ("Invalid 'tools[0].function.name': string does not match pattern"); at most
  128 tools ("Invalid 'tools': array too long. Expected an array with maximum length 128"); an array
  without `items` is refused ("array schema missing items").
- gemini-schema: Google, Gemini API reference, `Schema` (ai.google.dev/api/caching#Schema), the OpenAPI
  3.0 subset `FunctionDeclaration.parameters` takes: type (one, with `nullable`), format, title,
  description, nullable, enum (strings only), maxItems, minItems, properties, required, minProperties,
  maxProperties, minLength, maxLength, pattern, example, anyOf, propertyOrdering, items, minimum,
  maximum. The API answers other keywords with 'Invalid JSON payload received. Unknown name
  "additionalProperties" at ...parameters...: Cannot find field.' (likewise "$ref", "const", "default",
  "$schema": nanbingxyz/5ire#42 2025-01-19, zed-industries/zed#44875, forgecode#3426 2026-05-31), an
  array without items with "items: missing field" (cline/cline#7339), an object without properties
  with "properties: should be non-empty for OBJECT type". Formats: date-time and enum for strings,
  int32/int64 and float/double for numbers. `google-genai`'s `types.Schema` (3.6.1, 2026-11) is the
  SDK's model of it. Function names: "Must start with a letter or an underscore. Must be alphameric
  (a-z, A-Z, 0-9), underscores (_), dots (.) or dashes (-), with a maximum length of 64."
- gemini-json-schema: Google, `FunctionDeclaration.parametersJsonSchema` (ai.google.dev/api/caching#
  FunctionDeclaration): JSON Schema instead of `parameters`; `google-genai`'s `types.JSONSchema`
  (3.6.1) lists what it keeps: type (or a list), format, title, description, default, items, minItems,
  maxItems, enum, properties, required, minProperties, maxProperties, minimum, maximum, minLength,
  maxLength, pattern, additionalProperties, anyOf, oneOf, uniqueItems, $ref, $defs.
- claude-desktop: Claude Desktop sends MCP tools to the Anthropic API as they are (anthropic-tools);
  one name that breaks the pattern makes the API refuse the request, and the app leaves that server's
  tools out altogether.
- claude-code: Anthropic, "Connect Claude Code to tools via MCP" (docs.claude.com/en/docs/claude-code/
  mcp): an MCP tool is named `mcp__<server>__<tool>`, and the whole name is what the API checks
  against ^[a-zA-Z0-9_-]{1,64}$.
- cursor: Cursor filters out a tool whose server name and tool name together reach 60 characters,
  warning "Combined server and tool name length (60) exceeds 60 characters" (ComposioHQ/composio#2788
  2026-02-27; awslabs/mcp#1283 2025-09-15, Cursor 1.6).
- vscode-copilot: Visual Studio Code, "Use MCP servers in VS Code" (code.visualstudio.com/docs/
  copilot/chat/mcp-servers): a chat request carries at most 128 tools; VS Code names a tool
  `mcp_<server>_<tool>` and shortens a name past 64 characters (microsoft/vscode#243602 2025-03-14),
  so two long names can end alike. Copilot's OpenAI models refuse an array without `items`.
- windsurf: Windsurf, "Cascade MCP integration" (docs.windsurf.com/windsurf/cascade/mcp): Cascade uses
  at most 100 tools in total across its MCP servers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class NameRule:
    """A tool name as one client sees it: `prefix` (with `{server}` for the server's name in the client's
    configuration) followed by the tool's name, at most `max_length` characters in all."""

    prefix: str
    max_length: int
    level: Level  # error: the client refuses or drops the tool; warning: it shortens the name
    source: str


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    title: str  # who reads tool lists this way, for help and tables
    sources: tuple[str, ...]  # short names in this module's docstring
    removed: frozenset[str]  # keywords it rejects or ignores; the transform says them in words
    formats: frozenset[str] | None  # string formats it accepts (None: any)
    forbidden: frozenset[str]  # keywords no transform can express away (combinators)
    root_forbidden: frozenset[str] = frozenset()  # keywords the root schema may not have
    all_required: bool = False  # every property in `required`, optional ones nullable
    objects: Literal["close", "drop", "keep"] = "keep"  # additionalProperties: false / removed / as is
    nullable: Literal["type-list", "keyword"] = "type-list"  # ["string", "null"] or nullable: true
    inline_refs: bool = False  # local $refs replaced by what they point to; $defs removed
    string_enums: bool = False  # enum only on strings; other enums said in words
    const_as_enum: bool = False  # const written as a one-value enum
    array_items: bool = False  # every array says what it holds
    object_properties: bool = False  # every object lists its properties (free-form ones left out)
    typed: bool = False  # every schema has a type
    max_min_items: int | None = None  # largest minItems accepted (None: any)
    name_pattern: str = r"^[a-zA-Z0-9_-]{1,64}$"  # the tool's own name
    names: tuple[NameRule, ...] = ()  # the name with the client's prefix
    max_tools: int | None = None  # tools one request may carry
    max_tools_level: Level = "error"  # warning where only strict mode is lost past it
    max_optional_params: int | None = None  # optional parameters a request may carry in strict mode
    max_union_params: int | None = None  # parameters with a type list or anyOf, a request
    max_depth: int | None = None
    max_properties: int | None = None
    max_enum_values: int | None = None
    max_schema_chars: int | None = None  # characters of property names and enum values


_STRICT_DROPS = frozenset(
    {"uniqueItems", "minProperties", "maxProperties", "patternProperties", "propertyNames",
     "unevaluatedProperties", "unevaluatedItems", "contains", "minContains", "maxContains"}
)  # fmt: skip
_COMBINATORS_BEYOND_ANYOF = frozenset(
    {"allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas"}
)
_ROOT_COMBINATORS = frozenset({"oneOf", "anyOf", "allOf"})  # anthropic-tools
_API_NAMES = r"^[a-zA-Z0-9_-]{1,64}$"  # anthropic-tools, openai-tools
_GEMINI_NAMES = r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"  # gemini-schema (colons: the SDK's own MCP names)
# Keywords outside Gemini's `parameters` subset (gemini-schema); `const` becomes a one-value enum.
_GEMINI_DROPS = _STRICT_DROPS | {
    "default", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "examples", "$schema", "$id",
    "$comment", "readOnly", "writeOnly", "deprecated", "dependentRequired", "dependentSchemas",
}  # fmt: skip
_GEMINI_FORMATS = frozenset({"date-time", "enum", "int32", "int64", "float", "double"})

ANTHROPIC_STRICT = Profile(
    name="anthropic-strict",
    title="Anthropic API, strict tool use",
    sources=("anthropic-strict", "anthropic-tools"),
    removed=_STRICT_DROPS
    | {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "maxItems",
        "default",
    },  # fmt: skip
    formats=frozenset(
        {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
    ),
    forbidden=frozenset({"not", "if", "then", "else", "dependentRequired", "dependentSchemas"}),
    root_forbidden=_ROOT_COMBINATORS,
    objects="close",
    typed=True,  # the SDK's transform refuses a schema with no type, enum, const or combinator
    max_min_items=1,
    names=(NameRule("", 64, "error", "anthropic-tools"),),
    max_tools=20,
    max_tools_level="warning",
    max_optional_params=24,
    max_union_params=16,
)

OPENAI_STRICT = Profile(
    name="openai-strict",
    title="OpenAI API, strict function calling",
    sources=("openai-strict", "openai-tools"),
    removed=_STRICT_DROPS | {"minLength", "maxLength", "default"},
    formats=frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}),
    forbidden=_COMBINATORS_BEYOND_ANYOF,
    root_forbidden=frozenset({"anyOf"}),
    all_required=True,
    objects="close",
    array_items=True,
    typed=True,
    names=(NameRule("", 64, "error", "openai-tools"),),
    max_tools=128,
    max_depth=10,
    max_properties=5000,
    max_enum_values=1000,
    max_schema_chars=120_000,
)

GEMINI = Profile(
    name="gemini",
    title="Gemini API, FunctionDeclaration.parameters",
    sources=("gemini-schema",),
    removed=_GEMINI_DROPS,
    formats=_GEMINI_FORMATS,
    forbidden=_COMBINATORS_BEYOND_ANYOF,
    objects="drop",
    nullable="keyword",
    inline_refs=True,
    string_enums=True,
    const_as_enum=True,
    array_items=True,
    object_properties=True,
    typed=True,
    name_pattern=_GEMINI_NAMES,
    names=(NameRule("", 64, "error", "gemini-schema"),),
)

GEMINI_JSON_SCHEMA = Profile(
    name="gemini-json-schema",
    title="Gemini API, FunctionDeclaration.parametersJsonSchema",
    sources=("gemini-json-schema",),
    removed=frozenset(
        {
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "examples",
            "patternProperties",
            "propertyNames",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedProperties",
            "unevaluatedItems",
            "$schema",
            "$id",
            "$comment",
            "readOnly",
            "writeOnly",
            "deprecated",
        }
    ),  # fmt: skip
    formats=None,
    forbidden=frozenset({"allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas"}),
    const_as_enum=True,
    name_pattern=_GEMINI_NAMES,
    names=(NameRule("", 64, "error", "gemini-schema"),),
)

CLAUDE_DESKTOP = Profile(
    name="claude-desktop",
    title="Claude Desktop",
    sources=("claude-desktop", "anthropic-tools"),
    removed=frozenset(),
    formats=None,
    forbidden=frozenset(),
    root_forbidden=_ROOT_COMBINATORS,
    names=(NameRule("", 64, "error", "claude-desktop"),),
)

CLAUDE_CODE = Profile(
    name="claude-code",
    title="Claude Code",
    sources=("claude-code", "anthropic-tools"),
    removed=frozenset(),
    formats=None,
    forbidden=frozenset(),
    root_forbidden=_ROOT_COMBINATORS,
    names=(NameRule("mcp__{server}__", 64, "error", "claude-code"),),
)

CURSOR = Profile(
    name="cursor",
    title="Cursor",
    sources=("cursor",),
    removed=frozenset(),
    formats=None,
    forbidden=frozenset(),
    names=(NameRule("{server}", 59, "error", "cursor"),),
)

VSCODE_COPILOT = Profile(
    name="vscode-copilot",
    title="VS Code with GitHub Copilot",
    sources=("vscode-copilot", "openai-tools"),
    removed=frozenset(),
    formats=None,
    forbidden=frozenset(),
    array_items=True,
    names=(NameRule("mcp_{server}_", 64, "warning", "vscode-copilot"),),
    max_tools=128,
)

WINDSURF = Profile(
    name="windsurf",
    title="Windsurf (Cascade)",
    sources=("windsurf", "anthropic-tools"),
    removed=frozenset(),
    formats=None,
    forbidden=frozenset(),
    names=(NameRule("", 64, "error", "anthropic-tools"),),
    max_tools=100,
)

PORTABLE = Profile(
    name="portable",
    title="every client above, without strict mode",
    sources=("gemini-schema", "anthropic-tools", "openai-tools", "claude-code", "cursor", "windsurf"),
    removed=_GEMINI_DROPS,
    formats=_GEMINI_FORMATS,
    forbidden=_COMBINATORS_BEYOND_ANYOF,
    root_forbidden=_ROOT_COMBINATORS,
    objects="drop",
    nullable="keyword",
    inline_refs=True,
    string_enums=True,
    const_as_enum=True,
    array_items=True,
    object_properties=True,
    typed=True,
    name_pattern=r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$",
    names=(
        NameRule("mcp__{server}__", 64, "error", "claude-code"),
        NameRule("{server}", 59, "error", "cursor"),
    ),
    max_tools=100,
)

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        OPENAI_STRICT, ANTHROPIC_STRICT, GEMINI, GEMINI_JSON_SCHEMA, CLAUDE_DESKTOP, CLAUDE_CODE,
        CURSOR, VSCODE_COPILOT, WINDSURF, PORTABLE,
    )
}  # fmt: skip
# The profile `mcpgen config CLIENT` checks the served tools against, by client.
CLIENT_PROFILES = {
    "claude-desktop": "claude-desktop",
    "claude-code": "claude-code",
    "cursor": "cursor",
    "vscode": "vscode-copilot",
    "windsurf": "windsurf",
}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile '{name}'; known: {', '.join(PROFILES)}") from None
