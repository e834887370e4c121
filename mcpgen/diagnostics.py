"""Diagnostics are values: every problem mcpgen finds is returned with the place it comes from.

Only the CLI prints them (``format_diagnostic``); every other module returns them.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# The short name of every design rule (docs/rules.md; the ids come from the design notes). Code and
# tests cite the bare id; anything a user reads says `rule_name(id)`: "T4 names", never "T4" alone.
RULE_NAMES = {
    "T1": "task tools",
    "T2": "flat action enum",
    "T3": "few tools",
    "T4": "names",
    "T5": "parameter names",
    "T6": "simple, honest schemas",
    "T7": "descriptions are contracts",
    "R1": "meaningful fields",
    "R2": "concise or detailed",
    "R3": "pagination",
    "R4": "truncation is announced",
    "R5": "structured and text",
    "R6": "nothing on stdout",
    "E1": "tool errors are results",
    "E2": "what, why, how",
    "E3": "which kind of recovery",
    "E4": "unknown outcome is not retry",
    "E5": "no internals",
    "S1": "preview, then apply",
    "S2": "guard rails as errors",
    "S3": "handles",
    "S4": "annotations are hints",
    "P1": "stateless",
    "P2": "deterministic tools/list",
    "P3": "credentials",
    "P4": "ask what the model cannot know",
    "P5": "timeouts",
    "C1": "versioned contract",
    "C2": "measure on real tasks",
}


def rule_name(rule_id: str) -> str:
    """'T4' -> 'T4 names': a rule id as a user reads it. An id not in the table comes back as it is."""
    name = RULE_NAMES.get(rule_id)
    return f"{rule_id} {name}" if name else rule_id


class Level(enum.IntEnum):
    INFO = 10
    WARNING = 20
    ERROR = 30


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceRef:
    """Where something came from: a file, a JSON pointer inside it, and the line when known."""

    file: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        place = self.file
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        return place


class _Pending:
    """A SourceRef's line and column before anything has read them (`source_found_later`)."""

    __slots__ = ("_find",)

    def __init__(self, find: Callable[[], tuple[int | None, int | None]]):
        self._find = find

    def settle(self, source: SourceRef) -> None:
        line, column = self._find()
        _SLOTS["line"].__set__(source, line)
        _SLOTS["column"].__set__(source, column)


class _FoundOnRead:
    """Stands in for SourceRef's `line` and `column` slots: a pending position is looked up the first
    time either is read, and kept. Everything else (init, ==, hash, repr, replace) reads and writes
    through it, so a SourceRef made later is one made at once."""

    def __init__(self, slot: Any):
        self._slot = slot

    def __get__(self, source: SourceRef | None, owner: type | None = None) -> Any:
        if source is None:
            return self
        value = self._slot.__get__(source, owner)
        if type(value) is _Pending:
            value.settle(source)
            value = self._slot.__get__(source, owner)
        return value

    def __set__(self, source: SourceRef, value: Any) -> None:
        self._slot.__set__(source, value)


_SLOTS = {name: SourceRef.__dict__[name] for name in ("line", "column")}
for _name, _slot in _SLOTS.items():
    setattr(SourceRef, _name, _FoundOnRead(_slot))


def source_found_later(
    file: str, pointer: str, find: Callable[[], tuple[int | None, int | None]]
) -> SourceRef:
    """A SourceRef whose line and column `find` gives the first time something reads them. Finding a
    line in a 13 MB JSON spec means scanning text; most places the build records are never shown."""
    source = SourceRef(file=file, pointer=pointer)
    pending = _Pending(find)
    _SLOTS["line"].__set__(source, pending)
    _SLOTS["column"].__set__(source, pending)
    return source


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    level: Level
    code: str
    message: str
    source: SourceRef | None = None
    hint: str | None = None


class DiagnosticError(Exception):
    """Raised by a stage that cannot go on; carries the diagnostics that stopped it."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


def error(code: str, message: str, source: SourceRef | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(level=Level.ERROR, code=code, message=message, source=source, hint=hint)


def warning(code: str, message: str, source: SourceRef | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(level=Level.WARNING, code=code, message=message, source=source, hint=hint)


def info(code: str, message: str, source: SourceRef | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(level=Level.INFO, code=code, message=message, source=source, hint=hint)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.level >= Level.ERROR for d in diagnostics)


def format_diagnostic(diagnostic: Diagnostic) -> str:
    """``file:line:col: error[M104] /tools/0/name: message`` plus an indented hint line."""
    parts = []
    if diagnostic.source is not None:
        parts.append(f"{diagnostic.source}: ")
    parts.append(f"{diagnostic.level.name.lower()}[{diagnostic.code}] ")
    if diagnostic.source is not None and diagnostic.source.pointer:
        parts.append(f"{diagnostic.source.pointer}: ")
    parts.append(diagnostic.message)
    text = "".join(parts)
    if diagnostic.hint:
        text += "\n    hint: " + diagnostic.hint.replace("\n", "\n          ")
    return terminal_safe(text)


# C0 controls but tab and newline, DEL, and C1 controls: ESC sequences and their 8-bit forms (CSI,
# OSC) can retitle the window, clear the screen or hide text when printed to a terminal.
_TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """`text` with each control character but newline and tab written as a visible `\\u001b` escape.
    The same escape JSON uses, so JSON output stays valid and reads back to the same value."""
    return _TERMINAL_CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def sort_key(diagnostic: Diagnostic) -> tuple[str, int, str, str]:
    source = diagnostic.source
    return (
        source.file if source else "",
        source.line or 0 if source else 0,
        diagnostic.code,
        diagnostic.message,
    )
