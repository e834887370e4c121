"""Pure: where an action's 2xx answer reports that the call failed, decided from its response schema or the
mapping (`failure:`), and the API's error codes the mapping gives a kind of recovery (`errors:`).

Some APIs answer 200 and say inside the answer that nothing worked: Slack's `{"ok": false, "error": ...}`, an
`ErrorCode` that is not 0 or "None" (Zappiti), a non-empty `errors` list. Read as a success, such an answer
tells the agent a change was made that was not. Each decision is scoped to one action by a JSON pointer into its
answer, carried in the IR to the runtime (refusals.py), announced (M260) and checked against the schema where
the mapping names the field (M261, M262).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, error, info, warning
from mcpgen.ir import ActionSpec, FailureSpec, ToolSpec
from mcpgen.load.answers import FailureRule
from mcpgen.load.mapping import Mapping
from mcpgen.load.openapi import Operation, Spec, find_operation
from mcpgen.load.refs import Located

# Field names (lower case, without '_' and '-') that say whether the call worked.
_SUCCESS_FLAGS = frozenset(("success", "ok", "succeeded", "successful", "issuccess", "issuccessful"))
_ERROR_CODES = frozenset(("errorcode", "errcode", "errorno", "errno", "errornumber"))
_ERROR_LISTS = frozenset(("errors",))
_ERROR_WORDS = frozenset(("message", "msg", "detail", "title", "reason", "description", "code", "error"))
# The values of an error code that mean "no error" (compared without regard to case at run time).
_NO_ERROR = ("", "0", "None", "OK", "Success")
_MAX_NAMED = 3  # actions a note names; the rest are counted


def with_failures(
    tools: Sequence[ToolSpec], spec: Spec, mapping: Mapping
) -> tuple[list[ToolSpec], list[Diagnostic]]:
    """Each action with its `failures` and `errors`, and the notes and problems of deciding them."""
    rules = {a.source: a for t in mapping.tools for a in t.actions}
    server = mapping.server.answers
    server_failure = server.failure if server is not None else None
    found: dict[tuple[str, str], list[ActionSpec]] = {}  # (pointer, what fails) -> actions, for M260
    diagnostics: list[Diagnostic] = []
    shown_anywhere = False
    built: list[ToolSpec] = []
    for tool in tools:
        actions = []
        for action in tool.actions:
            rule = rules.get(action.source)
            operation = find_operation(spec, rule.operation) if rule is not None else None
            body = _response_schema(spec, operation) if operation is not None else None
            own = rule.answers.failure if rule is not None and rule.answers is not None else None
            written = own if own is not None else server_failure
            if isinstance(written, FailureRule):
                failures: tuple[FailureSpec, ...] = (_from_rule(written),)
                problems, shown = _checked(spec, body, written, action, own is written)
                diagnostics += problems
                shown_anywhere = shown_anywhere or shown
            elif written is False:
                failures = ()
            else:
                failures = _detected(spec, body, action)
                for failure in failures:
                    found.setdefault((failure.at, _what_fails(failure)), []).append(action)
            errors = rule.answers.errors if rule is not None and rule.answers is not None else ()
            actions.append(
                replace(action, failures=failures, errors=errors, undescribed_failures=written is not False)
            )
        built.append(replace(tool, actions=tuple(actions)))
    if isinstance(server_failure, FailureRule) and not shown_anywhere:
        diagnostics.append(_not_shown(server_failure, "any action"))
    diagnostics += [_announced(at, what, actions) for (at, what), actions in found.items()]
    return built, diagnostics


def _from_rule(rule: FailureRule) -> FailureSpec:
    return FailureSpec(
        at=rule.at,
        equals=rule.equals,
        unless=rule.unless,
        non_empty=rule.non_empty,
        message=rule.message,
        unchanged=rule.unchanged,
    )


def _detected(spec: Spec, body: Located | None, action: ActionSpec) -> tuple[FailureSpec, ...]:
    """The top-level fields of the answer's schema that report a failure, never the records it lists."""
    records = {(action.shape.items or "").split(".")[0], action.shape.record or ""} if action.shape else set()
    failures = []
    for name, schema in _properties(spec, body).items():
        if name in records:
            continue
        key = name.lower().replace("_", "").replace("-", "")
        value = schema.value if isinstance(schema.value, dict) else {}
        at = "/" + name.replace("~", "~0").replace("/", "~1")
        if key in _SUCCESS_FLAGS and _types(value) == {"boolean"}:
            failures.append(FailureSpec(at=at, equals=(False,)))
        elif key in _ERROR_CODES:
            unless = _no_error_values(value)
            if unless:
                failures.append(FailureSpec(at=at, unless=unless))
        elif key in _ERROR_LISTS and _types(value) == {"array"} and _lists_errors(spec, schema):
            failures.append(FailureSpec(at=at, non_empty=True))
    return tuple(failures)


def _lists_errors(spec: Spec, schema: Located) -> bool:
    """An `errors` list of texts, or of objects with words or a code: not a list of records named errors."""
    if not isinstance(schema.value.get("items"), dict):
        return True
    items = spec.resolver.deref(schema.child("items"))
    if _types(items.value if isinstance(items.value, dict) else {}) == {"string"}:
        return True
    names = {n.lower() for n in _properties(spec, items)}
    return not names or bool(names & _ERROR_WORDS)


def _no_error_values(schema: dict[str, Any]) -> tuple[Any, ...]:
    """The values of an error code that mean it worked: 0 for a number; for a text, the enum's "None", "OK"
    or "Success", or those words when it has no enum. () when none of its values says so."""
    types = _types(schema)
    if types and types <= {"integer", "number"}:
        return (0,)
    if types and types != {"string"}:
        return ()
    enum = schema.get("enum")
    if not isinstance(enum, list):
        return _NO_ERROR
    words = {w.casefold() for w in _NO_ERROR}
    return tuple(v for v in enum if isinstance(v, (str, int)) and str(v).casefold() in words)


def _what_fails(failure: FailureSpec) -> str:
    if failure.non_empty:
        return "any entry"
    if failure.equals:
        return " or ".join(_json(v) for v in failure.equals)
    return "anything but " + " or ".join(_json(v) for v in failure.unless)


def _announced(at: str, what: str, actions: list[ActionSpec]) -> Diagnostic:
    field = at.lstrip("/")
    names = ", ".join(f"'{a.name}'" for a in actions[:_MAX_NAMED])
    more = f" and {len(actions) - _MAX_NAMED} more" if len(actions) > _MAX_NAMED else ""
    return info(
        codes.M260,
        f"the answers of {names}{more} carry '{field}' (its response schema): {what} there reports a failure "
        "inside a 2xx answer, so such an answer becomes an error with the API's own words, not a success",
        actions[0].source,
        hint=f"if '{field}' means something else for an action, write  failure: false  on it "
        "(or  failure: {field: ..., equals: ...}  with the field that does)",
    )


def _checked(
    spec: Spec, body: Located | None, rule: FailureRule, action: ActionSpec, own: bool
) -> tuple[list[Diagnostic], bool]:
    """Problems of a `failure:` the mapping writes, against the action's response schema, and whether that
    schema shows its field."""
    field = _field(spec, body, rule.at)
    if field is None:
        open_schema = body is None or not _properties(spec, body)
        return ([] if open_schema or not own else [_not_shown(rule, f"action '{action.name}'")]), False
    types = _types(field.value if isinstance(field.value, dict) else {})
    wrong = [v for v in (*rule.equals, *rule.unless) if v is not None and types and not types & _types_of(v)]
    if not wrong:
        return [], True
    return [
        error(
            codes.M262,
            f"failure of action '{action.name}' compares '{rule.field}' with {_json(wrong[0])}, but the "
            f"response schema types it {' or '.join(sorted(types))}: the answer would never fail",
            rule.source,
            hint=f"compare with a value of type {' or '.join(sorted(types))}, e.g. equals: false for a flag",
        )
    ], True


def _not_shown(rule: FailureRule, where: str) -> Diagnostic:
    return warning(
        codes.M261,
        f"failure names '{rule.field}', which the response schema of {where} does not show; the server "
        "checks it in every answer all the same",
        rule.source,
        hint="check its spelling against an answer of the API; a dotted path (meta.success) reaches into an object",
    )


def _field(spec: Spec, body: Located | None, pointer: str) -> Located | None:
    node = body
    for token in pointer.split("/")[1:]:
        name = token.replace("~1", "/").replace("~0", "~")
        node = _properties(spec, node).get(name)
        if node is None:
            return None
    return node


def _types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared} - {"null"}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)} - {"null"}
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return set().union(*(_types_of(v) for v in enum if v is not None))
    return set()


def _types_of(value: Any) -> set[str]:
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"}


def _json(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return repr(value) if isinstance(value, str) else str(value)


# --- the response schema ---------------------------------------------------------------------------------


def _response_schema(spec: Spec, operation: Operation) -> Located | None:
    """The JSON schema of the first 2xx response that has one, dereferenced."""
    responses = operation.located.value.get("responses")
    for status in responses if isinstance(responses, dict) else ():
        if not str(status).startswith("2"):
            continue
        response = spec.resolver.deref(operation.located.child("responses", status))
        content = response.value.get("content") if isinstance(response.value, dict) else None
        for media, entry in (content or {}).items() if isinstance(content, dict) else ():
            base = str(media).split(";")[0].strip().lower()
            json_like = base == "application/json" or base.endswith("+json")
            if json_like and isinstance(entry, dict) and isinstance(entry.get("schema"), dict):
                return spec.resolver.deref(response.child("content", media, "schema"))
    return None


def _properties(spec: Spec, schema: Located | None) -> dict[str, Located]:
    """An object schema's properties, each dereferenced; `allOf` parts merged."""
    if schema is None:
        return {}
    schema = spec.resolver.deref(schema)
    if not isinstance(schema.value, dict):
        return {}
    found: dict[str, Located] = {}
    for index, part in enumerate(schema.value.get("allOf") or ()):
        if isinstance(part, dict):
            found.update(_properties(spec, schema.child("allOf", index)))
    for name in schema.value.get("properties") or {}:
        found[name] = spec.resolver.deref(schema.child("properties", name))
    return found


def server_errors(mapping: Mapping) -> tuple[tuple[str, str], ...]:
    """server.errors: the API's error codes and the kind of recovery each calls for."""
    return mapping.server.answers.errors if mapping.server.answers is not None else ()
