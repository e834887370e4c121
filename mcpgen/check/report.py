"""`mcpgen check` output: text (one located line per finding), JSON (a stable shape, documented in
REPORT_VERSION's comment) or GitHub workflow-command annotations."""

from __future__ import annotations

import json
from typing import Any

from mcpgen.check.model import Finding
from mcpgen.check.run import Checked
from mcpgen.check.upstream import PRISM_VERSION
from mcpgen.contract.scanning import escape_data, escape_property
from mcpgen.diagnostics import terminal_safe

# The JSON shape, version 1:
#   {"mcpgen_check": 1, "spec": str, "mapping": str,
#    "upstream": {"kind": "prism" | "url", "url": str | null, "prism_version": str | null},
#    "tools": int, "actions": int, "calls": int,
#    "counts": {"error": int, "note": int},
#    "findings": [{"code", "check", "level" ("error" | "note"), "tool", "action" (str | null),
#                  "message", "hint" (str | null), "file", "line", "column", "pointer"}]}
# Findings are sorted by file, line, code; `level: error` ones set the exit code.
REPORT_VERSION = 1


def ordered(findings: list[Finding]) -> list[Finding]:
    def key(f: Finding) -> tuple[int, str, int, int, str, str]:
        source = f.source
        line = (source.line or 0) if source else 0
        column = (source.column or 0) if source else 0
        return (f.level == "note", source.file if source else "", line, column, f.code, f.message)

    return sorted(findings, key=key)


def summary(checked: Checked, spec: str) -> str:
    errors = sum(1 for f in checked.findings if f.level == "error")
    notes = len(checked.findings) - errors
    against = f"Prism {PRISM_VERSION} serving {spec}" if checked.upstream == "prism" else checked.upstream
    verdict = f"{errors} finding{'s' if errors != 1 else ''}" + (f", {notes} not checked" if notes else "")
    return f"checked {checked.tools} tools, {checked.actions} actions with {len(checked.calls)} calls against {against}: {verdict}"


def text(checked: Checked, spec: str) -> str:
    lines = []
    for finding in ordered(checked.findings):
        place = f"{finding.source}: " if finding.source else ""
        pointer = f"{finding.source.pointer}: " if finding.source and finding.source.pointer else ""
        subject = f"{finding.tool} {finding.action}: " if finding.action else f"{finding.tool}: "
        lines.append(f"{place}{finding.level}[{finding.code}] {pointer}{subject}{finding.message}")
        if finding.hint:
            lines.append(f"    hint: {finding.hint}")
    lines.append(summary(checked, spec))
    return terminal_safe("\n".join(lines)) + "\n"


def as_json(checked: Checked, spec: str, mapping: str) -> str:
    prism = checked.upstream == "prism"
    document: dict[str, Any] = {
        "mcpgen_check": REPORT_VERSION,
        "spec": spec,
        "mapping": mapping,
        "upstream": {
            "kind": "prism" if prism else "url",
            "url": None if prism else checked.upstream,
            "prism_version": PRISM_VERSION if prism else None,
        },
        "tools": checked.tools,
        "actions": checked.actions,
        "calls": len(checked.calls),
        "counts": {
            level: sum(1 for f in checked.findings if f.level == level) for level in ("error", "note")
        },
        "findings": [_entry(f) for f in ordered(checked.findings)],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _entry(finding: Finding) -> dict[str, Any]:
    source = finding.source
    return {
        "code": finding.code,
        "check": finding.check,
        "level": finding.level,
        "tool": finding.tool,
        "action": finding.action,
        "message": finding.message,
        "hint": finding.hint,
        "file": source.file if source else None,
        "line": source.line if source else None,
        "column": source.column if source else None,
        "pointer": source.pointer if source else None,
    }


def github(checked: Checked, spec: str) -> str:
    """`::error` per finding and `::notice` per note, at the mapping's file and line, then the summary."""
    lines = []
    for finding in ordered(checked.findings):
        command = "error" if finding.level == "error" else "notice"
        source = finding.source
        properties = []
        if source is not None:
            properties.append(("file", source.file))
            if source.line:
                properties.append(("line", str(source.line)))
            if source.column:
                properties.append(("col", str(source.column)))
        subject = f"{finding.tool} {finding.action}" if finding.action else finding.tool
        properties.append(("title", f"mcpgen check {finding.code} {finding.check}: {subject}"))
        rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        message = finding.message + (f" (hint: {finding.hint})" if finding.hint else "")
        lines.append(f"::{command} {rendered}::{escape_data(message)}")
    lines.append(f"::notice title=mcpgen check::{escape_data(summary(checked, spec))}")
    return "\n".join(lines) + "\n"
