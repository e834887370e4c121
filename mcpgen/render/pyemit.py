"""Python literals laid out the way ruff/black would, so generated modules read well and stay format-stable.

A call or collection goes on one line when it fits in `LINE_LENGTH`; otherwise one item per line with a
trailing comma (which formatters keep exploded).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

LINE_LENGTH = 88  # ruff's default, which a generated package inherits
INDENT = "    "


@dataclass(frozen=True, slots=True)
class Call:
    """A call expression with keyword arguments: `Name(key=value, ...)`."""

    name: str
    kwargs: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Code:
    """A Python expression written verbatim (a name, for instance)."""

    text: str


def literal(value: Any, indent: int = 0, tail: int = 1) -> str:
    """`value` as Python source starting at `indent` levels; `tail` counts characters that follow it."""
    flat = _flat(value)
    if len(INDENT * indent) + len(flat) + tail <= LINE_LENGTH or not _explodable(value):
        return flat
    return _exploded(value, indent)


def assignment(name: str, value: Any) -> str:
    return f"{name} = {literal(value, 0, tail=len(name) + 3)}"


def _explodable(value: Any) -> bool:
    return isinstance(value, (Call, list, tuple, dict)) and bool(_items(value))


def _items(value: Any) -> list[Any]:
    if isinstance(value, Call):
        return list(value.kwargs)
    if isinstance(value, dict):
        return list(value.items())
    return list(value)


def _flat(value: Any) -> str:
    if isinstance(value, Code):
        return value.text
    if isinstance(value, Call):
        return f"{value.name}(" + ", ".join(f"{k}={_flat(v)}" for k, v in value.kwargs) + ")"
    if isinstance(value, tuple):
        inner = ", ".join(_flat(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_flat(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flat(k)}: {_flat(v)}" for k, v in value.items()) + "}"
    return _scalar(value)


def _exploded(value: Any, indent: int) -> str:
    inner = INDENT * (indent + 1)
    if isinstance(value, Call):
        lines = [f"{inner}{k}={literal(v, indent + 1, tail=len(k) + 2)}," for k, v in value.kwargs]
        opener, closer = f"{value.name}(", ")"
    elif isinstance(value, dict):
        lines = [
            f"{inner}{_flat(k)}: {literal(v, indent + 1, tail=len(_flat(k)) + 3)}," for k, v in value.items()
        ]
        opener, closer = "{", "}"
    else:
        lines = [f"{inner}{literal(v, indent + 1)}," for v in value]
        opener, closer = ("(", ")") if isinstance(value, tuple) else ("[", "]")
    return opener + "\n" + "\n".join(lines) + "\n" + INDENT * indent + closer


def _scalar(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"cannot emit {value!r} as a literal")
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a valid Python literal and always uses double quotes, as ruff prefers.
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"cannot emit {type(value).__name__} as a literal")
