"""The paging-styles API (tests/fixtures/pages/pages.openapi.yaml) as a small in-memory server.

Books page by offset/limit, events by a cursor in the body, commits by a Link header; one note has
a body far larger than any result budget.

    python -m tests.upstreams.pages --port 8090
"""

from __future__ import annotations

import argparse
from typing import Any

from .recording import ApiError, LoopbackUpstream, RecordedRequest, Reply, int_param, run_standalone

BOOK_COUNT = 95
EVENT_COUNT = 25
COMMIT_COUNT = 12
LONG_NOTE_CHARACTERS = 30_000


def book(n: int) -> dict[str, Any]:
    return {
        "id": f"bk_{n:03d}",
        "title": f"Book {n}",
        "author": f"Author {n % 7}",
        "summary": f"Summary of book {n}. " + "A long description of the plot. " * 9,
    }


def event(n: int) -> dict[str, Any]:
    return {"id": f"ev_{n:02d}", "kind": ("created", "updated", "deleted")[n % 3]}


def commit(n: int) -> dict[str, Any]:
    return {"sha": f"{n:040x}", "message": f"Commit number {n}"}


class PagesUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.books = [book(n) for n in range(1, BOOK_COUNT + 1)]
        self.events = [event(n) for n in range(1, EVENT_COUNT + 1)]
        self.commits = [commit(n) for n in range(1, COMMIT_COUNT + 1)]
        self.route("GET", "/books", self.list_books)
        self.route("GET", "/events", self.list_events)
        self.route("GET", "/commits", self.list_commits)
        self.route("GET", "/notes/{note_id}", self.get_note)

    def list_books(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        offset = int_param(request, "offset", 0, 0, 1_000_000)
        limit = int_param(request, "limit", 10, 1, 60)
        return Reply(200, {"data": self.books[offset : offset + limit], "total": len(self.books)})

    def list_events(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        start = _cursor_position(request.param("cursor"))
        size = int_param(request, "page_size", 10, 1, 50)
        end = start + size
        more = end < len(self.events)
        return Reply(
            200,
            {
                "events": self.events[start:end],
                "meta": {"next_cursor": f"pos-{end}" if more else None, "has_more": more},
            },
        )

    def list_commits(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        size = int_param(request, "per_page", 30, 1, 30)
        after = request.param("after")
        start = next((i + 1 for i, c in enumerate(self.commits) if c["sha"] == after), 0) if after else 0
        shown = self.commits[start : start + size]
        headers = {}
        if start + size < len(self.commits):
            host = request.headers.get("host", "127.0.0.1")
            headers["link"] = (
                f'<http://{host}/commits?per_page={size}&after={shown[-1]["sha"]}>; rel="next", '
                f'<http://{host}/commits?per_page={size}>; rel="first"'
            )
        return Reply(200, shown, headers)

    def get_note(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(
            200,
            {
                "id": path["note_id"],
                "title": "A very long note",
                "body": "All work and no play. " * (LONG_NOTE_CHARACTERS // 22),
            },
        )


def _cursor_position(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.startswith("pos-") or not cursor[4:].isdigit():
        raise ApiError(422, "invalid", f"unknown cursor {cursor!r}", "cursor")
    return int(cursor[4:])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Local stand-in for the paging-styles API (127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=8090)
    run_standalone(PagesUpstream(), parser.parse_args(argv).port)


if __name__ == "__main__":
    main()
