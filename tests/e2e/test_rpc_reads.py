"""Reads sent by POST (RPC-style APIs; S1 preview, then apply; S4 annotations): Plaid reads an Item with
POST /item/get (plaid.com.json /paths/~1item~1get/post), so a change to its webhook
(/paths/~1item~1webhook~1update/post) is previewed against that read once the mapping marks it
`hints: {read_only: true}` (M230 used to require a GET). A paged POST read whose spec requires a body
sends one even when no field is set (amazonaws.com/connectcampaigns.json /paths/~1campaigns-summary/post,
`requestBody.required: true`: the minimal call used to send none). Through the official MCP client
and recording stand-ins; Prism judges every request against the spec's own operations.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.support.spec_fragments import fragment, request_fragment
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

API = ROOT / ".cache" / "corpus" / "package" / "api"
PLAID_OPERATIONS = [("/item/get", "post"), ("/item/webhook/update", "post")]
CAMPAIGNS_OPERATIONS = [("/campaigns-summary", "post")]

PLAID_MAPPING = """\
mcpgen: 1
server:
  name: plaid
  base_url: {env: PLAID_BASE_URL}
  auth:
    - {type: api_key, in: header, name: PLAID-CLIENT-ID, env: PLAID_CLIENT_ID}
    - {type: api_key, in: header, name: PLAID-SECRET, env: PLAID_SECRET}
    - {type: api_key, in: header, name: Plaid-Version, env: PLAID_VERSION}
tools:
  - name: item_find
    description: Read the linked bank item. It changes nothing.
    actions:
      - name: get
        operation: itemGet
        hints: {read_only: true}
        params: {access_token: {env: PLAID_ACCESS_TOKEN}}
  - name: webhook_change
    description: Point the item's webhook at a new URL, after a preview of the change.
    actions:
      - name: update
        operation: itemWebhookUpdate
        confirm: preview
        preview: {read: itemGet}
        params:
          access_token: {env: PLAID_ACCESS_TOKEN}
          webhook: {current: item.webhook}
"""
CAMPAIGNS_MAPPING = """\
mcpgen: 1
server:
  name: campaigns
  base_url: {env: CAMPAIGNS_BASE_URL}
  auth: {type: api_key, in: header, name: Authorization, env: CAMPAIGNS_SIGNATURE}
tools:
  - name: campaigns_find
    description: List the outbound campaigns page by page. It changes nothing.
    actions:
      - name: list
        operation: ListCampaigns
        hints: {read_only: true}
        params:  # as `mcpgen init` drafts them: the query's paging fields keep the plain names
          body.maxResults: {name: body_max_results}
          body.nextToken: {name: body_next_token}
"""
ENV = {"PLAID_CLIENT_ID": "c", "PLAID_SECRET": "s", "PLAID_VERSION": "2020-09-14", "PLAID_ACCESS_TOKEN": "at"}


class PlaidItem(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.webhook = "https://hooks.example.com/old"
        self.route("POST", "/item/get", self.get)
        self.route("POST", "/item/webhook/update", self.update)

    def _item(self) -> dict[str, Any]:
        return {"item": {"item_id": "item-1", "webhook": self.webhook, "error": None, "available_products": [],
                         "billed_products": [], "consent_expiration_time": None, "update_type": "background"},
                "request_id": "req-1"}  # fmt: skip

    def get(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, self._item())

    def update(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        self.webhook = (request.json or {}).get("webhook", self.webhook)
        return Reply(200, self._item())


class Campaigns(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/campaigns-summary", self.summary)

    def summary(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, {"campaignSummaryList": [{"id": "c1", "arn": "arn:aws:c1", "name": "Spring",
                                                    "connectInstanceId": "i-1"}]})  # fmt: skip


# Prism judges every request the stand-ins receive against the spec they answer for (tests/support/prism.py).
PRISM_SPECS = {
    PlaidItem: lambda: request_fragment(API / "plaid.com.json", PLAID_OPERATIONS),
    Campaigns: lambda: request_fragment(
        API / "amazonaws.com" / "connectcampaigns.json", CAMPAIGNS_OPERATIONS
    ),
}


def generate(root: Path, spec: dict[str, Any], mapping: str) -> Path:
    (root / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    (root / "mapping.yaml").write_text(mapping, encoding="utf-8")
    completed = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {
        "plaid": generate(
            tmp_path_factory.mktemp("plaid"),
            fragment(API / "plaid.com.json", PLAID_OPERATIONS),
            PLAID_MAPPING,
        ),
        "campaigns": generate(
            tmp_path_factory.mktemp("campaigns"),
            fragment(API / "amazonaws.com" / "connectcampaigns.json", CAMPAIGNS_OPERATIONS),
            CAMPAIGNS_MAPPING,
        ),
    }


async def test_a_change_is_previewed_against_a_read_sent_by_post(packages: dict[str, Path]) -> None:
    new = "https://hooks.example.com/new"
    with PlaidItem() as upstream:
        env = {"PYTHONPATH": str(packages["plaid"]), "PLAID_BASE_URL": upstream.base_url, **ENV}
        async with stdio_client([sys.executable, "-m", "plaid_mcp"], env) as client:
            tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
            preview = await client.call_tool("plaid_webhook_change_preview", {"webhook": new})
            assert not preview.is_error, result_text(preview)
            before = [r.path for r in upstream.requests]
            applied = await client.call_tool(
                "plaid_webhook_change_apply", {"preview_id": result_json(preview)["preview_id"]}
            )
        requests = list(upstream.requests)
    assert tools["plaid_item_find"]["annotations"]["readOnlyHint"] is True
    assert [(c["field"], c["before"], c["after"]) for c in result_json(preview)["changes"]] == [
        ("item.webhook", "https://hooks.example.com/old", new)
    ]
    assert before == ["/item/get"]  # the preview only read, by POST
    assert not applied.is_error, result_text(applied)
    assert [r.path for r in requests][-1] == "/item/webhook/update"
    assert requests[-1].json == {"access_token": "at", "webhook": new}


async def test_a_paged_post_read_sends_the_body_its_spec_requires(packages: dict[str, Path]) -> None:
    with Campaigns() as upstream:
        env = {
            "PYTHONPATH": str(packages["campaigns"]),
            "CAMPAIGNS_BASE_URL": upstream.base_url,
            "CAMPAIGNS_SIGNATURE": "AWS4-HMAC-SHA256 Credential=k",
        }
        async with stdio_client([sys.executable, "-m", "campaigns_mcp"], env) as client:
            result = await client.call_tool("campaigns_campaigns_find", {"action": "list"})
        [request] = upstream.requests
    assert not result.is_error, result_text(result)
    data = result_json(result)
    assert [c["id"] for c in data["items"]] == ["c1"] and data["has_more"] is False
    assert request.json == {}  # requestBody.required: an empty object, never no body
    assert request.headers["content-type"] == "application/json"
