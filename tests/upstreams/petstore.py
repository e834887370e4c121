"""The Swagger Petstore (specs/petstore/petstore.openapi.json) as petstore.swagger.io answers it, for
`mcpgen check --upstream`: pets by status or tags as bare arrays, one pet or order by id, the inventory
as a map, and the service's own error body `{"code", "type", "message"}` for an unknown id.

    python -m tests.upstreams.petstore --port 8096
"""

from __future__ import annotations

import argparse
from typing import Any

from .recording import LoopbackUpstream, RecordedRequest, Reply, run_standalone

PETS = [
    {"id": 1, "category": {"id": 1, "name": "Dogs"}, "name": "doggie", "photoUrls": ["https://example.com/d.jpg"],
     "tags": [{"id": 1, "name": "friendly"}], "status": "available"},
    {"id": 2, "category": {"id": 2, "name": "Cats"}, "name": "kitty", "photoUrls": [],
     "tags": [{"id": 2, "name": "calm"}], "status": "pending"},
]  # fmt: skip
ORDERS = [
    {
        "id": 1,
        "petId": 1,
        "quantity": 1,
        "shipDate": "2026-01-02T09:00:00.000+0000",
        "status": "placed",
        "complete": False,
    }
]


class PetstoreUpstream(LoopbackUpstream):
    def __init__(self, api_key: str = "special-key") -> None:
        super().__init__()
        self.api_key = api_key
        self.route("GET", "/pet/findByStatus", self.by_status)
        self.route("GET", "/pet/findByTags", self.by_tags)
        self.route("GET", "/pet/{pet_id}", self.get_pet)
        self.route("GET", "/store/order/{order_id}", self.get_order)
        self.route("GET", "/store/inventory", self.inventory)

    def authorize(self, request: RecordedRequest) -> Reply | None:
        # petstore.swagger.io takes any api_key header; a call without one still gets its answer
        return None

    def by_status(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        wanted = set(request.query.get("status") or ["available"])
        return Reply(200, [p for p in PETS if p["status"] in wanted])

    def by_tags(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        wanted = set(request.query.get("tags") or [])
        return Reply(200, [p for p in PETS if {t["name"] for t in p["tags"]} & wanted])

    def get_pet(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return _one(PETS, path["pet_id"], "Pet not found")

    def get_order(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return _one(ORDERS, path["order_id"], "Order not found")

    def inventory(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        counts: dict[str, Any] = {}
        for pet in PETS:
            counts[pet["status"]] = counts.get(pet["status"], 0) + 1
        return Reply(200, counts)


def _one(records: list[dict[str, Any]], given: str, missing: str) -> Reply:
    found = next((r for r in records if str(r["id"]) == given), None)
    if found is None:
        return Reply(404, {"code": 1, "type": "error", "message": missing})
    return Reply(200, found)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=8096)
    args = parser.parse_args()
    run_standalone(PetstoreUpstream(), args.port)


if __name__ == "__main__":
    main()
