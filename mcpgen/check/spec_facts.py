"""What the spec says about an action's answers, as far as `check` needs it: the error statuses it
documents with a body (to ask Prism for one), and the media types of its success answers."""

from __future__ import annotations

from dataclasses import dataclass

from mcpgen.build.answers import response_schema
from mcpgen.diagnostics import DiagnosticError
from mcpgen.ir import ActionSpec
from mcpgen.load.openapi import Operation, Spec, find_operation

# The error answers asked for first: a refused argument, then an unknown record.
_PROBE_ORDER = (400, 422, 404, 409)


@dataclass(frozen=True, slots=True)
class AnswerFacts:
    error_codes: tuple[int, ...]  # documented 4xx answers with a body, most useful for a probe first
    success_types: tuple[str, ...]  # media types of the documented 2xx answers ('' when none has content)
    # The answer is a record with a `note` of its own (Kubernetes' events.k8s.io Event): the server's
    # note is then its `server_note` (templates/runtime/notes.py), and `note` is the API's.
    own_note: bool = False


def answer_facts(spec: Spec, action: ActionSpec) -> AnswerFacts:
    operation = find_operation(spec, f"{action.method} {action.path}")
    if operation is None or not isinstance(operation.located.value.get("responses"), dict):
        return AnswerFacts((), ())
    errors: list[int] = []
    success: list[str] = []
    responses = operation.located.child("responses")
    for code in responses.value:
        try:
            response = spec.resolver.deref(responses.child(code))
        except DiagnosticError:
            continue
        content = response.value.get("content") if isinstance(response.value, dict) else None
        status = str(code)
        if status.startswith("2"):
            success += list(content) if isinstance(content, dict) else []
        elif status.isdigit() and status.startswith("4") and isinstance(content, dict) and content:
            errors.append(int(status))
    ordered = sorted(errors, key=lambda c: (_PROBE_ORDER.index(c) if c in _PROBE_ORDER else 9, c))
    return AnswerFacts(tuple(ordered), tuple(success), _own_note(spec, operation))


def _own_note(spec: Spec, operation: Operation) -> bool:
    try:
        schema = response_schema(spec, operation)
    except DiagnosticError:
        return False
    properties = schema.value.get("properties") if schema is not None else None
    return isinstance(properties, dict) and "note" in properties


def json_readable(media_type: str) -> bool:
    """application/json, any +json type, or a wildcard: what a generated server reads as JSON."""
    kind = media_type.split(";", 1)[0].strip().lower()
    return (
        kind in ("application/json", "*/*", "application/*", "")
        or kind.endswith("+json")
        or kind.endswith("/json")
    )
