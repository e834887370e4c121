"""The oracle's value classes across real processes (scripts/sweep/oracle_classes.py): a seeded spec served
by Prism behind the oracle's upstream layer, the generated server over stdio, the official MCP client.

The seeded spec pages by a next_page_token, names an amount in cents, answers one read as `*/*`, documents
its errors only as `default`, and takes a client_secret in a body. Two runs:

- the derived mapping (init's draft plus a unit, concise fields and token paging, oracle_derive.py): every
  variant step reaches the server, and each verdict agrees with what the server returned (calls.jsonl);
- a hand-written mapping that turns the list's paging off (`style: none`): the server cannot ask for page
  two, yet page one of three must not read as whole: the answer's next_page_token is read by its name,
  has_more is null with `rest` naming it, and the oracle agrees (class k).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAYMENT = {"id": "pay_1", "amount": 1250, "currency": "usd", "status": "paid", "description": "Tea"}
PAYMENT_SCHEMA = {"type": "object", "properties": {
    "id": {"type": "string"}, "amount": {"type": "integer"}, "currency": {"type": "string"},
    "status": {"type": "string"}, "description": {"type": "string"}}}  # fmt: skip
SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1"},
    "servers": [{"url": "https://api.shop.example/v1"}],
    "security": [{"key": []}],
    "paths": {
        "/payments": {
            "get": {
                "operationId": "listPayments",
                "summary": "List payments",
                "parameters": [{"name": "page_token", "in": "query", "schema": {"type": "string"}},
                               {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {
                        "payments": {"type": "array", "items": {"$ref": "#/components/schemas/Payment"}},
                        "next_page_token": {"type": "string"}}},
                    "example": {"payments": [PAYMENT], "next_page_token": "abc"}}}}},
            },
            "post": {
                "operationId": "createPayment",
                "summary": "Create a payment",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["amount"], "properties": {
                        "amount": {"type": "integer", "description": "In cents."},
                        "description": {"type": "string"}, "client_secret": {"type": "string"}}}}}},
                "responses": {"201": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Payment"}, "example": PAYMENT}}},
                    "default": {"description": "error", "content": {"application/json": {
                        "schema": {"type": "object", "properties": {"message": {"type": "string"}}},
                        "example": {"message": "amount must be positive"}}}}},
            },
        },
        "/payments/{id}": {
            "get": {
                "operationId": "getPayment",
                "summary": "Get a payment",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Payment"}, "example": PAYMENT}}}},
            }
        },
        "/payments/{id}/receipt": {
            "get": {
                "operationId": "getReceipt",
                "summary": "Get a payment's receipt",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "content": {"*/*": {"schema": {
                    "type": "object", "properties": {"receipt_number": {"type": "string"},
                                                     "issued_on": {"type": "string"}}},
                    "example": {"receipt_number": "R-1", "issued_on": "2026-01-02"}}}}},
            }
        },
    },
    "components": {"schemas": {"Payment": PAYMENT_SCHEMA},
                   "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
}  # fmt: skip
PAGING_OFF = """\
mcpgen: 1
server:
  name: shop
  title: Shop
  version: 0.1.0
  description: Find payments of the shop.
  base_url: {env: SHOP_BASE_URL, default: "https://api.shop.example/v1"}
  auth: {type: api_key, in: header, name: X-Api-Key, env: SHOP_API_KEY}
tools:
  - name: payments_find
    title: Find payments
    description: List payments, or get one by its id. It changes nothing.
    actions:
      - name: list
        operation: listPayments
        description: List payments.
        pagination: {style: none}
"""


def _spec_dir(tmp: Path, step: str, want: str) -> Path:
    """A folder whose name makes the layer answer `step` of GET /payments with the `want` variant: the
    variant is a hash of the spec's last two path parts, the operation and the step (oracle_variants.pick)."""
    sys.path.insert(0, str(ROOT))
    from scripts.sweep.oracle_variants import PAGING_KINDS, pick

    name = next(f"shop{i}.example" for i in range(200) if pick(PAGING_KINDS, f"shop{i}.example/shop.json",
                                                                "GET /payments", step) == want)  # fmt: skip
    folder = tmp / name
    folder.mkdir()
    (folder / "shop.json").write_text(json.dumps(SPEC), encoding="utf-8")
    return folder / "shop.json"


def _run(argv: list[str], work: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    row = json.loads(done.stdout.strip().splitlines()[-1])
    assert row["status"] == "measured", row
    row["calls_kept"] = [json.loads(line) for line in (work / "calls.jsonl").read_text().splitlines()]
    return row


@pytest.fixture(scope="module")
def prism_ready() -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: Prism comes from the npm registry")
    sys.path.insert(0, str(ROOT))
    from scripts.sweep.oracle_upstream import install_prism

    try:
        install_prism()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"could not install Prism with npm: {exc}")


def _found(row: dict[str, Any], category: str, kind: str | None = None) -> list[dict[str, Any]]:
    return [f for f in row["findings"] if f["category"] == category and (kind is None or f["kind"] == kind)]


def test_paging_turned_off_never_shows_page_one_as_the_whole_list(prism_ready: None, tmp_path: Path) -> None:
    spec = _spec_dir(tmp_path, "paged", "token")
    mapping = tmp_path / "paging-off.yaml"
    mapping.write_text(PAGING_OFF, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    row = _run(["scripts.sweep.heldout.run", "--one", str(spec), str(mapping), str(work), "--mode", "static",
                "--budget", "60"], work)  # fmt: skip
    paged = [c for c in row["calls_kept"] if c["step"] == "paged"]
    assert len(paged) == 1 and paged[0]["variant"]["kind"] == "token" and paged[0]["variant"]["more"] is True
    data = paged[0]["data"]
    assert data["has_more"] is None and "'next_page_token'" in data["rest"], data
    assert "next_cursor" not in data  # paging off: no call is promised that the action cannot make
    assert _found(row, "k") == [], row["findings"]


def test_every_value_verdict_agrees_with_what_the_server_returned(prism_ready: None, tmp_path: Path) -> None:
    spec = _spec_dir(tmp_path, "paged", "token")
    work = tmp_path / "work"
    work.mkdir()
    row = _run(["scripts.sweep.oracle", "--one", str(spec), str(work), "--budget", "60"], work)
    calls = row["calls_kept"]
    steps = {c["step"] for c in calls}
    assert {"minimal", "full", "probe", "concise", "paged", "vendor-error", "fail200", "exact"} <= steps, (
        steps
    )
    assert row["derived"]["units"] == ["payments.create:amount:money"], row["derived"]
    # m: a 200 carrying a failure flag is an error that quotes the API, or it is a finding
    failures = [c for c in calls if c["step"] == "fail200" and c["variant"]["kind"] != "none"]
    assert failures
    unread = [c for c in failures if not c["is_error"] or c["variant"]["text"] not in c["text"]]
    assert len(_found(row, "m")) == len(unread)
    # l: a vendor error body's text is in the tool error, or it is a finding
    errors = [c for c in calls if c["step"] == "vendor-error" and c["variant"]["kind"] != "none"]
    assert errors
    dropped = [c for c in errors if not c["is_error"] or c["variant"]["text"] not in c["text"]]
    assert len(_found(row, "l")) == len(dropped)
    # h: 0.1 + 0.2 dollars reach the API as exactly 30 cents, or it is a finding
    exact = next(c for c in calls if c["step"] == "exact")
    sent = exact["sent"][0]["amount"] if exact["sent"] else None
    assert (sent == 30 and not exact["is_error"]) == (not _found(row, "h")), (exact, _found(row, "h"))
    # the default-only operation was probed, and Prism answered its `default` error
    probe = next(c for c in calls if c["step"] == "probe" and c["action"] == "create")
    assert probe["is_error"]
    # n: the body's client_secret is offered to the agent, or the package keeps it from the model
    offered = _found(row, "n")
    assert [f["detail"].split(" (")[0] for f in offered] in ([], ["body field client_secret"])
    # k: the token-paged list: has_more on pages one and two, never on three
    pages = [c for c in calls if c["step"] in ("paged", "paged-next")]
    wrong = [c for c in pages if c["variant"].get("more") is not bool((c["data"] or {}).get("has_more"))]
    assert bool(wrong) == bool(_found(row, "k")), (pages, _found(row, "k"))
    # j: the `*/*` receipt's fields are in the tool's outputSchema, or it is a finding
    receipt = [
        f for f in row["findings"] if f["operation"] == "GET /payments/{id}/receipt" and f["category"] == "j"
    ]
    assert all(f["kind"] == "media-not-read" for f in receipt)
