"""Pure: a ContractDiff as GitHub Actions annotations or as SARIF 2.1.0, each change at a file line.

Where a change is, is worked out by the caller (it reads files) and handed in as `places`: the line of
the tool, action or parameter in the new lock file, or of the mapping rule that caused it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from mcpgen.contract.diff.kinds import Impact
from mcpgen.contract.diff.model import ContractChange, ContractDiff
from mcpgen.contract.format import SHOWN_CAUSES, suggestion, summary, what_changed

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True, slots=True)
class Place:
    file: str  # as the user named it, relative to where mcpgen ran (the repository root in CI)
    line: int | None = None


Places = Callable[[ContractChange], Place | None]

_COMMAND = {
    Impact.BREAKING: "error",
    Impact.BEHAVIOUR: "warning",
    Impact.DEPRECATION: "warning",
    Impact.ADDITIVE: "notice",
}
_SARIF_LEVEL = {
    Impact.BREAKING: "error",
    Impact.BEHAVIOUR: "warning",
    Impact.DEPRECATION: "warning",
    Impact.ADDITIVE: "note",
}


# --- GitHub Actions annotations -------------------------------------------------------------------


def escape_data(text: str) -> str:
    """A workflow command's message: %, CR and LF escaped as GitHub's runner reads them."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: the message's escapes, and : and , as well."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_annotations(
    diff: ContractDiff, places: Places, *, ignored: Mapping[str, str] | None = None
) -> str:
    """One `::error` (breaking), `::warning` (behaviour) or `::notice` (additive, or ignored) line per
    contract change, at its file line where one is known, then a notice with the verdict."""
    ignored = ignored or {}
    lines = []
    for change in diff.changes:
        reason = ignored.get(change.id)
        command = "notice" if reason is not None else _COMMAND[change.impact]
        title = f"{change.impact.label} contract change: {_subject(change)}"
        if reason is not None:
            title = f"ignored {title}"
        properties = _location(places(change)) + [("title", title)]
        message = change.message + _causes(change) + (f" (ignored: {reason})" if reason is not None else "")
        rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        lines.append(f"::{command} {rendered}::{escape_data(message)} [{change.id}]")
    verdict = f"{summary(diff)}; suggested version {suggestion(diff)}"
    lines.append(
        f"::notice title={escape_property(f'Tool contract of {diff.server}')}::{escape_data(verdict)}"
    )
    return "\n".join(lines) + "\n"


def _location(place: Place | None) -> list[tuple[str, str]]:
    if place is None:
        return []
    return [("file", place.file)] + ([("line", str(place.line))] if place.line else [])


def _subject(change: ContractChange) -> str:
    subject = f"{change.tool}.{change.action}" if change.action else change.tool
    what = "result field" if change.code.startswith("result-") else "parameter"
    return f"{subject} {what} {change.param}" if change.param else subject


def _causes(change: ContractChange) -> str:
    """The best cause (causes come ranked, `trace.cause_rank`) and how many more the JSON lists."""
    if not change.causes:
        return ""
    first = change.causes[0]
    where = f"{first.origin} {what_changed(first)} at {first.pointer or '/'}"
    more = len(_edit_keys(change)) - 1
    return f"; caused by {where}" + (f" and {more} more (see the JSON)" if more > 0 else "")


# --- SARIF 2.1.0 ----------------------------------------------------------------------------------


# At most about this many characters of SARIF (a code-scanning upload); the JSON is never cut.
SARIF_BUDGET = 2_000_000
_SARIF_ROOM = 300  # the log around the run, and the count of what was left out


def format_sarif(
    diff: ContractDiff,
    places: Places,
    *,
    version: str,
    ignored: Mapping[str, str] | None = None,
    budget: int = 0,
) -> str:
    """A SARIF log with one run: a rule per kind of change (its code), a result per change with its
    place, the tool/action/parameter as a logical location, a stable fingerprint, and a suppression
    (with the ignore list's reason) for each ignored change. Results past `budget` characters
    (SARIF_BUDGET by default) are left out, least severe first, and counted in the run's properties."""
    ignored = ignored or {}
    codes = sorted({c.code for c in diff.changes})
    rule_index = {code: index for index, code in enumerate(codes)}
    severities = {c.code: c.impact for c in diff.changes}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "mcpgen diff",
                "version": version,
                "rules": [_rule(code, severities[code]) for code in codes],
            }
        },
        "results": [],
        "properties": {
            "server": diff.server,
            "oldVersion": diff.old_version,
            "newVersion": diff.new_version,
            "suggestedVersion": diff.suggested_version,
            "bump": diff.bump,
            "summary": summary(diff),
        },
    }
    # Most severe first, while they fit in the budget; the rest counted (the JSON has every change).
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    room = (budget or SARIF_BUDGET) - len(json.dumps(log, indent=2, ensure_ascii=False)) - _SARIF_ROOM
    for index, change in enumerate(diff.changes):
        result = _result(change, places(change), rule_index[change.code], ignored.get(change.id))
        written = json.dumps(result, indent=2, ensure_ascii=False)
        room -= len(written) + 8 * (written.count("\n") + 1) + 2  # indented 8 deeper in the log, a comma
        if room < 0:
            run["properties"]["omittedResults"] = len(diff.changes) - index
            run["properties"]["omittedBecause"] = "the log's size bound; `mcpgen diff --format json` has them"
            break
        run["results"].append(result)
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _rule(code: str, impact: Impact) -> dict[str, Any]:
    words = code.replace("-", " ")
    return {
        "id": code,
        "name": "".join(word.capitalize() for word in code.split("-")),
        "shortDescription": {"text": f"{words[:1].upper()}{words[1:]} ({impact.label} tool contract change)"},
        "defaultConfiguration": {"level": _SARIF_LEVEL[impact]},
        "properties": {"impact": impact.label},
    }


def _result(
    change: ContractChange, place: Place | None, rule_index: int, reason: str | None
) -> dict[str, Any]:
    logical = {
        "fullyQualifiedName": change.id.partition(":")[2],
        "kind": "member" if change.param else "function" if change.action else "module",
    }
    location: dict[str, Any] = {"logicalLocations": [logical]}
    if place is not None:
        physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(place.file)}}
        if place.line:
            physical["region"] = {"startLine": place.line}
        location["physicalLocation"] = physical
    result: dict[str, Any] = {
        "ruleId": change.code,
        "ruleIndex": rule_index,
        "level": _SARIF_LEVEL[change.impact],
        "message": {"text": change.message + _causes(change)},
        "locations": [location],
        "partialFingerprints": {"mcpgenChange/v1": hashlib.sha256(change.id.encode()).hexdigest()[:32]},
        "properties": {
            "id": change.id,
            "impact": change.impact.label,
            "causes": _edits(change),
            "moreCauses": max(0, len(_edit_keys(change)) - SHOWN_CAUSES),
        },
    }
    if reason is not None:
        result["suppressions"] = [{"kind": "external", "justification": reason}]
    return result


def _edit_keys(change: ContractChange) -> list[tuple[str, str, str]]:
    """Each edit among the causes once, best first: one edit of a shared definition is a cause through
    every operation that reaches it (Stripe 1.1.1 -> 1.3.17 wrote 68 MB of the same few edits)."""
    return list(dict.fromkeys((c.origin, c.change, c.pointer) for c in change.causes))


def _edits(change: ContractChange) -> list[dict[str, str]]:
    """The first causes, as text and markdown show them; the JSON lists every one."""
    return [
        {"origin": origin, "change": kind, "pointer": pointer}
        for origin, kind, pointer in _edit_keys(change)[:SHOWN_CAUSES]
    ]


def _uri(file: str) -> str:
    """SARIF wants a URI: a relative reference for a path under the repository, else a file: URI."""
    path = PurePosixPath(file)
    return path.as_uri() if path.is_absolute() else quote(file)
