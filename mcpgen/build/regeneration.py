"""Regenerating against a new spec: what the package generated last time says about each operationId
the mapping names (issue 13). Pure: the caller reads the previous tools.lock.json.

The lock records, per action, the operationId it named and the method and path that id was bound to.
Two things follow when the new spec differs:

- the operationId is gone (M201): the error says which method and path the action called, and when the
  new spec still has that endpoint under another operationId, offers that id first, before any guess
  by name similarity; when the endpoint is gone too, it says so instead of guessing.
- the operationId is now bound to another method or path (the API reused the name, as GitHub did with
  `projects/list-for-org` for `/orgs/{org}/projectsV2`): a warning (M219), since the action silently
  calls another endpoint. `mcpgen diff` reports the same change as breaking (C1 versioned contract).

Two paths are the same endpoint when they differ only in the names of their path templates
(`/pets/{petId}` and `/pets/{id}`): the method and the URL the server sends are the same.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from collections.abc import Mapping as MappingOf
from dataclasses import dataclass
from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, SourceRef, error, warning
from mcpgen.load.mapping import ActionRule, Mapping
from mcpgen.load.openapi import Operation, Spec, find_operation


@dataclass(frozen=True, slots=True)
class LockedEndpoint:
    """The method and path an operationId was bound to when the package was generated last."""

    method: str
    path: str

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True, slots=True)
class PreviousLock:
    file: str  # as diagnostics name it, e.g. "out/tools.lock.json"
    endpoints: MappingOf[str, LockedEndpoint]  # operationId -> where it pointed


def previous_lock(document: Any, file: str) -> PreviousLock:
    """The operationId -> endpoint table of a parsed tools.lock.json; parts that are not the shape the
    lock writer gives (a hand-edited or older file) are left out rather than guessed at."""
    endpoints: dict[str, LockedEndpoint] = {}
    tools = document.get("tools") if isinstance(document, dict) else None
    for tool in tools if isinstance(tools, list) else []:
        actions = tool.get("actions") if isinstance(tool, dict) else None
        for action in actions if isinstance(actions, list) else []:
            if not isinstance(action, dict):
                continue
            operation_id, method, path = (action.get(k) for k in ("operationId", "method", "path"))
            if all(isinstance(v, str) and v for v in (operation_id, method, path)):
                endpoints.setdefault(str(operation_id), LockedEndpoint(str(method).upper(), str(path)))
    return PreviousLock(file, endpoints)


def regeneration_diagnostics(
    diagnostics: Sequence[Diagnostic], spec: Spec, mapping: Mapping, previous: PreviousLock | None
) -> list[Diagnostic]:
    """`diagnostics` with each unknown-operationId error the previous lock knows about told in its
    terms, and a warning for each operationId the new spec binds to another endpoint."""
    if previous is None or not previous.endpoints:
        return list(diagnostics)
    replaced: dict[SourceRef, Diagnostic] = {}
    rebound: list[Diagnostic] = []
    for rule, locked in _locked_rules(mapping, previous):
        operation = find_operation(spec, rule.operation)
        if operation is None:
            replaced[rule.operation_source] = renamed_operation_error(spec, rule, locked, previous.file)
        elif not same_endpoint(operation.method, operation.path, locked):
            rebound.append(rebound_operation_warning(spec, rule, operation, locked, previous.file))
    kept = [
        replaced.get(d.source, d) if d.code == codes.M201 and d.source is not None else d for d in diagnostics
    ]
    return kept + rebound


def _locked_rules(mapping: Mapping, previous: PreviousLock) -> Iterator[tuple[ActionRule, LockedEndpoint]]:
    """Each action that names an operationId (not 'METHOD /path') the previous lock recorded."""
    for tool in mapping.tools:
        for rule in tool.actions:
            reference = rule.operation.strip()
            _, _, path = reference.partition(" ")
            locked = previous.endpoints.get(reference)
            if locked is not None and not path.startswith("/"):
                yield rule, locked


def renamed_operation_error(
    spec: Spec, rule: ActionRule, locked: LockedEndpoint, lock_file: str
) -> Diagnostic:
    wanted = rule.operation.strip()
    message = (
        f"no operation with operationId '{wanted}' in the spec; action '{rule.name}' called "
        f"{locked.key} with it when the package was last generated ({lock_file})"
    )
    now = endpoint_in(spec, locked)
    guesses = [g for g in _similar_ids(spec, wanted) if now is None or g != now.operation_id]
    others = f"; other operationIds with a similar name: {_quoted(guesses)}" if guesses else ""
    if now is not None and now.operation_id:
        hint = (
            f"did you mean '{now.operation_id}'? The spec now names {now.key} '{now.operation_id}': "
            f"write `operation: {now.operation_id}`{others}"
        )
    elif now is not None:
        hint = f"{now.key} is still in the spec, with no operationId: write `operation: {now.key}`{others}"
    else:
        hint = (
            f"{locked.key} is not in the spec either: the API removed it. Remove the action, or map the "
            "operation that replaces it (`mcpgen validate` lists the spec's operations)" + others
        )
    return error(codes.M201, message, rule.operation_source, hint=hint)


def rebound_operation_warning(
    spec: Spec, rule: ActionRule, operation: Operation, locked: LockedEndpoint, lock_file: str
) -> Diagnostic:
    wanted = rule.operation.strip()
    message = (
        f"operationId '{wanted}' now names {operation.key}: action '{rule.name}' called {locked.key} "
        f"with it when the package was last generated ({lock_file}), so it now calls another endpoint"
    )
    before = endpoint_in(spec, locked)
    if before is None:
        old_endpoint = f"{locked.key} is no longer in the spec"
    else:
        keep = before.operation_id or before.key
        old_endpoint = f"to keep calling {before.key}, write `operation: {keep}`"
    hint = (
        f"check that action '{rule.name}' still does what agents expect of it on {operation.key} (its "
        f"description, parameters and result) and edit the mapping if not; {old_endpoint}. Then "
        "regenerate. `mcpgen diff` reports this as a breaking change"
    )
    return warning(codes.M219, message, rule.operation_source, hint=hint)


def same_endpoint(method: str, path: str, locked: LockedEndpoint) -> bool:
    return method.upper() == locked.method and _template_free(path) == _template_free(locked.path)


def endpoint_in(spec: Spec, locked: LockedEndpoint) -> Operation | None:
    """The spec's operation at the locked method and path, the path's template names aside."""
    exact = find_operation(spec, locked.key)
    if exact is not None:
        return exact
    return next((op for op in spec.operations if same_endpoint(op.method, op.path, locked)), None)


_TEMPLATE = re.compile(r"\{[^}/]*\}")


def _template_free(path: str) -> str:
    return _TEMPLATE.sub("{}", path)


def _similar_ids(spec: Spec, wanted: str) -> list[str]:
    """What the error offers without a lock: operationIds spelled like the one written (did_you_mean's)."""
    options = [op.operation_id for op in spec.operations if op.operation_id]
    return difflib.get_close_matches(wanted, options, n=3, cutoff=0.6)


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)
