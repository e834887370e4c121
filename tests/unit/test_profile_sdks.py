"""The providers' own Python SDKs judge the transformed tools of every golden package and of the package
`mcpgen init` drafts for GitHub's whole API (1,223 operations): oracles mcpgen did not write.

- openai 3.60.0: `openai.lib._pydantic._ensure_strict_json_schema` makes a schema what strict function
  calling takes; an openai-strict schema must be its fixed point (the SDK would change nothing).
- google-genai 3.6.1: `types.FunctionDeclaration` with `parameters` (pydantic `types.Schema`, unknown
  keywords forbidden, enums of strings) for gemini and portable; `types.JSONSchema` and
  `parameters_json_schema` for gemini-json-schema.
- anthropic 2.10.0: `anthropic.lib._parse._transform.transform_schema` moves whatever strict mode does not
  take into the description; an anthropic-strict schema must come back with every description as it was.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from mcpgen.build.contract import contract
from mcpgen.pipeline import generate
from mcpgen.profiles import PROFILES, apply_profile
from tests.support.paths import GENERATED, shared_spec
from tests.unit.cli import run_cli

genai_types = pytest.importorskip("google.genai.types")
openai_pydantic = pytest.importorskip("openai.lib._pydantic")
anthropic_transform = pytest.importorskip("anthropic.lib._parse._transform")

PACKAGES = sorted(p.parent.parent.name for p in GENERATED.glob("*/*/tools.json"))


def _golden(example: str) -> list[dict[str, Any]]:
    [served] = (GENERATED / example).glob("*/tools.json")
    return json.loads(served.read_text(encoding="utf-8"))


@cache
def _github_tools(work: Path) -> list[dict[str, Any]]:
    spec = shared_spec("github.json")
    mapping = work / "github.mapping.yaml"
    drafted = run_cli("init", spec, "-o", mapping)
    assert drafted.returncode == 0, drafted.stderr
    result = generate(spec, mapping, None)
    assert result.server is not None
    return contract(result.server)


@pytest.fixture(scope="module")
def github_tools(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return _github_tools(tmp_path_factory.mktemp("github"))


def _openai_strict(tool: dict[str, Any]) -> None:
    schema = tool["inputSchema"]
    again = copy.deepcopy(schema)
    assert openai_pydantic._ensure_strict_json_schema(again, path=(), root=again) == schema, tool["name"]


def _gemini(tool: dict[str, Any]) -> None:
    genai_types.FunctionDeclaration.model_validate(
        {"name": tool["name"], "description": tool["description"], "parameters": tool["inputSchema"]}
    )


def _gemini_json_schema(tool: dict[str, Any]) -> None:
    genai_types.JSONSchema.model_validate(tool["inputSchema"])
    genai_types.FunctionDeclaration.model_validate(
        {
            "name": tool["name"],
            "description": tool["description"],
            "parameters_json_schema": tool["inputSchema"],
        }
    )


_PER_TYPE = {"object": ("properties", "required", "additionalProperties"), "array": ("items", "minItems")}


def _as_any_of(schema: Any) -> Any:
    """A type list written as anyOf, each branch with its type's own keywords: the SDK's transform reads
    only one type a schema (the API takes both forms)."""
    if isinstance(schema, list):
        return [_as_any_of(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {k: (_as_any_of(v) if k in ("properties", "items", "anyOf") else v) for k, v in schema.items()}
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {k: _as_any_of(v) for k, v in schema["properties"].items()}
    type_ = schema.get("type")
    if not isinstance(type_, list):
        return schema
    own = {k for keys in _PER_TYPE.values() for k in keys} | {"format"}
    branches = [
        {
            "type": t,
            **{
                k: schema[k]
                for k in (*_PER_TYPE.get(t, ()), *(("format",) if t == "string" else ()))
                if k in schema
            },
        }
        for t in type_
    ]
    rest = {k: v for k, v in schema.items() if k != "type" and k not in own}
    return {**rest, "anyOf": branches}


def _descriptions(schema: Any, pointer: str = "") -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    found = {pointer: schema.get("description")}
    for name, child in (schema.get("properties") or {}).items():
        found.update(_descriptions(child, f"{pointer}/properties/{name}"))
    for index, child in enumerate(schema.get("anyOf") or ()):
        found.update(_descriptions(child, f"{pointer}/anyOf/{index}"))
    if isinstance(schema.get("items"), dict):
        found.update(_descriptions(schema["items"], f"{pointer}/items"))
    return found


def _anthropic_strict(tool: dict[str, Any]) -> None:
    schema = _as_any_of(tool["inputSchema"])
    assert _descriptions(anthropic_transform.transform_schema(schema)) == _descriptions(schema), tool["name"]


ORACLES = {
    "openai-strict": _openai_strict,
    "gemini": _gemini,
    "portable": _gemini,
    "gemini-json-schema": _gemini_json_schema,
    "anthropic-strict": _anthropic_strict,
}


@pytest.mark.parametrize("profile", sorted(ORACLES))
@pytest.mark.parametrize("example", PACKAGES)
def test_the_providers_sdk_takes_every_golden_package(example: str, profile: str) -> None:
    transformed, _ = apply_profile(_golden(example), PROFILES[profile])
    for tool in transformed:
        ORACLES[profile](tool)


@pytest.mark.parametrize("profile", sorted(ORACLES))
def test_the_providers_sdk_takes_githubs_drafted_package(
    github_tools: list[dict[str, Any]], profile: str
) -> None:
    transformed, _ = apply_profile(github_tools, PROFILES[profile])
    assert len(transformed) > 100
    for tool in transformed:
        ORACLES[profile](tool)


@pytest.mark.parametrize("profile", ["gemini", "portable"])
def test_the_sdk_refuses_what_the_transform_removes(profile: str) -> None:
    """The oracle is not blind: the untransformed golden tools fail it where the lint says they would."""
    raw = _golden("petstore")
    with pytest.raises(ValueError):
        for tool in raw:
            _gemini({**tool, "inputSchema": {**tool["inputSchema"], "properties": {"x": {"const": "a"}}}})
    with pytest.raises(AssertionError):
        _openai_strict(
            {"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}
        )
