"""The test-only Shipping API (tests/fixtures/units/shipping.openapi.yaml) as a small in-memory server.

It counts in the smallest units, grams, cents and milliseconds, and refuses anything that is not a
whole number of them, so a test sees exactly what the generated server converted.

    python -m tests.upstreams.units --port 8090     # standalone, for trying the generated server by hand
"""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from .recording import (
    ApiError,
    LoopbackUpstream,
    RecordedRequest,
    Reply,
    error_reply,
    json_object,
    run_standalone,
)

MAX_WEIGHT_G = 30_000
TRANSIT_MS = {"shp_001": 86_400_000, "shp_002": 259_200_000}


def _whole(body: dict[str, Any], name: str, low: int, high: int | None = None) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(422, "invalid", f"{name} must be a whole number", name)
    if value < low or (high is not None and value > high):
        raise ApiError(422, "invalid", f"{name} must be between {low} and {high}", name)
    return value


class ShippingUpstream(LoopbackUpstream):
    def __init__(self, api_key: str = "test-key") -> None:
        super().__init__()
        self.api_key = api_key
        self.shipments: dict[str, dict[str, Any]] = {
            sid: {
                "id": sid,
                "recipient": "Lee Jun",
                "weight": 1200,
                "declared_value": 5000,
                "pickup_at": "2026-11-01T09:00:00+09:00",
                "transit": transit,
                "status": "booked",
            }
            for sid, transit in TRANSIT_MS.items()
        }
        self.route("GET", "/shipments", self.list_shipments)
        self.route("POST", "/shipments", self.create_shipment)
        self.route("GET", "/shipments/{shipment_id}", self.get_shipment)
        self.route("POST", "/shipments/{shipment_id}/cancel", self.cancel_shipment)

    def authorize(self, request: RecordedRequest) -> Reply | None:
        if request.headers.get("x-api-key") == self.api_key:
            return None
        return error_reply(401, "unauthorized", "missing or wrong API key")

    def _shipment(self, path: dict[str, str]) -> dict[str, Any]:
        shipment = self.shipments.get(path["shipment_id"])
        if shipment is None:
            raise ApiError(404, "not_found", f"no shipment {path['shipment_id']}")
        return shipment

    def list_shipments(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        found = list(self.shipments.values())
        limit = request.param("max_transit")
        if limit is not None:
            if not limit.isdigit():
                raise ApiError(
                    422, "invalid", "max_transit must be a whole number of milliseconds", "max_transit"
                )
            found = [s for s in found if s["transit"] <= int(limit)]
        return Reply(200, {"shipments": found})

    def create_shipment(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        body = json_object(request)
        recipient = body.get("recipient")
        if not isinstance(recipient, str) or not recipient.strip():
            raise ApiError(422, "invalid", "recipient is required", "recipient")
        pickup_at = body.get("pickup_at")
        if pickup_at is not None:
            try:
                parsed = datetime.fromisoformat(pickup_at) if isinstance(pickup_at, str) else None
            except ValueError:
                parsed = None
            if parsed is None or parsed.tzinfo is None:
                raise ApiError(422, "invalid", "pickup_at needs a UTC offset", "pickup_at")
        sid = f"shp_{len(self.shipments) + 1:03d}"
        self.shipments[sid] = {
            "id": sid,
            "recipient": recipient,
            "weight": _whole(body, "weight", 1, MAX_WEIGHT_G),
            "declared_value": _whole(body, "declared_value", 0),
            "pickup_at": pickup_at,
            "transit": 86_400_000,
            "status": "booked",
        }
        return Reply(201, self.shipments[sid])

    def get_shipment(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, self._shipment(path))

    def cancel_shipment(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        shipment = self._shipment(path)
        if shipment["status"] == "cancelled":
            raise ApiError(409, "conflict", f"shipment {shipment['id']} is already cancelled")
        shipment["status"] = "cancelled"
        return Reply(200, shipment)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8090)
    parser.add_argument("--api-key", default="test-key")
    args = parser.parse_args()
    run_standalone(ShippingUpstream(args.api_key), args.port, f" (X-API-Key: {args.api_key})")


if __name__ == "__main__":
    main()
