"""Stand-ins for the real APIs of tests/fixtures/realspecs/ (Square payments, Linode disks, Docker
container update, Google Calendar events), each answering as that API documents and keeping its own
units: Square money in minor units, Linode disk sizes in MB, Docker memory in bytes. Every request is
recorded (LoopbackUpstream), so a test sees exactly what the generated server sent on the wire.
"""

from __future__ import annotations

import itertools
from typing import Any

from .recording import ApiError, LoopbackUpstream, RecordedRequest, Reply, json_object


def _money(value: Any, name: str) -> dict[str, Any]:
    """Square's Money: a whole number of minor units and a currency code; 400 otherwise."""
    if not isinstance(value, dict):
        raise ApiError(400, "INVALID_VALUE", f"{name} must be an object", name)
    amount, currency = value.get("amount"), value.get("currency")
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ApiError(400, "INVALID_VALUE", f"{name}.amount must be an integer", f"{name}.amount")
    if not isinstance(currency, str) or len(currency) != 3:
        raise ApiError(400, "INVALID_VALUE", f"{name}.currency must be a currency code", f"{name}.currency")
    return {"amount": amount, "currency": currency}


def _totals(payment: dict[str, Any]) -> None:
    """Square's computed amounts: total_money and approved_money are the amount plus the tip."""
    amount = payment["amount_money"]
    tip = payment.get("tip_money", {}).get("amount", 0)
    total = {"amount": amount["amount"] + tip, "currency": amount["currency"]}
    payment["total_money"] = dict(total)
    payment["approved_money"] = dict(total)


class SquareUpstream(LoopbackUpstream):
    """POST /v2/payments, GET and PUT /v2/payments/{payment_id}: {"payment": {...}} as Square answers."""

    def __init__(self) -> None:
        super().__init__()
        self.payments: dict[str, dict[str, Any]] = {
            "pay_tip": {
                "id": "pay_tip",
                "status": "APPROVED",
                "amount_money": {"amount": 1000, "currency": "USD"},
                "tip_money": {"amount": 300, "currency": "USD"},
                "total_money": {"amount": 1300, "currency": "USD"},
                "approved_money": {"amount": 1300, "currency": "USD"},
                "version_token": "v1",
            }
        }
        self._ids = itertools.count(1)
        self.route("POST", "/v2/payments", self._create)
        self.route("GET", "/v2/payments/{payment_id}", self._get)
        self.route("PUT", "/v2/payments/{payment_id}", self._update)

    def _create(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        body = json_object(request)
        payment: dict[str, Any] = {"id": f"pay_{next(self._ids)}", "status": "COMPLETED"}
        payment["amount_money"] = _money(body.get("amount_money"), "amount_money")
        if "tip_money" in body:
            payment["tip_money"] = _money(body["tip_money"], "tip_money")
        _totals(payment)
        self.payments[payment["id"]] = payment
        return Reply(200, {"payment": payment})

    def _get(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        payment = self.payments.get(path["payment_id"])
        if payment is None:
            raise ApiError(404, "NOT_FOUND", "Payment not found")
        return Reply(200, {"payment": payment})

    def _update(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        payment = self.payments.get(path["payment_id"])
        if payment is None:
            raise ApiError(404, "NOT_FOUND", "Payment not found")
        change = json_object(request).get("payment") or {}
        for key in ("amount_money", "tip_money"):
            if key in change:
                payment[key] = _money(change[key], f"payment.{key}")
        _totals(payment)
        return Reply(200, {"payment": payment})


class LinodeUpstream(LoopbackUpstream):
    """POST and GET a Linode's disks, sizes in MB; GET a Block Storage volume, its size in GiB: the
    API counts each as its docs say (Disk.size "in MB", Volume.size "in GiB")."""

    def __init__(self) -> None:
        super().__init__()
        self.disks: dict[str, dict[str, Any]] = {}
        self.volumes: dict[str, dict[str, Any]] = {
            "12345": {"id": 12345, "label": "my-volume", "size": 100, "status": "active", "region": "us-east"}
        }
        self._ids = itertools.count(25674)
        self.route("POST", "/linode/instances/{linodeId}/disks", self._create)
        self.route("GET", "/linode/instances/{linodeId}/disks/{diskId}", self._get)
        self.route("GET", "/volumes/{volumeId}", self._volume)

    def _create(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        body = json_object(request)
        size = body.get("size")
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ApiError(400, "invalid", "size must be a whole number of MB", "size")
        disk = {
            "id": next(self._ids),
            "label": body.get("label"),
            "size": size,
            "status": "ready",
            "filesystem": "ext4",
        }
        self.disks[str(disk["id"])] = disk
        return Reply(200, disk)

    def _get(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        disk = self.disks.get(path["diskId"])
        if disk is None:
            raise ApiError(404, "not_found", "Not found")
        return Reply(200, disk)

    def _volume(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        volume = self.volumes.get(path["volumeId"])
        if volume is None:
            raise ApiError(404, "not_found", "Not found")
        return Reply(200, volume)


class DockerUpstream(LoopbackUpstream):
    """POST /containers/{id}/update: memory limits in bytes, -1 for unlimited swap."""

    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/containers/{id}/update", lambda request, path: Reply(200, {"Warnings": []}))


class CalendarUpstream(LoopbackUpstream):
    """GET and POST a calendar's events: local times with a time-zone name, or times with an offset."""

    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/calendars/{calendarId}/events", self._list)
        self.route("POST", "/calendars/{calendarId}/events", self._insert)

    def _list(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, {"kind": "calendar#events", "items": []})

    def _insert(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        body = json_object(request)
        return Reply(200, {"kind": "calendar#event", "id": "evt_1", **body})
