"""Client and provider profiles: each transform passes its own lint profile, golden transforms of the
examples, and the generated server still checks what a profile dropped from the served schemas.
The documented rejections are in test_profile_rules.py, the providers' own SDKs in test_profile_sdks.py."""

from __future__ import annotations

import copy
import importlib
import json
import os
import sys
from pathlib import Path

import pytest

from mcpgen.build.contract import contract
from mcpgen.diagnostics import Level
from mcpgen.lint.rules import lint_tools
from mcpgen.pipeline import generate
from mcpgen.profiles import ANTHROPIC_STRICT, GEMINI, OPENAI_STRICT, PROFILES, apply_profile
from mcpgen.write.plan import apply_write, plan_write

ROOT = Path(__file__).resolve().parents[2]
PETSTORE = ROOT / "specs" / "petstore"
EXAMPLES = sorted(p.parent.name for p in (ROOT / "specs").glob("*/mapping.yaml"))
GOLDEN = ROOT / "tests" / "fixtures" / "profiles"

TOOL = {
    "name": "svc_orders",
    "description": "Orders. Use it for orders. Do not use it for pets. Returns the order.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["get", "list"], "description": "What to do."},
            "order_id": {
                "type": "integer",
                "format": "int64",
                "minimum": 1,
                "maximum": 10,
                "description": "Order id.",
            },
            "limit": {"type": "integer", "default": 20, "description": "Page size."},
            "tags": {"type": "array", "items": {}, "maxItems": 5, "description": "Tags."},
            "note": {"type": "string", "maxLength": 30, "pattern": "^[a-z ]+$", "format": "uri"},
            "filter": {
                "type": "object",
                "properties": {"state": {"type": "string", "enum": ["open", "done"]}},
            },
            "meta": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["action"],
        "additionalProperties": False,
    },
}


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_each_transform_passes_its_own_profile(profile: str) -> None:
    chosen = PROFILES[profile]
    before = copy.deepcopy(TOOL)
    if profile in ("anthropic-strict", "openai-strict", "gemini", "portable"):  # the rest take TOOL as it is
        assert any(f.level == Level.ERROR for f in lint_tools([TOOL], profile=chosen).findings)
    transformed, notes = apply_profile([TOOL], chosen)
    assert TOOL == before  # pure
    assert [f for f in lint_tools(transformed, profile=chosen).findings if f.level == Level.ERROR] == []
    if chosen.objects == "close":
        assert any("free-form" in n.message for n in notes)
    if chosen.object_properties:  # an object without properties cannot be written: left out, and said
        assert "meta" not in transformed[0]["inputSchema"]["properties"]
        assert any(n.pointer == "/properties/meta" and "left out" in n.message for n in notes)


def test_dropped_constraints_are_described() -> None:
    [tool], _ = apply_profile([TOOL], ANTHROPIC_STRICT)
    props = tool["inputSchema"]["properties"]
    assert props["order_id"]["description"] == "Order id. At least 1. At most 10."
    assert "minimum" not in props["order_id"] and "format" not in props["order_id"]
    assert (
        "At most 30 characters." in props["note"]["description"] and "pattern" in props["note"]["description"]
    )
    assert props["note"]["format"] == "uri"  # Anthropic accepts uri
    assert props["filter"]["additionalProperties"] is False


def test_openai_strict_requires_everything_and_makes_optional_nullable() -> None:
    [tool], _ = apply_profile([TOOL], OPENAI_STRICT)
    schema = tool["inputSchema"]
    assert schema["required"] == list(schema["properties"])
    props = schema["properties"]
    assert props["action"]["type"] == "string"  # required stays non-null
    assert props["order_id"]["type"] == ["integer", "null"] and props["order_id"]["maximum"] == 10
    assert "default" not in props["limit"] and "Default: 20." in props["limit"]["description"]
    assert props["tags"]["items"]["type"] == ["string", "number", "boolean"]
    assert props["filter"]["properties"]["state"]["enum"] == ["open", "done", None]
    assert props["filter"]["required"] == ["state"]
    assert "format" not in props["note"] and "Format: uri." in props["note"]["description"]


def test_gemini_writes_one_type_strings_in_enums_and_no_open_objects() -> None:
    tool = {
        "name": "svc_things",
        "description": "Things.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "size": {"type": ["integer", "null"], "enum": [1, 2, None], "default": 1, "description": "Size."},
                "kind": {"const": "a"},
                "where": {"$ref": "#/$defs/place"},
            },
            "$defs": {"place": {"type": "object", "properties": {"city": {"type": "string"}},
                                "additionalProperties": False}},
            "additionalProperties": False,
        },
    }  # fmt: skip
    [out], _ = apply_profile([tool], GEMINI)
    schema = out["inputSchema"]
    assert "$defs" not in schema and "additionalProperties" not in schema
    size = schema["properties"]["size"]
    assert size == {"type": "integer", "description": "Size. One of 1, 2. Default: 1.", "nullable": True}
    assert schema["properties"]["kind"] == {"enum": ["a"], "type": "string"}
    assert schema["properties"]["where"] == {"type": "object", "properties": {"city": {"type": "string"}}}


def _spec_and_mapping(example: str) -> tuple[Path, Path]:
    folder = ROOT / "specs" / example
    [spec] = [p for p in folder.iterdir() if ".openapi." in p.name]
    return spec, folder / "mapping.yaml"


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_generated_contracts_pass_their_profile(profile: str) -> None:
    chosen = PROFILES[profile]
    for example in EXAMPLES:
        result = generate(*_spec_and_mapping(example), chosen)
        assert result.ok and result.server is not None
        report = lint_tools(contract(result.server, chosen), profile=chosen, server_name=result.server.name)
        assert [f for f in report.findings if f.level == Level.ERROR] == [], example


@pytest.mark.parametrize("example", EXAMPLES)
def test_golden_transforms_of_the_examples(example: str) -> None:
    """What each profile serves for each example, as committed in tests/fixtures/profiles/ (review a
    change there like generated/; MCPGEN_REGEN_PROFILES=1 rewrites them)."""
    [served] = (ROOT / "generated" / example).glob("*/tools.json")
    tools = json.loads(served.read_text(encoding="utf-8"))
    for name, profile in PROFILES.items():
        transformed, notes = apply_profile(tools, profile)
        text = json.dumps(
            {"tools": [{"name": t["name"], "inputSchema": t["inputSchema"]} for t in transformed],
             "notes": [[n.tool, n.pointer, n.message] for n in notes]},
            indent=2, ensure_ascii=False,
        ) + "\n"  # fmt: skip
        golden = GOLDEN / example / f"{name}.json"
        if os.environ.get("MCPGEN_REGEN_PROFILES") == "1":
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text, encoding="utf-8")
        assert golden.read_text(encoding="utf-8") == text, f"{golden} (MCPGEN_REGEN_PROFILES=1 rewrites it)"


def test_the_generated_server_still_checks_what_the_profile_dropped(tmp_path: Path) -> None:
    result = generate(PETSTORE / "petstore.openapi.json", PETSTORE / "mapping.yaml", ANTHROPIC_STRICT)
    assert result.ok
    apply_write(plan_write(tmp_path, result.files, generator="test"))
    package = tmp_path / "petstore_mcp"
    served = json.loads((package / "tools.json").read_text(encoding="utf-8"))
    orders = next(t for t in served if t["name"] == "petstore_orders")
    assert "maximum" not in orders["inputSchema"]["properties"]["order_id"]
    # The bound is action get's own (delete takes any id): the server checks it per action (T2).
    full = json.loads((package / "input_schemas.json").read_text(encoding="utf-8"))
    assert "maximum" not in full["petstore_orders"]["properties"]["order_id"]

    sys.path.insert(0, str(tmp_path))
    try:
        app = importlib.import_module("petstore_mcp._runtime.app")
        dispatch = importlib.import_module("petstore_mcp._runtime.dispatch")
        errors = importlib.import_module("petstore_mcp._runtime.errors")
        tools = importlib.import_module("petstore_mcp.tools")
        server = importlib.import_module("petstore_mcp.server")
        dispatcher = dispatch.Dispatcher(
            server.CONFIG,
            app.load_contract("petstore_mcp"),
            tools.TOOLS,
            app.load_input_schemas("petstore_mcp"),
        )
        validator = dispatcher.validators["petstore_orders"]
        validator.check({"action": "get", "order_id": 7})
        with pytest.raises(errors.ToolError, match="maximum of 10"):
            validator.check({"action": "get", "order_id": 11})
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "petstore_mcp" or m.startswith("petstore_mcp.")]:
            del sys.modules[name]
