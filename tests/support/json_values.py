"""What the tests expect of a JSON writer, by the standard library's own encoder."""

from __future__ import annotations

import math
from typing import Any


def finite(value: Any) -> Any:
    """The value with NaN and infinity as None, which JSON has no spelling for: json.dumps writes
    `NaN` and `Infinity` (not JSON, RFC 8259 section 6), mcpgen's writer `null`."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value
