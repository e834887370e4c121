"""Every result a read tool returns validates against the outputSchema it declares (R5 structured and
text), errors included (issue 14, section 2).

The three examples (specs/ads, specs/petstore, specs/deploy) are generated into a temporary
directory, each twice: as they are, and with the smallest result budget the mapping allows
(`max_result_tokens: 500`), so that pages come back cut with the truncation note. Each package runs as
a subprocess over stdio, driven by the official MCP client against a loopback upstream; every read
action is called concise and detailed, page by page, and with an id the API does not know. The
official client itself refuses structured content that does not fit the tool's outputSchema; the
test checks each result once more with jsonschema, and that its text block is the same JSON.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest

from tests.e2e.packages import write_package
from tests.support.mcp_client import stdio_client, tool_dicts
from tests.support.paths import SPECS
from tests.upstreams.ads import AdsUpstream
from tests.upstreams.deploy import DeployUpstream
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

SMALLEST_BUDGET = 500  # mcpgen/load/mapping.schema.json: server.max_result_tokens minimum


class PetstoreUpstream(LoopbackUpstream):
    """The operations specs/petstore/mapping.yaml maps, with enough pets that a page can be cut."""

    def __init__(self) -> None:
        super().__init__()
        self.pets = [
            {
                "id": n,
                "name": f"pet number {n} with a rather long name to fill the page",
                "status": "available",
                "photoUrls": [f"https://example.test/pets/{n}/photo-{k}.jpg" for k in range(3)],
                "tags": [{"id": 1, "name": "friendly"}],
                "category": {"id": 2, "name": "dogs"},
            }
            for n in range(1, 41)
        ]
        self.route("GET", "/v2/pet/findByStatus", lambda request, path: Reply(200, self.pets))
        self.route("GET", "/v2/pet/findByTags", lambda request, path: Reply(200, self.pets[:3]))
        self.route("GET", "/v2/pet/{pet_id}", self._pet)
        self.route("GET", "/v2/store/order/{order_id}", self._order)
        self.route(
            "POST", "/v2/store/order", lambda request, path: Reply(200, {**(request.json or {}), "id": 11})
        )
        self.route("DELETE", "/v2/store/order/{order_id}", lambda request, path: Reply(200, {}))
        self.route(
            "GET", "/v2/store/inventory", lambda request, path: Reply(200, {"available": 40, "sold": 2})
        )

    def _pet(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        found = [p for p in self.pets if str(p["id"]) == path["pet_id"]]
        return (
            Reply(200, found[0])
            if found
            else Reply(404, {"code": 1, "type": "error", "message": "Pet not found"})
        )

    @staticmethod
    def _order(request: RecordedRequest, path: dict[str, str]) -> Reply:
        if path["order_id"] == "99":
            return Reply(404, {"code": 1, "type": "error", "message": "Order not found"})
        return Reply(200, {"id": int(path["order_id"]), "petId": 3, "quantity": 1, "status": "placed"})


@dataclass(frozen=True)
class Example:
    name: str
    upstream: type[LoopbackUpstream]
    env: dict[str, str]  # {variable: value}; "{base}" is the upstream's base URL
    # (tool, arguments) of every read action, concise; each is called detailed too.
    calls: tuple[tuple[str, dict[str, Any]], ...]


EXAMPLES = (
    Example(
        "ads",
        AdsUpstream,
        {"ADS_BASE_URL": "{base}", "ADS_API_TOKEN": "test-token"},
        (
            ("ads_campaigns_find", {"action": "list"}),
            ("ads_campaigns_find", {"action": "list", "limit": 2}),
            ("ads_campaigns_find", {"action": "list", "limit": 2, "page": 2}),
            ("ads_campaigns_find", {"action": "list", "status": "paused"}),
            ("ads_campaigns_find", {"action": "search", "query": "a"}),
            ("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_001"}),
            ("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_999"}),  # a 404: an error result
            ("ads_campaigns_find", {"action": "get"}),  # a missing argument: an error result
            ("ads_reports", {"action": "account"}),
            (
                "ads_reports",
                {
                    "action": "campaign_stats",
                    "campaign_id": "cmp_001",
                    "from_date": "2026-11-01",
                    "to_date": "2026-11-07",
                },
            ),
            (
                "ads_reports",
                {"action": "campaign_stats", "campaign_id": "cmp_001", "from_date": "x", "to_date": "y"},
            ),
            ("ads_budget_change_preview", {"campaign_id": "cmp_001", "new_daily_budget_krw": 110000}),
            (
                "ads_budget_change_preview",
                {"campaign_id": "cmp_001", "new_daily_budget_krw": 9_000_000},
            ),  # a guard
        ),
    ),
    Example(
        "petstore",
        PetstoreUpstream,
        {"PETSTORE_BASE_URL": "{base}/v2", "PETSTORE_API_KEY": "secret-key"},
        (
            ("petstore_pets_find", {"action": "by_status", "status": ["available"]}),
            ("petstore_pets_find", {"action": "by_tags", "tags": ["friendly"]}),
            ("petstore_pets_find", {"action": "get", "pet_id": 3}),
            ("petstore_pets_find", {"action": "get", "pet_id": 777}),
            ("petstore_orders", {"action": "get", "order_id": 4}),
            ("petstore_orders", {"action": "get", "order_id": 99}),
            ("petstore_orders", {"action": "inventory"}),
            # The tool's change actions answer under the same outputSchema.
            ("petstore_orders", {"action": "place", "pet_id": 3, "quantity": 1}),
            ("petstore_orders", {"action": "cancel", "order_id": 4}),
        ),
    ),
    Example(
        "deploy",
        DeployUpstream,
        {"DEPLOY_BASE_URL": "{base}", "DEPLOY_API_KEY": "deploy-key"},
        (
            ("deploy_deployments_find", {"action": "list", "service": "checkout"}),
            ("deploy_deployments_find", {"action": "list", "service": "checkout", "limit": 1}),
            ("deploy_deployments_find", {"action": "list", "service": "checkout", "environment": "staging"}),
            ("deploy_deployments_find", {"action": "list", "service": "nothing-here"}),
            ("deploy_deployments_find", {"action": "get", "deployment_id": "dep_101"}),
            ("deploy_deployments_find", {"action": "get", "deployment_id": "dep_999"}),
        ),
    ),
)


def _mapping(example: str, directory: Path, extra: str) -> Path:
    """specs/<example>/mapping.yaml with `extra` lines added to its server rule."""
    text = (SPECS / example / "mapping.yaml").read_text(encoding="utf-8")
    assert "\nserver:\n" in text
    mapping = directory / f"{example}-mapping.yaml"
    mapping.write_text(text.replace("\nserver:\n", f"\nserver:\n{extra}", 1), encoding="utf-8")
    return mapping


def _package(example: str, directory: Path, extra: str = "") -> Path:
    spec = next((SPECS / example).glob("*.openapi.*"))
    out = directory / "out"
    write_package(spec, _mapping(example, directory, extra), out)
    return out


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """(example, 'as is' | 'smallest budget') -> the directory holding its package."""
    built = {}
    variants = {
        "as is": "",
        "smallest budget": f"  max_result_tokens: {SMALLEST_BUDGET}\n",
    }
    for example in EXAMPLES:
        for variant, extra in variants.items():
            built[example.name, variant] = _package(
                example.name, tmp_path_factory.mktemp(example.name), extra
            )
    return built


@dataclass
class Seen:
    tools: dict[str, dict[str, Any]]
    results: list[tuple[str, dict[str, Any], Any]]  # (tool, arguments, CallToolResult)


def _serve_and_call(example: Example, out: Path) -> Seen:
    with example.upstream() as upstream:
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(out)}
        env.update({k: v.replace("{base}", upstream.base_url) for k, v in example.env.items()})
        calls = [
            *example.calls,
            *[(t, {**a, "response_format": "detailed"}) for t, a in example.calls if "action" in a],
        ]

        async def run() -> Seen:
            async with stdio_client([sys.executable, "-m", f"{example.name}_mcp"], env) as client:
                tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
                results = [(tool, args, await client.call_tool(tool, args)) for tool, args in calls]
                # A cut page's next_call, twice over: the rest of a page validates as well.
                for _, _, result in list(results):
                    for _ in range(2):
                        follow = _next_call(result)
                        if follow is None:
                            break
                        result = await client.call_tool(*follow)
                        results.append((*follow, result))
                return Seen(tools, results)

        return anyio.run(run)


def _next_call(result: Any) -> tuple[str, dict[str, Any]] | None:
    """The call a cut page's truncation note names for the rest, if any."""
    data = result.structured_content
    if result.is_error or not isinstance(data, dict):
        return None
    call = (data.get("truncated") or {}).get("next_call")
    return (call["tool"], call["arguments"]) if isinstance(call, dict) else None


def _check_every_result(seen: Seen) -> tuple[int, int, int]:
    """Each result against its tool's outputSchema: (results checked, of them errors, cut)."""
    checked = errors = cut = 0
    for tool, args, result in seen.results:
        schema = seen.tools[tool].get("outputSchema")
        assert schema is not None, f"{tool} reads but declares no outputSchema"
        jsonschema.Draft202012Validator.check_schema(schema)
        if result.is_error:
            errors += 1
            # An error result carries no structured content, so it cannot violate the schema.
            assert result.structured_content is None, (tool, args)
        else:
            jsonschema.validate(result.structured_content, schema, cls=jsonschema.Draft202012Validator)
            assert json.loads(result.content[0].text) == result.structured_content  # the same JSON as text
            cut += "truncated" in result.structured_content
        checked += 1
    return checked, errors, cut


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_every_read_result_validates_against_its_tools_output_schema(
    example: Example, packages: dict[tuple[str, str], Path]
) -> None:
    # specs/<example>/mapping.yaml: every tool with a read action (and every preview) declares one.
    seen = _serve_and_call(example, packages[example.name, "as is"])
    checked, errors, _ = _check_every_result(seen)
    assert errors >= 2 and checked > errors  # unknown ids and bad arguments were among them
    called = {tool for tool, _, _ in seen.results}
    declaring = {name for name, tool in seen.tools.items() if "outputSchema" in tool}
    assert declaring == called  # every tool that declares one was called, and only those declare one
    paged = [
        r.structured_content for _, _, r in seen.results if not r.is_error and "items" in r.structured_content
    ]
    assert paged and all("has_more" in page for page in paged if example.name != "petstore")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_cut_pages_validate_against_the_output_schema_too(
    example: Example, packages: dict[tuple[str, str], Path]
) -> None:
    # The smallest budget the mapping allows cuts the detailed pages, and the truncation note's
    # next_call is followed.
    seen = _serve_and_call(example, packages[example.name, "smallest budget"])
    _, _, cut = _check_every_result(seen)
    if example.name != "deploy":  # deploy's seeded lists are short enough to fit
        assert cut >= 1


def test_output_schemas_off_leaves_every_one_out(tmp_path: Path) -> None:
    # specs/ads/mapping.yaml#/server with output_schemas: false: results are built the same way (the
    # runtime never reads an outputSchema), only tools/list is smaller.
    out = _package("ads", tmp_path, "  output_schemas: false\n")
    served = json.loads((out / "ads_mcp" / "tools.json").read_text(encoding="utf-8"))
    assert served and not any("outputSchema" in tool for tool in served)
