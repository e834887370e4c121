"""Read YAML and JSON documents and remember where each value stands, so diagnostics can name a line.

YAML documents are composed once into nodes that carry their marks. JSON documents are parsed from
their bytes by orjson and located lazily: only when a diagnostic asks for a line is the text walked
along the pointer. That text is the file's bytes one character each (Latin-1), where JSON's structure
reads the same: GitHub's 13 MB spec holds an emoji, so decoded it would take four bytes a character,
52 MB. A file orjson refuses, or whose numbers it may
read otherwise than the standard library (an integer past 64 bits becomes a float), is parsed by
`json.loads`, whose messages and checks say what is wrong with it.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import yaml

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, DiagnosticError, SourceRef, error, source_found_later

MB = 1024 * 1024
MAX_SPEC_BYTES = 64 * MB  # GitHub's spec, the largest known, is 13 MB; referenced files get the same cap
MAX_DEPTH = 100  # nesting levels; real specs stay under 30 even with every $ref inlined
ALIAS_EXPANSION_FLOOR = 100_000  # YAML aliases may add this many values, or as many as the file holds


def escape_pointer_token(token: str | int) -> str:
    text = token if type(token) is str else str(token)
    if "~" in text or "/" in text:  # rare in names: most tokens are returned as they are
        return text.replace("~", "~0").replace("/", "~1")
    return text


def unescape_pointer_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(pointer: str, *tokens: str | int) -> str:
    for token in tokens:
        pointer += "/" + escape_pointer_token(token)
    return pointer


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
    """A parsed file: its data and a way back from a JSON pointer to a line.

    `origin`, for data converted from what the file says (Swagger 2.0 read as OpenAPI 3.0), turns a
    pointer into the data into the pointer of the file's text that it came from: every location is
    reported in the file as written.
    """

    display_path: str
    path: Path
    text: str  # "" for a JSON document orjson read: see `_raw`, `_stamp` and _JsonIndex
    data: Any
    _yaml_positions: dict[str, Position] | None = None
    _json_cache: dict[str, Position] = field(default_factory=dict)
    _json_index: _JsonIndex | None = None
    origin: Callable[[str], str] | None = None
    base_url: str | None = None  # fetched from this URL: relative `$ref`s are resolved against it
    # A JSON document orjson read keeps no text: a file that is not a regular one keeps its bytes
    # (`_raw`); a regular file is read again if a line is ever asked for, when it is still the file
    # that was parsed: the same size, modification time and inode (`_stamp`). GitHub's spec is 13 MB,
    # held through a whole `generate` for the few lines its messages show, if any.
    _raw: bytes | None = None
    _stamp: tuple[int, int, int] | None = None

    def locate(self, pointer: str) -> SourceRef:
        if self.origin is not None:
            pointer = self.origin(pointer)
        if self._yaml_positions is None:  # JSON: the line is found in the text when it is read
            return source_found_later(self.display_path, pointer, lambda: self._line_and_column(pointer))
        line, column = self._line_and_column(pointer)
        return SourceRef(file=self.display_path, pointer=pointer, line=line, column=column)

    def _line_and_column(self, pointer: str) -> tuple[int | None, int | None]:
        position = self._position(pointer)
        return (position.line, position.column) if position else (None, None)

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
                raw = self._raw if self._raw is not None else self._read_again()
                if raw is not None:  # UTF-8 bytes as Latin-1 characters: one byte each
                    self.text, self._raw = raw.decode("latin-1"), None
                    del raw  # 13 MB for GitHub's spec: not held while the text is indexed
                    self._json_index = _JsonIndex(self.text, utf8_bytes=True)
                elif self._stamp is not None:
                    return None  # the file changed since it was parsed: no line rather than a wrong one
                else:
                    self._json_index = _JsonIndex(self.text)
            found = self._json_index.position(split_pointer(pointer))
            if found is None:
                return None
            self._json_cache[pointer] = found
        return self._json_cache[pointer]

    def _read_again(self) -> bytes | None:
        """The parsed file's bytes, read once more, or None when it is no longer the file parsed."""
        if self._stamp is None:
            return None
        try:
            with self.path.open("rb") as handle:
                if _stamp(os.fstat(handle.fileno())) != self._stamp:
                    return None
                raw = handle.read()
        except OSError:
            return None
        self._stamp = None
        return raw


def _stamp(status: os.stat_result) -> tuple[int, int, int]:
    return (status.st_size, status.st_mtime_ns, status.st_ino)


def load_document(
    path: Path,
    display_path: str | None = None,
    *,
    max_bytes: int = MAX_SPEC_BYTES,
    regular_only: bool = False,
) -> Document:
    """Parse a YAML or JSON file; raise DiagnosticError with the file and line on any failure.

    At most `max_bytes` are read. `regular_only` refuses devices, pipes and sockets without reading
    from them: a `$ref` to /dev/zero or to a named pipe must neither fill memory nor hang.
    """
    shown = display_path or str(path)
    raw, stamp = _read_bounded(path, shown, max_bytes, regular_only)
    if path.suffix.lower() == ".json":
        return _load_json_bytes(raw, path, shown, stamp) or _load_json(_decode(raw, shown), path, shown)
    return _load_yaml(_decode(raw, shown), path, shown)


def _load_json_bytes(
    raw: bytes, path: Path, shown: str, stamp: tuple[int, int, int] | None
) -> Document | None:
    """The document orjson reads from the bytes, or None where `_load_json` must read it: orjson
    refuses the file (not JSON, not UTF-8, a byte-order mark, NaN, a lone surrogate escape, a number
    past a double), or it nests deeper than MAX_DEPTH, or it holds a float past 2**63, which may
    be an integer orjson could not read as one."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if _holds_unusable_value(data, False, wide_floats=True):
        return None
    if stamp is not None:  # a regular file: read again if a line is asked for
        return Document(display_path=shown, path=path, text="", data=data, _stamp=stamp)
    return Document(display_path=shown, path=path, text="", data=data, _raw=raw)


def _read_bounded(
    path: Path, shown: str, max_bytes: int, regular_only: bool
) -> tuple[bytes, tuple[int, int, int] | None]:
    """The file's bytes, and for a regular file its `_stamp` when they were read."""
    source = SourceRef(file=shown)
    # O_NONBLOCK: opening a named pipe must not wait for a writer before it can be refused.
    flags = os.O_RDONLY | (getattr(os, "O_NONBLOCK", 0) if regular_only else 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise DiagnosticError([error(codes.F001, f"file not found: {shown}", source)]) from None
    except OSError as exc:
        raise DiagnosticError([_unreadable(shown, exc)]) from None
    # Checked on the descriptor before it becomes a file object: Python refuses to wrap a directory.
    status = os.fstat(fd)
    mode = status.st_mode
    if stat.S_ISDIR(mode):
        os.close(fd)
        raise DiagnosticError(
            [
                error(
                    codes.F002,
                    f"cannot read {shown}: it is a directory",
                    source,
                    hint="give the path of the JSON or YAML file itself, not of the directory holding it",
                )
            ]
        )
    with os.fdopen(fd, "rb") as handle:
        if regular_only and not stat.S_ISREG(mode):
            raise DiagnosticError(
                [
                    error(
                        codes.F007,
                        f"{shown} is not a regular file (a device, pipe or socket), so mcpgen does not read it",
                        source,
                        hint="refer to a file that holds the JSON or YAML itself",
                    )
                ]
            )
        if stat.S_ISREG(mode) and os.fstat(fd).st_size > max_bytes:
            raise DiagnosticError([_too_large(shown, max_bytes)])
        try:
            raw = handle.read(max_bytes + 1)
        except OSError as exc:
            raise DiagnosticError([_unreadable(shown, exc)]) from None
    if len(raw) > max_bytes:
        raise DiagnosticError([_too_large(shown, max_bytes)])
    # A file that grew or shrank while it was read is kept as read.
    regular = stat.S_ISREG(mode) and len(raw) == status.st_size
    return raw, (_stamp(status) if regular else None)


def _unreadable(shown: str, exc: OSError) -> Diagnostic:
    return error(codes.F002, f"cannot read {shown}: {exc.strerror or exc}", SourceRef(file=shown))


def _too_large(shown: str, max_bytes: int) -> Diagnostic:
    return error(
        codes.F006,
        f"{shown} is larger than {max_bytes // MB} MB, the most mcpgen reads of such a file",
        SourceRef(file=shown),
        hint="check that this is the file you meant; a spec this large can be split into files that $ref each other",
    )


def _decode(raw: bytes, shown: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        column = len(raw[line_start : exc.start].decode("utf-8", "replace")) + 1
        raise DiagnosticError(
            [
                error(
                    codes.F008,
                    f"not valid UTF-8: the byte 0x{raw[exc.start]:02x} cannot start or continue a character",
                    SourceRef(file=shown, line=line, column=column),
                    hint="save the file as UTF-8, the only encoding mcpgen reads",
                )
            ]
        ) from None


def _load_json(text: str, path: Path, shown: str) -> Document:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        source = SourceRef(file=shown, line=exc.lineno, column=exc.colno)
        raise DiagnosticError([error(codes.F003, f"invalid JSON: {exc.msg}", source)]) from None
    except RecursionError:
        raise DiagnosticError([_too_deep(_at_offset(shown, text, _json_depth_offset(text)))]) from None
    except ValueError:  # an integer past Python's 4,300-digit limit for int() of text
        raise DiagnosticError([_long_number(codes.F003, shown, text)]) from None
    document = Document(display_path=shown, path=path, text=text, data=data)
    # A lone surrogate can only come from a `\ud800`-style escape: look for one only then.
    _check_values(document, strings=_ESCAPED_SURROGATE.search(text) is not None)
    return document


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe YAML that makes JSON's kinds of values only: a date stays the text written, and the tags
    that make bytes, sets or ordered pairs are refused, since nothing downstream can write them out."""


def _as_written(loader: yaml.BaseLoader, node: yaml.Node) -> Any:
    return loader.construct_scalar(node)  # type: ignore[arg-type]


def _refuse_tag(loader: yaml.BaseLoader, node: yaml.Node) -> Any:
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"the tag {node.tag} makes a value JSON has no kind for; write text, numbers, lists or mappings",
        node.start_mark,
    )


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_written)
for _tag in ("binary", "set", "omap", "pairs"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse_tag)


def _load_yaml(text: str, path: Path, shown: str) -> Document:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        positions: dict[str, Position] = {}
        duplicates: list[tuple[str, Position]] = []
        if node is not None:
            _index_yaml(node, positions, duplicates, shown)
        data = loader.construct_document(node) if node is not None else None
    except yaml.reader.ReaderError as exc:
        raise DiagnosticError([_control_character(shown, text, exc)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        message = f"invalid YAML: {exc.problem or exc.context}"
        raise DiagnosticError(
            [error(codes.F004, message, SourceRef(file=shown, line=line, column=column))]
        ) from None
    except yaml.YAMLError as exc:
        raise DiagnosticError([error(codes.F004, f"invalid YAML: {exc}", SourceRef(file=shown))]) from None
    except ValueError:  # an integer past Python's 4,300-digit limit for int() of text
        raise DiagnosticError([_long_number(codes.F004, shown, text)]) from None
    finally:
        loader.dispose()
    if duplicates:
        raise DiagnosticError(
            error(
                codes.F005,
                f"key '{split_pointer(pointer)[-1]}' appears twice in one mapping; the second would silently win",
                SourceRef(file=shown, pointer=pointer, line=pos.line, column=pos.column),
                hint="remove or rename one of the two entries",
            )
            for pointer, pos in duplicates
        )
    document = Document(display_path=shown, path=path, text=text, data=data, _yaml_positions=positions)
    _check_values(document, strings=False)  # YAML refuses lone surrogates itself
    return document


def _control_character(shown: str, text: str, exc: yaml.reader.ReaderError) -> Diagnostic:
    # libyaml counts the position in bytes, PyYAML in characters; the first occurrence of the refused
    # character is where either stopped, since any earlier one would have stopped it sooner.
    code = exc.character if isinstance(exc.character, int) else ord(exc.character)
    offset = text.find(chr(code))
    return error(
        codes.F004,
        f"invalid YAML: the file holds the control character U+{code:04X}, which YAML does not allow",
        _at_offset(shown, text, offset) if offset >= 0 else SourceRef(file=shown),
        hint="remove it; inside a double-quoted string a value can spell it as an escape, e.g. \\x1b",
    )


def _index_yaml(
    root: yaml.Node, positions: dict[str, Position], duplicates: list[tuple[str, Position]], shown: str
) -> None:
    """Record where every value stands and which keys are written twice, walking with aliases expanded.

    Refuses what would never end or not fit in memory (F009): an alias inside its own anchor, and
    aliases that add more values than the document holds itself (past a floor), as in "billion laughs".
    """
    on_path: set[int] = set()  # the nodes being walked, root to here: meeting one again is a cycle
    unique: set[int] = set()
    expanded = 0
    stack: list[tuple[yaml.Node, str | None, int]] = [(root, "", 0)]
    while stack:
        node, pointer, depth = stack.pop()
        if pointer is None:  # leaving a collection
            on_path.discard(id(node))
            continue
        mark = Position(node.start_mark.line + 1, node.start_mark.column + 1)
        # A mapping's entry is already at its key, which is where a reader looks for "this entry".
        positions.setdefault(pointer, mark)
        if id(node) in on_path:
            raise DiagnosticError([_self_alias(shown, pointer, positions[pointer])])
        unique.add(id(node))
        expanded += 1
        if expanded - len(unique) > max(len(unique), ALIAS_EXPANSION_FLOOR):
            raise DiagnosticError([_alias_bomb(shown, pointer, positions[pointer], expanded)])
        if not isinstance(node, yaml.CollectionNode):
            continue
        if depth >= MAX_DEPTH:
            raise DiagnosticError(
                [_too_deep(SourceRef(file=shown, pointer=pointer, line=mark.line, column=mark.column))]
            )
        on_path.add(id(node))
        stack.append((node, None, depth))
        children = list(_yaml_children(node, pointer, positions, duplicates, shown))
        stack.extend((child, child_pointer, depth + 1) for child, child_pointer in reversed(children))


def _yaml_children(
    node: yaml.CollectionNode,
    pointer: str,
    positions: dict[str, Position],
    duplicates: list[tuple[str, Position]],
    shown: str,
) -> Iterator[tuple[yaml.Node, str]]:
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield item, join_pointer(pointer, index)
        return
    seen: set[str] = set()
    for key_node, value_node in node.value:
        key_at = Position(key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        if not isinstance(key_node, yaml.ScalarNode):
            source = SourceRef(file=shown, pointer=pointer, line=key_at.line, column=key_at.column)
            raise DiagnosticError(
                [
                    error(
                        codes.F004,
                        "invalid YAML for mcpgen: a key here is a list or a mapping; keys are text",
                        source,
                    )
                ]
            )
        key = str(key_node.value)
        child = join_pointer(pointer, key)
        if key in seen:
            duplicates.append((child, key_at))
            continue
        seen.add(key)
        positions[child] = key_at
        yield value_node, child


def _self_alias(shown: str, pointer: str, at: Position) -> Diagnostic:
    return error(
        codes.F009,
        "an alias here refers to itself: its anchor contains it, so the value would never end",
        SourceRef(file=shown, pointer=pointer, line=at.line, column=at.column),
        hint="write the repeated part out instead of the alias",
    )


def _alias_bomb(shown: str, pointer: str, at: Position, expanded: int) -> Diagnostic:
    return error(
        codes.F009,
        f"aliases expand this file past {expanded:,} values, more than it holds itself (an alias bomb "
        "such as 'billion laughs'); mcpgen stops reading here",
        SourceRef(file=shown, pointer=pointer, line=at.line, column=at.column),
        hint="write the repeated parts out, or nest fewer aliases inside one another",
    )


def _too_deep(source: SourceRef) -> Diagnostic:
    return error(
        codes.F011,
        f"values are nested more than {MAX_DEPTH} levels deep here; mcpgen reads no deeper",
        source,
        hint="real specs nest fewer than 30 levels; move deep schemas under components and $ref them",
    )


def _long_number(code: str, shown: str, text: str) -> Diagnostic:
    found = re.search(r"\d{4000,}", text)
    return error(
        code,
        "a number here has thousands of digits, more than mcpgen reads",
        _at_offset(shown, text, found.start()) if found else SourceRef(file=shown),
        hint="write it as a string if it must be kept",
    )


def _at_offset(shown: str, text: str, offset: int) -> SourceRef:
    line = text.count("\n", 0, offset) + 1
    return SourceRef(file=shown, line=line, column=offset - (text.rfind("\n", 0, offset) + 1) + 1)


_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _json_depth_offset(text: str) -> int:
    """Where JSON text first opens a collection deeper than MAX_DEPTH (strings skipped)."""
    depth = 0
    for match in _JSON_NESTING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return 0


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_values(document: Document, *, strings: bool) -> None:
    """Refuse values no generated file can hold (located): nesting past MAX_DEPTH, NaN and infinity
    (not JSON numbers), and with `strings` text holding a lone surrogate (not a character: it cannot
    be written as UTF-8)."""
    if not _holds_unusable_value(document.data, strings):
        return
    found = _unusable_value(document.data, strings)
    if found is None:
        return
    tokens, problem = found
    source = document.locate(join_pointer("", *tokens))
    if problem == "deep":
        raise DiagnosticError([_too_deep(source)])
    if problem == "number":
        raise DiagnosticError(
            [
                error(
                    codes.F012,
                    "NaN and infinity are not JSON numbers, and no generated file can hold them",
                    source,
                    hint="write a finite number, or the text in quotes",
                )
            ]
        )
    raise DiagnosticError(
        [
            error(
                codes.F010,
                "this text holds an unpaired surrogate escape (\\ud800 to \\udfff), which is not a character "
                "and cannot be written out as UTF-8",
                source,
                hint="remove the escape, or complete the pair (a high surrogate followed by a low one)",
            )
        ]
    )


def _holds_unusable_value(data: Any, strings: bool, *, wide_floats: bool = False) -> bool:
    """Whether `_unusable_value` finds anything, asked without making a pointer for every collection:
    the common answer (no) for a 13 MB spec's 90,000 collections in a tenth of the time. With
    `wide_floats`, a float of 2**63 or more (either sign) counts too."""
    limit = _WIDE if wide_floats else math.inf
    if _scalar_problem(data, strings) or (type(data) is float and abs(data) >= limit):
        return True
    stack: list[tuple[Any, int]] = [(data, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        value, depth = pop()
        if type(value) is dict:
            if strings and any(isinstance(key, str) and _SURROGATE.search(key) for key in value):
                return True
            children: Iterable[Any] = value.values()
        elif type(value) is list:
            children = value
        else:
            if isinstance(value, (dict, list)):  # a subclass: the careful walk decides
                return True
            continue
        if depth >= MAX_DEPTH:
            return True
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                push((child, depth + 1))
            elif (kind is float and not -limit < child < limit) or (
                strings and kind is str and _SURROGATE.search(child)
            ):
                return True
            elif kind is not str and isinstance(child, (dict, list)):
                return True  # a subclass of dict or list: the careful walk decides
    return False


_WIDE = float(2**63)


def _unusable_value(data: Any, strings: bool) -> tuple[tuple[str | int, ...], str] | None:
    """(pointer tokens, 'deep' | 'number' | 'text') of a value that cannot be used, or None.

    Walks every collection once; scalars are checked in place, so a 13 MB spec takes milliseconds.
    """
    problem = _scalar_problem(data, strings)
    if problem:
        return (), problem
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, tokens = stack.pop()
        if isinstance(value, dict):
            items: Iterable[tuple[Any, Any]] = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            continue
        if len(tokens) >= MAX_DEPTH:
            return tokens, "deep"
        nested = []
        for key, child in items:
            if strings and isinstance(key, str) and _SURROGATE.search(key):
                return (*tokens, key), "text"
            if isinstance(child, (dict, list)):
                nested.append((child, (*tokens, key)))
            else:
                problem = _scalar_problem(child, strings)
                if problem:
                    return (*tokens, key), problem
        stack.extend(reversed(nested))
    return None


def _scalar_problem(value: Any, strings: bool) -> str | None:
    if type(value) is float and not math.isfinite(value):
        return "number"
    if strings and type(value) is str and _SURROGATE.search(value):
        return "text"
    return None


_decoder = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


class _JsonIndex:
    """Finds the offset of a JSON pointer in the text, indexing each object or array it passes once.

    A 13 MB spec asks for hundreds of locations under the same few objects (`/paths`, `/components`);
    walking from the root each time would decode every sibling again. Members of a visited object are
    kept by the object's offset, and lines are found by bisecting the newline offsets.

    With `utf8_bytes` the text is a UTF-8 file read as Latin-1, one character a byte: JSON's structure
    and escapes read the same, and a name or a column that holds other characters is decoded again.
    """

    def __init__(self, text: str, *, utf8_bytes: bool = False):
        self.text = text
        self.utf8_bytes = utf8_bytes
        # An object's members by name, read so far, and the reader of the rest.
        self._members: dict[int, tuple[dict[str, tuple[int, int]], Iterator[tuple[str, int, int]]]] = {}
        self._items: dict[int, list[int]] = {}
        # Offsets whose line is known, in order, and those lines: a line is counted from the nearest
        # known offset before it (a list of every line start of GitHub's spec would hold 400,000).
        self._known_offsets: list[int] = [0]
        self._known_lines: list[int] = [1]

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
            # Members are read only as far as the one asked for (the rest later, if asked): reaching
            # `/paths` must not decode `/components` on the way.
            found = self._members.get(index)
            if found is None:
                found = self._members[index] = ({}, _json_members(text, index, self.utf8_bytes))
            members, unread = found
            if token not in members:
                for key, key_start, value_start in unread:
                    members.setdefault(key, (key_start, value_start))
                    if key == token:
                        break
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
        text = self.text
        at = bisect.bisect_right(self._known_offsets, offset) - 1
        known = self._known_offsets[at]
        line = self._known_lines[at] + text.count("\n", known, offset)
        if known != offset:
            self._known_offsets.insert(at + 1, offset)
            self._known_lines.insert(at + 1, line)
        before = text[text.rfind("\n", 0, offset) + 1 : offset]
        if self.utf8_bytes and not before.isascii():
            before = _as_utf8(before)
        return Position(line, len(before) + 1)


def _as_utf8(latin1: str) -> str:
    return latin1.encode("latin-1").decode("utf-8", "replace")


def _json_members(text: str, index: int, utf8_bytes: bool = False) -> Iterator[tuple[str, int, int]]:
    index = _skip_ws(text, index + 1)
    while index < len(text) and text[index] != "}":
        key_start = index
        key, index = _decoder.raw_decode(text, index)  # a member's name is a JSON string
        if utf8_bytes and not key.isascii():
            key = _decoder.decode(_as_utf8(text[key_start:index]))
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
