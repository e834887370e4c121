"""The Deploy Service API (specs/deploy/deploy.openapi.yaml) as a small in-memory server.

python -m tests.upstreams.deploy --port 8081     # standalone, for trying a generated server by hand
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
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

ENVIRONMENTS = ("staging", "production")
MAX_REASON = 500

# (id, service, environment, version, status, created_at), oldest first. The latest deployment of
# checkout/production can be rolled back; search/production was rolled back already; billing has no
# earlier version; search/staging is still running.
SEED = (
    ("dep_101", "checkout", "staging", "2.3.0", "succeeded", "2026-11-10T09:00:00Z"),
    ("dep_102", "checkout", "production", "2.3.0", "succeeded", "2026-11-11T09:00:00Z"),
    ("dep_103", "checkout", "staging", "2.4.1", "succeeded", "2026-11-18T09:00:00Z"),
    ("dep_104", "checkout", "production", "2.4.1", "succeeded", "2026-11-20T10:15:00Z"),
    ("dep_105", "search", "production", "1.8.0", "succeeded", "2026-11-12T14:00:00Z"),
    ("dep_106", "search", "production", "1.9.0", "rolled_back", "2026-11-19T14:00:00Z"),
    ("dep_107", "search", "production", "1.8.0", "succeeded", "2026-11-19T14:30:00Z"),
    ("dep_108", "search", "staging", "2.0.0-rc.1", "in_progress", "2026-11-21T08:00:00Z"),
    ("dep_109", "billing", "production", "3.1.0", "failed", "2026-11-21T11:00:00Z"),
)


def seed_deployments() -> dict[str, dict[str, Any]]:
    keys = ("id", "service", "environment", "version", "status", "created_at")
    return {row[0]: dict(zip(keys, row, strict=True)) for row in SEED}


class DeployUpstream(LoopbackUpstream):
    def __init__(self, key: str = "deploy-key") -> None:
        super().__init__()
        self.key = key
        self.deployments = seed_deployments()
        self.rollback_reasons: dict[str, str] = {}  # deployment id -> reason, as an audit log would keep it
        self._next_number = 110
        self.route("GET", "/services/{service}/deployments", self.list_deployments)
        self.route("GET", "/deployments/{deployment_id}", self.get_deployment)
        self.route("POST", "/deployments/{deployment_id}/rollback", self.rollback)

    def authorize(self, request: RecordedRequest) -> Reply | None:
        if request.headers.get("x-deploy-key") == self.key:
            return None
        return error_reply(401, "unauthorized", "missing or wrong X-Deploy-Key")

    def _deployment(self, path: dict[str, str]) -> dict[str, Any]:
        deployment = self.deployments.get(path["deployment_id"])
        if deployment is None:
            raise ApiError(404, "not_found", f"no deployment {path['deployment_id']}")
        return deployment

    def _history(self, service: str, environment: str) -> list[dict[str, Any]]:
        """Deployments of one service and environment, oldest first."""
        return [
            d for d in self.deployments.values() if (d["service"], d["environment"]) == (service, environment)
        ]

    def list_deployments(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        service = path["service"]
        environment = enum_param(request, "environment", ENVIRONMENTS)
        limit = int_param(request, "limit", 10, 1, 50)
        if not any(d["service"] == service for d in self.deployments.values()):
            raise ApiError(404, "not_found", f"no service {service}")
        found = [
            d
            for d in reversed(self.deployments.values())  # newest first
            if d["service"] == service and environment in (None, d["environment"])
        ]
        return Reply(200, found[:limit])

    def get_deployment(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, self._deployment(path))

    def rollback(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        deployment = self._deployment(path)
        reason = _reason(json_object(request))
        previous = self._rollback_target(deployment)
        deployment["status"] = "rolled_back"
        self.rollback_reasons[deployment["id"]] = reason
        started = {
            "id": f"dep_{self._next_number}",
            "service": deployment["service"],
            "environment": deployment["environment"],
            "version": previous["version"],
            "status": "in_progress",
            "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        self._next_number += 1
        self.deployments[started["id"]] = started
        return Reply(202, started)

    def _rollback_target(self, deployment: dict[str, Any]) -> dict[str, Any]:
        """The succeeded deployment before this one; 409 when rolling back makes no sense."""
        if deployment["status"] in ("in_progress", "rolled_back"):
            raise ApiError(409, "conflict", f"deployment {deployment['id']} is {deployment['status']}")
        history = self._history(deployment["service"], deployment["environment"])
        if history[-1] is not deployment:
            raise ApiError(
                409,
                "conflict",
                f"deployment {deployment['id']} is not the latest one; roll back {history[-1]['id']} instead",
            )
        earlier = [d for d in history[:-1] if d["status"] == "succeeded"]
        if not earlier:
            raise ApiError(
                409,
                "conflict",
                f"no earlier succeeded version of {deployment['service']} in {deployment['environment']}",
            )
        return earlier[-1]


def _reason(body: dict[str, Any]) -> str:
    reason = body.get("reason")
    if reason is None:
        raise ApiError(422, "invalid", "reason is required", "reason")
    if not isinstance(reason, str) or not reason.strip():
        raise ApiError(422, "invalid", "reason must be a non-empty string", "reason")
    if len(reason) > MAX_REASON:
        raise ApiError(422, "invalid", f"reason must be at most {MAX_REASON} characters", "reason")
    return reason


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Local stand-in for the Deploy Service API (127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--key", default="deploy-key", help="the X-Deploy-Key value to accept")
    args = parser.parse_args(argv)
    run_standalone(DeployUpstream(args.key), args.port, f" (X-Deploy-Key {args.key!r})")


if __name__ == "__main__":
    main()
