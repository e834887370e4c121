"""The Ads Campaigns API (specs/ads/ads.openapi.yaml) as a small in-memory server.

    python -m tests.upstreams.ads --port 8080     # standalone, for trying the generated server by hand
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .recording import LoopbackUpstream, RecordedRequest, Reply

OWNERS = ("kim@example.com", "lee@example.com", "park@example.com")
NAMES = ("Winter Sale", "Spring Launch", "Brand Awareness", "Retargeting", "App Installs")


def seed_campaigns() -> dict[str, dict[str, Any]]:
    campaigns = {}
    for n in range(1, 46):
        cid = f"cmp_{n:03d}"
        campaigns[cid] = {
            "id": cid,
            "name": f"{NAMES[n % len(NAMES)]} {n:02d}",
            "status": "paused" if n % 4 == 0 else "active",
            "daily_budget": 100_000 + 10_000 * n,
            "objective": ("awareness", "traffic", "conversions")[n % 3],
            "owner": OWNERS[n % len(OWNERS)],
            "start_date": f"2026-{(n % 12) + 1:02d}-01",
            "created_at": f"2026-01-{(n % 28) + 1:02d}T09:00:00+09:00",
            "updated_at": f"2026-02-{(n % 28) + 1:02d}T09:00:00+09:00",
            "uuid": f"00000000-0000-4000-8000-{n:012d}",
            "thumbnail_url_256px": f"https://cdn.example.com/thumbs/{cid}_256px.png",
            "internal_revision": n * 7,
        }
    return campaigns


def _error(status: int, code: str, message: str, field: str | None = None) -> Reply:
    body = {"code": code, "message": message}
    if field:
        body["field"] = field
    return Reply(status, body)


class AdsUpstream(LoopbackUpstream):
    def __init__(self, token: str = "test-token") -> None:
        super().__init__()
        self.token = token
        self.campaigns = seed_campaigns()
        self._next_id = len(self.campaigns) + 1
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
            self.route(method, pattern, self._authorized(handler))

    def _authorized(self, handler):  # noqa: ANN001, ANN202 - a small decorator
        def wrapped(request: RecordedRequest, path: dict[str, str]) -> Reply:
            if request.headers.get("authorization") != f"Bearer {self.token}":
                return _error(401, "unauthorized", "missing or wrong bearer token")
            return handler(request, path)

        return wrapped

    def _campaign(self, path: dict[str, str]) -> dict[str, Any] | None:
        return self.campaigns.get(path["campaign_id"])

    def list_campaigns(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        query = {k: v[0] for k, v in request.query.items()}
        found = [c for c in reversed(list(self.campaigns.values()))
                 if query.get("status") in (None, c["status"]) and query.get("owner") in (None, c["owner"])]
        page, per_page = int(query.get("page", 1)), int(query.get("per_page", 20))
        if page < 1 or not 1 <= per_page <= 100:
            return _error(422, "invalid", "page must be >= 1 and per_page 1..100", "per_page")
        start = (page - 1) * per_page
        return Reply(200, {"campaigns": found[start:start + per_page], "page": page, "per_page": per_page,
                           "total": len(found)})

    def search_campaigns(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        query = {k: v[0] for k, v in request.query.items()}
        if not query.get("q"):
            return _error(422, "invalid", "q is required", "q")
        text = query["q"].lower()
        found = [c for c in self.campaigns.values()
                 if text in c["name"].lower() and query.get("status") in (None, c["status"])]
        return Reply(200, {"campaigns": found[: int(query.get("limit", 20))]})

    def get_campaign(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        campaign = self._campaign(path)
        return Reply(200, campaign) if campaign else _error(404, "not_found", f"no campaign {path['campaign_id']}")

    def create_campaign(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        body = request.json or {}
        for field in ("name", "daily_budget", "objective"):
            if field not in body:
                return _error(422, "invalid", f"{field} is required", field)
        if not isinstance(body["daily_budget"], int) or body["daily_budget"] < 1000:
            return _error(422, "invalid", "daily_budget must be at least 1000 KRW", "daily_budget")
        cid = f"cmp_{self._next_id:03d}"
        self._next_id += 1
        campaign = {**seed_campaigns()["cmp_001"], **body, "id": cid, "status": "active"}
        self.campaigns[cid] = campaign
        return Reply(201, campaign)

    def update_budget(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        campaign = self._campaign(path)
        if campaign is None:
            return _error(404, "not_found", f"no campaign {path['campaign_id']}")
        budget = (request.json or {}).get("daily_budget")
        if not isinstance(budget, int) or budget < 1000:
            return _error(422, "invalid", "daily_budget must be at least 1000 KRW", "daily_budget")
        campaign["daily_budget"] = budget
        return Reply(200, campaign)

    def _set_status(self, path: dict[str, str], wanted: str) -> Reply:
        campaign = self._campaign(path)
        if campaign is None:
            return _error(404, "not_found", f"no campaign {path['campaign_id']}")
        if campaign["status"] == wanted:
            return _error(409, "conflict", f"campaign is already {wanted}")
        campaign["status"] = wanted
        return Reply(200, campaign)

    def pause(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return self._set_status(path, "paused")

    def resume(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return self._set_status(path, "active")

    def delete_campaign(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        if self.campaigns.pop(path["campaign_id"], None) is None:
            return _error(404, "not_found", f"no campaign {path['campaign_id']}")
        return Reply(204)

    def stats(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        campaign = self._campaign(path)
        if campaign is None:
            return _error(404, "not_found", f"no campaign {path['campaign_id']}")
        query = {k: v[0] for k, v in request.query.items()}
        if "from_date" not in query or "to_date" not in query:
            return _error(422, "invalid", "from_date and to_date are required", "from_date")
        impressions = campaign["daily_budget"] // 10
        clicks = impressions // 50
        return Reply(200, {"campaign_id": campaign["id"], "from_date": query["from_date"], "to_date": query["to_date"],
                           "impressions": impressions, "clicks": clicks, "spend": campaign["daily_budget"] * 30,
                           "ctr": round(clicks / impressions, 4)})

    def account(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, {"account_id": "acc_1", "name": "Example Advertiser", "currency": "KRW",
                           "monthly_spend_limit": 50_000_000})


def main() -> None:
    parser = argparse.ArgumentParser(description="Local stand-in for the Ads Campaigns API")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--token", default="test-token")
    args = parser.parse_args()
    print(f"ads upstream on http://127.0.0.1:{args.port} (token {args.token!r})", file=sys.stderr)
    try:
        AdsUpstream(args.token).serve_forever(args.port)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
