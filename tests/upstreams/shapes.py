"""The real-API result shapes of tests/fixtures/shapes/shapes.openapi.yaml as a small in-memory server.

Each route answers as its source API does (the spec names the spec and pointer of each): Box's webhook
record with its `triggers` array, Google's `{backups, nextPageToken, unreachable}` list, Azure's
`{value, nextLink}` pages, Square's `{payments, cursor}` list and `{payment: {...}}` record, Twilio's
`{flex_chat_channels, meta.next_page_url}` pages, Square's searches sent by POST with `cursor` and
`limit` in the JSON body and the next `cursor` in the answer.

    python -m tests.upstreams.shapes --port 8091
"""

from __future__ import annotations

import argparse
from typing import Any

from .recording import ApiError, LoopbackUpstream, RecordedRequest, Reply, int_param, run_standalone

BACKUP_COUNT = 25
ACCOUNT_COUNT = 7
ACCOUNT_PAGE = 3  # Azure decides its page size; the agent passes no limit
PAYMENT_COUNT = 12
CHANNEL_COUNT = 5
CUSTOMER_COUNT = 7
ORDER_COUNT = 9


def backup(n: int) -> dict[str, Any]:
    return {
        "name": f"projects/p1/locations/us-central1/services/s1/backups/b{n:02d}",
        "state": "ACTIVE",
        "createTime": f"2026-11-{n % 28 + 1:02d}T10:00:00Z",
        "description": f"Nightly backup {n} of the metastore, kept for thirty days. " * 6,
    }


def account(n: int) -> dict[str, Any]:
    return {
        "id": f"/subscriptions/sub1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/acct{n}",
        "name": f"acct{n}",
        "location": "eastus",
        "kind": "StorageV2",
    }


def payment(n: int) -> dict[str, Any]:
    return {
        "id": f"pay_{n:02d}",
        "status": "COMPLETED",
        "amount_money": {"amount": 100 * n, "currency": "USD"},
        "created_at": f"2026-11-{n:02d}T09:00:00Z",
        "location_id": "L1",
        "order_id": f"ord_{n:02d}",
        "note": f"Payment {n}",
        "receipt_url": f"https://squareup.com/receipt/preview/pay_{n:02d}",
        "source_type": "CARD",
    }


def channel(n: int) -> dict[str, Any]:
    return {
        "sid": f"CH{n:032x}",
        "flex_flow_sid": "FO00000000000000000000000000000001",
        "task_sid": f"WT{n:032x}",
        "url": f"https://flex-api.twilio.com/v1/Channels/CH{n:032x}",
        "date_created": "2026-11-01T00:00:00Z",
    }


class ShapesUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/webhooks/{webhook_id}", self.get_webhook)
        self.route("GET", "/v1beta/{parent}/backups", self.list_backups)
        self.route(
            "GET",
            "/subscriptions/{subscription}/providers/Microsoft.Storage/storageAccounts",
            self.list_accounts,
        )
        self.route("GET", "/v2/payments", self.list_payments)
        self.route("GET", "/v2/payments/{payment_id}", self.get_payment)
        self.route("GET", "/v1/Channels", self.list_channels)
        self.route("POST", "/v2/customers/search", self.search_customers)
        self.route("POST", "/v2/orders/search", self.search_orders)

    def get_webhook(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(
            200,
            {
                "id": path["webhook_id"],
                "type": "webhook",
                "target": {"id": "1231232", "type": "file"},
                "address": "https://example.com/webhooks",
                "created_at": "2026-11-30T12:00:00Z",
                "triggers": ["FILE.UPLOADED", "FILE.DOWNLOADED"],
            },
        )

    def list_backups(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        start = _position(request.param("pageToken"), "tok-", "pageToken")
        size = int_param(request, "pageSize", 20, 1, 100)
        end = start + size
        body: dict[str, Any] = {
            "backups": [backup(n) for n in range(start + 1, min(end, BACKUP_COUNT) + 1)],
            "unreachable": [],
        }
        if end < BACKUP_COUNT:
            body["nextPageToken"] = f"tok-{end}"
        return Reply(200, body)

    def list_accounts(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        if request.param("api-version") != "2021-01-01":
            raise ApiError(400, "MissingApiVersionParameter", "The api-version query parameter is required.")
        start = _position(request.param("$skiptoken"), "", "$skiptoken")
        end = start + ACCOUNT_PAGE
        body: dict[str, Any] = {"value": [account(n) for n in range(start + 1, min(end, ACCOUNT_COUNT) + 1)]}
        if end < ACCOUNT_COUNT:
            host = request.headers.get("host", "127.0.0.1")
            body["nextLink"] = f"http://{host}{request.path}?api-version=2021-01-01&%24skiptoken={end}"
        return Reply(200, body)

    def list_payments(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        start = _position(request.param("cursor"), "c", "cursor")
        size = int_param(request, "limit", 100, 1, 100)
        end = start + size
        body: dict[str, Any] = {
            "payments": [payment(n) for n in range(start + 1, min(end, PAYMENT_COUNT) + 1)]
        }
        if end < PAYMENT_COUNT:
            body["cursor"] = f"c{end}"
        return Reply(200, body)

    def get_payment(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        number = path["payment_id"].removeprefix("pay_")
        if not number.isdigit() or not 1 <= int(number) <= PAYMENT_COUNT:
            raise ApiError(404, "NOT_FOUND", f"Payment {path['payment_id']} not found.")
        return Reply(200, {"payment": payment(int(number))})

    def search_customers(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        numbers, cursor = _body_page(request, CUSTOMER_COUNT, 100)
        customers = [
            {"id": f"cus_{n:02d}", "given_name": f"Given{n}", "family_name": "Example",
             "email_address": f"c{n}@example.com", "created_at": f"2026-11-{n:02d}T08:00:00Z",
             "note": f"Customer {n} prefers e-mail and visits the downtown store on weekends. " * 12}
            for n in numbers
        ]  # fmt: skip
        return Reply(200, {"customers": customers, **({"cursor": cursor} if cursor else {})})

    def search_orders(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        numbers, cursor = _body_page(request, ORDER_COUNT, 500)
        orders = [
            {"id": f"ord_{n:02d}", "location_id": "L1", "state": "COMPLETED",
             "total_money": {"amount": 250 * n, "currency": "USD"}}
            for n in numbers
        ]  # fmt: skip
        return Reply(200, {"orders": orders, **({"cursor": cursor} if cursor else {})})

    def list_channels(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        start = _position(request.param("PageToken"), "PT", "PageToken")
        size = int_param(request, "PageSize", 50, 1, 1000)
        end = start + size
        page = start // size
        host = request.headers.get("host", "127.0.0.1")
        url = f"http://{host}/v1/Channels?PageSize={size}"
        meta: dict[str, Any] = {
            "first_page_url": f"{url}&Page=0",
            "page": page,
            "page_size": size,
            "previous_page_url": None,
            "url": f"{url}&Page={page}",
            "key": "flex_chat_channels",
            "next_page_url": f"{url}&Page={page + 1}&PageToken=PT{end}" if end < CHANNEL_COUNT else None,
        }
        channels = [channel(n) for n in range(start + 1, min(end, CHANNEL_COUNT) + 1)]
        return Reply(200, {"flex_chat_channels": channels, "meta": meta})


def _body_page(request: RecordedRequest, count: int, default: int) -> tuple[range, str | None]:
    """Square's search paging: `cursor` and `limit` in the JSON body, never in the query; (the numbers
    of this page's records, the next cursor or None on the last page)."""
    body = request.json if isinstance(request.json, dict) else {}
    if request.query:
        raise ApiError(400, "BAD_REQUEST", f"unexpected query parameters {sorted(request.query)}")
    cursor = body.get("cursor")
    start = _position(cursor if isinstance(cursor, str) else None, "sc", "cursor")
    size = body.get("limit", default)
    if not isinstance(size, int) or not 1 <= size <= 100:
        raise ApiError(400, "INVALID_VALUE", f"limit must be an integer from 1 to 100, not {size!r}", "limit")
    end = start + size
    return range(start + 1, min(end, count) + 1), f"sc{end}" if end < count else None


def _position(token: str | None, prefix: str, name: str) -> int:
    if token is None:
        return 0
    rest = token.removeprefix(prefix)
    if not token.startswith(prefix) or not rest.isdigit():
        raise ApiError(400, "invalid", f"unknown {name} {token!r}", name)
    return int(rest)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Local stand-in for real APIs' result shapes (127.0.0.1 only)"
    )
    parser.add_argument("--port", type=int, default=8091)
    run_standalone(ShapesUpstream(), parser.parse_args(argv).port)


if __name__ == "__main__":
    main()
