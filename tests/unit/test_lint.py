"""`mcpgen lint`: flags the one-tool-per-endpoint style, passes mcpgen's own example, counts tokens
as tiktoken does, and degrades gracefully without its token counter."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mcpgen.build.contract import contract
from mcpgen.cli.app import app
from mcpgen.diagnostics import Level
from mcpgen.lint.rules import lint_tools, prose_sentences, schema_depth
from mcpgen.lint.tokens import TokenCounter, definition_text, load_counter
from mcpgen.pipeline import generate

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
PETSTORE = SPECS / "petstore"


def _checks(tools: list[Any], **kwargs: Any) -> dict[str, Level]:
    report = lint_tools(tools, **kwargs)
    return {f.check: f.level for f in report.findings}


def _tool(name: str = "svc_things_find", description: str | None = None, **properties: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description
        or "Find things in the service. Use it before changing a thing. Do not use it to change things; "
        "use svc_things_change for that. Returns the matching things.",
        "inputSchema": {
            "type": "object",
            "properties": properties
            or {"query": {"type": "string", "description": "Words to match, e.g. 'red'."}},
            "additionalProperties": False,
        },
    }


# --- a peer's surface: one tool per endpoint --------------------------------------------------------


def _rewrite_refs(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: (v.replace("#/components/schemas/", "#/$defs/") if k == "$ref" else _rewrite_refs(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_rewrite_refs(v) for v in value]
    return value


def peer_style_contract(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """What an endpoint wrapper serves: a tool per operation, named by operationId, described by its
    summary, parameters as written, the body nested under 'body' by $ref, components as $defs."""
    defs = _rewrite_refs(spec.get("components", {}).get("schemas", {}))
    tools = []
    for path, item in spec["paths"].items():
        for method, op in item.items():
            properties: dict[str, Any] = {}
            required = []
            for param in op.get("parameters", []):
                properties[param["name"]] = _rewrite_refs(
                    {**param.get("schema", {}), "description": param.get("description", "")}
                )
                if param.get("required"):
                    required.append(param["name"])
            body = op.get("requestBody") or {}
            if "$ref" in body:
                body = spec["components"]["requestBodies"][body["$ref"].rsplit("/", 1)[-1]]
            content = body.get("content", {})
            if "application/json" in content:
                properties["body"] = _rewrite_refs(content["application/json"]["schema"])
            tools.append(
                {
                    "name": op.get("operationId") or f"{method}_{path}",
                    "description": op.get("summary", ""),
                    "inputSchema": {
                        "type": "object",
                        "properties": properties,
                        "required": required,
                        "$defs": defs,
                    },
                }
            )
    return tools


def test_lint_flags_the_endpoint_wrapper_style() -> None:
    spec = json.loads((PETSTORE / "petstore.openapi.json").read_text(encoding="utf-8"))
    tools = peer_style_contract(spec)
    assert len(tools) == 20
    report = lint_tools(tools, counter=TokenCounter("chars/4", lambda text: len(text) // 4), budget=2_000)
    checks = {(f.rule, f.check) for f in report.findings}
    assert {
        ("T3", "tool-count"),
        ("T3", "discovery"),
        ("T3", "token-budget"),
        ("T6", "ref"),
        ("T6", "additional-properties"),
        ("T7", "description-sentences"),
        ("T7", "when-not"),
    } <= checks
    sentences = [f for f in report.findings if f.check == "description-sentences"]
    assert len(sentences) == 20  # every terse summary
    refs = [f for f in report.findings if f.check == "ref"]
    assert all(f.tool and f.pointer.startswith("/") and "/inputSchema/" in f.pointer for f in refs)
    assert any(f.pointer.endswith("/inputSchema/properties/body") for f in refs)  # the nested body


@pytest.mark.parametrize(
    "example", ["petstore/petstore.openapi.json", "ads/ads.openapi.yaml", "deploy/deploy.openapi.yaml"]
)
def test_mcpgen_examples_lint_clean(example: str) -> None:
    spec = SPECS / example
    result = generate(spec, spec.parent / "mapping.yaml")
    assert result.ok and result.server is not None
    report = lint_tools(contract(result.server))
    assert [f for f in report.findings if f.level >= Level.WARNING] == []


# --- single checks ---------------------------------------------------------------------------------


def test_names() -> None:
    assert _checks([_tool("x" * 65)])["name-pattern"] == Level.ERROR
    assert _checks([_tool("svc.things")])["name-pattern"] == Level.ERROR
    assert _checks([_tool("svc_" + "x" * 50)])["name-length"] == Level.WARNING
    assert "name-length" not in _checks([_tool("svc_" + "x" * 46)])
    assert _checks([_tool("svc_a"), _tool("svc_a")])["name-unique"] == Level.ERROR
    assert _checks([_tool("svc_a"), _tool("other_b")])["name-prefix"] == Level.INFO


def test_descriptions() -> None:
    assert _checks([_tool(description="Gets things.")])["description-sentences"] == Level.WARNING
    shouting = _tool(
        description="Find things. You MUST call it first. It is CRITICAL. Do not use it to change. Returns things."
    )
    assert _checks([shouting])["shouting"] == Level.WARNING
    no_when_not = _tool(description="Find things. Use it to look things up. Returns the things found.")
    assert _checks([no_when_not])["when-not"] == Level.WARNING
    assert "description-sentences" not in _checks([_tool()])
    assert "when-not" not in _checks([_tool()])
    # Action lists and headings are not prose.
    assert (
        len(prose_sentences("One thing here. Two things here.\n\nActions:\n- a: Does a.\n- b: Does b.")) == 2
    )


def test_schemas() -> None:
    union = {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "An id, e.g. 4."}
    assert _checks([_tool(id=union)])["combinator"] == Level.ERROR
    array = {"type": "array", "description": "Tags, e.g. ['a']."}
    assert _checks([_tool(tags=array)])["array-items"] == Level.WARNING
    remote = {"$ref": "https://example.com/schema.json", "description": "x, e.g. 1"}
    assert _checks([_tool(thing=remote)])["ref"] == Level.ERROR
    deep = {
        "type": "object",
        "description": "Nested, e.g. {}.",
        "properties": {
            "a": {
                "type": "object",
                "properties": {
                    "b": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"c": {"type": "string"}}},
                    }
                },
            }
        },
    }
    assert schema_depth(deep) == 3  # spec.a, a.b[], b[].c: the array adds no level of its own
    assert _checks([_tool(spec=deep)])["schema-depth"] == Level.WARNING
    loose = _tool()
    del loose["inputSchema"]["additionalProperties"]
    assert _checks([loose])["additional-properties"] == Level.WARNING


def test_parameters() -> None:
    checks = _checks([_tool(timeout={"type": "integer", "description": "How long to wait, in seconds."})])
    assert checks["unit-in-name"] == Level.WARNING
    assert "unit-in-name" not in _checks(
        [_tool(timeout_s={"type": "integer", "description": "Wait, in seconds."})]
    )
    assert _checks([_tool(owner={"type": "string"})])["param-description"] == Level.WARNING
    assert (
        _checks([_tool(owner={"type": "string", "description": "The owner."})])["param-example"] == Level.INFO
    )
    assert "param-example" not in _checks(
        [_tool(state={"type": "string", "enum": ["open"], "description": "State."})]
    )


def test_tool_count_and_discovery() -> None:
    many = [_tool(f"svc_tool{i}") for i in range(12)]
    assert _checks(many)["discovery"] == Level.WARNING
    assert "tool-count" not in _checks(many)
    with_search = [*many, _tool("svc_search_tools")]
    assert "discovery" not in _checks(with_search)
    assert _checks([_tool(f"svc_tool{i}") for i in range(16)])["tool-count"] == Level.WARNING


# --- tokens ----------------------------------------------------------------------------------------


def test_a_missing_token_counter_is_a_note_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bpe_openai", None)  # as if the install had lost it
    counter, note = load_counter()
    assert counter is None and "bpe-openai is not installed" in (note or "")
    report = lint_tools([_tool()], token_note=note)
    assert report.tokens is None and report.token_note == note


def test_an_encoding_the_counter_lacks_is_a_note_not_a_crash() -> None:
    counter, note = load_counter("no_such_base")
    assert counter is None and "could not load no_such_base" in (note or "")


def test_tokens_are_counted_offline_from_the_package_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/nonexistent")  # nothing but bpe-openai's own data
    counter, note = load_counter()
    assert counter is not None and note is None
    assert counter.count("hello <|endoftext|> world") > 3  # a special token's text is ordinary text


# The golden packages' tools/list entries, each as the definition text lint counts.
GOLDEN_DEFINITIONS = [
    tool
    for contract_file in sorted((ROOT / "generated").glob("*/*_mcp/tools.json"))
    for tool in json.loads(contract_file.read_text(encoding="utf-8"))
]


def test_token_counts_equal_tiktokens_on_real_tool_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken (test-only) is the oracle, fed the o200k_base file scripts/fetch_specs builds."""
    tiktoken = pytest.importorskip("tiktoken")
    # scripts/test points TIKTOKEN_CACHE_DIR at the file scripts/fetch_specs builds.
    cache = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or ROOT / ".cache" / "tiktoken" / "tiktoken_cache")
    if not cache.is_dir() or not any(cache.iterdir()):
        pytest.skip(f"{cache} holds no o200k_base: run python3 scripts/fetch_specs tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    oracle = tiktoken.get_encoding("o200k_base")
    counter, _ = load_counter()
    assert counter is not None and len(GOLDEN_DEFINITIONS) >= 10
    texts = [definition_text(tool) for tool in GOLDEN_DEFINITIONS]
    texts.append(definition_text([*GOLDEN_DEFINITIONS, {"description": "ends <|endoftext|> here"}]))
    assert [counter.count(t) for t in texts] == [len(oracle.encode_ordinary(t)) for t in texts]


def test_tokens_counted_per_tool_and_in_total() -> None:
    report = lint_tools([_tool("svc_a"), _tool("svc_b")], counter=TokenCounter("chars", len))
    assert report.tokens is not None
    assert [name for name, _ in report.tokens.per_tool] == ["svc_a", "svc_b"]
    assert report.tokens.total > sum(count for _, count in report.tokens.per_tool)


# --- the command ----------------------------------------------------------------------------------


def test_cli_lint_a_peer_tool_list(tmp_path: Path) -> None:
    spec = json.loads((PETSTORE / "petstore.openapi.json").read_text(encoding="utf-8"))
    tools_json = tmp_path / "tools.json"
    tools_json.write_text(json.dumps({"tools": peer_style_contract(spec)}), encoding="utf-8")
    runner = CliRunner()
    text = runner.invoke(app, ["lint", str(tools_json)])
    assert text.exit_code == 0, text.output  # warnings only, at --fail-on error
    assert "T3 few tools" in text.output and "warning tool-count (1)" in text.output
    strict = runner.invoke(app, ["lint", str(tools_json), "--fail-on", "warning", "--format", "json"])
    assert strict.exit_code == 1
    data = json.loads(strict.output)
    assert data["tools"] == 20 and data["counts"]["warning"] > 0
    assert {"rule", "check", "level", "tool", "pointer", "message"} <= set(data["findings"][0])


def test_cli_lint_spec_and_mapping_points_at_the_mapping_file() -> None:
    result = CliRunner().invoke(
        app,
        [
            "lint",
            str(PETSTORE / "petstore.openapi.json"),
            "--mapping",
            str(PETSTORE / "mapping.yaml"),
            "--format",
            "json",
            "--profile",
            "anthropic-strict",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["counts"]["error"] == 0 and data["profile"] == "anthropic-strict"
    assert all(f["file"].endswith("mapping.yaml") and f["line"] for f in data["findings"])


def test_cli_lint_a_generated_package(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    runner = CliRunner()
    generated = runner.invoke(
        app,
        [
            "generate",
            str(PETSTORE / "petstore.openapi.json"),
            "-m",
            str(PETSTORE / "mapping.yaml"),
            "-o",
            str(out),
            "-q",
        ],
    )
    assert generated.exit_code == 0, generated.output
    assert runner.invoke(app, ["lint", str(out)]).exit_code == 0
    # The unprofiled package does not pass a strict profile: the profile checks bite.
    strict = runner.invoke(app, ["lint", str(out), "--profile", "openai-strict"])
    assert strict.exit_code == 1 and "openai-strict/required" in strict.output


def test_cli_lint_unreadable_inputs(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["lint", str(tmp_path / "missing.json")]).exit_code == 1
    spec_only = runner.invoke(app, ["lint", str(PETSTORE / "petstore.openapi.json")])
    assert spec_only.exit_code == 1 and "--mapping" in spec_only.output
    assert runner.invoke(app, ["lint", str(tmp_path), "--profile", "nope"]).exit_code == 2
