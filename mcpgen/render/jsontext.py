"""JSON with a two-space indent, written exactly as `json.dumps(value, indent=2, ensure_ascii=False)`
writes it, only faster.

With an indent the standard library falls back to its pure-Python encoder, a chain of generators per
value: GitHub's tools.lock.json and tools.json (about a million values) took most of a second. Here
every string is still escaped by the C encoder, containers are joined in place, and newlines are
made once per depth. Anything unusual (a key that is not a string, a number that is not finite, a
value JSON has no spelling for) is handed to `json.dumps` itself, so the output never differs.
"""

from __future__ import annotations

import json
from typing import Any

# What json.dumps(ensure_ascii=False) writes for a string: the C function, without its per-call set-up.
_string = json.encoder.encode_basestring


class _Unusual(Exception):
    """A value the fast path does not spell; the standard encoder writes the whole document."""


def indented_json(value: Any, *, sort_keys: bool = False) -> str:
    """`json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)`, byte for byte."""
    parts: list[str] = []
    try:
        _write(value, parts, "\n", sort_keys)
    except _Unusual:
        return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)
    return "".join(parts)


def _write(value: Any, parts: list[str], newline: str, sort_keys: bool) -> None:
    if isinstance(value, str):
        parts.append(_string(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _Unusual  # NaN and infinity: json.dumps's own spelling
        parts.append(float.__repr__(value))
    elif isinstance(value, dict):
        _write_object(value, parts, newline, sort_keys)
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        inner = newline + "  "
        opener = "[" + inner
        for item in value:
            parts.append(opener)
            opener = "," + inner
            _write(item, parts, inner, sort_keys)
        parts.append(newline + "]")
    else:
        raise _Unusual  # json.dumps raises its own TypeError for it


def _write_object(value: dict[Any, Any], parts: list[str], newline: str, sort_keys: bool) -> None:
    if not value:
        parts.append("{}")
        return
    if not all(type(key) is str for key in value):
        raise _Unusual  # json.dumps turns numbers, booleans and None into keys its own way
    inner = newline + "  "
    opener = "{" + inner
    for key in sorted(value) if sort_keys else value:
        parts.append(opener + _string(key) + ": ")
        opener = "," + inner
        _write(value[key], parts, inner, sort_keys)
    parts.append(newline + "}")
