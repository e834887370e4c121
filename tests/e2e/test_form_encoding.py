"""Form bodies with objects and arrays go as the spec's `encoding` says: a deepObject field that is a list of
objects numbers its items (Stripe's `line_items[0][price]=...`, a list of strings `expand[0]=...`), and a field
whose `contentType` is JSON goes as JSON text (seldon.local/wrapper.json's `json` field). Through the official
MCP client and stand-ins answering as the APIs do; Prism judges every request against the real spec.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from tests.support.mcp_client import result_text, stdio_client
from tests.support.paths import ROOT
from tests.support.spec_fragments import request_fragment
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

STRIPE = ROOT / ".cache" / "specs" / "stripe.json"
SELDON = ROOT / ".cache" / "corpus" / "package" / "api" / "seldon.local" / "wrapper.json"

STRIPE_MAPPING = """\
mcpgen: 1
server:
  name: stripe
  base_url: {env: STRIPE_BASE_URL}
  auth: {type: bearer, env: STRIPE_KEY}
tools:
  - name: checkout
    description: Start a Stripe Checkout session for the items a customer buys.
    actions:
      - {name: create, operation: PostCheckoutSessions}
"""


class StripeCheckout(LoopbackUpstream):
    """Answers as Stripe does: the new Checkout Session."""

    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/v1/checkout/sessions", self.create)

    def create(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(
            200, {"id": "cs_test_1", "object": "checkout.session", "url": "https://checkout.stripe.com/c/1"}
        )


SELDON_MAPPING = """\
mcpgen: 1
server:
  name: seldon
  base_url: {env: SELDON_BASE_URL}
tools:
  - name: model
    description: Ask the deployed model for a prediction.
    actions:
      - {name: predict, operation: TransformInput3, hints: {read_only: true}}
"""


class Seldon(LoopbackUpstream):
    """Answers as a Seldon Core model does: a SeldonMessage."""

    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/predict", self.predict)

    def predict(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, {"data": {"ndarray": [[0.9, 0.1]]}, "meta": {}})


PRISM_SPECS = {
    StripeCheckout: lambda: request_fragment(STRIPE, [("/v1/checkout/sessions", "post")]),
    Seldon: lambda: request_fragment(SELDON, [("/predict", "post")]),
}


def generate(root: Path, spec: Path, mapping: str) -> Path:
    (root / "mapping.yaml").write_text(mapping, encoding="utf-8")
    completed = run_mcpgen("generate", spec, "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


@pytest.mark.prism_expects(
    "Cannot deserialize JSON object array in form data request body",
    why="Prism's deepObject reader builds line_items from line_items[0][price] (prism-http "
    "deserializers/style/deepObject.js, as Stripe reads it), then takes a list of objects in a form body to be "
    "JSON strings and fails on the objects it built itself; the old JSON text per item passed only because "
    "Prism found no line_items[N] in it, an empty list",
)
async def test_a_deep_object_list_of_objects_numbers_its_items(tmp_path: Path) -> None:
    package = generate(tmp_path, STRIPE, STRIPE_MAPPING)
    call = {
        "action": "create",
        "mode": "payment",
        "success_url": "https://example.com/done",
        "line_items": [
            {"price": "price_1", "quantity": 2},
            {
                "price_data": {"currency": "usd", "unit_amount": 1500, "product_data": {"name": "Mug"}},
                "quantity": 1,
            },
        ],
        "expand": ["line_items", "customer"],
    }
    with StripeCheckout() as upstream:
        env = {"PYTHONPATH": str(package), "STRIPE_BASE_URL": upstream.base_url, "STRIPE_KEY": "sk_test_1"}
        async with stdio_client([sys.executable, "-m", "stripe_mcp"], env) as client:
            result = await client.call_tool("stripe_checkout", call)
        [sent] = upstream.requests
    assert not result.is_error, result_text(result)
    pairs = parse_qsl(sent.body.decode(), keep_blank_values=True)
    assert ("line_items[0][price]", "price_1") in pairs and ("line_items[0][quantity]", "2") in pairs
    assert ("line_items[1][price_data][product_data][name]", "Mug") in pairs
    assert ("line_items[1][price_data][unit_amount]", "1500") in pairs
    assert ("expand[0]", "line_items") in pairs and ("expand[1]", "customer") in pairs
    assert not any(name == "line_items" for name, _ in pairs)  # never the list as JSON text


async def test_a_form_field_whose_content_type_is_json_goes_as_json_text(tmp_path: Path) -> None:
    package = generate(tmp_path, SELDON, SELDON_MAPPING)
    message = {
        "data": {"names": ["a", "b"], "tensor": {"shape": [1, 2], "values": [1.5, 2.5]}},
        "strData": "x&y=z",
    }
    with Seldon() as upstream:
        env = {"PYTHONPATH": str(package), "SELDON_BASE_URL": upstream.base_url}
        async with stdio_client([sys.executable, "-m", "seldon_mcp"], env) as client:
            result = await client.call_tool("seldon_model", {"action": "predict", "json": message})
        assert not result.is_error, result_text(result)
        [sent] = upstream.requests
    assert sent.headers["content-type"] == "application/x-www-form-urlencoded"
    [(name, value)] = parse_qsl(sent.body.decode())
    assert name == "json" and json.loads(value) == message
