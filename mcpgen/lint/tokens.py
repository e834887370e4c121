"""Count tokens of tool definitions with tiktoken, when it is there (the optional `mcpgen[lint]` extra).

tiktoken downloads its encodings on first use; offline it needs a cache (TIKTOKEN_CACHE_DIR). Either
missing is reported as a reason, never as a crash: lint still checks everything else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ENCODING = "o200k_base"
Counter = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class TokenCounter:
    encoding: str
    count: Counter


def load_counter(encoding: str = ENCODING) -> tuple[TokenCounter | None, str | None]:
    """(counter, None), or (None, why tokens cannot be counted here)."""
    try:
        import tiktoken
    except ImportError:
        return None, "tiktoken is not installed (pip install 'mcpgen[lint]')"
    try:
        loaded = tiktoken.get_encoding(encoding)
    except (OSError, ValueError) as exc:  # no network and no cache, or a corrupt cache file
        return None, (
            f"tiktoken could not load {encoding} ({type(exc).__name__}); point TIKTOKEN_CACHE_DIR at a cache "
            "that holds it, or let it download once"
        )
    return TokenCounter(encoding, lambda text: len(loaded.encode(text, disallowed_special=()))), None


def definition_text(value: Any) -> str:
    """Definitions as a client receives them: compact JSON, the way tools/list is serialized."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
