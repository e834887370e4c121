"""Read YAML and JSON documents and remember where each value stands, so diagnostics can name a line.

YAML documents are composed once into nodes that carry their marks. JSON documents are parsed with the
standard library (fast, even for a 13 MB spec) and located lazily: only when a diagnostic asks for a
line is the text walked along the pointer.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mcpgen.diagnostics import DiagnosticError, SourceRef, error

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def escape_pointer_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_pointer_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(pointer: str, *tokens: str | int) -> str:
    return pointer + "".join("/" + escape_pointer_token(t) for t in tokens)


def split_pointer(pointer: str) -> list[str]:
    if not pointer:
        return []
    return [unescape_pointer_token(t) for t in pointer.lstrip("/").split("/")]


@dataclass(frozen=True, slots=True)
class Position:
    line: int
    column: int


@dataclass(eq=False, slots=True)
class Document:
    """A parsed file: its data and a way back from a JSON pointer to a line."""

    display_path: str
    path: Path
    text: str
    data: Any
    _yaml_positions: dict[str, Position] | None = None
    _json_cache: dict[str, Position] = field(default_factory=dict)
    _json_index: _JsonIndex | None = None

    def locate(self, pointer: str) -> SourceRef:
        position = self._position(pointer)
        return SourceRef(
            file=self.display_path,
            pointer=pointer,
            line=position.line if position else None,
            column=position.column if position else None,
        )

    def _position(self, pointer: str) -> Position | None:
        # A pointer into something that does not exist is reported at its nearest existing parent.
        tokens = split_pointer(pointer)
        for cut in range(len(tokens), -1, -1):
            prefix = "".join("/" + escape_pointer_token(t) for t in tokens[:cut])
            found = self._exact_position(prefix)
            if found is not None:
                return found
        return None

    def _exact_position(self, pointer: str) -> Position | None:
        if self._yaml_positions is not None:
            return self._yaml_positions.get(pointer)
        if pointer not in self._json_cache:
            if self._json_index is None:
                self._json_index = _JsonIndex(self.text)
            found = self._json_index.position(split_pointer(pointer))
            if found is None:
                return None
            self._json_cache[pointer] = found
        return self._json_cache[pointer]


def load_document(path: Path, display_path: str | None = None) -> Document:
    """Parse a YAML or JSON file; raise DiagnosticError with the file and line on any failure."""
    shown = display_path or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DiagnosticError([error("F001", f"file not found: {shown}", SourceRef(file=shown))]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DiagnosticError([error("F002", f"cannot read {shown}: {exc}", SourceRef(file=shown))]) from None
    if path.suffix.lower() == ".json":
        return _load_json(text, path, shown)
    return _load_yaml(text, path, shown)


def _load_json(text: str, path: Path, shown: str) -> Document:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        source = SourceRef(file=shown, line=exc.lineno, column=exc.colno)
        raise DiagnosticError([error("F003", f"invalid JSON: {exc.msg}", source)]) from None
    return Document(display_path=shown, path=path, text=text, data=data)


def _load_yaml(text: str, path: Path, shown: str) -> Document:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        positions: dict[str, Position] = {}
        duplicates: list[tuple[str, Position]] = []
        if node is not None:
            _index_yaml(node, "", positions, duplicates)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        message = f"invalid YAML: {exc.problem or exc.context}"
        raise DiagnosticError(
            [error("F004", message, SourceRef(file=shown, line=line, column=column))]
        ) from None
    except yaml.YAMLError as exc:
        raise DiagnosticError([error("F004", f"invalid YAML: {exc}", SourceRef(file=shown))]) from None
    finally:
        loader.dispose()
    if duplicates:
        raise DiagnosticError(
            error(
                "F005",
                f"key '{split_pointer(pointer)[-1]}' appears twice in one mapping; the second would silently win",
                SourceRef(file=shown, pointer=pointer, line=pos.line, column=pos.column),
                hint="remove or rename one of the two entries",
            )
            for pointer, pos in duplicates
        )
    return Document(display_path=shown, path=path, text=text, data=data, _yaml_positions=positions)


def _index_yaml(
    node: yaml.Node, pointer: str, positions: dict[str, Position], duplicates: list[tuple[str, Position]]
) -> None:
    positions[pointer] = Position(node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = join_pointer(pointer, key)
            if key in seen:
                duplicates.append(
                    (child, Position(key_node.start_mark.line + 1, key_node.start_mark.column + 1))
                )
                continue
            seen.add(key)
            _index_yaml(value_node, child, positions, duplicates)
            # Point at the key, which is where a reader looks for "this entry".
            positions[child] = Position(key_node.start_mark.line + 1, key_node.start_mark.column + 1)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index_yaml(item, join_pointer(pointer, index), positions, duplicates)


_decoder = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


class _JsonIndex:
    """Finds the offset of a JSON pointer in the text, indexing each object or array it passes once.

    A 13 MB spec asks for hundreds of locations under the same few objects (`/paths`, `/components`);
    walking from the root each time would decode every sibling again. Members of a visited object are
    kept by the object's offset, and lines are found by bisecting the newline offsets.
    """

    def __init__(self, text: str):
        self.text = text
        self._members: dict[int, dict[str, tuple[int, int]]] = {}
        self._items: dict[int, list[int]] = {}
        self._line_starts: list[int] | None = None

    def position(self, tokens: list[str]) -> Position | None:
        value_start = _skip_ws(self.text, 0)
        shown_at = value_start
        for token in tokens:
            found = self._child(value_start, token)
            if found is None:
                return None
            shown_at, value_start = found
        return self._position_of(shown_at)

    def _child(self, index: int, token: str) -> tuple[int, int] | None:
        """(where to show the child: its key, or the item itself; where its value starts)."""
        text = self.text
        if index >= len(text):
            return None
        if text[index] == "{":
            members = self._members.get(index)
            if members is None:
                members = {}
                for key, key_start, value_start in _json_members(text, index):
                    members.setdefault(key, (key_start, value_start))
                self._members[index] = members
            return members.get(token)
        if text[index] == "[" and token.isdigit():
            items = self._items.get(index)
            if items is None:
                items = list(_json_items(text, index))
                self._items[index] = items
            position = int(token)
            return (items[position], items[position]) if position < len(items) else None
        return None

    def _position_of(self, offset: int) -> Position:
        if self._line_starts is None:
            self._line_starts = [0, *(match.end() for match in re.finditer("\n", self.text))]
        line = bisect.bisect_right(self._line_starts, offset)
        return Position(line, offset - self._line_starts[line - 1] + 1)


def _json_members(text: str, index: int) -> Iterator[tuple[str, int, int]]:
    index = _skip_ws(text, index + 1)
    while index < len(text) and text[index] != "}":
        key_start = index
        key, index = json.decoder.scanstring(text, index + 1)
        index = _skip_ws(text, index)
        index = _skip_ws(text, index + 1)  # the colon
        yield key, key_start, index
        _, index = _decoder.raw_decode(text, index)
        index = _skip_ws(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip_ws(text, index + 1)


def _json_items(text: str, index: int) -> Iterator[int]:
    index = _skip_ws(text, index + 1)
    while index < len(text) and text[index] != "]":
        yield index
        _, index = _decoder.raw_decode(text, index)
        index = _skip_ws(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip_ws(text, index + 1)


def _skip_ws(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index
