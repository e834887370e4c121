"""One flat property for an argument two actions share (T2, flat arguments): what either action accepts,
an empty schema (any value) included. mist.com's drafted mapping stopped `generate` with a KeyError
where one action's body field was `{}` and the other's had no such field."""

from __future__ import annotations

from mcpgen.build.tools import _merged_schema


def test_a_field_only_one_action_has_is_kept_even_when_its_schema_is_empty() -> None:
    first = {"type": "object", "properties": {"anything": {}, "name": {"type": "string"}}}
    other = {"type": "object", "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}}
    merged = _merged_schema(first, other)
    assert merged["properties"] == {"anything": {}, "name": {"type": "string"}, "size": {"type": "integer"}}
    assert _merged_schema(other, first)["properties"] == {
        "name": {"type": "string"},
        "size": {"type": "integer"},
        "anything": {},
    }
