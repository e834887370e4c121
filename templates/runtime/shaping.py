"""Records as the agent reads them: concise by default, detailed on request, never the noise (R1 meaningful fields; R2 concise or detailed).

Paths are dotted ('owner.email'); for a list action they apply to each record of the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .keys import is_id_like, is_name_like

ResponseFormat = Literal["concise", "detailed"]

# Id and name fields a record the concise format missed shows at most.
_MOST_FALLBACK = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class Shape:
    """How one read action's records are shown.

    `items` is the dotted path of the record list in the upstream body ("" when the body is the list,
    None when the body is one record). `record` is the path of the one record inside an envelope the
    schema shows (`{"payment": {...}}`), unwrapped for every format. `concise` lists the fields
    response_format=concise keeps (empty: all of them); `drop` the low-level fields no format shows.
    `lists` names the answer's other lists of records beside `items` (a sync's `modified` and
    `removed` beside `added`), kept whole in every format.
    `bare` is the one field of a record whose schema has no other: an answer of that field alone is
    the record as the spec describes it, not an envelope to unwrap. `named`: the mapping names the
    concise fields, so a record without one of them is announced; a set derived from the schema may
    name fields the API leaves out (Zoom's `assistant_id`), and only a record that would then show no
    id or name is.
    """

    items: str | None = None
    record: str | None = None
    concise: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    bare: str | None = None
    named: bool = False
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


def unwrap_unsaid(record: Any, shape: Shape) -> tuple[Any, str | None]:
    """A one-key answer whose value is an object the spec does not describe (`{"data": {...}}` where
    the spec shows the record itself): (what it holds, the key), else (record, None). A key that is
    the envelope the spec shows, the record's only field, or a concise field stays as it is."""
    if not isinstance(record, dict) or len(record) != 1:
        return record, None
    ((key, inner),) = record.items()
    if not isinstance(inner, dict) or not inner or key in (shape.record, shape.bare):
        return record, None
    if any(path.split(".")[0] == key for path in shape.concise):
        return record, None
    return inner, key


def missing_concise(record: Any, shape: Shape) -> tuple[str, ...]:
    """The concise fields a record lacks (by their top-level field: a null value is there)."""
    if not isinstance(record, dict):
        return ()
    heads = dict.fromkeys(path.split(".")[0] for path in shape.concise)
    return tuple(head for head in heads if head not in record)


def concise_or_more(record: Any, shape: Shape) -> tuple[Any, tuple[str, ...], bool]:
    """A record in the concise format, never emptier than the record (R1 meaningful fields): when
    concise fields are missing, its id and name fields join what was found, and a record that still
    shows nothing is shown detailed. (the record as shown, the concise fields it lacked, whether it
    is shown detailed for that)."""
    shown = shape_record(record, shape, "concise")
    missing = missing_concise(record, shape)
    if not missing or not isinstance(shown, dict):
        return shown, (), False
    kept = _without(record, shape.drop)
    extra = [
        k
        for k, v in kept.items()
        if k not in shown
        and not isinstance(v, (dict, list))
        and (is_id_like(k) or is_name_like(k))
    ]
    if not shape.named and shown and not _lacks_key(shown, extra):
        return (
            shown,
            (),
            False,
        )  # a derived set's optional fields left out: nothing is hidden
    shown = {**shown, **{k: kept[k] for k in extra[:_MOST_FALLBACK]}}
    return (shown, missing, False) if shown else (kept, missing, True)


def _lacks_key(shown: dict[str, Any], extra: list[str]) -> bool:
    """The record has an id (or a name) that what is shown lacks."""
    return any(
        like(k) and not any(like(name) for name in shown)
        for k in extra
        for like in (is_id_like, is_name_like)
    )
