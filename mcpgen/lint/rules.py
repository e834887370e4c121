"""Lint a tool surface against the rules in docs/rules.md. Pure: a list of MCP tool dicts in, findings out.

Any tools/list works: mcpgen's own contract, or a peer's. Each finding names the rule it comes from
(T2-T7, or a provider profile for strict-mode limits), the tool, and a JSON pointer into the tool
list, so `/3/inputSchema/properties/owner` reads as "tool 3, parameter owner".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcpgen.build.discovery import META_KEY
from mcpgen.build.units import carries, is_numeric, stated_unit, with_unit
from mcpgen.diagnostics import Level
from mcpgen.lint.profile_rules import lint_profile, lint_profile_surface, tokens_by_profile
from mcpgen.lint.schema_walk import Finding, finding, schema_depth, schema_properties, walk_schema
from mcpgen.lint.tokens import TokenCounter, definition_text
from mcpgen.load.sources import join_pointer
from mcpgen.names import TOOL_NAME_COMFORT_LENGTH, TOOL_NAME_PATTERN
from mcpgen.profiles import Profile

MAX_TOOLS = 15  # T3: 5-15 tools a server
DISCOVERY_FROM = 10  # T3: past ~10 tools, offer discovery
TOKEN_BUDGET = 10_000  # T3: ~10k tokens of definitions
MAX_DEPTH = 2  # T6
MIN_SENTENCES = 3  # T7

COMBINATORS = ("oneOf", "anyOf", "allOf", "not", "if", "then", "else")
SHOUTS = frozenset({"CRITICAL", "IMPORTANT", "MUST", "NEVER", "ALWAYS", "MANDATORY", "WARNING", "REQUIRED"})
_DISCOVERY_TOOL = re.compile(r"(search|find|discover)_?tools?|tools?_?(search|find)", re.IGNORECASE)
_WHEN_NOT = re.compile(
    r"\b(do not|don't|does not|doesn't|not for|not to|never use|instead of|rather than|only for|only when|"
    r"not meant|not intended|unless|avoid)\b",
    re.IGNORECASE,
)
_RETURNS = re.compile(r"\b(returns?|returned|results?|responds? with|gives back|outputs?)\b", re.IGNORECASE)
_EXAMPLE = re.compile(r"\b(example|e\.g\.|for instance|such as|like ['\"`])", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(\[])")
_LIST_LINE = re.compile(r"^\s*([-*+•]|\d+[.)])\s+")


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenTotals:
    encoding: str
    total: int
    per_tool: tuple[tuple[str, int], ...]  # in list order
    listed: int | None = None  # with mcpgen's discovery meta-tools: what tools/list serves up front


@dataclass(frozen=True, slots=True, kw_only=True)
class LintReport:
    tool_count: int
    profile: str | None
    findings: tuple[Finding, ...]
    tokens: TokenTotals | None
    token_note: str | None  # why tokens were not counted
    by_profile: tuple[tuple[str, int], ...] = ()  # tokens listed up front, each profile applied

    def count(self, level: Level) -> int:
        return sum(1 for f in self.findings if f.level == level)


def lint_tools(
    tools: list[Any],
    *,
    profile: Profile | None = None,
    counter: TokenCounter | None = None,
    token_note: str | None = None,
    budget: int = TOKEN_BUDGET,
    server_name: str | None = None,
    untransformed: list[Any] | None = None,
) -> LintReport:
    """`untransformed`: the tool list before a profile was applied, which the per-profile token
    figures start from (default: `tools`)."""
    findings: list[Finding] = []
    for index, tool in enumerate(tools):
        findings += _lint_tool(index, tool, profile)
    findings += _lint_surface(tools)
    if profile is not None:
        findings += lint_profile_surface(tools, profile, server_name)
    totals = None
    by_profile: tuple[tuple[str, int], ...] = ()
    if counter is not None:
        totals = _tokens(tools, counter)
        by_profile = tokens_by_profile(untransformed if untransformed is not None else tools, counter.count)
        if (totals.listed if totals.listed is not None else totals.total) > budget:
            largest = sorted(totals.per_tool, key=lambda item: -item[1])[:3]
            shown = ", ".join(f"{name} {count:,}" for name, count in largest)
            findings.append(
                finding(
                    "T3",
                    "token-budget",
                    Level.WARNING,
                    None,
                    "",
                    f"the definitions take {totals.total:,} tokens ({totals.encoding}), past the ~{budget:,} a "
                    f"client should load up front; largest: {shown}. Offer on-demand discovery or fewer, "
                    "tighter tools",
                )
            )
    order = {Level.ERROR: 0, Level.WARNING: 1, Level.INFO: 2}
    findings.sort(key=lambda f: (f.rule, order[f.level], f.check, f.pointer))
    return LintReport(
        tool_count=len(tools),
        profile=profile.name if profile else None,
        findings=tuple(findings),
        tokens=totals,
        token_note=None if counter is not None else token_note,
        by_profile=by_profile,
    )


# --- one tool --------------------------------------------------------------------------------------


def _lint_tool(index: int, tool: Any, profile: Profile | None) -> list[Finding]:
    base = f"/{index}"
    if not isinstance(tool, dict):
        return [finding("T4", "not-a-tool", Level.ERROR, None, base, "not a tool definition (an object)")]
    name = tool.get("name") if isinstance(tool.get("name"), str) else None
    found = _lint_name(name, base)
    found += _lint_description(name, tool.get("description"), base)
    schema = tool.get("inputSchema")
    pointer = f"{base}/inputSchema"
    if not isinstance(schema, dict):
        found.append(finding("T6", "schema-missing", Level.ERROR, name, pointer, "no inputSchema object"))
        return found
    found += _lint_schema(name, schema, pointer, profile)
    found += _lint_params(name, schema, pointer)
    if profile is not None:
        found += lint_profile(name, schema, pointer, profile)
    return found


def _lint_name(name: str | None, base: str) -> list[Finding]:
    pointer = f"{base}/name"
    if name is None:
        return [finding("T4", "name-pattern", Level.ERROR, None, pointer, "the tool has no name")]
    if not TOOL_NAME_PATTERN.match(name):
        why = f"{len(name)} characters" if len(name) > 64 else "characters outside a-z, A-Z, 0-9, '_' and '-'"
        return [
            finding(
                "T4",
                "name-pattern",
                Level.ERROR,
                name,
                pointer,
                f"'{name}' does not match {TOOL_NAME_PATTERN.pattern} ({why}); clients reject it",
            )
        ]
    if len(name) > TOOL_NAME_COMFORT_LENGTH:
        return [
            finding(
                "T4",
                "name-length",
                Level.WARNING,
                name,
                pointer,
                f"'{name}' has {len(name)} characters; past {TOOL_NAME_COMFORT_LENGTH}, a client prefix such "
                "as 'mcp_<server>_' pushes it over 64",
            )
        ]
    return []


def _lint_description(name: str | None, description: Any, base: str) -> list[Finding]:
    pointer = f"{base}/description"
    if not isinstance(description, str) or not description.strip():
        return [
            finding(
                "T7",
                "description-missing",
                Level.WARNING,
                name,
                pointer,
                "no description: say what the tool does, when to use it, when not to, and what it returns",
            )
        ]
    found = []
    sentences = prose_sentences(description)
    if len(sentences) < MIN_SENTENCES:
        found.append(
            finding(
                "T7",
                "description-sentences",
                Level.WARNING,
                name,
                pointer,
                f"{len(sentences)} sentence{'s' if len(sentences) != 1 else ''} of prose; write {MIN_SENTENCES}-4+: "
                "what it does, when to use it, when not to, what it returns",
            )
        )
    if not _WHEN_NOT.search(description):
        found.append(
            finding(
                "T7",
                "when-not",
                Level.WARNING,
                name,
                pointer,
                "no sentence says when not to use the tool (e.g. 'Do not use it to ...; use X for that')",
            )
        )
    if not _RETURNS.search(description):
        found.append(
            finding(
                "T7",
                "returns",
                Level.INFO,
                name,
                pointer,
                "the description does not say what the tool returns",
            )
        )
    shouted = sorted({w for w in re.findall(r"\b[A-Z]{4,}\b", description) if w in SHOUTS})
    if shouted:
        found.append(
            finding(
                "T7",
                "shouting",
                Level.WARNING,
                name,
                pointer,
                f"shouted words ({', '.join(shouted)}): state limits plainly; models over-trigger on capitals",
            )
        )
    return found


def prose_sentences(text: str) -> list[str]:
    """Sentences outside lists and headings ('Actions:'), with at least two words each."""
    lines = [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not _LIST_LINE.match(line) and not line.strip().endswith(":")
    ]
    parts = _SENTENCE_END.split(" ".join(lines))
    return [p for p in parts if len(p.split()) >= 2]


def _lint_schema(
    name: str | None, schema: dict[str, Any], pointer: str, profile: Profile | None
) -> list[Finding]:
    found = []
    if schema.get("type") != "object":
        found.append(
            finding("T6", "schema-root", Level.ERROR, name, pointer, "inputSchema must be an object schema")
        )
    if schema.get("additionalProperties") is not False and profile is None:
        found.append(
            finding(
                "T6",
                "additional-properties",
                Level.WARNING,
                name,
                pointer,
                "no 'additionalProperties: false': a misspelled argument would pass silently",
            )
        )
    for node_pointer, node in walk_schema(schema, pointer):
        ref = node.get("$ref")
        if isinstance(ref, str):
            remote = not ref.startswith("#")
            found.append(
                finding(
                    "T6",
                    "ref",
                    Level.ERROR if remote else Level.WARNING,
                    name,
                    node_pointer,
                    f"$ref '{ref}'"
                    + (" points outside the schema; never fetched" if remote else "")
                    + ": inline it so the model reads the shape where it is used",
                )
            )
        for keyword in COMBINATORS:
            if keyword in node:
                found.append(
                    finding(
                        "T2",
                        "combinator",
                        Level.ERROR,
                        name,
                        f"{node_pointer}/{keyword}",
                        f"'{keyword}' in inputSchema: use one flat parameter set (an 'action' enum plus optional "
                        "parameters) and let the server check each action's needs",
                    )
                )
        if node.get("type") == "array" and "items" not in node:
            found.append(
                finding(
                    "T6",
                    "array-items",
                    Level.WARNING,
                    name,
                    node_pointer,
                    "array without 'items': say what it holds",
                )
            )
    for prop, prop_schema in schema_properties(schema):
        depth = schema_depth(prop_schema)
        if depth > MAX_DEPTH:
            found.append(
                finding(
                    "T6",
                    "schema-depth",
                    Level.WARNING,
                    name,
                    join_pointer(pointer, "properties", prop),
                    f"'{prop}' nests {depth} levels deep (at most {MAX_DEPTH}): flatten it or take the nested "
                    "part as its own parameters",
                )
            )
    return found


def _lint_params(name: str | None, schema: dict[str, Any], pointer: str) -> list[Finding]:
    found = []
    for prop, prop_schema in schema_properties(schema):
        at = join_pointer(pointer, "properties", prop)
        given = prop_schema.get("description")
        description = given if isinstance(given, str) else ""
        if not description.strip():
            found.append(
                finding(
                    "T7",
                    "param-description",
                    Level.WARNING,
                    name,
                    at,
                    f"parameter '{prop}' has no description: say what it is, with an example value and the default",
                )
            )
        elif not (
            _EXAMPLE.search(description) or "examples" in prop_schema or "example" in prop_schema
        ) and not _closed_set(prop_schema):
            found.append(
                finding(
                    "T7", "param-example", Level.INFO, name, at, f"parameter '{prop}' gives no example value"
                )
            )
        hint = stated_unit(prop_schema, description) if is_numeric(prop_schema) else None
        if hint is not None and not carries(prop, hint.unit):
            found.append(
                finding(
                    "T5",
                    "unit-in-name",
                    Level.WARNING,
                    name,
                    at,
                    f"'{prop}' is {hint.unit.label} ({hint.evidence}) but its name does not say so; "
                    f"call it '{with_unit(prop, hint.unit)}'",
                )
            )
    return found


# --- the whole surface -----------------------------------------------------------------------------


def _lint_surface(tools: list[Any]) -> list[Finding]:
    names: list[str] = [name for t in tools if isinstance(t, dict) and isinstance(name := t.get("name"), str)]
    found = []
    seen: dict[str, int] = {}
    for index, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(name, str):
            if name in seen:
                found.append(
                    finding(
                        "T4",
                        "name-unique",
                        Level.ERROR,
                        name,
                        f"/{index}/name",
                        f"'{name}' is also the name of tool {seen[name]}",
                    )
                )
            seen.setdefault(name, index)
    count = len(tools)
    has_discovery = any(_DISCOVERY_TOOL.search(n) for n in names)
    if count > MAX_TOOLS:
        found.append(
            finding(
                "T3",
                "tool-count",
                Level.INFO if has_discovery else Level.WARNING,
                None,
                "",
                f"{count} tools (aim for 5-{MAX_TOOLS}): merge tools a person would use in one sitting into task "
                "tools with an action enum"
                + ("; agents reach them through the discovery tool" if has_discovery else ""),
            )
        )
    if count > DISCOVERY_FROM and not has_discovery:
        found.append(
            finding(
                "T3",
                "discovery",
                Level.WARNING,
                None,
                "",
                f"{count} tools and no discovery tool: past ~{DISCOVERY_FROM}, offer a search_tools meta-tool that "
                "returns the definitions an agent asks for",
            )
        )
    if len(names) >= 2:
        prefixes = {n.split("_", 1)[0] for n in names if "_" in n}
        if len(prefixes) != 1 or any("_" not in n for n in names):
            found.append(
                finding(
                    "T4",
                    "name-prefix",
                    Level.INFO,
                    None,
                    "",
                    "the tools do not share one service prefix ('<service>_...'), so names can clash with other "
                    "servers' tools",
                )
            )
    return found


def _tokens(tools: list[Any], counter: TokenCounter) -> TokenTotals:
    per_tool = tuple(
        (str(t.get("name")) if isinstance(t, dict) else f"#{i}", counter.count(definition_text(t)))
        for i, t in enumerate(tools)
    )
    served = [t for t in tools if isinstance(t, dict) and META_KEY in (t.get("_meta") or {})]
    return TokenTotals(
        encoding=counter.encoding,
        total=counter.count(definition_text(tools)),
        per_tool=per_tool,
        listed=counter.count(definition_text(served)) if served else None,
    )


def _closed_set(schema: dict[str, Any]) -> bool:
    """An enum or a boolean (or a list of them) shows its values already; no example needed."""
    items = schema.get("items")
    each: dict[str, Any] = items if isinstance(items, dict) else {}
    return any("enum" in s or s.get("type") in ("boolean", ["boolean", "null"]) for s in (schema, each))
