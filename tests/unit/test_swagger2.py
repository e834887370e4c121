"""Swagger 2.0 read as OpenAPI 3.0 (mcpgen/load/swagger2.py): each part of tests/fixtures/swagger2/
inventory.yaml converted as the OpenAPI 3.0 specification says it is said there, and every problem
located in the 2.0 file, at its line and 2.0 pointer. tests/unit/test_swagger2_oracle.py compares
the conversion of real documents with swagger2openapi's."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpgen.authoring.draft import init_mapping
from mcpgen.load.openapi import Spec, find_operation, load_spec, problems_for
from tests.support.paths import ROOT
from tests.unit.cli import run_cli

SPEC = ROOT / "tests" / "fixtures" / "swagger2" / "inventory.yaml"
LINES = SPEC.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def spec() -> Spec:
    return load_spec(SPEC, "inventory.yaml")


def _line_of(text: str) -> int:
    return next(i for i, line in enumerate(LINES, 1) if text in line)


def test_host_base_path_and_schemes_are_the_servers(spec: Spec) -> None:
    assert spec.converted_from == "Swagger 2.0"
    assert spec.servers == ("https://api.example.com/v1", "http://api.example.com/v1")
    assert spec.document.data["openapi"] == "3.0.3"
    assert spec.document.data["info"]["x-audience"] == "internal"  # extensions stay where they stand


def test_security_definitions_are_security_schemes_with_3_0_flows(spec: Spec) -> None:
    schemes = spec.security_schemes()
    assert schemes["basic"] == {
        "type": "http",
        "scheme": "basic",
        "description": "Account name and password.",
    }
    assert schemes["key"] == {"type": "apiKey", "in": "header", "name": "X-Api-Key"}
    flows = {name: next(iter(s["flows"])) for name, s in schemes.items() if s["type"] == "oauth2"}
    assert flows == {
        "implicit": "implicit",
        "password": "password",
        "application": "clientCredentials",
        "accessCode": "authorizationCode",
    }
    # A URL's query is not part of an OAuth endpoint in 3.0 (swagger2openapi drops it too).
    assert (
        schemes["implicit"]["flows"]["implicit"]["authorizationUrl"] == "https://auth.example.com/authorize"
    )
    assert schemes["accessCode"]["flows"]["authorizationCode"]["tokenUrl"] == "https://auth.example.com/token"


def test_collection_formats_are_styles(spec: Spec) -> None:
    operation = find_operation(spec, "listItems")
    assert operation is not None
    by_name = {p.value["name"]: p.value for p in operation.parameters}
    assert by_name["limit"]["schema"] == {"type": "integer", "maximum": 100, "default": 20}
    assert (by_name["tags"].get("style"), by_name["tags"]["explode"]) == (None, True)  # multi
    assert (by_name["ids"]["style"], by_name["ids"]["explode"]) == ("form", False)  # csv, the default
    assert by_name["sizes"]["style"] == "pipeDelimited"
    assert operation.located.value["x-rate-limit"] == 10
    header = operation.located.value["responses"]["200"]["headers"]["X-Total"]
    assert header == {"description": "How many there are.", "schema": {"type": "integer"}}


def test_body_and_form_parameters_are_request_bodies(spec: Spec) -> None:
    create = find_operation(spec, "createItem")
    assert create is not None and create.request_body is not None
    assert create.request_body.value == {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
        "required": True,
    }
    assert [p.value["name"] for p in create.parameters] == []
    upload = find_operation(spec, "uploadPhoto")
    assert upload is not None and upload.request_body is not None
    form = upload.request_body.value["content"]["multipart/form-data"]
    assert form["schema"]["properties"]["file"] == {
        "description": "The photo.",
        "type": "string",
        "format": "binary",
    }
    assert form["schema"]["properties"]["caption"]["example"] == "A cat"
    assert form["schema"]["required"] == ["file"]
    # A form list's collectionFormat (csv by default) is its encoding, so it is sent as the API reads it.
    assert form["encoding"] == {"labels": {"style": "form", "explode": False}}
    assert upload.located.value["security"] == [{"application": ["write"]}]


def test_definitions_are_component_schemas_with_refs_rewritten(spec: Spec) -> None:
    item = spec.document.data["components"]["schemas"]["Item"]
    assert item["discriminator"] == {"propertyName": "kind"}
    assert item["properties"]["price"] == {"type": "number", "nullable": True}
    get = find_operation(spec, "getItem")
    assert get is not None
    assert get.located.value["responses"]["404"] == {"$ref": "#/components/responses/NotFound"}
    assert [p.value["name"] for p in get.parameters] == ["id"]
    assert get.parameters[0].value["required"] is True  # a path parameter is required in 3.0


def test_locations_are_the_2_0_files(spec: Spec) -> None:
    """Any converted pointer is reported at the 2.0 pointer and line it came from."""
    located = [
        ("/components/schemas/Item/properties/price", "/definitions/Item/properties/price", "price:"),
        ("/paths/~1items/post/requestBody", "/parameters/item", "item: {name: item"),
        (
            "/paths/~1items/post/requestBody/content/application~1json/schema",
            "/parameters/item/schema",
            "item: {name: item",
        ),
        ("/paths/~1items/get/parameters/2/schema/items", "/paths/~1items/get/parameters/2/items", "name: ids"),
        ("/paths/~1items/get/responses/200/content/application~1json/schema", "/paths/~1items/get/responses/200/schema", "schema: {type: array"),
        ("/components/securitySchemes/application/flows/clientCredentials/tokenUrl", "/securityDefinitions/application/tokenUrl", "application: {type: oauth2"),
        ("/servers/1", "/host", "host:"),
        ("/paths/~1items~1{id}~1photo/post/requestBody/content/multipart~1form-data/schema/properties/file", "/paths/~1items~1{id}~1photo/post/parameters/1", "name: file"),
    ]  # fmt: skip
    for converted, original, text in located:
        source = spec.document.locate(converted)
        assert (source.pointer, source.line) == (original, _line_of(text)), converted


def test_what_3_0_cannot_say_is_located_in_the_2_0_file(spec: Spec) -> None:
    operations = [find_operation(spec, name) for name in ("listItems", "replaceItem", "getItem")]
    found = {d.code: d for d in problems_for(spec, [o for o in operations if o is not None])}
    lossy = found["S005"]
    assert lossy.source is not None
    assert (lossy.source.pointer, lossy.source.line) == (
        "/paths/~1items/get/parameters/4/collectionFormat",
        _line_of("name: colours"),
    )
    assert "collectionFormat tsv has no OpenAPI 3.0 equivalent" in lossy.message
    both = found["S004"]
    assert both.source is not None and both.source.line == _line_of("name: body, in: body")
    assert "PUT /items/{id} is mapped" in both.message
    invalid = found["S010"]
    assert invalid.source is not None
    assert invalid.source.pointer == "/definitions/Item/properties/weight/minimum"
    assert invalid.source.line == _line_of("minimum: sideways")
    # Of the parts no mapped operation uses, only the invalid schema is named, as a warning.
    unused = problems_for(spec, [o for o in [find_operation(spec, "uploadPhoto")] if o is not None])
    assert [(d.code, d.level.name) for d in unused] == [("S010", "WARNING")]


def test_validate_reports_in_the_2_0_file(tmp_path: Path) -> None:
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver:\n  name: inventory\n  base_url: {env: INVENTORY_URL, default: 'https://api.example.com/v1'}\n"
        "  auth: {type: api_key, env: INVENTORY_KEY, in: header, name: X-Api-Key}\n"
        "tools:\n  - name: items\n    description: Items in the inventory.\n    actions:\n"
        "      - {name: list, operation: listItems}\n      - {name: replace, operation: replaceItem}\n",
        encoding="utf-8",
    )
    completed = run_cli("validate", SPEC, "-m", mapping)
    assert completed.returncode == 1
    assert f"inventory.yaml:{_line_of('name: body, in: body')}:" in completed.stderr
    assert "error[S004] /paths/~1items~1{id}/put/parameters/0:" in completed.stderr


def test_a_swagger_other_than_2_0_is_named(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text('{"swagger": "1.2", "info": {"title": "t", "version": "1"}, "paths": {}}')
    completed = run_cli("validate", old, "-m", tmp_path / "none.yaml")
    assert completed.returncode == 1
    assert "only Swagger 2.0, OpenAPI 3.0 and 3.1 are supported; found swagger '1.2'" in completed.stderr


def test_init_leaves_out_what_does_not_convert_saying_why(spec: Spec) -> None:
    _, draft = init_mapping(spec, spec_label="inventory.yaml", name="inventory", schema_ref=None)
    reasons = {u.operation: u.reason for u in draft.unmapped}
    assert "(S010)" in reasons["GET /items (listItems)"]  # the invalid `minimum`, in the 2.0 file
    # A multipart upload is sent now (a file by data URL or from the server's files directory); this one is
    # left out for its credential alone: it needs the OAuth scheme, and the draft's auth sends the key.
    photo = reasons["POST /items/{id}/photo (uploadPhoto)"]
    assert photo.startswith("needs securitySchemes.application (OAuth 2.0 clientCredentials)"), photo
    assert "multipart" not in photo
