"""The Ads Campaigns API (specs/ads/ads.openapi.yaml) as a small in-memory server.

python -m tests.upstreams.ads --port 8080     # standalone, for trying the generated server by hand
"""

from __future__ import annotations

import argparse
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from .recording import (
    ApiError,
    LoopbackUpstream,
    RecordedRequest,
    Reply,
    enum_param,
    error_reply,
    int_param,
    json_object,
    run_standalone,
)

OWNERS = ("kim@example.com", "lee@example.com", "park@example.com")
NAMES = ("Winter Sale", "Spring Launch", "Brand Awareness", "Retargeting", "App Installs")
STATUSES = ("active", "paused")
OBJECTIVES = ("awareness", "traffic", "conversions")
MIN_DAILY_BUDGET = 1000
SEED_COUNT = 45
CREATE_FIELDS = {"name", "daily_budget", "objective", "start_date", "owner"}
ACCOUNT = {
    "account_id": "acc_001",
    "name": "Example Advertiser",
    "currency": "KRW",
    "monthly_spend_limit": 50_000_000,
}
_SEED_EPOCH = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _campaign_record(
    n: int,
    name: str,
    daily_budget: int,
    objective: str,
    owner: str,
    start_date: str,
    created_at: datetime,
    status: str = "active",
) -> dict[str, Any]:
    cid = f"cmp_{n:03d}"
    return {
        "id": cid,
        "name": name,
        "status": status,
        "daily_budget": daily_budget,
        "objective": objective,
        "owner": owner,
        "start_date": start_date,
        "created_at": created_at.isoformat(),
        "updated_at": created_at.isoformat(),
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "thumbnail_url_256px": f"https://cdn.example.com/thumbs/{cid}_256px.png",
        "internal_revision": 1,
    }


def seed_campaigns() -> dict[str, dict[str, Any]]:
    """cmp_001..cmp_045, the same every time: every 4th paused, owners, objectives and budgets cycle."""
    campaigns = {}
    for n in range(1, SEED_COUNT + 1):
        created = _SEED_EPOCH + timedelta(days=n)
        record = _campaign_record(
            n,
            name=f"{NAMES[(n - 1) % len(NAMES)]} {n:02d}",
            daily_budget=50_000 * ((n * 7) % 20 + 1),
            objective=OBJECTIVES[n % len(OBJECTIVES)],
            owner=OWNERS[n % len(OWNERS)],
            start_date=(created + timedelta(days=7)).date().isoformat(),
            created_at=created,
            status="paused" if n % 4 == 0 else "active",
        )
        campaigns[record["id"]] = record
    return campaigns


# --- input checks: each raises ApiError naming the field ------------------------------------------


def _invalid(field: str, message: str) -> ApiError:
    return ApiError(422, "invalid", message, field)


def _date_value(value: Any, name: str) -> date:
    if not isinstance(value, str) or not _DATE.match(value):
        raise _invalid(name, f"{name} must be a date like 2026-11-01")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise _invalid(name, f"{name} is not a real date: {value}") from None


def _budget(body: dict[str, Any]) -> int:
    budget = body.get("daily_budget")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise _invalid("daily_budget", "daily_budget must be an integer amount of KRW")
    if budget < MIN_DAILY_BUDGET:
        raise _invalid("daily_budget", f"daily_budget must be at least {MIN_DAILY_BUDGET} KRW")
    return budget


def _require(body: dict[str, Any], *names: str) -> None:
    for name in names:
        if name not in body:
            raise _invalid(name, f"{name} is required")


def _non_empty_string(body: dict[str, Any], name: str) -> str:
    value = body[name]
    if not isinstance(value, str) or not value.strip():
        raise _invalid(name, f"{name} must be a non-empty string")
    return value


class AdsUpstream(LoopbackUpstream):
    def __init__(self, token: str = "test-token") -> None:
        super().__init__()
        self.token = token
        self.campaigns = seed_campaigns()
        self._next_number = SEED_COUNT + 1
        for method, pattern, handler in (
            ("GET", "/campaigns", self.list_campaigns),
            ("POST", "/campaigns", self.create_campaign),
            ("GET", "/campaigns/search", self.search_campaigns),
            ("GET", "/campaigns/{campaign_id}", self.get_campaign),
            ("DELETE", "/campaigns/{campaign_id}", self.delete_campaign),
            ("PATCH", "/campaigns/{campaign_id}/budget", self.update_budget),
            ("POST", "/campaigns/{campaign_id}/pause", self.pause),
            ("POST", "/campaigns/{campaign_id}/resume", self.resume),
            ("GET", "/campaigns/{campaign_id}/stats", self.stats),
            ("GET", "/account", self.account),
        ):
            self.route(method, pattern, handler)

    def authorize(self, request: RecordedRequest) -> Reply | None:
        if request.headers.get("authorization") == f"Bearer {self.token}":
            return None
        return error_reply(
            401, "unauthorized", "missing or wrong bearer token", headers={"www-authenticate": "Bearer"}
        )

    def _campaign(self, path: dict[str, str]) -> dict[str, Any]:
        campaign = self.campaigns.get(path["campaign_id"])
        if campaign is None:
            raise ApiError(404, "not_found", f"no campaign {path['campaign_id']}")
        return campaign

    def _touch(self, campaign: dict[str, Any]) -> None:
        campaign["updated_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        campaign["internal_revision"] += 1

    def list_campaigns(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        status = enum_param(request, "status", STATUSES)
        owner = request.param("owner")
        page = int_param(request, "page", 1, 1, 1_000_000)
        per_page = int_param(request, "per_page", 20, 1, 100)
        found = [
            c
            for c in reversed(self.campaigns.values())  # newest first
            if status in (None, c["status"]) and owner in (None, c["owner"])
        ]
        start = (page - 1) * per_page
        return Reply(
            200,
            {
                "campaigns": found[start : start + per_page],
                "page": page,
                "per_page": per_page,
                "total": len(found),
            },
        )

    def search_campaigns(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        text = request.param("q")
        if not text:
            raise _invalid("q", "q is required")
        status = enum_param(request, "status", STATUSES)
        limit = int_param(request, "limit", 20, 1, 100)
        found = [
            c
            for c in self.campaigns.values()
            if text.lower() in c["name"].lower() and status in (None, c["status"])
        ]
        return Reply(200, {"campaigns": found[:limit]})

    def get_campaign(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, self._campaign(path))

    def create_campaign(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        body = json_object(request)
        unknown = sorted(set(body) - CREATE_FIELDS)
        if unknown:
            raise _invalid(unknown[0], f"unknown field {unknown[0]}")
        _require(body, "name", "daily_budget", "objective")
        name = _non_empty_string(body, "name")
        budget = _budget(body)
        if body["objective"] not in OBJECTIVES:
            raise _invalid("objective", f"objective must be one of {', '.join(OBJECTIVES)}")
        now = datetime.now(UTC).replace(microsecond=0)
        start = _date_value(body["start_date"], "start_date").isoformat() if "start_date" in body else None
        owner = _non_empty_string(body, "owner") if "owner" in body else OWNERS[0]
        campaign = _campaign_record(
            self._next_number, name, budget, body["objective"], owner, start or now.date().isoformat(), now
        )
        self._next_number += 1
        self.campaigns[campaign["id"]] = campaign
        return Reply(201, campaign)

    def update_budget(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        campaign = self._campaign(path)
        body = json_object(request)
        _require(body, "daily_budget")
        campaign["daily_budget"] = _budget(body)
        self._touch(campaign)
        return Reply(200, campaign)

    def _set_status(self, path: dict[str, str], wanted: str) -> Reply:
        campaign = self._campaign(path)
        if campaign["status"] == wanted:
            raise ApiError(409, "conflict", f"campaign {campaign['id']} is already {wanted}")
        campaign["status"] = wanted
        self._touch(campaign)
        return Reply(200, campaign)

    def pause(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return self._set_status(path, "paused")

    def resume(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return self._set_status(path, "active")

    def delete_campaign(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        del self.campaigns[self._campaign(path)["id"]]
        return Reply(204)

    def stats(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        campaign = self._campaign(path)
        for name in ("from_date", "to_date"):
            if request.param(name) is None:
                raise _invalid(name, f"{name} is required")
        first = _date_value(request.param("from_date"), "from_date")
        last = _date_value(request.param("to_date"), "to_date")
        if last < first:
            raise _invalid("to_date", "to_date must not be before from_date")
        return Reply(200, _stats(campaign, first, last))

    def account(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, dict(ACCOUNT))


def _stats(campaign: dict[str, Any], first: date, last: date) -> dict[str, Any]:
    """Made-up but stable numbers: they follow from the budget and the number of days."""
    days = (last - first).days + 1
    impressions = days * campaign["daily_budget"] // 100
    clicks = impressions * (1 + int(campaign["id"].removeprefix("cmp_")) % 5) // 100  # CTR 1-5 %
    return {
        "campaign_id": campaign["id"],
        "from_date": first.isoformat(),
        "to_date": last.isoformat(),
        "impressions": impressions,
        "clicks": clicks,
        "spend": days * campaign["daily_budget"],
        "ctr": round(clicks / impressions, 4) if impressions else 0.0,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Local stand-in for the Ads Campaigns API (127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--token", default="test-token", help="the bearer token to accept")
    args = parser.parse_args(argv)
    run_standalone(AdsUpstream(args.token), args.port, f" (bearer token {args.token!r})")


if __name__ == "__main__":
    main()
