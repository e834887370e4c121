"""mcpgen's Swagger 2.0 conversion (mcpgen/load/swagger2.py) against the reference converter,
swagger2openapi 7.0.8 (pinned in scripts/swagger2openapi/), on real 2.0 documents as their publishers
ship them (scripts/fetch_specs swagger2): the Kubernetes API at four releases, OpenShift's API, and the
Swagger Petstore in three forms. Eight documents of three APIs, 5,142 operations.

Compared operation by operation, what a generated tool is made of: each parameter (required,
description, schema, style, explode), the request body (required, description, the schema of each
media type), the schema of each response's media types, the security requirements; and every
component schema, the security schemes and the servers. No difference is tolerated there.

Differences tolerated, each making no tool (tests/support/swagger2openapi.py reads past them):
- Keywords written beside a `$ref` (Kubernetes' `metadata: {description, $ref}`): swagger2openapi
  removes them; mcpgen keeps the document as written. Swagger 2.0 and OpenAPI 3.0 both ignore them,
  and mcpgen's build reads the `$ref`'s target only (build/schemas.py).
- Where things are placed: swagger2openapi hoists request bodies used by several operations into
  `components/requestBodies` and `$ref`s them; mcpgen writes each in its operation (compared
  dereferenced, they are the same).
- A form field's `collectionFormat`: swagger2openapi drops it; mcpgen keeps it as the field's
  `encoding` (style and explode), so the form is sent as the API reads it. The tool's schema is the same.
  None of these documents has one; tests/unit/test_swagger2.py checks it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpgen.authoring.draft import init_mapping
from mcpgen.load.openapi import load_spec
from mcpgen.pipeline import generate
from tests.support import swagger2openapi as oracle
from tests.support.paths import swagger2_spec

SPECS = (
    "kubernetes-1.10.json",
    "kubernetes-1.11.json",
    "kubernetes-1.12.json",
    "kubernetes-1.13.json",
    "openshift.json",
    "petstore.json",
    "petstore-expanded.json",
    "petstore-with-external-docs.yaml",
)


@pytest.fixture(scope="module")
def converter() -> None:
    if oracle.install() is None:
        pytest.skip("npm is missing, so swagger2openapi cannot be installed (scripts/swagger2openapi)")


def _differences(ours: dict, theirs: dict) -> list[str]:
    found = []
    mine, reference = oracle.tool_facts(ours), oracle.tool_facts(theirs)
    assert sorted(mine) == sorted(reference), "the two conversions have different operations"
    for key, facts in mine.items():
        found += [f"{key}: {part}" for part in facts if facts[part] != reference[key][part]]
    schemas, their_schemas = oracle.component_schemas(ours), oracle.component_schemas(theirs)
    assert sorted(schemas) == sorted(their_schemas)
    found += [f"schema {name}" for name in schemas if schemas[name] != their_schemas[name]]
    if oracle.security_schemes(ours) != oracle.security_schemes(theirs):
        found.append("securitySchemes")
    if ours.get("servers") != theirs.get("servers"):
        found.append("servers")
    return found


@pytest.mark.parametrize("name", SPECS)
def test_the_conversion_makes_the_tools_swagger2openapi_makes(name: str, converter: None) -> None:
    path = swagger2_spec(name)
    spec = load_spec(path)
    assert spec.converted_from == "Swagger 2.0"
    assert spec.invalid == ()  # valid OpenAPI 3.0, nothing lost
    theirs = oracle.convert(path)
    assert _differences(spec.document.data, theirs) == []
    assert len(spec.operations) == len(oracle.tool_facts(theirs)) > 0


@pytest.mark.parametrize("name", SPECS)
def test_the_drafted_mapping_generates(name: str, tmp_path: Path) -> None:
    """`mcpgen init` on the 2.0 document, then `mcpgen generate` with what it drafted: every file
    renders and compiles, with no error."""
    path = swagger2_spec(name)
    text, draft = init_mapping(load_spec(path), spec_label=name, name=None, schema_ref=None)
    assert draft.tools
    (tmp_path / "mapping.yaml").write_text(text, encoding="utf-8")
    result = generate(path, tmp_path / "mapping.yaml")
    assert result.ok, [str(d) for d in result.diagnostics if d.level.name == "ERROR"][:3]
    assert result.files
