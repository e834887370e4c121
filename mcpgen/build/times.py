"""Date-time parameters as the spec allows them (T5, issue 17 defect 7).

- A string the description calls an RFC 3339 / ISO 8601 timestamp is a date-time even without
  `format: date-time` (Google Calendar's timeMin/timeMax), so the server checks it like any other.
- A date-time field whose description allows a local time when a time-zone field beside it is given
  ("A time zone offset is required unless a time zone is explicitly specified in timeZone.") takes
  either form: the schema says so with LOCAL_OR_OFFSET instead of `format: date-time`, and the server
  (templates/runtime/times.py) refuses a local time only when that time-zone field is missing or is not
  an IANA name.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, error
from mcpgen.ir import ParamSpec
from mcpgen.load.mapping import ParamRule

# The runtime recognises this exact pattern (templates/runtime/times.py keeps the same string).
LOCAL_OR_OFFSET = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$"
ZONE_KEYS = ("timeZone", "time_zone", "timezone", "tz")

_TIMESTAMP = re.compile(
    r"\b(?:RFC ?3339|ISO[- ]?8601)\b[^.]{0,40}\b(?:timestamp|date-?time)\b"
    r"|\b(?:timestamp|date-?time)\b[^.]{0,20}\b(?:RFC ?3339|ISO[- ]?8601)\b",
    re.I,
)
_LOCAL_ALLOWED = re.compile(r"\bunless\b[^.]{0,80}\btime ?zone\b", re.I)


def with_date_time_format(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """`format: date-time` on a plain string the description calls a timestamp."""
    if schema.get("type") != "string" or "format" in schema or "enum" in schema:
        return schema
    if not _TIMESTAMP.search(description):
        return schema
    return {**schema, "format": "date-time"}


def with_local_times(schema: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """Nested objects whose date-time field may be a local time beside a time-zone field."""
    if depth > 6:
        return schema
    out = dict(schema)
    if isinstance(out.get("items"), dict):
        out["items"] = with_local_times(out["items"], depth + 1)
    properties = out.get("properties")
    if not isinstance(properties, dict):
        return out
    zone = next((k for k in ZONE_KEYS if k in properties), None)
    kept: dict[str, Any] = {}
    for name, prop in properties.items():
        if not isinstance(prop, dict):
            kept[name] = prop
        elif (
            zone
            and prop.get("format") == "date-time"
            and _LOCAL_ALLOWED.search(str(prop.get("description", "")))
        ):
            kept[name] = _local_or_offset(prop, zone)
        else:
            kept[name] = with_local_times(prop, depth + 1)
    out["properties"] = kept
    return out


def _local_or_offset(prop: dict[str, Any], zone: str) -> dict[str, Any]:
    if prop.get("pattern") == LOCAL_OR_OFFSET:
        return prop
    out = {k: v for k, v in prop.items() if k != "format"}
    out["pattern"] = LOCAL_OR_OFFSET
    out["description"] = (
        f"{str(prop.get('description', '')).rstrip()} Either with its offset, such as "
        f"2026-11-01T09:00:00+09:00, or a local time such as 2026-11-01T09:00:00 with {zone} set to an "
        "IANA time-zone name such as Asia/Seoul."
    ).strip()
    return out


_LOCAL_WORDS = re.compile(r"\blocal\b[^.]{0,40}\btime\b|\bunless\b[^.]{0,80}\btime ?zone\b", re.I)


def allows_local(description: str) -> bool:
    """The spec's text says the value may be a local time (read beside a time-zone field)."""
    return _LOCAL_WORDS.search(description) is not None


def with_local_arguments(
    params: list[ParamSpec],
    local_rules: dict[str, ParamRule],
    described: frozenset[str],
    operation_key: str,
) -> tuple[list[ParamSpec], list[Diagnostic]]:
    """Date-time arguments that take a local time beside a time-zone argument of the same request
    (Zoom's `start_time` + `timezone`, "use yyyy-MM-ddTHH:mm:ss format and specify the timezone"):
    where the spec's description says so, or the mapping writes `format: local-date-time` (whose
    argument must be a date-time with such a time-zone argument: M245). `local_rules`: the arguments
    the mapping marks, by name; `described`: the wire names whose spec text allows a local time."""
    zones = {p.arg_name: p for p in params if p.arg_name in ZONE_KEYS and not p.path}
    out: list[ParamSpec] = []
    found: list[Diagnostic] = []
    for param in params:
        zone = next((z for z in zones.values() if _beside(z, param)), None)
        marked = local_rules.get(param.arg_name)
        is_time = param.schema.get("format") == "date-time" and param.schema.get("type") == "string"
        wanted = marked is not None or param.wire_name in described
        if marked is not None and (
            zone is None or not (is_time or param.schema.get("pattern") == LOCAL_OR_OFFSET)
        ):
            found.append(
                _no_zone(
                    param, marked, operation_key, "a date-time" if zone else "a time-zone argument beside it"
                )
            )
        if zone is not None and is_time and wanted:
            param = replace(param, schema=_local_or_offset(param.schema, zone.arg_name))
        out.append(param)
    return out, found


def _beside(zone: ParamSpec, param: ParamSpec) -> bool:
    """The time-zone argument travels in the same part of the request (body fields, or query)."""
    body = ("body", "body_whole")
    return zone is not param and not param.path and (zone.location in body) == (param.location in body)


def _no_zone(param: ParamSpec, rule: ParamRule, operation_key: str, lacking: str) -> Diagnostic:
    return error(
        codes.M245,
        f"'{param.arg_name}' of {operation_key} has format: local-date-time, which needs {lacking}: "
        f"a local time is read in the zone a field named {', '.join(ZONE_KEYS)} names",
        rule.source,
        hint="remove `format: local-date-time`, or map the operation's time-zone field under one of those names",
    )
