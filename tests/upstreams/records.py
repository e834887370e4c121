"""Records as real APIs answer them, where the answer is not quite what their spec says (the fragments
in tests/fixtures/realspecs name each spec and JSON pointer):

- SalesLoft: the spec gives `*/*` answers and the bare Person (or a bare array of them); the API wraps
  every answer, `{"data": {...}}` and `{"metadata": {"paging": ...}, "data": [...]}`
  (developers.salesloft.com, "Response format").
- Vercel: a Deployment is identified by `uid` and named by `name`; it has no `id`.
- Zoom: a meeting is named by its `topic`.
- Google Calendar: an event without a title has no `summary` at all; Google's APIs leave empty fields
  out of their answers.
"""

from __future__ import annotations

from typing import Any

from .recording import ApiError, LoopbackUpstream, RecordedRequest, Reply, int_param

PEOPLE = 5


def person(n: int) -> dict[str, Any]:
    return {
        "id": 100 + n,
        "created_at": "2026-10-01T09:00:00.000000-04:00",
        "updated_at": "2026-11-01T09:00:00.000000-04:00",
        "first_name": f"Ada{n}",
        "last_name": "Lovelace",
        "display_name": f"Ada{n} Lovelace",
        "email_address": f"ada{n}@example.test",
        "title": "Analyst",
        "city": "London",
        "state": None,
        "country": "UK",
        "crm_id": None,
        "owner_crm_id": None,
        "person_company_name": "Analytical Engines",
        "last_contacted_at": None,
        "last_replied_at": None,
        "tags": ["engine"],
        "owner": {"id": 1, "_href": "https://api.salesloft.com/v2/users/1"},
        "counts": {"emails_sent": 3, "emails_viewed": 1, "calls": 0},
    }


class SalesloftUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/v2/people.json", self._list)
        self.route("GET", "/v2/people/{id}.json", self._get)

    def _list(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        per_page = int_param(request, "per_page", 25, 1, 100)
        page = int_param(request, "page", 1, 1, 1000)
        numbers = range((page - 1) * per_page + 1, min(page * per_page, PEOPLE) + 1)
        paging = {
            "per_page": per_page,
            "current_page": page,
            "next_page": page + 1 if page * per_page < PEOPLE else None,
            "prev_page": page - 1 if page > 1 else None,
        }
        return Reply(
            200,
            {
                "metadata": {"filtering": {}, "paging": paging, "sorting": {}},
                "data": [person(n) for n in numbers],
            },
        )

    def _get(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        n = int(path["id"]) - 100
        if not 1 <= n <= PEOPLE:
            raise ApiError(404, "not_found", "Not Found")
        return Reply(200, {"data": person(n)})


def deployment(n: int) -> dict[str, Any]:
    return {
        "uid": f"dpl_{n:04d}AbCdEf",
        "name": "storefront",
        "url": f"storefront-{n:04d}-acme.vercel.app",
        "created": 1767225600000 + n,
        "state": "READY",
        "type": "LAMBDAS",
        "creator": {"uid": "usr_1", "username": "acme-ci"},
        "inspectorUrl": f"https://vercel.com/acme/storefront/{n:04d}",
        "meta": {"githubCommitSha": f"{n:040x}"},
        "target": "production",
        "aliasAssigned": 1767225700000,
        "isRollbackCandidate": True,
        "buildingAt": 1767225600500,
        "createdAt": 1767225600000 + n,
        "ready": 1767225660000,
        "checksState": "completed",
        "checksConclusion": "succeeded",
        "source": "git",
        "projectSettings": {"framework": "nextjs"},
        "connectConfigurationId": None,
    }


class VercelUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/v6/deployments", self._list)

    def _list(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        limit = int_param(request, "limit", 20, 1, 100)
        shown = [deployment(n) for n in range(1, min(limit, 3) + 1)]
        return Reply(
            200, {"pagination": {"count": len(shown), "next": None, "prev": None}, "deployments": shown}
        )


MEETING = {
    "uuid": "aDYlohsHRtCd4ii1uC2+hA==",
    "id": 85746065432,
    "host_id": "KDcuGIm1QgePTO8WbOqwIQ",
    "host_email": "host@example.test",
    "topic": "Quarterly planning",
    "type": 2,
    "status": "waiting",
    "start_time": "2026-12-01T15:00:00Z",
    "duration": 60,
    "timezone": "America/New_York",
    "agenda": "Plans for the next quarter.",
    "created_at": "2026-11-20T10:00:00Z",
    "start_url": "https://zoom.us/s/85746065432?zak=...",
    "join_url": "https://zoom.us/j/85746065432",
    "password": "ab12cd",
    "settings": {"host_video": True, "participant_video": False, "waiting_room": True},
    "pmi": "",
}


class ZoomUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/meetings/{meetingId}", lambda request, path: Reply(200, MEETING))


EVENTS = [
    {
        "kind": "calendar#event",
        "id": "evt_1",
        "status": "confirmed",
        "summary": "Standup",
        "start": {"dateTime": "2026-12-01T09:00:00Z"},
        "end": {"dateTime": "2026-12-01T09:15:00Z"},
    },
    {  # an event without a title: Google leaves `summary` out
        "kind": "calendar#event",
        "id": "evt_2",
        "status": "confirmed",
        "start": {"dateTime": "2026-12-01T13:00:00Z"},
        "end": {"dateTime": "2026-12-01T14:00:00Z"},
    },
]


class UntitledEventsUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route(
            "GET",
            "/calendars/{calendarId}/events",
            lambda request, path: Reply(200, {"kind": "calendar#events", "summary": "Team", "items": EVENTS}),
        )
