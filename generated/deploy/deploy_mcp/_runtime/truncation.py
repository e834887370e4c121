"""Keep every result under the server's size budget, and say so when something was cut (R4 truncation is announced).

Clients cut tool results at about 25,000 tokens without telling the model; a partial list that looks
whole is worse than a short one that says what is missing. Tokens are estimated from the JSON text
(`estimate_tokens`): deterministic, no tokenizer needed, and calibrated against o200k_base so that it
does not count fewer tokens than o200k on real API results (tests/unit/test_token_estimate.py).

A result too big is cut in two steps: long strings keep their first 1,000 characters; then every list
keeps the leading entries that fit, and every object keeps its small fields whole and gives its big
ones an equal share of the room left. The `truncated` note names each cut, and for a cut page of
records (`items`) the exact call that gets the rest: never one that returns items already shown.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from itertools import islice
from typing import Any

from .pagination import CURSOR_ARG, PAGE_ARG, Paging, resume_cursor, split_cursor

DEFAULT_MAX_TOKENS = 20_000
_STRING_CAP = 1000  # characters a long string keeps in the first step
_NOTE_CHARS = 1200  # room kept for the note itself
_NAMED = 10  # cuts a note names one by one
# Characters of a field not worth cutting: it is shown whole or left out.
_SMALL_FIELD = 100

Path = tuple[str | int, ...]  # where a value sits: ("items", 2, "description")
# As json.dumps(value, ensure_ascii=False), without building an encoder each time.
_encode = json.JSONEncoder(ensure_ascii=False).encode
# iterencode without the one-shot C encoder yields the text piece by piece.
_lazy_encoder = json.JSONEncoder(ensure_ascii=False)


# o200k_base splits text into pieces before it merges bytes: runs of letters (a capitalised word is one
# run), runs of up to three digits, runs of punctuation, whitespace; every piece is at least one token.
# Opaque values (base64, JWTs, hashes: letters of both cases and digits) cost about a token per 1.5
# characters, lowercase hex one per 1.75; words about one per 4 letters. Each non-ASCII character counts
# by its UTF-8 length. The weights and the margin were fitted on 5,000 JSON examples of real specs:
# the estimate is at least o200k's count on every one of them, and about 1.5 times it at the median.
# (Both opaque kinds are first looked for 16 characters ahead, once: a short piece fails them at once.)
_PIECE = re.compile(
    r"(?=[\w+/=.-]{16})(?:(?=[\w+/=.-]*\d)(?=[\w+/=.-]*[A-Z])(?=[\w+/=.-]*[a-z])[\w+/=.-]{16,}"
    r"|(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{16,})"
    r"|[A-Z]*[a-z]+|[A-Z]+|[^\W\d_A-Za-z]+|\d{1,3}|[^\w\s]+|_+|\s+"
)
_HEX = frozenset("0123456789abcdef")
# Tokens a non-ASCII character may cost, by its UTF-8 length.
_WIDE = {2: 0.75, 3: 2.0, 4: 4.0}
_MARGIN = 1.05


def count_tokens(text: str) -> int:
    """An estimate of o200k_base's token count of `text` that is not below it on API results."""
    # A page of records repeats its keys, punctuation and words: each distinct piece is weighed once
    # and the rest are dictionary look-ups summed in C, not a Python loop over tens of thousands.
    return math.ceil(sum(map(_Weights().__getitem__, _PIECE.findall(text))) * _MARGIN)


class _Weights(dict[str, float]):
    """Each piece's weight, worked out when first asked for."""

    def __missing__(self, piece: str) -> float:
        weight = self[piece] = _weight(piece)
        return weight


def _weight(piece: str) -> float:
    size = len(piece)
    if size >= 16 and not piece.isalpha() and not piece.isspace():
        # Only the two opaque kinds match this long with a digit among letters.
        if set(piece) <= _HEX:
            return size / 1.7
        if any(c.isdigit() for c in piece) and piece.isascii() and not piece.isdigit():
            return size / 1.4
    last = piece[-1]
    if not piece.isascii():
        return max(1.0, sum(_WIDE.get(len(c.encode()), 0.25) for c in piece))
    if last.islower():
        return size / 4 if size > 4 else 1.0
    if last.isupper():
        return size / 2 if size > 2 else 1.0
    if last.isdigit() or last.isspace() or size <= 2:
        return 1.0
    return size / 2


def estimate_tokens(data: Any) -> int:
    return count_tokens(json.dumps(data, ensure_ascii=False))


def cap_result(data: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """Any result within `max_tokens`, for results that have no paging plan (previews, applies)."""
    return fit(data, max_tokens, tool="", arguments={}, paging=None, limit_arg=None)


def fit(
    data: dict[str, Any],
    max_tokens: int,
    *,
    tool: str,
    arguments: Mapping[str, Any],
    paging: Paging | None,
    limit_arg: str | None,
) -> dict[str, Any]:
    """`data` itself when it fits; otherwise a cut copy with a `truncated` note saying what was cut and
    how to get the rest."""
    # No text has more tokens than characters' worth of _WIDE's largest weight: a short one is counted,
    # a huge one is cut without being counted whole. (The body was read within the server's byte cap,
    # so its text is made in C at most that size; sizing it value by value in Python cost more.)
    text = _encode(data)
    if len(text) <= max_tokens * 8 and count_tokens(text) <= max_tokens:
        return data
    room = max(
        int(max_tokens * _chars_per_token(data))
        - _NOTE_CHARS
        - _chars(dict(arguments)),
        _NOTE_CHARS,
    )
    # Bounded: each round cuts to the room the last one showed was there.
    for _ in range(8):
        result = _cut(data, room, max_tokens, tool, arguments, paging, limit_arg)
        used = estimate_tokens(result)
        if used <= max_tokens:
            return result
        room = min(room - 1, int(room * max_tokens / used * 0.95))
        if room < _NOTE_CHARS // 4:
            break
    # Nothing left that can be cut (a huge key, say): say so rather than overrun the budget.
    return {
        "truncated": {
            "reason": f"the full result is larger than this server's budget of {max_tokens} tokens",
            "shown": "nothing: even cut, this result does not fit",
            "rest": "narrow the request (filters, a smaller limit, one record) and call again",
        }
    }


def _chars_per_token(data: dict[str, Any]) -> float:
    """How many JSON characters a token of this result takes, from its first 64,000 characters (the
    encoder's lazy form: a huge result is never dumped whole)."""
    chunks = _lazy_encoder.iterencode(data)
    sample = "".join(islice(_leading_chunks(chunks, 64_000), 1_000_000))
    return max(len(sample) / max(count_tokens(sample), 1), 0.25)


def _leading_chunks(chunks: Any, limit: int) -> Any:
    """The leading `chunks` whose total length first reaches `limit`."""
    used = 0
    for chunk in chunks:
        yield chunk
        used += len(chunk)
        if used >= limit:
            return


def _cut(
    data: dict[str, Any],
    room: int,
    max_tokens: int,
    tool: str,
    arguments: Mapping[str, Any],
    paging: Paging | None,
    limit_arg: str | None,
) -> dict[str, Any]:
    """`data` cut to about `room` JSON characters, with the note that says what was cut."""
    # Where a string was cut -> its full length; where a list or object was -> (shown, of, what).
    strings: dict[Path, int] = {}
    parts: dict[Path, tuple[int, int, str]] = {}
    cut = _cut_strings(data, _STRING_CAP, (), strings, reach=room // 3 + 1)
    cut = _shrink(cut, room, (), strings, parts)
    note: dict[str, Any] = {
        "reason": f"the full result is larger than this server's budget of {max_tokens} tokens",
    }
    items = data.get("items")
    kept = cut.get("items")
    if (
        isinstance(items, list)
        and isinstance(kept, list)
        and parts.pop(("items",), None) is not None
    ):
        cut = _page_note(cut, len(items), note, tool, arguments, paging, limit_arg)
    shown = [
        f"{_name(p)} ({n} characters)" for p, n in strings.items() if _exists(cut, p)
    ]
    if shown:
        note["strings_cut"] = (
            f"{len(shown)} long text value(s) end with '…' after their first characters: "
            + _listed(shown)
        )
    if parts:
        named = [
            f"{_name(p)} ({n} of {total} {what})"
            for p, (n, total, what) in parts.items()
        ]
        note["lists_cut"] = (
            f"{_listed(named)}: only part of each is shown, and this server cannot page inside them"
        )
    return {**cut, "truncated": note}


def _page_note(
    data: dict[str, Any],
    page_length: int,
    note: dict[str, Any],
    tool: str,
    arguments: Mapping[str, Any],
    paging: Paging | None,
    limit_arg: str | None,
) -> dict[str, Any]:
    """A cut page of records: which ones are shown, and the call that returns the rest (R3 pagination; R4 truncation is announced)."""
    items: list[Any] = data["items"]
    page = int(arguments.get(PAGE_ARG, 1))
    limit = arguments.get(limit_arg) if limit_arg else None
    offset = (page - 1) * limit if isinstance(limit, int) else 0
    paged = (
        paging is not None and paging.style in ("page", "offset") and bool(limit_arg)
    )
    # Page arithmetic needs the shown count to divide the offset: then page and limit name the rest.
    keep = max(c for c in range(1, len(items) + 1) if not (paged and offset % c))
    first, last = offset + 1, offset + keep
    total = data.get("total_count")
    note["shown"] = (
        f"items {first}-{last}"
        + (f" of {total}" if isinstance(total, int) else "")
        + f"; this page had {page_length}"
    )
    next_arguments = dict(arguments)
    if paged:
        if limit_arg:
            next_arguments[limit_arg] = keep
        next_arguments[PAGE_ARG] = offset // keep + 2
        note["rest"] = (
            f"items {last + 1} onward: make exactly this call, then keep paging with its next_page"
        )
        note["next_call"] = {"tool": tool, "arguments": next_arguments}
    elif paging is not None and paging.style in ("cursor", "link"):
        # The same upstream page again, less what this result and earlier ones showed: the next call
        # starts right after the last item shown, and the API's own next_cursor follows from there.
        inner, skipped = split_cursor(str(arguments.get(CURSOR_ARG) or ""))
        # The same limit too, so that the API returns the same page.
        next_arguments[CURSOR_ARG] = resume_cursor(inner, skipped + keep)
        note["shown"] = (
            f"items {skipped + 1}-{skipped + keep} of this page of {skipped + page_length}"
        )
        note["rest"] = (
            f"the page's items from {skipped + keep + 1} on: make exactly this call, then keep paging with "
            "its next_cursor"
        )
        note["next_call"] = {"tool": tool, "arguments": next_arguments}
    else:
        note["rest"] = (
            "the other items cannot be paged to; narrow the request (filters, limit) to see them"
        )
    rest = {k: v for k, v in data.items() if k not in ("next_page", "next_cursor")}
    # has_more: true only with the call that gets the rest; null when none can (R3 pagination; R4 truncation is announced).
    return {
        **rest,
        "items": items[:keep],
        "has_more": True if "next_call" in note else None,
    }


def _cut_strings(
    value: Any, cap: int, path: Path, cut: dict[Path, int], reach: int
) -> Any:
    """Strings longer than `cap` keep their first `cap` characters. Only the first `reach` entries of a
    list or object are looked at (no more than that many could ever be shown), and a list or object
    is copied only when something in it was cut."""
    if isinstance(value, str) and len(value) > cap:
        cut.setdefault(path, len(value))
        return value[:cap] + "…"
    if not isinstance(value, (dict, list)):
        return value
    entries = value.items() if isinstance(value, dict) else enumerate(value)
    changed = {}
    for key, item in islice(entries, reach):
        new = _cut_strings(item, cap, (*path, key), cut, reach)
        if new is not item:
            changed[key] = new
    if not changed:
        return value
    if isinstance(value, dict):
        return {**value, **changed}
    copy = list(value)
    for index, new in changed.items():
        copy[index] = new
    return copy


def _shrink(
    value: Any,
    room: int,
    path: Path,
    strings: dict[Path, int],
    parts: dict[Path, tuple[int, int, str]],
) -> Any:
    """`value` in at most about `room` JSON characters: a list keeps its leading entries that fit (at
    least part of the first), an object its small fields whole and an equal share of the rest for each
    big one, a string its first characters. Numbers, true, false and null are never cut."""
    room = max(room, 0)
    if _chars(value, room) <= room:
        return value
    if isinstance(value, str):
        strings.setdefault(path, len(value))
        keep = max(room - 3, 0)
        # Escapes (\" \n \u0000) make some characters longer than one.
        while keep and _chars(value[:keep] + "…") > room:
            keep //= 2
        return value[:keep] + "…"
    if isinstance(value, list):
        shown = value[: _leading(value, room)]
        if value and not shown:  # the first entry alone is too big: part of it
            shown = [_shrink(value[0], room - 2, (*path, 0), strings, parts)]
        if len(shown) < len(value):
            parts[path] = (len(shown), len(value), "entries")
        return shown
    if isinstance(value, dict):
        return _shrink_object(value, room, path, strings, parts)
    return value


def _shrink_object(
    value: dict[Any, Any],
    room: int,
    path: Path,
    strings: dict[Path, int],
    parts: dict[Path, tuple[int, int, str]],
) -> dict[Any, Any]:
    # More fields than this can never fit, even as `"": 0`.
    entries = dict(islice(value.items(), room // 7 + 1))
    # A field costs its key, ': ', its value and ', '.
    sizes = {k: _key_chars(k) + _chars(v, room) + 2 for k, v in entries.items()}
    big = {k: n for k, n in sizes.items() if n > _SMALL_FIELD}
    # Small fields stay whole, the leading ones that fit beside at least half the room for the big ones.
    left = room - 2 - min(sum(big.values()), room // 2)
    small: set[Any] = set()
    for key, size in sizes.items():
        if key in big:
            continue
        if size > left:
            break
        small.add(key)
        left -= size
    shares = _shares(big, room - 2 - sum(sizes[k] for k in small))
    out: dict[Any, Any] = {}
    for key, item in entries.items():
        if key in small:
            out[key] = item
        elif key in shares:
            share = shares[key] - _key_chars(key) - 2
            part = _shrink(item, share, (*path, key), strings, parts)
            # When not even part of it fits (a long number, say), the field is left out.
            if _chars(part, share) <= share:
                out[key] = part
    if len(out) < len(value):
        parts[path] = (len(out), len(value), "fields")
    return out


def _shares(sizes: dict[Any, int], room: int) -> dict[Any, int]:
    """Room for each field: the small ones get all they need, the big ones split what is left equally."""
    shares: dict[Any, int] = {}
    left = room
    ordered = sorted(sizes, key=sizes.__getitem__)
    for done, key in enumerate(ordered):
        shares[key] = min(sizes[key], left // (len(ordered) - done))
        left -= shares[key]
    return shares


def _leading(values: list[Any], room: int) -> int:
    """How many leading entries of `values` fit in `room` characters."""
    used = 2
    for count, value in enumerate(values):
        used += _chars(value, room - used) + 2
        if used > room:
            return count
    return len(values)


def _chars(value: Any, limit: float = math.inf) -> int:
    """len(json.dumps(value, ensure_ascii=False)), counted only until past `limit`: sizing a huge value
    costs no more than the room it could get, and builds no copy of it."""
    if isinstance(value, (dict, list)):
        total = 2
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            total += _chars(item, limit - total) + 2  # the item and ', '
            if isinstance(value, dict):
                total += _key_chars(key)
            if total > limit:
                return total
        return total - 2 if value else total  # no ', ' after the last item
    if isinstance(value, str):
        return len(_encode(value))
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    return len(repr(value)) if isinstance(value, (int, float)) else len(_encode(value))


def _key_chars(key: Any) -> int:
    return len(_encode(str(key))) + 2  # the key and ': '


def _exists(data: Any, path: Path) -> bool:
    for step in path:
        if isinstance(data, dict) and step in data:
            data = data[step]
        elif isinstance(data, list) and isinstance(step, int) and step < len(data):
            data = data[step]
        else:
            return False
    return True


def _name(path: Path) -> str:
    """('items', 2, 'description') as items[2].description."""
    name = ""
    for step in path:
        if isinstance(step, int):
            name += f"[{step}]"
        else:
            name += f".{step}" if name else str(step)
    return name or "the result"


def _listed(names: list[str]) -> str:
    return ", ".join(names[:_NAMED]) + (" …" if len(names) > _NAMED else "")
