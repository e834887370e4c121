"""The test-only Catalog API (tests/fixtures/check/catalog.openapi.yaml) as a sandbox answers it, with
the habits real APIs have that their specs do not show, for `mcpgen check --upstream`:

- `errors="vendor"`: an error body in the vendor's own shape, `{"error_message": "..."}` (as some
  payment and ads APIs answer), instead of the spec's `{code, message}`;
- `errors="rails"`: validation errors keyed by field, `{"errors": {"item_id": ["..."]}}` (Rails' shape);
- `errors="fault"`: an API gateway's fault, `{"fault": {"faultstring": "..."}}` (Apigee's shape), whose
  key names no message;
- `wrapped=True`: every record wrapped in `{"data": {...}}`, though the spec shows the record bare.

The last page of a list carries no next_cursor, as most cursor APIs answer.

    python -m tests.upstreams.catalog --port 8095 --errors vendor --wrapped
"""

from __future__ import annotations

import argparse
from typing import Any, Literal

from .recording import LoopbackUpstream, RecordedRequest, Reply, error_reply, run_standalone

ErrorShape = Literal["spec", "vendor", "rails", "fault"]
ITEMS = [
    {
        "id": "itm_1",
        "name": "Winter boots",
        "size": "20 MB",
        "status": "active",
        "created_at": "2026-01-02T09:00:00Z",
    },
    {
        "id": "itm_2",
        "name": "Rain coat",
        "size": "35 MB",
        "status": "active",
        "created_at": "2026-01-05T10:30:00Z",
    },
    {
        "id": "itm_3",
        "name": "Wool hat",
        "size": "4 MB",
        "status": "archived",
        "created_at": "2026-02-11T08:15:00Z",
    },
]


class CatalogUpstream(LoopbackUpstream):
    def __init__(
        self, token: str = "test-token", *, errors: ErrorShape = "spec", wrapped: bool = False
    ) -> None:
        super().__init__()
        self.token = token
        self.errors = errors
        self.wrapped = wrapped
        self.route("GET", "/items", self.list_items)
        self.route("GET", "/items/{item_id}", self.get_item)

    def authorize(self, request: RecordedRequest) -> Reply | None:
        if request.headers.get("authorization") == f"Bearer {self.token}":
            return None
        return self._error(401, "unauthorized", "The access token is missing or wrong.", None)

    def list_items(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        limit = int(request.param("limit") or 10)
        start = int(request.param("cursor") or 0) if (request.param("cursor") or "0").isdigit() else 0
        page = ITEMS[start : start + limit]
        body: dict[str, Any] = {"items": [self._record(r) for r in page], "total": len(ITEMS)}
        if start + limit < len(ITEMS):
            body["next_cursor"] = str(start + limit)
        return Reply(200, body)

    def get_item(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        found = next((r for r in ITEMS if r["id"] == path["item_id"]), None)
        if found is None:
            return self._error(404, "not_found", f"No item {path['item_id']} in this catalog.", "item_id")
        return Reply(200, self._record(found))

    def _record(self, record: dict[str, Any]) -> dict[str, Any]:
        return {"data": dict(record)} if self.wrapped else dict(record)

    def _error(self, status: int, code: str, message: str, field: str | None) -> Reply:
        if self.errors == "vendor":
            return Reply(status, {"error_message": message})
        if self.errors == "rails":
            return Reply(status, {"errors": {field or "base": [message]}})
        if self.errors == "fault":
            return Reply(status, {"fault": {"faultstring": message}})
        return error_reply(status, code, message)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=8095)
    parser.add_argument("--token", default="test-token")
    parser.add_argument("--errors", choices=["spec", "vendor", "rails", "fault"], default="spec")
    parser.add_argument("--wrapped", action="store_true")
    args = parser.parse_args()
    upstream = CatalogUpstream(args.token, errors=args.errors, wrapped=args.wrapped)
    run_standalone(upstream, args.port, f" (bearer token {args.token!r})")


if __name__ == "__main__":
    main()
