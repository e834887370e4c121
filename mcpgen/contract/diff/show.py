"""Values as a diff's messages show them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def show_types(types: frozenset[str]) -> str:
    return "|".join(sorted(types)) or "any"


def show(value: Any) -> str:
    if value is None:
        return "none"
    return json_text(value)


def show_values(values: Iterable[Any]) -> str:
    return ", ".join(json_text(v) for v in values)


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def brief(value: Any, limit: int = 60) -> str:
    text = json_text(value)
    if len(text) <= limit:
        return text
    return text[: limit - 4] + '..."' if isinstance(value, str) else text[: limit - 3] + "..."


def show_unit(unit: Any) -> str:
    if not isinstance(unit, dict):
        return "the API's own unit"
    return f"{unit.get('agent')} (sent as {unit.get('upstream')}, x{unit.get('factor')})"
