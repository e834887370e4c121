"""Stand-ins for the real APIs of tests/fixtures/paging/paging.openapi.yaml, each paging as that API
documents it: Plaid's offset inside the body's `options` and its sync cursor, Zoom's next_page_token
("" on the last page), Linode's {data, page, pages, results}, api.video's pagination object,
gitea's X-Total and X-HasMore headers, Zuora's pagination.next_page (null on the last page).

    python -m tests.upstreams.paging --port 8092
"""

from __future__ import annotations

import argparse
from typing import Any

from .recording import (
    ApiError,
    LoopbackUpstream,
    RecordedRequest,
    Reply,
    int_param,
    json_object,
    run_standalone,
)

TRANSACTION_COUNT = 23
UPDATE_PAGES = (  # (added, modified, removed) per sync page, as Plaid returns them
    (4, 2, 1),
    (4, 1, 2),
    (2, 0, 1),
)
CONTACT_COUNT = 23
USER_COUNT = 7
LINODE_COUNT = 60
VIDEO_COUNT = 12
COMMIT_COUNT = 9
WORKFLOW_COUNT = 20  # two full pages of 10: the second is the last, with next_page null
OPERATION_COUNT, OPERATION_PAGE = 7, 5  # Azure: the first answer holds 5 and a nextLink


def transaction(n: int) -> dict[str, Any]:
    return {
        "transaction_id": f"tx_{n:02d}",
        "account_id": "acc_1" if n % 2 else "acc_2",
        "amount": round(n * 3.25, 2),
        "iso_currency_code": "USD",
        "date": f"2024-01-{n:02d}",
        "name": f"Merchant {n}",
        "merchant_name": f"Merchant {n}",
        "pending": False,
        "payment_channel": "in store",
        "authorized_date": f"2024-01-{n:02d}",
    }


ACCOUNTS = [
    {"account_id": "acc_1", "name": "Plaid Checking", "mask": "0000", "type": "depository"},
    {"account_id": "acc_2", "name": "Plaid Saving", "mask": "1111", "type": "depository"},
]


class PagingUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/transactions/get", self.transactions_get)
        self.route("POST", "/transactions/sync", self.transactions_sync)
        self.route("GET", "/chat/users/me/contacts", self.contacts)
        self.route("GET", "/users", self.users)
        self.route("GET", "/linode/instances", self.linodes)
        self.route("GET", "/videos", self.videos)
        self.route("GET", "/repos/{owner}/{repo}/commits", self.commits)
        self.route("GET", "/workflows", self.workflows)
        self.route("GET", "/providers/Microsoft.Storage/operations", self.storage_operations)

    def transactions_get(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """Plaid: options.count (1-500, default 100) and options.offset (default 0)."""
        body = json_object(request)
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise ApiError(400, "INVALID_FIELD", "options must be an object", "options")
        count, offset = options.get("count", 100), options.get("offset", 0)
        if not isinstance(count, int) or not 1 <= count <= 500:
            raise ApiError(
                400, "INVALID_FIELD", "options.count must be an integer from 1 to 500", "options.count"
            )
        if not isinstance(offset, int) or offset < 0:
            raise ApiError(
                400, "INVALID_FIELD", "options.offset must be a non-negative integer", "options.offset"
            )
        every = [transaction(n) for n in range(1, TRANSACTION_COUNT + 1)]
        return Reply(
            200,
            {
                "accounts": ACCOUNTS,
                "transactions": every[offset : offset + count],
                "total_transactions": len(every),
                "item": {"item_id": "item_1"},
                "request_id": "req_get",
            },
        )

    def transactions_sync(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """Plaid: a page of updates per cursor; the last page still has a next_cursor (for later
        updates), with has_more false."""
        body = json_object(request)
        cursor = body.get("cursor")
        index = 0 if cursor in (None, "") else _position(cursor, "sync-")
        if index >= len(UPDATE_PAGES):
            index = len(UPDATE_PAGES)
            added = modified = removed = 0
        else:
            added, modified, removed = UPDATE_PAGES[index]
        first = 1 + sum(a for a, _, _ in UPDATE_PAGES[:index])
        return Reply(
            200,
            {
                "added": [transaction(n) for n in range(first, first + added)],
                "modified": [transaction(n) for n in range(1, 1 + modified)],
                "removed": [{"transaction_id": f"tx_old_{index}_{n}"} for n in range(removed)],
                "next_cursor": f"sync-{min(index + 1, len(UPDATE_PAGES))}",
                "has_more": index + 1 < len(UPDATE_PAGES),
                "request_id": f"req_sync_{index}",
            },
        )

    def contacts(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """Zoom: next_page_token, "" once the last page is reached."""
        size = int_param(request, "page_size", 10, 1, 50)
        start = _position(request.param("next_page_token"), "ct-")
        end = start + size
        contacts = [
            {
                "id": f"c{n:02d}",
                "email": f"c{n}@example.com",
                "first_name": f"First{n}",
                "last_name": f"Last{n}",
            }
            for n in range(1, CONTACT_COUNT + 1)
        ][start:end]
        token = f"ct-{end}" if end < CONTACT_COUNT else ""
        return Reply(200, {"contacts": contacts, "next_page_token": token, "page_size": size})

    def users(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """Zoom: next_page_token beside page_count, page_number and total_records."""
        size = int_param(request, "page_size", 30, 1, 300)
        start = _position(request.param("next_page_token"), "us-")
        end = start + size
        users = [
            {
                "id": f"u{n}",
                "email": f"u{n}@example.com",
                "first_name": f"User{n}",
                "status": "active",
                "type": 1,
            }
            for n in range(1, USER_COUNT + 1)
        ]
        return Reply(
            200,
            {
                "next_page_token": f"us-{end}" if end < USER_COUNT else "",
                "page_count": -(-USER_COUNT // size),
                "page_number": start // size + 1,
                "page_size": size,
                "total_records": USER_COUNT,
                "users": users[start:end],
            },
        )

    def linodes(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """Linode: page, page_size 25-500; {data, page, pages, results}."""
        page = int_param(request, "page", 1, 1, 10_000)
        size = int_param(request, "page_size", 100, 25, 500)
        every = [
            {"id": 100 + n, "label": f"linode{n}", "region": "us-east", "status": "running"}
            for n in range(1, LINODE_COUNT + 1)
        ]
        pages = -(-LINODE_COUNT // size)
        return Reply(
            200,
            {
                "data": every[(page - 1) * size : page * size],
                "page": page,
                "pages": pages,
                "results": LINODE_COUNT,
            },
        )

    def videos(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """api.video: currentPage, pageSize; the pagination object counts items and pages."""
        page = int_param(request, "currentPage", 1, 1, 10_000)
        size = int_param(request, "pageSize", 25, 1, 100)
        every = [
            {"videoId": f"vi{n:02d}", "title": f"Video {n}", "publishedAt": "2024-01-01T00:00:00Z"}
            for n in range(1, VIDEO_COUNT + 1)
        ]
        shown = every[(page - 1) * size : page * size]
        pages = -(-VIDEO_COUNT // size)
        links = [{"rel": "self", "uri": f"/videos?currentPage={page}&pageSize={size}"}]
        if page < pages:
            links.append({"rel": "next", "uri": f"/videos?currentPage={page + 1}&pageSize={size}"})
        return Reply(
            200,
            {
                "data": shown,
                "pagination": {
                    "currentPage": page,
                    "currentPageItems": len(shown),
                    "itemsTotal": VIDEO_COUNT,
                    "pagesTotal": pages,
                    "pageSize": size,
                    "links": links,
                },
            },
        )

    def commits(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """gitea: a bare list; the total, the page count and "more" in headers."""
        page = int_param(request, "page", 1, 1, 10_000)
        size = int_param(request, "limit", 30, 1, 50)
        every = [
            {
                "sha": f"{n:040x}",
                "html_url": f"https://gitea.example/c/{n}",
                "created": "2024-01-01T00:00:00Z",
            }
            for n in range(1, COMMIT_COUNT + 1)
        ]
        pages = -(-COMMIT_COUNT // size)
        headers = {
            "X-Total": str(COMMIT_COUNT),
            "X-PageCount": str(pages),
            "X-Page": str(page),
            "X-PerPage": str(size),
            "X-HasMore": "true" if page < pages else "false",
        }
        return Reply(200, every[(page - 1) * size : page * size], headers)

    def workflows(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """Zuora: pagination.next_page is the next page's URL, null on the last page."""
        page = int_param(request, "page", 1, 1, 10_000)
        size = int_param(request, "page_length", 20, 1, 50)
        every = [{"id": n, "name": f"Workflow {n}", "status": "Active"} for n in range(1, WORKFLOW_COUNT + 1)]
        shown = every[(page - 1) * size : page * size]
        more = page * size < WORKFLOW_COUNT
        host = request.headers.get("host", "127.0.0.1")
        following = f"http://{host}/workflows?page={page + 1}&page_length={size}" if more else None
        return Reply(
            200, {"data": shown, "pagination": {"next_page": following, "page": page, "page_length": size}}
        )

    def storage_operations(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        """Azure Resource Manager: a partial list carries the next page's URL in `nextLink` (with a
        $skiptoken), whatever the operation's schema declares."""
        skip = int_param(request, "$skiptoken", 0, 0, OPERATION_COUNT)
        shown = [
            {"name": f"Microsoft.Storage/storageAccounts/op{n}/action", "origin": "user,system"}
            for n in range(skip + 1, min(skip + OPERATION_PAGE, OPERATION_COUNT) + 1)
        ]
        body: dict[str, Any] = {"value": shown}
        if skip + OPERATION_PAGE < OPERATION_COUNT:
            host = request.headers.get("host", "127.0.0.1")
            version = request.param("api-version")
            body["nextLink"] = (
                f"http://{host}/providers/Microsoft.Storage/operations?api-version={version}"
                f"&$skiptoken={skip + OPERATION_PAGE}"
            )
        return Reply(200, body)


def _position(token: str | None, prefix: str) -> int:
    if token in (None, ""):
        return 0
    assert token is not None
    if not token.startswith(prefix) or not token[len(prefix) :].isdigit():
        raise ApiError(400, "INVALID_CURSOR", f"unknown cursor {token!r}", "cursor")
    return int(token[len(prefix) :])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Local stand-in for real APIs' paging (127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=8092)
    run_standalone(PagingUpstream(), parser.parse_args(argv).port)


if __name__ == "__main__":
    main()
