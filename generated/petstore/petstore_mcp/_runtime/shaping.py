"""Records as the agent reads them: concise by default, detailed on request, never the noise (R1 meaningful fields; R2 concise or detailed).

Paths are dotted ('owner.email'); for a list action they apply to each record of the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

ResponseFormat = Literal["concise", "detailed"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shape:
    """How one read action's records are shown.

    `items` is the dotted path of the record list in the upstream body ("" when the body is the list,
    None when the body is one record). `record` is the path of the one record inside an envelope the
    schema shows (`{"payment": {...}}`), unwrapped for every format. `concise` lists the fields
    response_format=concise keeps (empty: all of them); `drop` the low-level fields no format shows.
    `lists` names the answer's other lists of records beside `items` (a sync's `modified` and
    `removed` beside `added`), kept whole in every format.
    """

    items: str | None = None
    record: str | None = None
    concise: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()


def response_format(values: Mapping[str, Any]) -> ResponseFormat:
    return "detailed" if values.get("response_format") == "detailed" else "concise"


def shape_record(record: Any, shape: Shape, form: ResponseFormat) -> Any:
    """One record in the requested format; anything that is not an object passes unchanged."""
    if not isinstance(record, dict):
        return record
    kept = _without(record, shape.drop)
    if form == "concise" and shape.concise:
        return _only(kept, shape.concise)
    return kept


def lookup(data: Any, path: str) -> Any:
    """The value at a dotted path, or None when any step is missing. A key that itself has a dot
    ('@odata.nextLink') is found whole."""
    if isinstance(data, dict) and path in data:
        return data[path]
    node = data
    for key in path.split(".") if path else ():
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _only(record: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    # In the order the mapping names them: the agent reads the important fields first (R1 meaningful fields).
    out: dict[str, Any] = {}
    for path in paths:
        head, _, rest = path.partition(".")
        if head not in record:
            continue
        if not rest:
            out[head] = record[head]
        elif isinstance(record[head], dict):
            inner = _only(record[head], (rest,))
            if inner:
                out[head] = {**out.get(head, {}), **inner}
    return out


def _without(record: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    out = dict(record)
    for path in paths:
        head, _, rest = path.partition(".")
        if head not in out:
            continue
        if not rest:
            del out[head]
        elif isinstance(out[head], dict):
            out[head] = _without(out[head], (rest,))
    return out


def unwrap(body: Any, path: str | None) -> Any:
    """The record inside a one-record envelope: `body[path]` when that is an object and every other
    top-level field is empty (null, [], {}, ""), so nothing the API said is lost; else `body`."""
    if not path or not isinstance(body, dict):
        return body
    record = lookup(body, path)
    head = path.split(".")[0]
    if not isinstance(record, dict):
        return body
    if any(
        value not in (None, "", [], {}) for key, value in body.items() if key != head
    ):
        return body
    return record
