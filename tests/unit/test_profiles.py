"""Provider profiles: each transform passes its own lint profile, and the generated server still checks
what a profile dropped from the served schemas."""

from __future__ import annotations

import copy
import importlib
import json
import sys
from pathlib import Path

import pytest

from mcpgen.build.contract import contract
from mcpgen.diagnostics import Level
from mcpgen.lint.rules import lint_tools
from mcpgen.pipeline import generate
from mcpgen.profiles import ANTHROPIC_STRICT, OPENAI_STRICT, PROFILES, apply_profile
from mcpgen.write.plan import apply_write, plan_write

ROOT = Path(__file__).resolve().parents[2]
PETSTORE = ROOT / "specs" / "petstore"

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
    assert any(f.level == Level.ERROR for f in lint_tools([TOOL], profile=chosen).findings)
    transformed, notes = apply_profile([TOOL], chosen)
    assert TOOL == before  # pure
    assert [f for f in lint_tools(transformed, profile=chosen).findings if f.level == Level.ERROR] == []
    assert any("free-form" in n.message for n in notes)


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


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_generated_contracts_pass_their_profile(profile: str) -> None:
    chosen = PROFILES[profile]
    specs = [(PETSTORE / "petstore.openapi.json", PETSTORE / "mapping.yaml")]
    for spec, mapping in specs:
        result = generate(spec, mapping, chosen)
        assert result.ok and result.server is not None
        report = lint_tools(contract(result.server, chosen), profile=chosen)
        assert [f for f in report.findings if f.level == Level.ERROR] == []


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
