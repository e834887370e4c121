"""Keep every result under the server's size budget, and say so when something was cut (R4).

Clients cut tool results at about 25,000 tokens without telling the model; a partial list that looks
whole is worse than a short one that says what is missing. Tokens are estimated as JSON characters
divided by 4: deterministic, and close enough for a budget.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from .pagination import CURSOR_ARG, PAGE_ARG, Paging

DEFAULT_MAX_TOKENS = 20_000
_STRING_CAPS = (1000, 200)  # characters a long string keeps: first pass, last resort


def estimate_tokens(data: Any) -> int:
    return math.ceil(len(json.dumps(data, ensure_ascii=False)) / 4)


def fit(
    data: dict[str, Any],
    max_tokens: int,
    *,
    tool: str,
    arguments: Mapping[str, Any],
    paging: Paging | None,
    limit_arg: str | None,
) -> dict[str, Any]:
    """`data` itself when it fits; otherwise a cut copy with a `truncated` note saying how to get the rest."""
    if estimate_tokens(data) <= max_tokens:
        return data
    cut: dict[str, int] = {}  # where a string was cut -> its full length
    data = _cut_strings(data, _STRING_CAPS[0], "", cut)
    note: dict[str, Any] = {
        "reason": f"the full result is larger than this server's budget of {max_tokens} tokens",
    }
    items = data.get("items")
    if (
        estimate_tokens(data) > max_tokens
        and isinstance(items, list)
        and len(items) > 1
    ):
        data, note = _cut_items(
            data, note, max_tokens, tool, arguments, paging, limit_arg
        )
    if estimate_tokens({**data, "truncated": note}) > max_tokens:
        data = _cut_strings(data, _STRING_CAPS[1], "", cut)
    shown = _still_shown(cut, data)
    if shown:
        note["strings_cut"] = (
            f"{len(shown)} long text value(s) end with '…' after their first characters: "
            + ", ".join(shown[:10])
            + (" …" if len(shown) > 10 else "")
        )
    return {**data, "truncated": note}


def _still_shown(cut: dict[str, int], data: dict[str, Any]) -> list[str]:
    """Cut strings of the records that were kept, as 'items[2].description (15000 characters)'."""
    kept = len(data["items"]) if isinstance(data.get("items"), list) else 0
    out = []
    for where, length in cut.items():
        if where.startswith("items["):
            if int(where[len("items[") : where.index("]")]) >= kept:
                continue
        out.append(f"{where} ({length} characters)")
    return out


def _cut_items(
    data: dict[str, Any],
    note: dict[str, Any],
    max_tokens: int,
    tool: str,
    arguments: Mapping[str, Any],
    paging: Paging | None,
    limit_arg: str | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    items: list[Any] = data["items"]
    page = int(arguments.get(PAGE_ARG, 1))
    limit = arguments.get(limit_arg) if limit_arg else None
    offset = (page - 1) * limit if isinstance(limit, int) else 0
    paged = (
        paging is not None and paging.style in ("page", "offset") and bool(limit_arg)
    )

    def shown(count: int) -> dict[str, Any]:
        rest = {k: v for k, v in data.items() if k not in ("next_page", "next_cursor")}
        return {**rest, "items": items[:count], "has_more": True}

    # Page arithmetic needs the shown count to divide the offset: then page and limit name the rest.
    counts = [c for c in range(1, len(items)) if not (paged and offset % c)]
    # Binary search for the largest count that fits: the size grows with the count.
    low, high = 0, len(counts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        # Room for the note's next call, which is only written once the count is known.
        if (
            estimate_tokens({**shown(counts[middle]), "truncated": note}) + 150
            <= max_tokens
        ):
            low = middle
        else:
            high = middle - 1
    keep = counts[low]
    first, last = offset + 1, offset + keep
    total = data.get("total_count")
    note["shown"] = (
        f"items {first}-{last}"
        + (f" of {total}" if isinstance(total, int) else "")
        + f"; this page had {len(items)}"
    )
    next_arguments = dict(arguments)
    if limit_arg:
        next_arguments[limit_arg] = keep
    if paged:
        next_arguments[PAGE_ARG] = offset // keep + 2
        note["rest"] = (
            f"items {last + 1} onward: make exactly this call, then keep paging with its next_page"
        )
    elif paging is not None and paging.style in ("cursor", "link") and limit_arg:
        note["rest"] = (
            f"make this call (same {CURSOR_ARG}, limit {keep}): it returns these {keep} items again with the "
            "next_cursor that continues right after them"
        )
    else:
        note["rest"] = (
            "the other items cannot be paged to; narrow the request (filters, limit) to see them"
        )
        return shown(keep), note
    note["next_call"] = {"tool": tool, "arguments": next_arguments}
    return shown(keep), note


def _cut_strings(value: Any, cap: int, where: str, cut: dict[str, int]) -> Any:
    if isinstance(value, str) and len(value) > cap:
        cut.setdefault(where or "value", len(value))
        return value[:cap] + "…"
    if isinstance(value, dict):
        return {
            k: _cut_strings(v, cap, f"{where}.{k}" if where else k, cut)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_cut_strings(v, cap, f"{where}[{i}]", cut) for i, v in enumerate(value)]
    return value
