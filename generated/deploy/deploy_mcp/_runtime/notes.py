"""The `note` of a result: where the server says that an answer differs from what the tool promises
(a record the concise format could not show, an envelope unwrapped, a list that is not whole), so a
partial or reshaped result never looks whole (R4 truncation is announced; R5 structured and text).

Every tool's outputSchema declares `note` as an optional string; several notes are joined into one.
"""

from __future__ import annotations

from typing import Any

NOTE = "note"
# Where the server's note goes when the answer itself has a `note` (Square's payments do): the API's
# field is never overwritten nor written into.
SERVER_NOTE = "server_note"
MAX_NOTE_CHARS = 600  # a note is a sentence or three: past this it is cut, and says so
_CUT = " [...]"


class _Said(str):
    """A note this server wrote, told apart from an API's own `note` field of the same name."""

    __slots__ = ()


def with_note(result: dict[str, Any], text: str) -> dict[str, Any]:
    """`result` with `text` added to the server's note, first among its fields (the agent reads it
    before the data): a new dict, the result's other fields unchanged. A note the server wrote before
    is kept first; the joined note is bounded by MAX_NOTE_CHARS."""
    text = " ".join(text.split())
    if not text:
        return result
    key = NOTE if NOTE not in result or isinstance(result[NOTE], _Said) else SERVER_NOTE
    said = result.get(key)
    if isinstance(said, _Said):
        if text in said:
            return result  # the same thing said twice reads no better
        text = f"{said} {text}"
    if len(text) > MAX_NOTE_CHARS:
        text = text[: MAX_NOTE_CHARS - len(_CUT)].rstrip() + _CUT
    return {key: _Said(text), **{k: v for k, v in result.items() if k != key}}
