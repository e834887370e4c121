"""Every documented rejection of each profile's target, as a fixture: the lint rejects the schema (or the
name, or the count) with that profile's check, and where a transform can express the schema, the
transformed tool lints clean. The error each target answers with is quoted beside the fixture (the
sources are cited in mcpgen/profiles/catalog.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpgen.diagnostics import Level
from mcpgen.lint.rules import lint_tools
from mcpgen.profiles import PROFILES, apply_profile
from tests.support.paths import SPECS
from tests.unit.cli import run_cli


def _tool(name: str = "svc_things", **params: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": "Things.",
        "inputSchema": {"type": "object", "properties": params, "additionalProperties": False},
    }


def _errors(tools: list[dict[str, Any]], profile: str, server: str | None = "svc") -> list[str]:
    report = lint_tools(tools, profile=PROFILES[profile], server_name=server)
    return [f.check for f in report.findings if f.level == Level.ERROR and f.check.startswith(profile)]


# (profile, parameter schema, the check that rejects it, what the target answers)
SCHEMAS = [
    ("openai-strict", {"type": "string", "format": "uri"}, "openai-strict/format",
     "Invalid schema for function: format 'uri' is not supported"),
    ("openai-strict", {"type": "object", "properties": {"a": {"type": "string"}}},
     "openai-strict/additional-properties",
     "'additionalProperties' is required to be supplied and to be false"),
    ("openai-strict", {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
     "openai-strict/required",
     "'required' is required to be supplied and to be an array including every key in properties. Missing 'a'"),
    ("openai-strict", {"type": "array"}, "openai-strict/items", "array schema missing items"),
    ("openai-strict", {"type": "integer", "default": 5}, "openai-strict/keyword",
     "Azure OpenAI strict mode: 'default' is not permitted"),
    ("openai-strict", {"type": "string", "maxLength": 5}, "openai-strict/keyword", "maxLength is not permitted"),
    ("anthropic-strict", {"type": "integer", "minimum": 1}, "anthropic-strict/keyword",
     "numerical constraints are not supported"),
    ("anthropic-strict", {"type": "array", "items": {"type": "string"}, "minItems": 2}, "anthropic-strict/keyword",
     "minItems values other than 0 and 1 are not supported"),
    ("anthropic-strict", {"type": "string", "format": "int-id"}, "anthropic-strict/format",
     "unsupported string format"),
    ("anthropic-strict", {"type": "object", "properties": {"a": {"type": "string"}}},
     "anthropic-strict/additional-properties", "additionalProperties must be false"),
    ("gemini", {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
     "gemini/keyword", 'Unknown name "additionalProperties" at \'tools[0].function_declarations[0].parameters\''),
    ("gemini", {"type": "string", "default": "x"}, "gemini/keyword", 'Unknown name "default": Cannot find field.'),
    ("gemini", {"const": "x"}, "gemini/keyword", 'Unknown name "const": Cannot find field.'),
    ("gemini", {"type": ["string", "null"]}, "gemini/type", "Proto field is not repeating, cannot start list."),
    ("gemini", {"type": "integer", "enum": [1, 2]}, "gemini/keyword", "enum: only allowed for STRING type"),
    ("gemini", {"type": "array"}, "gemini/items", "parameters.properties[x].items: missing field."),
    ("gemini", {"type": "object"}, "gemini/properties", "properties: should be non-empty for OBJECT type"),
    ("gemini", {"type": "string", "format": "uri"}, "gemini/format", "format 'uri' is not supported"),
    ("gemini", {"type": "number", "exclusiveMinimum": 0}, "gemini/keyword",
     'Unknown name "exclusiveMinimum": Cannot find field.'),
    ("gemini-json-schema", {"const": "x"}, "gemini-json-schema/keyword", "const is not part of parametersJsonSchema"),
    ("gemini-json-schema", {"type": "number", "multipleOf": 5}, "gemini-json-schema/keyword",
     "multipleOf is not part of parametersJsonSchema"),
    ("vscode-copilot", {"type": "array"}, "vscode-copilot/items",
     "Invalid schema for function: array schema missing items"),
    ("portable", {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
     "portable/keyword", 'Unknown name "additionalProperties"'),
    ("portable", {"type": ["integer", "null"]}, "portable/type", "Proto field is not repeating"),
    ("portable", {"type": "array"}, "portable/items", "items: missing field."),
]  # fmt: skip


@pytest.mark.parametrize(("profile", "schema", "check", "answer"), SCHEMAS)
def test_a_documented_rejection_is_linted_and_fixed_by_the_transform(
    profile: str, schema: dict[str, Any], check: str, answer: str
) -> None:
    tool = _tool(param=schema)
    assert check in _errors([tool], profile), answer
    transformed, _ = apply_profile([tool], PROFILES[profile])
    assert _errors(transformed, profile) == [], answer


def test_a_gemini_ref_is_rejected_and_inlined() -> None:
    """Unknown name "$ref" at '...parameters.properties[0].value': Cannot find field."""
    tool = _tool(where={"$ref": "#/$defs/place"})
    tool["inputSchema"]["$defs"] = {"place": {"type": "object", "properties": {"city": {"type": "string"}}}}
    for profile in ("gemini", "portable"):
        assert f"{profile}/keyword" in _errors([tool], profile)
        transformed, _ = apply_profile([tool], PROFILES[profile])
        assert _errors(transformed, profile) == []
        assert transformed[0]["inputSchema"]["properties"]["where"]["properties"] == {
            "city": {"type": "string"}
        }
    kept, _ = apply_profile([tool], PROFILES["gemini-json-schema"])  # parametersJsonSchema takes $ref
    assert kept[0]["inputSchema"]["properties"]["where"] == {"$ref": "#/$defs/place"}


@pytest.mark.parametrize("profile", ["anthropic-strict", "claude-desktop", "claude-code", "portable"])
def test_a_top_level_combinator_is_rejected(profile: str) -> None:
    """ "input_schema does not support oneOf, allOf, or anyOf at the top level" (no transform writes
    one away: mcpgen's own tools never have one, T2)."""
    tool = _tool(a={"type": "string"})
    tool["inputSchema"]["anyOf"] = [{"required": ["a"]}]
    assert f"{profile}/root" in _errors([tool], profile)


# (profile, tool name, server name, check): names are the mapping's decision, so the lint only reports.
NAMES = [
    ("claude-desktop", "svc.things", "svc", "claude-desktop/name"),  # the whole server is withheld
    ("openai-strict", "svc things", "svc", "openai-strict/name"),  # string does not match pattern
    ("gemini", "1svc_things", "svc", "gemini/name"),  # Must start with a letter or an underscore
    ("claude-code", "svc_" + "x" * 52, "svc", "claude-code/name-length"),  # mcp__svc__ + 56 = 66 > 64
    ("cursor", "svc_" + "x" * 52, "svcsvc", "cursor/name-length"),  # 6 + 56 = 62: filtered out
    ("portable", "svc_" + "x" * 48, "service", "portable/name-length"),  # mcp__service__ + 52 = 66
    ("windsurf", "svc_" + "x" * 61, "svc", "windsurf/name-length"),  # 65 > 64
]


@pytest.mark.parametrize(("profile", "name", "server", "check"), NAMES)
def test_names_past_a_clients_pattern_or_budget(profile: str, name: str, server: str, check: str) -> None:
    transformed, _ = apply_profile([_tool(name)], PROFILES[profile])
    assert check in _errors(transformed, profile, server)
    short, _ = apply_profile([_tool("svc_things")], PROFILES[profile])
    assert _errors(short, profile, server) == []


def test_cursor_counts_the_server_name_and_reaches_its_limit_at_60() -> None:
    """ "Combined server and tool name length (60) exceeds 60 characters": 60 is already too long."""
    assert _errors([_tool("a" * 59)], "cursor", "g") == ["cursor/name-length"]
    assert _errors([_tool("a" * 58)], "cursor", "g") == []


def test_vscode_shortens_rather_than_refuses_so_its_name_budget_warns() -> None:
    report = lint_tools([_tool("svc_" + "x" * 56)], profile=PROFILES["vscode-copilot"], server_name="svc")
    assert [(f.check, f.level) for f in report.findings if f.check.startswith("vscode")] == [
        ("vscode-copilot/name-length", Level.WARNING)
    ]


@pytest.mark.parametrize(
    ("profile", "limit"),
    [("openai-strict", 128), ("vscode-copilot", 128), ("windsurf", 100), ("portable", 100)],
)
def test_tool_count_limits(profile: str, limit: int) -> None:
    """ "Invalid 'tools': array too long. Expected an array with maximum length 128" (OpenAI, Copilot);
    Cascade's limit of 100 tools in all (Windsurf)."""
    tools = [_tool(f"svc_t{i}") for i in range(limit + 1)]
    assert f"{profile}/limits" in _errors(tools, profile)
    assert f"{profile}/limits" not in _errors(tools[:limit], profile)


def test_with_discovery_only_the_listed_meta_tools_count() -> None:
    meta = {"dev.mcpgen/discovery": "search"}
    tools = [_tool(f"svc_t{i}") for i in range(150)] + [{**_tool("svc_search_tools"), "_meta": meta}]
    assert _errors(tools, "windsurf") == []


def test_lint_gives_a_token_figure_per_profile() -> None:
    spec, mapping = SPECS / "ads" / "ads.openapi.yaml", SPECS / "ads" / "mapping.yaml"
    linted = run_cli("lint", spec, "-m", mapping, "--profile", "gemini", "--format", "json")
    report = json.loads(linted.stdout)
    assert list(report["tokens_by_profile"]) == list(PROFILES)
    assert all(isinstance(n, int) and n > 0 for n in report["tokens_by_profile"].values())
    # openai-strict lists every parameter and makes optional ones nullable: it costs more than portable.
    assert report["tokens_by_profile"]["openai-strict"] > report["tokens_by_profile"]["portable"]
    text = run_cli("lint", spec, "-m", mapping).stdout
    assert "tokens listed up front, by profile: openai-strict " in text
