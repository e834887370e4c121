"""`mcpgen lint` on the command line: read the tool list, lint it, print text or JSON, set the exit code."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpgen import codes
from mcpgen.build.contract import contract
from mcpgen.cli.output import say
from mcpgen.diagnostics import (
    RULE_NAMES,
    Diagnostic,
    Level,
    SourceRef,
    error,
    format_diagnostic,
    rule_name,
    sort_key,
)
from mcpgen.ir import ServerSpec
from mcpgen.lint.rules import LintReport, lint_tools
from mcpgen.lint.schema_walk import Finding
from mcpgen.lint.tokens import load_counter
from mcpgen.load.remote import RemoteOptions, is_url
from mcpgen.pipeline import generate
from mcpgen.profiles import Profile, apply_profile

_LEVELS = {"info": Level.INFO, "warning": Level.WARNING, "error": Level.ERROR}


@dataclass(frozen=True, slots=True)
class LintInput:
    label: str  # what was linted, for the heading
    tools: list[Any]
    sources: dict[str, SourceRef]  # tool name -> its place in the mapping file, when linting spec+mapping
    server_name: str | None = None  # the name client configurations give the server, when known
    untransformed: list[Any] | None = None  # the tools before the profile, when linting spec+mapping


def run_lint(
    target: Path | str,
    mapping: Path | None,
    profile: Profile | None,
    *,
    output: str,
    fail_on: str,
    show: str,
    budget: int,
    ref_roots: Sequence[Path] = (),
    server_name: str | None = None,
    remote: RemoteOptions | None = None,
) -> int:
    """`target`: a path, or a spec's https URL (a str) to lint with `mapping`."""
    loaded, problems = read_target(target, mapping, profile, ref_roots=ref_roots, remote=remote)
    for diagnostic in sorted(problems, key=sort_key):
        if diagnostic.level >= Level.WARNING:
            say(format_diagnostic(diagnostic), err=True)
    if loaded is None:
        return 1
    counter, note = load_counter()
    report = lint_tools(
        loaded.tools,
        profile=profile,
        counter=counter,
        token_note=note,
        budget=budget,
        server_name=server_name or loaded.server_name,
        untransformed=loaded.untransformed,
    )
    if output == "json":
        say(json.dumps(report_json(loaded, report), indent=2, ensure_ascii=False))
    else:
        say(report_text(loaded, report, _LEVELS[show]))
    failing = Level.WARNING if fail_on == "warning" else Level.ERROR
    return 1 if any(f.level >= failing for f in report.findings) else 0


def read_target(
    target: Path | str,
    mapping: Path | None,
    profile: Profile | None,
    *,
    ref_roots: Sequence[Path] = (),
    remote: RemoteOptions | None = None,
) -> tuple[LintInput | None, list[Diagnostic]]:
    """The tool list to lint, from a spec (a path or a URL) + mapping, a package directory, or a JSON
    tool list."""
    if isinstance(target, str) and is_url(target) and mapping is None:
        where = SourceRef(file=target)
        hint = "a spec by URL is linted with its mapping: add --mapping FILE; a tool list is read from a file"
        message = f"{target} is read only as a spec"
        return None, [error(codes.L005, message, where, hint=hint)]
    if mapping is not None:
        result = generate(target, mapping, profile, ref_roots=ref_roots, remote=remote)
        if not result.ok or result.server is None:
            return None, list(result.diagnostics)
        server = result.server
        return (
            LintInput(
                label=f"{target} with {mapping}"
                + (f" (as generate --profile {profile.name} serves it)" if profile else ""),
                tools=contract(server, profile),
                sources={t.name: t.source for t in server.tools},
                server_name=server.name,
                untransformed=contract(server),
            ),
            list(result.diagnostics),
        )
    target = Path(target)
    where = SourceRef(file=str(target))
    if target.is_dir():
        found = sorted(p for p in target.glob("*/tools.json")) or sorted(target.glob("tools.json"))
        if len(found) != 1:
            what = "no */tools.json" if not found else f"{len(found)} tools.json files"
            return None, [_error(codes.L001, f"{target} holds {what}; point at one tools.json", where)]
        target = found[0]
    if target.suffix.lower() in (".yaml", ".yml"):
        return None, [
            _error(codes.L002, f"{target} looks like a mapping file; lint SPEC --mapping {target}", where)
        ]
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, [_error(codes.L003, f"file not found: {target}", where)]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, [_error(codes.L004, f"cannot read {target} as JSON: {exc}", where)]
    tools = _tool_list(data)
    if tools is None:
        hint = 'a list of tools, a tools/list result {"tools": [...]}, or a JSON-RPC response with one'
        if isinstance(data, dict) and "openapi" in data:
            hint = "this is an OpenAPI spec: pass --mapping with it"
        return None, [_error(codes.L005, f"{target} holds no tool list ({hint})", where)]
    return LintInput(label=str(target), tools=tools, sources={}), []


def _tool_list(data: Any) -> list[Any] | None:
    """A list of tools, a tools/list result, or a JSON-RPC response carrying one."""
    if isinstance(data, list):
        return data
    if not isinstance(data, dict):
        return None
    for holder in (data, data.get("result")):
        tools = holder.get("tools") if isinstance(holder, dict) else None
        if isinstance(tools, list):
            return tools
    return None


def _error(code: str, message: str, where: SourceRef) -> Diagnostic:
    return Diagnostic(level=Level.ERROR, code=code, message=message, source=where)


# --- output ----------------------------------------------------------------------------------------


def report_text(loaded: LintInput, report: LintReport, show: Level) -> str:
    """Findings grouped by rule, then by check with a count; levels below `show` only counted."""
    profile = f", profile {report.profile}" if report.profile else ""
    lines = [f"lint {loaded.label}: {report.tool_count} tools{profile}"]
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_rule[finding.rule].append(finding)
    for rule in sorted(by_rule):
        findings = by_rule[rule]
        lines.append("")
        lines.append(f"{rule_name(rule)} ({_counts(findings)})")
        by_check: dict[tuple[int, str], list[Finding]] = defaultdict(list)
        for finding in findings:
            by_check[(-finding.level, finding.check)].append(finding)
        for (_, check), group in sorted(by_check.items()):
            level = group[0].level
            lines.append(f"  {level.name.lower()} {check} ({len(group)})")
            if level < show:
                continue
            for finding in group:
                lines.append(f"    {_place(finding, loaded)}{finding.message}")
    lines.append("")
    lines.append(_token_line(report))
    if report.by_profile:
        lines.append(
            "tokens listed up front, by profile: "
            + ", ".join(f"{name} {count:,}" for name, count in report.by_profile)
        )
    hidden = sum(1 for f in report.findings if f.level < show)
    lines.append(
        f"{report.count(Level.ERROR)} errors, {report.count(Level.WARNING)} warnings, {report.count(Level.INFO)} infos"
        + (f" ({hidden} below --show {show.name.lower()} are counted, not listed)" if hidden else "")
    )
    return "\n".join(lines)


def _counts(findings: list[Finding]) -> str:
    counted = Counter(f.level for f in findings)
    return ", ".join(f"{counted[level]} {level.name.lower()}" for level in sorted(counted, reverse=True))


def _place(finding: Finding, loaded: LintInput) -> str:
    source = loaded.sources.get(finding.tool or "")
    where = f"{source}: " if source is not None else ""
    tool = f"{finding.tool} " if finding.tool else ""
    pointer = f"{finding.pointer}: " if finding.pointer else ""
    return f"{where}{tool}{pointer}"


def _token_line(report: LintReport) -> str:
    if report.tokens is None:
        return f"tokens: not counted: {report.token_note}"
    largest = sorted(report.tokens.per_tool, key=lambda item: -item[1])[:3]
    shown = ", ".join(f"{name} {count:,}" for name, count in largest)
    listed = (
        f"; tools/list serves {report.tokens.listed:,} of them (the discovery tools)"
        if report.tokens.listed is not None
        else ""
    )
    return (
        f"tokens: {report.tokens.total:,} ({report.tokens.encoding}, compact JSON) over {report.tool_count} "
        f"tools{listed}; largest: {shown}"
    )


def report_json(loaded: LintInput, report: LintReport) -> dict[str, Any]:
    def entry(finding: Finding) -> dict[str, Any]:
        item: dict[str, Any] = {
            "rule": finding.rule,
            "rule_name": RULE_NAMES.get(finding.rule),
            "check": finding.check,
            "level": finding.level.name.lower(),
            "tool": finding.tool,
            "pointer": finding.pointer,
            "message": finding.message,
        }
        source = loaded.sources.get(finding.tool or "")
        if source is not None:
            item["file"], item["line"] = source.file, source.line
        return item

    return {
        "target": loaded.label,
        "profile": report.profile,
        "tools": report.tool_count,
        "counts": {
            level.name.lower(): report.count(level) for level in (Level.ERROR, Level.WARNING, Level.INFO)
        },
        "tokens": None
        if report.tokens is None
        else {
            "encoding": report.tokens.encoding,
            "total": report.tokens.total,
            "listed": report.tokens.listed,
            "per_tool": dict(report.tokens.per_tool),
        },
        "tokens_note": report.token_note,
        "tokens_by_profile": dict(report.by_profile),
        "findings": [entry(f) for f in report.findings],
    }


def profile_summary(server: ServerSpec, profile: Profile) -> str:
    """What `generate --profile` changed that a reader should know about."""
    _, notes = apply_profile(contract(server), profile)
    if not notes:
        return (
            f"tools.json follows {profile.name}; input_schemas.json keeps the full schemas the server checks"
        )
    shown = "; ".join(f"{n.tool} {n.pointer or '/'}: {n.message}" for n in notes[:3])
    more = f" (and {len(notes) - 3} more)" if len(notes) > 3 else ""
    return (
        f"tools.json follows {profile.name}; input_schemas.json keeps the full schemas the server checks. "
        f"{len(notes)} note{'s' if len(notes) != 1 else ''}: {shown}{more}"
    )
