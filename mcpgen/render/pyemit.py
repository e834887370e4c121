"""Everything spec- or mapping-derived that enters a generated .py file passes through here, in one of
three forms: a literal (`literal`), words in a docstring or `#` comment (`comment_text`), or a name
(`identifier`). Nothing else from the inputs reaches Python source, so no input can become code.

Literals are laid out the way ruff/black would, so generated modules read well and stay format-stable:
a call or collection goes on one line when it fits in `LINE_LENGTH`; otherwise one item per line with
a trailing comma (which formatters keep exploded).
"""

from __future__ import annotations

import json
import keyword
import math
import re
from dataclasses import dataclass
from typing import Any

LINE_LENGTH = 88  # ruff's default, which a generated package inherits
INDENT = "    "
# json.dumps(value, ensure_ascii=False) for a str, without its per-call set-up.
_json_string = json.encoder.encode_basestring


@dataclass(frozen=True, slots=True)
class Call:
    """A call expression with keyword arguments: `Name(key=value, ...)`."""

    name: str
    kwargs: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Code:
    """A Python expression written verbatim (a name, for instance)."""

    text: str


class EmitError(ValueError):
    """A value that cannot be written as Python source: a bug in mcpgen, since the inputs were checked."""


class Emitted(str):
    """Text that is already Python source, made by this module; templates place only these."""


COMMENT_LIMIT = 200  # characters of input text a docstring or comment line shows
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def comment_text(text: str, limit: int = COMMENT_LIMIT) -> str:
    """Any text made safe inside a `\"\"\"` docstring or a `#` comment, and still readable there.

    One line: every run of whitespace, control and format characters (NUL, newlines, U+2028, bidi
    overrides) becomes one space. No quote can close the docstring (`"` becomes `'`) and no backslash
    can start an escape (`\\` becomes `/`). Past `limit` characters the text is cut with an ellipsis.
    """
    kept = "".join(_COMMENT_SUBSTITUTES.get(ch, ch) if ch.isprintable() else " " for ch in text)
    line = " ".join(kept.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


_COMMENT_SUBSTITUTES = {'"': "'", "\\": "/"}


def identifier(name: str) -> str:
    """`name` when it is a plain ASCII Python identifier and not a keyword; EmitError otherwise."""
    if not _IDENTIFIER.match(name) or keyword.iskeyword(name):
        raise EmitError(f"{name!r} is not usable as a Python name")
    return name


def literal(value: Any, indent: int = 0, tail: int = 1) -> str:
    """`value` as Python source starting at `indent` levels; `tail` counts characters that follow it."""
    if not _explodable(value):
        return _flat(value)
    # Written flat only as far as the line has room: a large table is exploded level by level, and
    # making each level's whole one-line text first would write every value once per enclosing level.
    flat = _FlatWithin(LINE_LENGTH - len(INDENT * indent) - tail).text(value)
    return flat if flat is not None else _exploded(value, indent)


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


class _TooLong(Exception):
    """The flat text passed its room: the value is exploded instead."""


class _FlatWithin:
    """`_flat(value)` when it is at most `room` characters long, else None, having written no more
    than that. Errors (a value that cannot be a literal) are raised as `_flat` raises them, up to there;
    the exploded layout meets any later one."""

    __slots__ = ("_parts", "_room")

    def __init__(self, room: int):
        self._parts: list[str] = []
        self._room = room

    def text(self, value: Any) -> str | None:
        try:
            self._write(value)
        except _TooLong:
            return None
        return "".join(self._parts)

    def _put(self, text: str) -> None:
        self._room -= len(text)
        if self._room < 0:
            raise _TooLong
        self._parts.append(text)

    def _write(self, value: Any) -> None:
        if isinstance(value, Call):
            self._put(f"{value.name}(")
            self._items(value.kwargs, keyword=True)
            self._put(")")
        elif isinstance(value, tuple):
            self._put("(")
            self._items(value)
            self._put(",)" if len(value) == 1 else ")")
        elif isinstance(value, list):
            self._put("[")
            self._items(value)
            self._put("]")
        elif isinstance(value, dict):
            self._put("{")
            self._items(value.items(), pairs=True)
            self._put("}")
        else:
            self._put(value.text if isinstance(value, Code) else _scalar(value))

    def _items(self, items: Any, *, keyword: bool = False, pairs: bool = False) -> None:
        for index, item in enumerate(items):
            if index:
                self._put(", ")
            if keyword:
                self._put(f"{item[0]}=")
                self._write(item[1])
            elif pairs:
                self._write(item[0])
                self._put(": ")
                self._write(item[1])
            else:
                self._write(item)


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
            raise EmitError(f"cannot emit {value!r} as a literal")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    raise EmitError(f"cannot emit {type(value).__name__} as a literal")


def _string(value: str) -> str:
    """A double-quoted literal (as ruff prefers) that reads back as `value`, every character of it.

    A JSON string is a valid Python literal; JSON escapes quotes, backslashes and C0 controls, and the
    rest that does not print (DEL, C1 controls, U+2028, bidi overrides, lone surrogates) is escaped
    here, so the source shows what the string holds and always encodes as UTF-8.
    """
    dumped = _json_string(value)
    if dumped.isprintable():
        return dumped
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in dumped)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
