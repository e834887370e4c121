"""Credentials in a JSON body are never agent arguments (P3 credentials; oracle category n): the API's
own `client_id`/`secret` and a per-deployment `access_token` in Plaid's bodies
(plaid.com.json /components/schemas/APIClientID, APISecret, AccessToken; POST /item/get and
/transactions/get). The server sends them from its environment, with `auth: {in: body}` or
`params: {x: {env: NAME}}`; the agent can neither pass nor read them. Through the official MCP client
and a recording stand-in; Prism judges every request against the spec's own operations.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.support.spec_fragments import request_fragment
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PLAID = ROOT / ".cache" / "corpus" / "package" / "api" / "plaid.com.json"
OPERATIONS = [("/item/get", "post"), ("/transactions/get", "post")]
ACCESS_TOKEN = "access-sandbox-5c2e-never-shown"
SECRET = "plaid-secret-77f1"
CLIENT_ID = "client-61a0"
ENV = {
    "PLAID_CLIENT_ID": CLIENT_ID,
    "PLAID_SECRET": SECRET,
    "PLAID_VERSION": "2020-09-14",
    "PLAID_ACCESS_TOKEN": ACCESS_TOKEN,
}


def plaid_spec(security: bool) -> dict[str, Any]:
    """The operations as the spec has them. Plaid's text says client_id and secret "may be provided
    either in the header or as part of a request body"; OpenAPI's security cannot state a body
    credential, so the body-auth package is judged with the header requirement left out."""
    spec = request_fragment(PLAID, OPERATIONS)
    if not security:
        spec["security"] = [{"plaidVersion": []}]
    return spec


ACTIONS = """\
tools:
  - name: items_find
    description: Read the linked bank item and its transactions. It changes nothing.
    actions:
      - name: item
        operation: itemGet
        hints: {read_only: true}
        params: {access_token: {env: PLAID_ACCESS_TOKEN}}
      - name: transactions
        operation: transactionsGet
        hints: {read_only: true}
        params: {access_token: {env: PLAID_ACCESS_TOKEN}}
"""
HEADER_AUTH = """\
mcpgen: 1
server:
  name: plaid
  base_url: {env: PLAID_BASE_URL}
  auth:
    - {type: api_key, in: header, name: PLAID-CLIENT-ID, env: PLAID_CLIENT_ID}
    - {type: api_key, in: header, name: PLAID-SECRET, env: PLAID_SECRET}
    - {type: api_key, in: header, name: Plaid-Version, env: PLAID_VERSION}
"""
BODY_AUTH = """\
mcpgen: 1
server:
  name: plaid
  base_url: {env: PLAID_BASE_URL}
  auth:
    - {type: api_key, in: body, name: client_id, env: PLAID_CLIENT_ID}
    - {type: api_key, in: body, name: secret, env: PLAID_SECRET}
    - {type: api_key, in: header, name: Plaid-Version, env: PLAID_VERSION}
"""


class PlaidItems(LoopbackUpstream):
    """Answers as Plaid does; the item's webhook echoes the access token, so a leak would show."""

    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/item/get", self.item)
        self.route("POST", "/transactions/get", self.transactions)

    def item(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        token = (request.json or {}).get("access_token", "")
        return Reply(200, {"item": {"item_id": "item-1", "webhook": f"https://hooks.example.com/{token}"},
                           "request_id": "req-1"})  # fmt: skip

    def transactions(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, {"accounts": [], "transactions": [], "total_transactions": 0, "request_id": "r"})


class BodyAuthItems(PlaidItems):
    pass


# Prism judges every request the stand-ins receive against the spec they answer for (tests/support/prism.py).
PRISM_SPECS = {
    BodyAuthItems: lambda: plaid_spec(security=False),
    PlaidItems: lambda: plaid_spec(security=True),
}


def generate(root: Path, mapping: str, security: bool) -> Path:
    (root / "spec.json").write_text(json.dumps(plaid_spec(security)), encoding="utf-8")
    (root / "mapping.yaml").write_text(mapping + ACTIONS, encoding="utf-8")
    completed = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    assert "M302" not in completed.stderr  # every credential field is sent by the server
    return root / "out"


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {
        "header": generate(tmp_path_factory.mktemp("header"), HEADER_AUTH, security=True),
        "body": generate(tmp_path_factory.mktemp("body"), BODY_AUTH, security=False),
    }


async def calls(package: Path, upstream: LoopbackUpstream, env: dict[str, str]) -> dict[str, Any]:
    env = {"PYTHONPATH": str(package), "PLAID_BASE_URL": upstream.base_url, **env}
    async with stdio_client([sys.executable, "-m", "plaid_mcp"], env) as client:
        [tool] = tool_dicts(await client.list_tools())
        item = await client.call_tool("plaid_items_find", {"action": "item"})
        smuggled = await client.call_tool(
            "plaid_items_find", {"action": "item", "secret": "agent-secret", "access_token": "agent-token"}
        )
        dates = {"start_date": "2024-01-01", "end_date": "2024-01-31"}
        transactions = await client.call_tool("plaid_items_find", {"action": "transactions", **dates})
    return {"tool": tool, "item": item, "smuggled": smuggled, "transactions": transactions}


@pytest.mark.parametrize("placement", ["header", "body"])
async def test_body_credentials_come_from_the_environment_never_from_the_agent(
    packages: dict[str, Path], placement: str
) -> None:
    with PlaidItems() if placement == "header" else BodyAuthItems() as upstream:
        seen = await calls(packages[placement], upstream, ENV)
        requests = list(upstream.requests)
    offered = set(seen["tool"]["inputSchema"]["properties"])
    assert not offered & {"client_id", "secret", "access_token"}, offered
    assert {"start_date", "end_date"} <= offered
    assert ACCESS_TOKEN not in json.dumps(seen["tool"])
    for name in ("item", "transactions"):
        assert not seen[name].is_error, result_text(seen[name])
    # The API's answer echoes the token: the agent reads it redacted, never the value.
    assert ACCESS_TOKEN not in result_text(seen["item"]) and "item-1" in result_text(seen["item"])
    assert seen["smuggled"].is_error and "secret" in result_text(seen["smuggled"])
    assert len(requests) == 2  # the smuggling call never reached the API
    for request in requests:
        assert request.json["access_token"] == ACCESS_TOKEN
        if placement == "body":
            assert (request.json["client_id"], request.json["secret"]) == (CLIENT_ID, SECRET)
            assert "plaid-secret" not in request.headers and "plaid-client-id" not in request.headers
        else:  # the header scheme covers the body fields: they are left out, not sent twice
            assert "secret" not in request.json and "client_id" not in request.json
            assert request.headers["plaid-secret"] == SECRET


async def test_an_unset_variable_is_a_tool_error_for_the_user(packages: dict[str, Path]) -> None:
    env = {k: v for k, v in ENV.items() if k != "PLAID_ACCESS_TOKEN"}
    with PlaidItems() as upstream:
        seen = await calls(packages["header"], upstream, env)
        assert upstream.requests == []
    text = result_text(seen["item"])
    assert seen["item"].is_error and "PLAID_ACCESS_TOKEN is not set" in text and "access_token" in text
