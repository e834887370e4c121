"""What identifies a record and what names it: the concise format never goes without them
(R1 meaningful fields). The generator decides with these same words (mcpgen/build/records.py loads this
module), so the concise sets it derives and checks, and the fields a record shows when its concise
fields are missing, are the same ones.
"""

from __future__ import annotations

import re

# Best first: the field a concise set lacking one is told to add.
ID_NAMES = ("id", "uid", "uuid", "guid", "key", "slug", "identifier", "_id", "@id", "sid", "arn")  # fmt: skip
NAME_NAMES = (
    "name", "title", "topic", "subject", "summary", "label", "display_name", "full_name", "username",
    "login", "handle", "email",
)  # fmt: skip
# 'meeting_id', 'userId', 'flex_flow_sid'
_ID_LAST = ("id", "uid", "uuid", "guid", "sid", "arn")


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def is_id_like(name: str) -> bool:
    """'id', 'uid', 'meeting_id', 'userId', 'sid': a field that identifies a record."""
    words = _words(name)
    return name.lower() in ID_NAMES or bool(words) and words[-1] in _ID_LAST


def is_name_like(name: str) -> bool:
    """'name', 'title', 'topic', 'displayName', 'campaign_name': a field that names a record."""
    return "_".join(_words(name)) in NAME_NAMES or _words(name)[-1:] in (
        ["name"],
        ["title"],
    )
