"""Count tokens of tool definitions in o200k_base, with bpe-openai (a main dependency).

bpe-openai ships the encoding inside its wheel, so counting needs no download, no cache and no network;
its counts equal tiktoken's (`encode_ordinary`), which the tests hold it to on real tool definitions.
A broken install is reported as a reason, never as a crash: lint still checks everything else.
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
        import bpe_openai
    except ImportError:
        return None, "bpe-openai is not installed (reinstall mcpgen: pip install --force-reinstall mcpgen)"
    try:
        loaded = bpe_openai.get_encoding(encoding)
    except (LookupError, RuntimeError, ValueError, OSError) as exc:  # an encoding it lacks, a damaged install
        return None, f"bpe-openai could not load {encoding} ({type(exc).__name__})"

    def count(text: str) -> int:
        # Ordinary text throughout: a definition that contains '<|endoftext|>' is counted, not refused.
        return len(loaded.encode_ordinary(text))

    return TokenCounter(encoding, count), None


def definition_text(value: Any) -> str:
    """Definitions as a client receives them: compact JSON, the way tools/list is serialized."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
