"""The Data Exports API (specs/exports/exports.openapi.yaml) as a small in-memory server.

Starting an export answers 202 Accepted with the job and a Location; every read of a job's status
moves it one step on (queued -> running -> succeeded), so a test walks it without waiting on a clock.

python -m tests.upstreams.exports --port 8082     # standalone, for trying the generated server by hand
"""

from __future__ import annotations

import argparse
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

DATASETS = ("orders", "customers", "invoices")
FORMATS = ("csv", "json")
STEPS = ("queued", "running", "succeeded")
ROWS = {"orders": 1200, "customers": 300, "invoices": 840}


class ExportsUpstream(LoopbackUpstream):
    def __init__(self, token: str = "test-token") -> None:
        super().__init__()
        self.token = token
        self.exports: dict[str, dict[str, Any]] = {}
        self.route("POST", "/exports", self.start_export)
        self.route("GET", "/exports/{export_id}", self.get_export)

    def authorize(self, request: RecordedRequest) -> Reply | None:
        if request.headers.get("authorization") == f"Bearer {self.token}":
            return None
        return error_reply(401, "unauthorized", "missing or wrong bearer token")

    def start_export(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        body = json_object(request)
        dataset, file_format = body.get("dataset"), body.get("format", "csv")
        if dataset not in DATASETS:
            raise ApiError(422, "invalid", f"dataset must be one of {', '.join(DATASETS)}", "dataset")
        if file_format not in FORMATS:
            raise ApiError(422, "invalid", f"format must be one of {', '.join(FORMATS)}", "format")
        export_id = f"exp_{len(self.exports) + 1}"
        job = {"id": export_id, "dataset": dataset, "format": file_format, "status": "queued", "rows": 0}
        self.exports[export_id] = job
        return Reply(202, dict(job), {"location": f"/exports/{export_id}"})

    def get_export(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        job = self.exports.get(path["export_id"])
        if job is None:
            raise ApiError(404, "not_found", f"no export {path['export_id']}")
        shown = dict(job)
        step = STEPS.index(job["status"])
        if step + 1 < len(STEPS):  # the next read sees the job one step further
            job["status"] = STEPS[step + 1]
            if job["status"] == "succeeded":
                job["rows"] = ROWS[job["dataset"]]
                job["download_url"] = f"https://files.example.com/{job['id']}.{job['format']}"
        return Reply(200, shown)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=8082)
    parser.add_argument("--token", default="test-token")
    args = parser.parse_args()
    run_standalone(ExportsUpstream(args.token), args.port, f" (bearer token {args.token!r})")


if __name__ == "__main__":
    main()
