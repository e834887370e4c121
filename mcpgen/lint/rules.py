"""Lint a tool surface against the rules in docs/rules.md. Pure: a list of MCP tool dicts in, findings out.

Any tools/list works: mcpgen's own contract, or a peer's. Each finding names the rule it comes from
(T2-T7, or a provider profile for strict-mode limits), the tool, and a JSON pointer into the tool
list, so `/3/inputSchema/properties/owner` reads as "tool 3, parameter owner".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcpgen.build.discovery import META_KEY
from mcpgen.build.units import carries, is_numeric, stated_unit, with_unit
from mcpgen.diagnostics import Level
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
class Finding:
    rule: str  # 'T4', 'T7', ...
    check: str  # 'name-length', 'openai-strict/required', ...
    level: Level
    tool: str | None
    pointer: str  # into the linted tool list
    message: str


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

    def count(self, level: Level) -> int:
        return sum(1 for f in self.findings if f.level == level)


def lint_tools(
    tools: list[Any],
    *,
    profile: Profile | None = None,
    counter: TokenCounter | None = None,
    token_note: str | None = None,
    budget: int = TOKEN_BUDGET,
) -> LintReport:
    findings: list[Finding] = []
    for index, tool in enumerate(tools):
        findings += _lint_tool(index, tool, profile)
    findings += _lint_surface(tools, profile)
    totals = None
    if counter is not None:
        totals = _tokens(tools, counter)
        if (totals.listed if totals.listed is not None else totals.total) > budget:
            largest = sorted(totals.per_tool, key=lambda item: -item[1])[:3]
            shown = ", ".join(f"{name} {count:,}" for name, count in largest)
            findings.append(
                _finding(
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
    )


def _finding(rule: str, check: str, level: Level, tool: str | None, pointer: str, message: str) -> Finding:
    return Finding(rule=rule, check=check, level=level, tool=tool, pointer=pointer, message=message)


# --- one tool --------------------------------------------------------------------------------------


def _lint_tool(index: int, tool: Any, profile: Profile | None) -> list[Finding]:
    base = f"/{index}"
    if not isinstance(tool, dict):
        return [_finding("T4", "not-a-tool", Level.ERROR, None, base, "not a tool definition (an object)")]
    name = tool.get("name") if isinstance(tool.get("name"), str) else None
    found = _lint_name(name, base)
    found += _lint_description(name, tool.get("description"), base)
    schema = tool.get("inputSchema")
    pointer = f"{base}/inputSchema"
    if not isinstance(schema, dict):
        found.append(_finding("T6", "schema-missing", Level.ERROR, name, pointer, "no inputSchema object"))
        return found
    found += _lint_schema(name, schema, pointer, profile)
    found += _lint_params(name, schema, pointer)
    if profile is not None:
        found += _lint_profile(name, schema, pointer, profile)
    return found


def _lint_name(name: str | None, base: str) -> list[Finding]:
    pointer = f"{base}/name"
    if name is None:
        return [_finding("T4", "name-pattern", Level.ERROR, None, pointer, "the tool has no name")]
    if not TOOL_NAME_PATTERN.match(name):
        why = f"{len(name)} characters" if len(name) > 64 else "characters outside a-z, A-Z, 0-9, '_' and '-'"
        return [
            _finding(
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
            _finding(
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
            _finding(
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
            _finding(
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
            _finding(
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
            _finding(
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
            _finding(
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
            _finding("T6", "schema-root", Level.ERROR, name, pointer, "inputSchema must be an object schema")
        )
    if schema.get("additionalProperties") is not False and profile is None:
        found.append(
            _finding(
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
                _finding(
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
                    _finding(
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
                _finding(
                    "T6",
                    "array-items",
                    Level.WARNING,
                    name,
                    node_pointer,
                    "array without 'items': say what it holds",
                )
            )
    for prop, prop_schema in _properties(schema):
        depth = schema_depth(prop_schema)
        if depth > MAX_DEPTH:
            found.append(
                _finding(
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
    for prop, prop_schema in _properties(schema):
        at = join_pointer(pointer, "properties", prop)
        given = prop_schema.get("description")
        description = given if isinstance(given, str) else ""
        if not description.strip():
            found.append(
                _finding(
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
                _finding(
                    "T7", "param-example", Level.INFO, name, at, f"parameter '{prop}' gives no example value"
                )
            )
        hint = stated_unit(prop_schema, description) if is_numeric(prop_schema) else None
        if hint is not None and not carries(prop, hint.unit):
            found.append(
                _finding(
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


# --- provider profiles -----------------------------------------------------------------------------


def _lint_profile(name: str | None, schema: dict[str, Any], pointer: str, profile: Profile) -> list[Finding]:
    check = profile.name
    found = []
    if "anyOf" in schema:
        found.append(
            _finding("T6", f"{check}/root", Level.ERROR, name, pointer, "the root schema cannot be anyOf")
        )
    for node_pointer, node in walk_schema(schema, pointer):
        for keyword in sorted(k for k in node if k in profile.removed or k in profile.forbidden):
            found.append(
                _finding(
                    "T6",
                    f"{check}/keyword",
                    Level.ERROR,
                    name,
                    f"{node_pointer}/{keyword}",
                    f"{profile.name} does not accept '{keyword}'"
                    + (
                        "; state it in the description instead (the server still checks it)"
                        if keyword in profile.removed
                        else ""
                    ),
                )
            )
        min_items = node.get("minItems")
        if (
            profile.max_min_items is not None
            and isinstance(min_items, int)
            and min_items > profile.max_min_items
        ):
            found.append(
                _finding(
                    "T6",
                    f"{check}/keyword",
                    Level.ERROR,
                    name,
                    f"{node_pointer}/minItems",
                    f"{profile.name} accepts minItems 0 or {profile.max_min_items} only, not {min_items}",
                )
            )
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in profile.formats:
            found.append(
                _finding(
                    "T6",
                    f"{check}/format",
                    Level.ERROR,
                    name,
                    f"{node_pointer}/format",
                    f"{profile.name} does not accept format '{fmt}'",
                )
            )
        if _is_object(node):
            if node.get("additionalProperties") is not False:
                found.append(
                    _finding(
                        "T6",
                        f"{check}/additional-properties",
                        Level.ERROR,
                        name,
                        node_pointer,
                        f"{profile.name} needs 'additionalProperties: false' on every object",
                    )
                )
            if profile.all_required:
                missing = [p for p in node.get("properties") or {} if p not in (node.get("required") or ())]
                if missing:
                    found.append(
                        _finding(
                            "T6",
                            f"{check}/required",
                            Level.ERROR,
                            name,
                            node_pointer,
                            f"{profile.name} needs every property in 'required' (optional ones nullable, "
                            f'type [..., "null"]); not listed: {", ".join(missing[:8])}'
                            + (" ..." if len(missing) > 8 else ""),
                        )
                    )
        elif profile.all_required and not any(k in node for k in ("type", "enum", "const", "anyOf", "$ref")):
            found.append(
                _finding(
                    "T6",
                    f"{check}/type",
                    Level.ERROR,
                    name,
                    node_pointer,
                    f"{profile.name} needs a type on every schema",
                )
            )
    found += _profile_limits(name, schema, pointer, profile)
    return found


def _profile_limits(
    name: str | None, schema: dict[str, Any], pointer: str, profile: Profile
) -> list[Finding]:
    check = f"{profile.name}/limits"
    found = []
    top = dict(_properties(schema))
    required = set(schema.get("required") or ())
    optional = [p for p in top if p not in required]
    unions = [p for p, s in top.items() if isinstance(s.get("type"), list) or "anyOf" in s]
    limits = (
        (profile.max_optional_params, len(optional), "optional parameters"),
        (profile.max_union_params, len(unions), "parameters with a type list or anyOf"),
    )
    for limit, count, what in limits:
        if limit is not None and count > limit:
            found.append(
                _finding(
                    "T6",
                    check,
                    Level.WARNING,
                    name,
                    pointer,
                    f"{count} {what}; {profile.name} allows {limit} in one request across all strict tools, "
                    "so this tool cannot be sent with strict: true",
                )
            )
    nodes = list(walk_schema(schema, pointer))
    depth = max((p.count("/properties/") for p, _ in nodes), default=0)
    properties = sum(len(n.get("properties") or {}) for _, n in nodes)
    enum_values = sum(len(n["enum"]) for _, n in nodes if isinstance(n.get("enum"), list))
    chars = sum(len(k) for _, n in nodes for k in n.get("properties") or {}) + sum(
        len(str(v)) for _, n in nodes if isinstance(n.get("enum"), list) for v in n["enum"]
    )
    for limit, count, what in (
        (profile.max_depth, depth, "levels of nesting"),
        (profile.max_properties, properties, "properties"),
        (profile.max_enum_values, enum_values, "enum values"),
        (profile.max_schema_chars, chars, "characters of property names and enum values"),
    ):
        if limit is not None and count > limit:
            found.append(
                _finding(
                    "T6",
                    check,
                    Level.ERROR,
                    name,
                    pointer,
                    f"{count:,} {what}; {profile.name} allows {limit:,}",
                )
            )
    return found


# --- the whole surface -----------------------------------------------------------------------------


def _lint_surface(tools: list[Any], profile: Profile | None) -> list[Finding]:
    names: list[str] = [name for t in tools if isinstance(t, dict) and isinstance(name := t.get("name"), str)]
    found = []
    seen: dict[str, int] = {}
    for index, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(name, str):
            if name in seen:
                found.append(
                    _finding(
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
            _finding(
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
            _finding(
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
                _finding(
                    "T4",
                    "name-prefix",
                    Level.INFO,
                    None,
                    "",
                    "the tools do not share one service prefix ('<service>_...'), so names can clash with other "
                    "servers' tools",
                )
            )
    if profile is not None and count > profile.max_tools:
        found.append(
            _finding(
                "T3",
                f"{profile.name}/limits",
                Level.WARNING,
                None,
                "",
                f"{count} tools; {profile.name} takes at most {profile.max_tools} tools in one request",
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


# --- schema walking --------------------------------------------------------------------------------


def walk_schema(schema: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema with its pointer (properties, items, combinator branches, $defs)."""
    stack = [(pointer, schema)]
    while stack:
        at, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield at, node
        children: list[tuple[str, Any]] = []
        for key in ("properties", "$defs", "definitions", "patternProperties"):
            if isinstance(node.get(key), dict):
                children += [(join_pointer(at, key, k), v) for k, v in node[key].items()]
        for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains"):
            if isinstance(node.get(key), dict):
                children.append((f"{at}/{key}", node[key]))
        for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
            if isinstance(node.get(key), list):
                children += [(f"{at}/{key}/{i}", v) for i, v in enumerate(node[key])]
        stack.extend(reversed(children))


def schema_depth(schema: Any) -> int:
    """Object levels below a parameter: a scalar or a free-form object is 0, an object of scalars 1,
    and so is a list of such objects (an array adds no level: its items sit where it is, as
    mcpgen/build/schemas.py counts them)."""
    if not isinstance(schema, dict):
        return 0
    if isinstance(schema.get("items"), dict) and schema["items"] and not schema.get("properties"):
        return schema_depth(schema["items"])
    children = [v for v in (schema.get("properties") or {}).values() if isinstance(v, dict)]
    for key in ("oneOf", "anyOf", "allOf"):
        children += [v for v in schema.get(key) or () if isinstance(v, dict)]
    if not children:
        return 0
    return 1 + max(schema_depth(child) for child in children)


def _closed_set(schema: dict[str, Any]) -> bool:
    """An enum or a boolean (or a list of them) shows its values already; no example needed."""
    items = schema.get("items")
    each: dict[str, Any] = items if isinstance(items, dict) else {}
    return any("enum" in s or s.get("type") in ("boolean", ["boolean", "null"]) for s in (schema, each))


def _properties(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, value in properties.items():
            if isinstance(value, dict):
                yield name, value


def _is_object(node: dict[str, Any]) -> bool:
    type_ = node.get("type")
    return type_ == "object" or (isinstance(type_, list) and "object" in type_) or "properties" in node
