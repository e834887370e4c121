"""JSON with a two-space indent, written as `json.dumps(value, indent=2, ensure_ascii=False)` writes
it, by orjson.

With an indent the standard library falls back to its pure-Python encoder: GitHub's tools.lock.json and
tools.json (about a million values) took most of a second and a list of millions of small strings.
orjson writes the same text in C, with two differences this module settles: a float below 1e-4 is
spelled `0.00001` or `1e-7` where Python writes `1e-05` and `1e-07` (those few numbers are spelled
again by `float.__repr__`), and NaN and infinity become `null` where json.dumps writes `NaN` and
`Infinity`, which are not JSON (RFC 8259 section 6) and which no strict reader of tools.json accepts.
Anything orjson refuses (a key that is not a string, an integer past 64 bits, a lone surrogate, a
nesting deeper than 255) is handed to `json.dumps` itself, so the output never differs otherwise.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME

# A number orjson spells otherwise than float.__repr__: below 1e-4, as a plain decimal or with a
# one-digit negative exponent. It is a whole value on its line (after the indent or after `": "`, before
# an optional comma): a line break never falls inside a JSON string, so nothing inside one matches.
_SMALL_FLOAT = re.compile(rb"(?m)(^ *|: )(-?(?:0\.0000[0-9]+|[0-9]+(?:\.[0-9]+)?e-[0-9]))(?=,?$)")
# What such a number holds (orjson writes 1e-5 and 1e-6 as decimals, smaller ones as 1e-7 ... 1e-9 and
# then 1e-10 as Python does): substring searches run at memory speed, the pattern above does not.
_SMALL_FLOAT_CLUES = (b"0.0000", b"e-5", b"e-6", b"e-7", b"e-8", b"e-9")


def indented_json(value: Any, *, sort_keys: bool = False, newline: bool = False) -> str:
    """`json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)`, byte for byte, but for
    NaN and infinity (written `null`); `newline`: with a line break after it, written with the rest
    (adding one to the text made a second copy of GitHub's tools.lock.json, 14 MB as a str)."""
    return as_text(written_json(value, sort_keys=sort_keys, newline=newline))


def written_json(value: Any, *, sort_keys: bool = False, newline: bool = False) -> bytes | str:
    """`indented_json`'s text, as UTF-8 bytes; as a str where only json.dumps can write the value (a
    lone surrogate has no UTF-8). A caller that made `value` for this alone can let it go before
    `as_text` makes the str: GitHub's lock is 7 MB of records, then 7 MB of bytes, then a 14 MB str."""
    options = (
        _OPTIONS | (orjson.OPT_SORT_KEYS if sort_keys else 0) | (orjson.OPT_APPEND_NEWLINE if newline else 0)
    )
    try:
        text = orjson.dumps(value, option=options)
    except orjson.JSONEncodeError:
        written = json.dumps(_finite(value), indent=2, sort_keys=sort_keys, ensure_ascii=False)
        return written + "\n" if newline else written
    if any(clue in text for clue in _SMALL_FLOAT_CLUES):
        text = _SMALL_FLOAT.sub(_python_float, text)
    return text


def as_text(written: bytes | str) -> str:
    return written if isinstance(written, str) else written.decode("utf-8")


def _python_float(match: re.Match[bytes]) -> bytes:
    # orjson writes the shortest digits that read back as the same float, as repr does.
    return match[1] + float.__repr__(float(match[2])).encode("ascii")


def _finite(value: Any) -> Any:
    """NaN and infinity as None, for json.dumps: what orjson writes for them."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
