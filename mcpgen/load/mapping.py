"""The workflow mapping file: validated against `mapping.schema.json`, then read into frozen rules.

Every jsonschema error becomes a diagnostic with file:line, the JSON pointer, and what to write instead.
Checks that need the OpenAPI spec happen in the build stage (`mcpgen/build/`: parameters.py, checks.py)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, DiagnosticError, SourceRef, error, rule_name
from mcpgen.load.answers import AnswerRules, read_answers
from mcpgen.load.mapping_auth import AuthRule, auth_envs, check_auth, read_auth
from mcpgen.load.sources import MB, Document, join_pointer, load_document
from mcpgen.load.unit_rules import ResultUnitRule, UnitRule, check_units, read_result_units, read_unit
from mcpgen.names import snake_case

PARAM_LOCATIONS = ("path", "query", "header", "cookie", "body")


class _Unset:
    """Marks a mapping setting that was not written (distinct from an explicit null)."""

    _instance: _Unset | None = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Any = _Unset()


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamRule:
    key: str  # as written: 'weight' or 'body.weight'
    wire_name: str
    location: str | None  # None: any location with that name
    name: str | None
    description: str | None
    default: Any
    fixed: Any
    hidden: bool
    required: bool | None
    source: SourceRef
    unit: UnitRule | None = None
    max_increase_pct: float | None = None  # guard rule (S2)
    current: str | None = None  # field of the preview's read result with the current value
    ask_user: bool = False  # P4 ask what the model cannot know: the server asks the user for it
    env: str | None = None  # P3 credentials: sent from the server's environment, never the agent's
    local_time: bool = False  # `format: local-date-time`: local, beside its time-zone field (T5)


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponseRule:
    """How a read action's records are shown (R1, R2), and any action's in the agent's units (T5)."""

    items: str | None
    concise: tuple[str, ...] | None
    drop: tuple[str, ...]
    source: SourceRef
    single: bool = False  # the answer is one record, whatever lists it holds
    concise_source: SourceRef | None = None  # the `concise:` line itself, when the mapping has one
    units: tuple[ResultUnitRule, ...] = ()  # result fields the mapping converts (any action's answer)

    @property
    def only_units(self) -> bool:
        """Nothing but `units`, which any action may have: the other settings are a read's."""
        return self.items is None and self.concise is None and not self.drop and not self.single


@dataclass(frozen=True, slots=True, kw_only=True)
class PaginationRule:
    """How a list action pages (R3); unset fields are derived from the operation."""

    style: str | None
    page: str | None
    limit: str | None
    offset: str | None
    cursor: str | None
    next_cursor: str | None
    has_more: str | None
    total: str | None
    default_limit: int | None
    max_limit: int | None
    source: SourceRef
    next_link: str | None = None  # body path of the next page's URL (link style)
    next_page: str | None = None  # body path of the next page number, null on the last (page style)


@dataclass(frozen=True, slots=True, kw_only=True)
class PreviewRule:
    """confirm: preview (S1): the read operation showing the current state, and how long an id lives."""

    read: str
    ttl_minutes: int
    approval: str | None
    read_source: SourceRef


@dataclass(frozen=True, slots=True, kw_only=True)
class HintsRule:
    """Tool annotations the mapping states (S4); None where it leaves the default."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskRule:
    """`task:` on an action: the API runs it as a job (202 Accepted), followed by its status action."""

    status: str | None = None
    job_id: str = "id"
    state: str = "status"
    poll_interval_s: float = 5.0
    source: SourceRef | None = None  # the `task:` key


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionRule:
    name: str
    operation: str
    description: str | None
    params: tuple[ParamRule, ...]
    source: SourceRef
    operation_source: SourceRef
    response: ResponseRule | None = None
    pagination: PaginationRule | None = None
    preview: PreviewRule | None = None  # set when the action says confirm: preview
    confirm_param: str | None = None  # e.g. CONFIRM_DELETE: the value of its required 'confirm' argument
    confirm_user: bool = (
        False  # confirm: user (P4 ask what the model cannot know): the user confirms through elicitation
    )
    hints: HintsRule | None = None  # S4: what the action does, where its method says otherwise
    task: TaskRule | None = None  # the API runs it as a job
    answers: AnswerRules | None = None  # its error codes' kinds of recovery, and failures in a 2xx answer


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRule:
    name: str
    title: str | None
    description: str
    actions: tuple[ActionRule, ...]
    source: SourceRef
    # Sections of the description (T7), each printed as a sentence after it; None when not written.
    use_when: str | None = None
    not_for: str | None = None
    returns: str | None = None
    does_not_return: str | None = None
    list_actions: bool = True
    scopes: tuple[str, ...] = ()  # what a caller's token needs over HTTP (P3)
    destructive: bool | None = None  # S4 override
    hints: HintsRule | None = None  # S4: the tool's annotations, over its actions'


DEFAULT_MAX_RESULT_TOKENS = 20_000
DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024  # the most of one upstream answer the server reads (P5)


@dataclass(frozen=True, slots=True, kw_only=True)
class AccessRule:
    """Incoming bearer tokens over HTTP (P3): issued by `issuer` for `audience`, with `scopes`."""

    issuer: str
    audience: str
    scopes: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerRule:
    name: str
    title: str | None
    description: str | None
    version: str
    base_url_env: str | None
    base_url_default: str | None
    auth: AuthRule | None
    timeout_s: float
    source: SourceRef
    discovery: str = "none"  # 'none' | 'search_tools' (T3)
    server_info: bool = False  # add the '<name>_server_info' diagnostic tool
    output_schemas: bool = True  # read tools declare an outputSchema (R5)
    max_result_tokens: int = DEFAULT_MAX_RESULT_TOKENS  # R4
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES  # P5: the cap on one upstream answer
    access: AccessRule | None = None
    idempotency_header: str | None = None  # the API reads an idempotency key from it on POST
    idempotency_body: str | None = None  # ... or from this body field, on every action that has it
    extra_auth: tuple[AuthRule, ...] = ()  # further credentials sent with `auth`, all together
    headers: tuple[tuple[str, str], ...] = ()  # sent with every request (an API version, say)
    deprecation_markers: tuple[str, ...] = ()  # extension keys that mark an operation deprecated
    answers: AnswerRules | None = None  # the API's error codes' kinds of recovery, failures in a 2xx answer


@dataclass(frozen=True, slots=True, kw_only=True)
class Mapping:
    server: ServerRule
    tools: tuple[ToolRule, ...]
    document: Document


DEFAULT_TIMEOUT_S = 30.0
# A mapping lists the tools; `mcpgen init` on a 10,000-operation spec writes about 2.5 MB of it.
MAX_MAPPING_BYTES = 8 * MB
DEFAULT_PREVIEW_TTL_MINUTES = 10


@cache
def mapping_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath("mapping.schema.json").read_text(encoding="utf-8")
    )
    return schema


def schema_path() -> Path:
    return Path(str(resources.files(__package__).joinpath("mapping.schema.json")))


def load_mapping(path: Path, display_path: str | None = None) -> Mapping:
    document = load_document(path, display_path, max_bytes=MAX_MAPPING_BYTES)
    problems = validate_mapping_document(document)
    if problems:
        raise DiagnosticError(problems)
    return _read(document)


def _ecma_pattern(
    validator: jsonschema.protocols.Validator, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """`pattern` as JSON Schema means it (ECMA-262): a final `$` ends the text. Python's `$` also
    matches before a final newline, which let 'get\\n' through as an action name into generated code."""
    if validator.is_type(instance, "string") and not re.search(_end_anchored(pattern), instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _end_anchored(pattern: str) -> str:
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        return pattern[:-1] + r"\Z"
    return pattern


_MappingValidator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]  # untyped in types-jsonschema
    jsonschema.Draft202012Validator, {"pattern": _ecma_pattern}
)


def validate_mapping_document(document: Document) -> list[Diagnostic]:
    schema = mapping_schema()
    validator = _MappingValidator(schema)
    found: list[Diagnostic] = []
    for problem in sorted(
        validator.iter_errors(document.data), key=lambda e: (list(map(str, e.absolute_path)), e.validator)
    ):
        found.extend(_explain(problem, document))
    if not found:
        found.extend(_check_unique_names(document))
        found.extend(_check_auth(document))
        found.extend(check_units(document))
        found.extend(_check_limits(document))
        found.extend(_check_previews(document))
    return found


def _check_limits(document: Document) -> list[Diagnostic]:
    found = []
    for t, tool in enumerate(document.data["tools"]):
        for a, action in enumerate(tool["actions"]):
            paging = action.get("pagination") or {}
            default, most = paging.get("default_limit"), paging.get("max_limit")
            if default is not None and most is not None and default > most:
                found.append(
                    error(
                        codes.M111,
                        f"default_limit {default} of action '{action['name']}' is larger than its max_limit {most}",
                        document.locate(f"/tools/{t}/actions/{a}/pagination/default_limit"),
                        hint=f"lower default_limit to at most {most}, or raise max_limit",
                    )
                )
    return found


def _explain(problem: jsonschema.ValidationError, document: Document) -> list[Diagnostic]:
    pointer = join_pointer("", *problem.absolute_path)
    where = _describe(problem.absolute_path, document.data)
    schema = problem.schema if isinstance(problem.schema, dict) else {}
    described = schema.get("description")
    kind = problem.validator
    value = problem.instance
    rule: Any = problem.validator_value  # the schema keyword's value (typed with a never-set sentinel)
    if kind == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        extra = [k for k in value if k not in allowed] if isinstance(value, dict) else []
        return [
            error(
                codes.M101,
                f"unknown key '{key}' in {where}",
                document.locate(join_pointer(pointer, key)),
                hint=_did_you_mean(key, allowed) + f"allowed keys: {', '.join(allowed)}",
            )
            for key in extra
        ]
    if kind == "required":
        missing = [k for k in rule if not (isinstance(value, dict) and k in value)]
        return [
            error(
                codes.M102,
                f"{where} needs '{key}'",
                document.locate(pointer),
                hint=_property_description(schema, key) or f"add '{key}: ...'",
            )
            for key in missing
        ]
    if kind == "pattern":
        hint = _pattern_hint(rule, value)
        return [
            error(
                codes.M103, f"{value!r} is not a valid value for {where}", document.locate(pointer), hint=hint
            )
        ]
    if kind in ("enum", "const"):
        options = rule if kind == "enum" else [rule]
        shown = ", ".join(json.dumps(o) for o in options)
        return [
            error(
                codes.M104,
                f"{where} must be {'one of ' if len(options) > 1 else ''}{shown}; found {json.dumps(value)}",
                document.locate(pointer),
                hint=described,
            )
        ]
    if kind == "type":
        expected = rule
        return [
            error(
                codes.M105,
                f"{where} must be {_article(expected)}; found {_json_type(value)}",
                document.locate(pointer),
                hint=described,
            )
        ]
    if kind == "minItems":
        return [
            error(
                codes.M106,
                f"{where} needs at least {rule} entry",
                document.locate(pointer),
                hint=described,
            )
        ]
    if kind == "anyOf" and problem.context:
        # A setting written one of several ways (auth: one credential or a list): explain the problems
        # of the way whose type matches what is written.
        for branch in range(len(rule)):
            errors = [e for e in problem.context if e.schema_path and e.schema_path[0] == branch]
            if errors and not any(e.validator == "type" and not e.path for e in errors):
                return [d for e in errors for d in _explain(e, document)]
    if kind == "not" and isinstance(value, dict):
        return [
            error(
                codes.M107,
                f"{where} combines settings that contradict each other",
                document.locate(pointer),
                hint=_contradiction_hint(value),
            )
        ]
    return [error(codes.M199, f"{where}: {problem.message}", document.locate(pointer), hint=described)]


def _contradiction_hint(param: dict[str, Any]) -> str:
    """Why a parameter's settings contradict each other, for the settings it has."""
    if "env" in param:
        return "'env' sends the server's own environment variable and hides the parameter: keep it alone"
    if "ask_user" in param and ("fixed" in param or "hidden" in param):
        kept = "fixed" if "fixed" in param else "hidden"
        return (
            f"'ask_user' asks the user for the value on every call, and '{kept}' means nobody gives it: "
            f"keep one of them"
        )
    return "'fixed' hides the parameter and always sends its value, so it cannot also be 'hidden' or have a 'default'"


def _check_unique_names(document: Document) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    tools = document.data["tools"]
    found += _duplicates([t["name"] for t in tools], "/tools", "tools", document)
    for index, tool in enumerate(tools):
        names = [a["name"] for a in tool["actions"]]
        found += _duplicates(names, f"/tools/{index}/actions", f"actions of tool '{tool['name']}'", document)
    return found


def _duplicates(names: list[str], pointer: str, what: str, document: Document) -> list[Diagnostic]:
    first_seen: dict[str, int] = {}
    found = []
    for index, name in enumerate(names):
        if name in first_seen:
            first = document.locate(f"{pointer}/{first_seen[name]}/name")
            found.append(
                error(
                    codes.M108,
                    f"two {what} are named '{name}' (the first is at line {first.line})",
                    document.locate(f"{pointer}/{index}/name"),
                    hint="give each a name of its own, or merge them into one",
                )
            )
        else:
            first_seen[name] = index
    return found


def _check_auth(document: Document) -> list[Diagnostic]:
    found = check_auth(document)
    auth = document.data["server"].get("auth")
    if isinstance(auth, list):  # several credentials sent together: each from variables of its own
        envs = [env for one in auth for env in auth_envs(one)]
        found += _duplicates(envs, "/server/auth", "credentials' env variables", document)
    return found


def _check_previews(document: Document) -> list[Diagnostic]:
    """confirm: preview needs its read operation and a tool of its own; guard rules need a preview (S1, S2)."""
    found: list[Diagnostic] = []
    for t, tool in enumerate(document.data["tools"]):
        actions = tool["actions"]
        for a, action in enumerate(actions):
            pointer = f"/tools/{t}/actions/{a}"
            previewed = action.get("confirm") == "preview"
            if previewed and "preview" not in action:
                found.append(
                    error(
                        codes.M130,
                        f"action '{action['name']}' says confirm: preview but not how to read the current state",
                        document.locate(f"{pointer}/confirm"),
                        hint="add  preview: {read: <operationId of the read operation>}",
                    )
                )
            if "preview" in action and not previewed:
                found.append(
                    error(
                        codes.M131,
                        f"action '{action['name']}' has 'preview' settings but no confirm: preview",
                        document.locate(f"{pointer}/preview"),
                        hint="add  confirm: preview  to the action, or remove 'preview'",
                    )
                )
            if previewed and len(actions) > 1:
                found.append(
                    error(
                        codes.M132,
                        f"tool '{tool['name']}' has other actions besides '{action['name']}', which says confirm: preview",
                        document.locate(f"{pointer}/confirm"),
                        hint="a previewed action becomes the tools <tool>_preview and <tool>_apply: give it a tool of its own",
                    )
                )
            first_confirm = next((x["confirm_param"] for x in actions if "confirm_param" in x), None)
            if "confirm_param" in action and action["confirm_param"] != first_confirm:
                found.append(
                    error(
                        codes.M134,
                        f"tool '{tool['name']}' asks for two confirm values ({first_confirm} and "
                        f"{action['confirm_param']}); its one 'confirm' parameter can hold one",
                        document.locate(f"{pointer}/confirm_param"),
                        hint=f"use {first_confirm} here too, or move the action to a tool of its own",
                    )
                )
            for key, rule in (action.get("params") or {}).items():
                for knob in ("max_increase_pct", "current"):
                    if knob in rule and not previewed:
                        found.append(
                            error(
                                codes.M133,
                                f"'{knob}' of parameter '{key}' needs the current value, which only a preview reads",
                                document.locate(join_pointer(pointer, "params", key, knob)),
                                hint="add  confirm: preview  and  preview: {read: ...}  to the action "
                                f"({rule_name('S1')}; {rule_name('S2')})",
                            )
                        )
    return found


def _read(document: Document) -> Mapping:
    data = document.data
    server = data["server"]
    base_url = server.get("base_url") or {}
    auth = server.get("auth")
    auths = tuple(read_auth(a) for a in (auth if isinstance(auth, list) else [auth] if auth else []))
    return Mapping(
        server=ServerRule(
            name=server["name"],
            title=server.get("title"),
            description=server.get("description"),
            version=server.get("version", "0.1.0"),
            base_url_env=base_url.get("env"),
            base_url_default=base_url.get("default"),
            auth=auths[0] if auths else None,
            extra_auth=auths[1:],
            timeout_s=float(server.get("timeout_s", DEFAULT_TIMEOUT_S)),
            source=document.locate("/server"),
            discovery=server.get("discovery", "none"),
            server_info=bool(server.get("server_info", False)),
            output_schemas=bool(server.get("output_schemas", True)),
            max_result_tokens=int(server.get("max_result_tokens", DEFAULT_MAX_RESULT_TOKENS)),
            max_body_bytes=int(server.get("max_body_bytes", DEFAULT_MAX_BODY_BYTES)),
            access=_read_access(server.get("access")),
            idempotency_header=(server.get("idempotency_key") or {}).get("header"),
            idempotency_body=(server.get("idempotency_key") or {}).get("body"),
            headers=tuple((str(k), str(v)) for k, v in (server.get("headers") or {}).items()),
            deprecation_markers=tuple(server.get("deprecation_markers") or ()),
            answers=read_answers(server, "/server", document),
        ),
        tools=tuple(_read_tool(tool, f"/tools/{i}", document) for i, tool in enumerate(data["tools"])),
        document=document,
    )


def _read_access(access: dict[str, Any] | None) -> AccessRule | None:
    if not access:
        return None
    return AccessRule(
        issuer=access["issuer"], audience=access["audience"], scopes=tuple(access.get("scopes") or ())
    )


def _read_tool(tool: dict[str, Any], pointer: str, document: Document) -> ToolRule:
    return ToolRule(
        name=tool["name"],
        title=tool.get("title"),
        description=tool["description"].strip(),
        actions=tuple(
            _read_action(a, f"{pointer}/actions/{i}", document) for i, a in enumerate(tool["actions"])
        ),
        source=document.locate(pointer),
        use_when=_text(tool.get("use_when")),
        not_for=_text(tool.get("not_for")),
        returns=_text(tool.get("returns")),
        does_not_return=_text(tool.get("does_not_return")),
        list_actions=tool.get("list_actions", True),
        scopes=tuple(tool.get("scopes") or ()),
        destructive=tool.get("destructive"),
        hints=_read_hints(tool.get("hints")),
    )


def _read_hints(hints: dict[str, Any] | None) -> HintsRule | None:
    if not hints:
        return None
    return HintsRule(**{k: hints.get(k) for k in ("read_only", "destructive", "idempotent", "open_world")})


def _text(value: str | None) -> str | None:
    return " ".join(value.split()) if value else None


def _read_action(action: dict[str, Any], pointer: str, document: Document) -> ActionRule:
    params = action.get("params") or {}
    return ActionRule(
        name=action["name"],
        operation=action["operation"],
        description=(action.get("description") or "").strip() or None,
        params=tuple(
            _read_param(k, v, join_pointer(pointer, "params", k), document) for k, v in params.items()
        ),
        source=document.locate(pointer),
        operation_source=document.locate(f"{pointer}/operation"),
        response=_read_response(action["response"], f"{pointer}/response", document)
        if "response" in action
        else None,
        pagination=_read_pagination(action["pagination"], f"{pointer}/pagination", document)
        if "pagination" in action
        else None,
        preview=_read_preview(action, pointer, document),
        confirm_param=action.get("confirm_param"),
        confirm_user=action.get("confirm") == "user",
        hints=_read_hints(action.get("hints")),
        task=_read_task(action.get("task"), document.locate(f"{pointer}/task")),
        answers=read_answers(action, pointer, document),
    )


def _read_task(task: dict[str, Any] | None, source: SourceRef) -> TaskRule | None:
    if task is None:
        return None
    given = {key: task[key] for key in ("status", "job_id", "state") if key in task}  # else the defaults
    return TaskRule(source=source, **given, poll_interval_s=float(task.get("poll_interval_s", 5.0)))


def _read_response(rule: dict[str, Any], pointer: str, document: Document) -> ResponseRule:
    return ResponseRule(
        items=rule.get("items"),
        concise=tuple(rule["concise"]) if "concise" in rule else None,
        drop=tuple(rule.get("drop", ())),
        source=document.locate(pointer),
        single=bool(rule.get("single", False)),
        concise_source=document.locate(f"{pointer}/concise") if "concise" in rule else None,
        units=read_result_units(rule.get("units") or {}, f"{pointer}/units", document),
    )


_PAGINATION_KEYS = (
    "style", "page", "limit", "offset", "cursor", "next_cursor", "has_more", "total", "default_limit",
    "max_limit", "next_link", "next_page",
)  # fmt: skip


def _read_pagination(rule: dict[str, Any], pointer: str, document: Document) -> PaginationRule:
    return PaginationRule(source=document.locate(pointer), **{key: rule.get(key) for key in _PAGINATION_KEYS})


def _read_preview(action: dict[str, Any], pointer: str, document: Document) -> PreviewRule | None:
    preview = action.get("preview")
    if action.get("confirm") != "preview" or not preview:
        return None
    return PreviewRule(
        read=preview["read"],
        ttl_minutes=int(preview.get("ttl_minutes", DEFAULT_PREVIEW_TTL_MINUTES)),
        approval=preview.get("approval"),
        read_source=document.locate(f"{pointer}/preview/read"),
    )


def _read_param(key: str, rule: dict[str, Any], pointer: str, document: Document) -> ParamRule:
    prefix, dot, wire = key.partition(".")
    location: str | None = prefix
    if not dot or prefix not in PARAM_LOCATIONS:
        location, wire = None, key
    return ParamRule(
        key=key,
        wire_name=wire,
        location=location,
        name=rule.get("name"),
        description=rule.get("description"),
        default=rule.get("default", UNSET),
        fixed=rule.get("fixed", UNSET),
        hidden=bool(rule.get("hidden", False)),
        required=rule.get("required"),
        source=document.locate(pointer),
        unit=read_unit(rule.get("unit"), join_pointer(pointer, "unit"), document),
        max_increase_pct=rule.get("max_increase_pct"),
        current=rule.get("current"),
        ask_user=rule.get("ask_user") is True,
        env=rule.get("env"),
        local_time=rule.get("format") == "local-date-time",
    )


_PLACES = {"tools": "tool", "actions": "action", "params": "parameter"}


def _describe(path: Any, data: Any = None) -> str:
    """'/tools/0/actions/2/name' -> "'name' of action 'get' of tool 'pets_find'", for readable messages."""
    tokens = list(path)
    if not tokens:
        return "the mapping file"
    owners: list[str] = []
    node = data
    for i, token in enumerate(tokens):
        child = _step(node, token)
        if token in _PLACES and i + 1 < len(tokens):
            entry = _step(child, tokens[i + 1])
            label = (
                entry.get("name") if isinstance(entry, dict) and isinstance(entry.get("name"), str) else None
            )
            key = tokens[i + 1]
            shown = f"'{label}'" if label else (f"'{key}'" if isinstance(key, str) else f"number {key + 1}")
            owners.append(f"{_PLACES[token]} {shown}")
        node = child
    last = tokens[-1]
    if isinstance(last, int) or (len(tokens) >= 2 and tokens[-2] in _PLACES):
        return " of ".join(reversed(owners))
    return f"'{last}'" + (" of " + " of ".join(reversed(owners)) if owners else "")


def _step(node: Any, token: Any) -> Any:
    if isinstance(node, dict):
        return node.get(token)
    if isinstance(node, list) and isinstance(token, int) and token < len(node):
        return node[token]
    return None


def _property_description(schema: dict[str, Any], key: str) -> str | None:
    prop = schema.get("properties", {}).get(key, {})
    if "$ref" in prop:
        prop = mapping_schema()["$defs"].get(prop["$ref"].rsplit("/", 1)[-1], {})
    described = prop.get("description")
    return described if isinstance(described, str) else None


def _did_you_mean(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f"did you mean '{close[0]}'? " if close else ""


def did_you_mean(word: str, options: list[str]) -> str | None:
    close = difflib.get_close_matches(word, options, n=3, cutoff=0.6)
    return ", ".join(f"'{c}'" for c in close) if close else None


def _pattern_hint(pattern: str, value: Any) -> str:
    if pattern.startswith("^[a-z][a-z0-9_]"):
        suggestion = snake_case(str(value))
        return f"use lower_snake_case letters, digits and '_', starting with a letter, e.g. '{suggestion}'"
    if pattern.startswith("^[A-Z]"):
        return f"environment variable names are UPPER_SNAKE_CASE, e.g. '{snake_case(str(value)).upper()}'"
    if pattern.startswith("^https?://"):
        return "write a full URL such as 'https://api.example.com/v1', without spaces or control characters"
    if pattern.startswith("^(?![\\s\\S]*"):
        return "write it on one line, without line breaks or other control characters"
    if "[0-9]+\\." in pattern:
        return "write a version such as '0.1.0'"
    return f"the value must match {pattern}"


def _article(json_type: Any) -> str:
    names = {
        "string": "a string",
        "object": "a mapping (key: value)",
        "array": "a list",
        "number": "a number",
        "integer": "a whole number",
        "boolean": "true or false",
        "null": "null",
    }
    if isinstance(json_type, list):
        return " or ".join(names.get(str(t), str(t)) for t in json_type)
    return names.get(json_type, str(json_type))


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text {value!r}"
    if value is None:
        return "nothing (null)"
    return f"the number {value}"
