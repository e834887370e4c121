"""Pure: a read action's records as the spec shows them (R1 meaningful fields; R2 concise or detailed).

Which response schema describes the answer (any JSON media type, `*/*` included: the generated server
reads every success body as JSON), which fields the concise format keeps when the mapping names none
(ids, names, status, dates), and the checks on a concise set the mapping names: each field the records
have, and one that identifies and one that names a record whenever the schema offers one. Every
decision names the schema it was taken from by its JSON pointer.
"""

from __future__ import annotations

from typing import Any

from mcpgen import codes
from mcpgen.build.answers import json_rank, media_types, response_schema
from mcpgen.diagnostics import Diagnostic, warning
from mcpgen.load.mapping import ActionRule
from mcpgen.load.openapi import Operation, Spec
from mcpgen.load.refs import Located
from mcpgen.runtime_source import runtime_module

WHOLE_RECORD_FIELDS = 8  # records this small are concise already
# The server's own words for what identifies and what names a record (templates/runtime/keys.py):
# the concise sets the build derives and checks, and the fields a record the concise format missed
# shows instead, are the same ones.
_keys = runtime_module("keys")
_ID_NAMES: tuple[str, ...] = _keys.ID_NAMES
_NAME_NAMES: tuple[str, ...] = _keys.NAME_NAMES
_KEY_NAMES = ("status", "state", "number")
_KEY_SUFFIXES = ("_status", "_date", "_at")


def is_id_like(name: str) -> bool:
    return bool(_keys.is_id_like(name))


def is_name_like(name: str) -> bool:
    return bool(_keys.is_name_like(name))


# --- the concise set ------------------------------------------------------------------------------


def derived_concise(fields: dict[str, Located]) -> tuple[str, ...]:
    """Ids, names, titles, status and dates of records larger than a handful of fields (R1): Vercel's
    deployments keep their `uid`, Zoom's meetings their `topic`."""
    if len(fields) <= WHOLE_RECORD_FIELDS:
        return ()
    # One own identifier is enough: Zoom's `id` without its `uuid`, Vercel's `uid` where it has no `id`.
    best = _best(fields, _ID_NAMES, is_id_like)
    return tuple(
        name
        for name, schema in fields.items()
        if _is_key_field(name, schema.value) and (name == best or name.lower() not in _ID_NAMES)
    )


def _is_key_field(name: str, schema: Any) -> bool:
    lower = name.lower()
    if lower in _KEY_NAMES or lower.endswith(_KEY_SUFFIXES) or is_id_like(name) or is_name_like(name):
        return True
    return isinstance(schema, dict) and schema.get("format") in ("date", "date-time")


def bare_field(fields: dict[str, Located]) -> str | None:
    """The one field of a record whose schema has no other: an answer of that field alone is the
    record the spec describes, not an envelope the server unwraps (templates/runtime/shaping.py)."""
    return next(iter(fields)) if len(fields) == 1 else None


def _best(fields: dict[str, Located], words: tuple[str, ...], like: Any) -> str | None:
    """The field that best identifies (or names) a record: one of `words` in their order, else the
    first field of the schema `like` accepts."""
    lowered = {name.lower(): name for name in fields}
    exact = next((lowered[w] for w in words if w in lowered), None)
    return exact or next((name for name in fields if like(name)), None)


def key_field_checks(
    operation: Operation, rule: ActionRule, record: Located | None, fields: dict[str, Located]
) -> list[Diagnostic]:
    """A concise set the mapping names with no field that identifies, or none that names, a record
    where the records' schema offers one (M229): located at the concise line, naming the fields."""
    response = rule.response
    if response is None or not response.concise or not fields or record is None:
        return []
    heads = [path for path in response.concise if "." not in path]
    wanted = [
        (role, best)
        for role, words, like in (("identifies", _ID_NAMES, is_id_like), ("names", _NAME_NAMES, is_name_like))
        if not any(like(head) for head in heads) and (best := _best(fields, words, like)) is not None
    ]
    if not wanted:
        return []
    roles = " or ".join(role for role, _ in wanted)
    names = [name for _, name in wanted]
    return [
        warning(
            codes.M229,
            f"response.concise of action '{rule.name}' names no field that {roles} a record, which records "
            f"of {operation.key} ({record.pointer or '/'}) have ({', '.join(names)}): concise results "
            "would not say which record each one is",
            response.concise_source,
            hint=f"add {' and '.join(names)}:  concise: [{', '.join([*names, *response.concise])}]",
        )
    ]


def unreadable_response(spec: Spec, operation: Operation, rule: ActionRule) -> list[Diagnostic]:
    """`response.concise` or `drop` where the spec gives no JSON schema for the answer (M246): nothing
    can check the fields it names, and an answer that is not JSON has no fields at all."""
    response = rule.response
    if response is None or not (response.concise or response.drop):
        return []
    if response_schema(spec, operation) is not None:
        return []
    media = media_types(spec, operation)
    other = [m for m in media if json_rank(m) is None]
    why = (
        f"answers {', '.join(other[:3])} only, which the server does not read as JSON"
        if media and len(other) == len(media)
        else "has no JSON schema for its answer"
    )
    return [
        warning(
            codes.M246,
            f"response.concise of action '{rule.name}' names fields nothing can check: {operation.key} {why}",
            response.concise_source if response.concise else response.source,
            hint="add the answer's JSON schema to the spec, or remove response.concise and response.drop",
        )
    ]
