"""Local times beside a time-zone field, where the spec allows them (T5 parameter names, issue 17 defect 7).

The generator marks such a date-time field with LOCAL_OR_OFFSET instead of `format: date-time`
(mcpgen/build/times.py): the value may carry its offset, or be a local time when the object also
gives an IANA time-zone name (Google Calendar's `{"dateTime": "2026-11-01T09:00:00", "timeZone":
"Asia/Seoul"}`). This check runs with each object's properties (validation.py).
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from collections.abc import Iterator
from datetime import datetime
from typing import Any

LOCAL_OR_OFFSET = (
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$"
)
ZONE_KEYS = ("timeZone", "time_zone", "timezone", "tz")
_OFFSET = re.compile(r"(Z|[+-]\d{2}:\d{2})$", re.I)


def local_time_problems(
    instance: dict[str, Any], properties: dict[str, Any]
) -> Iterator[str]:
    """What is wrong with the object's local times: a missing or unknown time zone, an impossible
    date or clock time."""
    zone = next((k for k in ZONE_KEYS if k in properties), None)
    for name, schema in properties.items():
        value = instance.get(name)
        if not isinstance(schema, dict) or schema.get("pattern") != LOCAL_OR_OFFSET:
            continue
        if not isinstance(value, str) or not re.fullmatch(
            LOCAL_OR_OFFSET, value, re.ASCII
        ):
            continue  # the pattern check speaks for it
        try:
            datetime.fromisoformat(value[:19])
        except ValueError:
            yield f"{name} {value!r} is not a real date and clock time"
            continue
        if _OFFSET.search(value) or zone is None:
            continue
        named = instance.get(zone)
        if not isinstance(named, str) or not named:
            yield (
                f"{name} {value!r} is a local time, so {zone} must name its time zone (an IANA name "
                f"such as Asia/Seoul); or write {name} with its UTC offset, such as {value}+09:00"
            )
        elif not _known_zone(named):
            yield f"{zone} {named[:64]!r} is not an IANA time-zone name, such as Asia/Seoul or Europe/Zurich"


@functools.lru_cache(maxsize=256)
def _known_zone(name: str) -> bool:
    if not _has_zone_data():
        return True  # no tz database on this machine: the API judges the name
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


@functools.lru_cache(maxsize=1)
def _has_zone_data() -> bool:
    return bool(zoneinfo.available_timezones())
