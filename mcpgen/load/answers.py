"""The mapping's say on an API's answers: which kind of recovery its error codes call for (`errors:`), and
where a 2xx answer reports that the call failed (`failure:`), on the server and on an action."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpgen.diagnostics import SourceRef
from mcpgen.load.sources import Document, join_pointer


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureRule:
    """`failure: {field, equals | not_equals | non_empty, message?, unchanged?}`, fields as JSON pointers."""

    field: str  # as written, for messages
    at: str  # JSON pointer into the answer: '/ok', '/meta/success'
    equals: tuple[Any, ...] = ()
    unless: tuple[Any, ...] = ()  # not_equals
    non_empty: bool = False
    message: str | None = None
    unchanged: bool = False
    source: SourceRef


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerRules:
    """`errors:` (code -> fix_input | wait | needs_human | permission) and `failure:`, as one node has them.
    `failure` is None when not written, False when written `failure: false` (no answer is read as failing)."""

    errors: tuple[tuple[str, str], ...] = ()
    failure: FailureRule | None | bool = None


def read_answers(node: dict[str, Any], pointer: str, document: Document) -> AnswerRules | None:
    """The `errors` and `failure` of a server or action node (validated by mapping.schema.json)."""
    if "errors" not in node and "failure" not in node:
        return None
    failure = node.get("failure")
    if isinstance(failure, dict):
        failure = _failure(failure, join_pointer(pointer, "failure"), document)
    return AnswerRules(
        errors=tuple((str(k), str(v)) for k, v in (node.get("errors") or {}).items()),
        failure=False if failure is False else failure or None,
    )


def _failure(rule: dict[str, Any], pointer: str, document: Document) -> FailureRule:
    message = rule.get("message")
    return FailureRule(
        field=rule["field"],
        at=as_pointer(rule["field"]),
        equals=_values(rule["equals"]) if "equals" in rule else (),
        unless=_values(rule["not_equals"]) if "not_equals" in rule else (),
        non_empty=rule.get("non_empty") is True,
        message=as_pointer(message) if isinstance(message, str) else None,
        unchanged=rule.get("unchanged") is True,
        source=document.locate(pointer),
    )


def _values(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, list) else (value,)


def as_pointer(field: str) -> str:
    """'meta.success' -> '/meta/success'; a JSON pointer stays as it is."""
    if field.startswith("/"):
        return field
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in field.split("."))
