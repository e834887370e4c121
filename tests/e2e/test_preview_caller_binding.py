"""A preview id is a name, not a permission (S3): over HTTP with bearer tokens, an id previewed by one
caller cannot be applied by another. The ads example with `server.access` added, generated into a temp
dir and run as an HTTP subprocess; tokens are JWTs signed with the server's HS256 key."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx2
import jwt
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.conftest import TOKEN
from tests.e2e.packages import write_package
from tests.support.mcp_client import result_text
from tests.support.paths import SPECS
from tests.support.processes import http_server
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

ISSUER, AUDIENCE = "https://auth.example.com", "https://ads-mcp.example.com/mcp"
SECRET = "binding-test-secret-0123456789abcdef"


def _token(subject: str) -> str:
    now = int(time.time())
    return jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "scope": "ads", "iat": now, "exp": now + 600},
        SECRET,
        algorithm="HS256",
    )


def _with_access(tmp_path: Path) -> Path:
    mapping = (SPECS / "ads" / "mapping.yaml").read_text(encoding="utf-8")
    mapping = mapping.replace(
        "  timeout_s: 30\n", f"  timeout_s: 30\n  access: {{issuer: '{ISSUER}', audience: '{AUDIENCE}'}}\n"
    )
    (tmp_path / "mapping.yaml").write_text(mapping, encoding="utf-8")
    (tmp_path / "ads.openapi.yaml").write_bytes((SPECS / "ads" / "ads.openapi.yaml").read_bytes())
    out = tmp_path / "out"
    write_package(tmp_path / "ads.openapi.yaml", tmp_path / "mapping.yaml", out)
    return out


async def _call(url: str, subject: str, name: str, arguments: dict) -> object:
    async with httpx2.AsyncClient(headers={"authorization": f"Bearer {_token(subject)}"}, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return await client.call_tool(name, arguments)


async def test_a_preview_id_applies_only_for_the_caller_who_previewed_it(tmp_path: Path) -> None:
    out = _with_access(tmp_path)
    with AdsUpstream(token=TOKEN) as upstream:
        env = {
            "PYTHONPATH": str(out),
            "ADS_BASE_URL": upstream.base_url,
            "ADS_API_TOKEN": TOKEN,
            "MCP_AUTH_JWT_SECRET": SECRET,
            "MCP_STORE_URL": f"sqlite://{tmp_path / 'p.db'}",
        }
        with http_server([sys.executable, "-m", "ads_mcp"], env) as url:
            preview = await _call(
                url,
                "kim@example.com",
                "ads_budget_change_preview",
                {"campaign_id": "cmp_003", "new_daily_budget_krw": 110_000},
            )
            preview_id = preview.structured_content["preview_id"]
            stolen = await _call(
                url, "mallory@example.com", "ads_budget_change_apply", {"preview_id": preview_id}
            )
            assert [r.method for r in upstream.requests] == ["GET"]
            applied = await _call(
                url, "kim@example.com", "ads_budget_change_apply", {"preview_id": preview_id}
            )
    assert stolen.is_error and "is not one this server issued to you" in result_text(stolen)
    assert not applied.is_error and applied.structured_content["daily_budget"] == 110_000
    assert [r.method for r in upstream.requests] == ["GET", "PATCH"]
