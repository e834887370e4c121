"""An ignore list for `mcpgen diff --fail-on`: contract changes a team has accepted, each with a reason.

    ignore:
      - change: param-required:github_issues_find.list#milestone   # a change id (JSON / SARIF output)
        reason: milestone was always needed; the spec now says so
        until: 2027-03-01                                          # optional: after it, fail again
      - pointer: /paths/~1repos~1{owner}~1{repo}~1issues/get       # spec or mapping JSON pointer
        reason: issue listing is being redesigned upstream

A `change` entry ignores the change with that id. A `pointer` entry ignores every contract change all of
whose causes are at or under the pointer (and, for `--fail-on any`, input changes there). An entry whose
`until` date has passed ignores nothing and is warned about, so accepted changes are looked at again.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mcpgen import codes
from mcpgen.contract.diff.model import ContractChange, ContractDiff, InputChange
from mcpgen.diagnostics import Diagnostic, DiagnosticError, SourceRef, error, warning
from mcpgen.load.sources import load_document

MAX_IGNORE_BYTES = 1 << 20
_KEYS = {"change", "pointer", "reason", "until"}


@dataclass(frozen=True, slots=True)
class IgnoreEntry:
    reason: str
    source: SourceRef
    change: str | None = None
    pointer: str | None = None
    until: datetime.date | None = None
    until_source: SourceRef | None = None  # the `until:` line, where an expiry warning points

    def covers_pointer(self, pointer: str) -> bool:
        if self.pointer is None:
            return False
        return pointer == self.pointer or pointer.startswith(self.pointer.rstrip("/") + "/")

    def covers(self, change: ContractChange) -> bool:
        if self.change is not None:
            return change.id == self.change
        return bool(change.causes) and all(self.covers_pointer(c.pointer) for c in change.causes)


@dataclass(frozen=True, slots=True)
class IgnoreList:
    entries: tuple[IgnoreEntry, ...]

    def covers(self, item: InputChange) -> bool:
        return any(e.covers_pointer(item.pointer) for e in self.entries)


@dataclass(frozen=True, slots=True)
class Applied:
    changes: dict[str, str]  # change id -> the reason it is ignored
    active: IgnoreList  # the entries still in force
    diagnostics: tuple[Diagnostic, ...]


def load_ignore_list(path: Path) -> IgnoreList:
    """Raises DiagnosticError (file:line and what to write) when the file cannot be read or is malformed."""
    document = load_document(path, str(path), max_bytes=MAX_IGNORE_BYTES, regular_only=True)
    data = document.data
    if not isinstance(data, dict) or not isinstance(data.get("ignore"), list):
        raise _malformed(document.locate(""), "an ignore list is a mapping with an `ignore:` list")
    entries = []
    for index, raw in enumerate(data["ignore"]):
        where = document.locate(f"/ignore/{index}")
        entries.append(_entry(raw, where, document.locate(f"/ignore/{index}/until")))
    return IgnoreList(tuple(entries))


def _entry(raw: object, where: SourceRef, until_at: SourceRef) -> IgnoreEntry:
    if not isinstance(raw, dict):
        raise _malformed(where, "each entry is a mapping with `change:` or `pointer:`, and `reason:`")
    unknown = sorted(str(k) for k in raw if k not in _KEYS)
    if unknown:
        raise _malformed(where, f"unknown key {', '.join(unknown)}; an entry has {', '.join(sorted(_KEYS))}")
    change, pointer, reason = raw.get("change"), raw.get("pointer"), raw.get("reason")
    if (change is None) == (pointer is None):
        raise _malformed(where, "give exactly one of `change:` (a change id) and `pointer:` (a JSON pointer)")
    if not isinstance(reason, str) or not reason.strip():
        raise _malformed(where, "say why in `reason:`, so the next reader knows whether it still holds")
    if pointer is not None and not (isinstance(pointer, str) and pointer.startswith("/")):
        raise _malformed(where, f"pointer {pointer!r} is not a JSON pointer; it starts with /")
    if pointer is not None and not pointer.rstrip("/"):
        # Every place is under it: the entry would silence every change of the spec and the mapping.
        raise _malformed(
            where,
            f"pointer {pointer!r} covers the whole spec and mapping, so it would ignore every change; "
            "name the part to ignore, e.g. /paths/~1pets/get",
        )
    if change is not None and not isinstance(change, str):
        raise _malformed(where, "`change:` is a change id such as param-removed:tool.action#param")
    until = _until(raw.get("until"), until_at)
    return IgnoreEntry(reason.strip(), where, change, pointer, until, until_at if until else None)


def _until(value: object, where: SourceRef) -> datetime.date | None:
    if value is None:
        return None
    # The mapping loader keeps scalars as written, so a date arrives as text.
    try:
        return datetime.date.fromisoformat(str(value))
    except ValueError:
        raise _malformed(where, f"until {value!r} is not a date; write YYYY-MM-DD") from None


def _malformed(where: SourceRef, message: str) -> DiagnosticError:
    return DiagnosticError([error(codes.D002, message, where, hint="see `mcpgen diff --help`, --ignore")])


def apply_ignore_list(ignore_list: IgnoreList, diff: ContractDiff, *, today: datetime.date) -> Applied:
    """Which changes the entries in force ignore; a warning for each expired entry."""
    active = tuple(e for e in ignore_list.entries if e.until is None or e.until >= today)
    diagnostics = tuple(_expired(e) for e in ignore_list.entries if e not in active)
    ignored = {c.id: e.reason for c in diff.changes for e in _first(active, c)}
    return Applied(ignored, IgnoreList(active), diagnostics)


def _first(entries: Iterable[IgnoreEntry], change: ContractChange) -> list[IgnoreEntry]:
    return next(([e] for e in entries if e.covers(change)), [])


def _expired(entry: IgnoreEntry) -> Diagnostic:
    what = entry.change or entry.pointer
    return warning(
        codes.D003,
        f"ignore entry for {what} expired on {entry.until}: it no longer ignores anything "
        f"(reason given: {entry.reason})",
        entry.until_source or entry.source,
        hint="look at the change again; remove the entry, or move `until:` later if it still holds",
    )
