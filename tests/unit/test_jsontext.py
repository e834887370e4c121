"""The indented JSON writer (mcpgen/jsontext.py) writes what json.dumps writes, byte for byte,
but for NaN and infinity, which JSON has no spelling for (`null`): tools.lock.json and tools.json are
compared by reviewers and by `generate --check` (C1)."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.jsontext import indented_json
from tests.support.json_values import finite

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinity included: json.dumps spells them its own way
    | st.text()  # control characters, quotes, lone surrogates, U+2028 ...
)
KEYS = st.text() | st.integers() | st.booleans() | st.none()  # json.dumps turns non-str keys into text
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=400, derandomize=True, database=None)
@given(VALUES, st.booleans())
def test_indented_json_is_json_dumps(value: Any, sort_keys: bool) -> None:
    expected = json.dumps(finite(value), indent=2, sort_keys=sort_keys, ensure_ascii=False)
    assert indented_json(value, sort_keys=sort_keys) == expected


def test_small_floats_are_spelled_as_python_spells_them_and_text_is_left_alone() -> None:
    value = {"a: 1e-7": [1e-05, -2.5e-07, 0.0001, 1e-10, 1e16], "b": "x: 0.00001", "c": 5e-324}
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)
    assert indented_json(3e-06) == "3e-06"


def test_values_json_cannot_spell_are_null() -> None:
    assert indented_json([math.nan, math.inf, -math.inf]) == "[\n  null,\n  null,\n  null\n]"


@settings(max_examples=100, derandomize=True, database=None)
@given(st.dictionaries(KEYS, SCALARS, max_size=4))
def test_keys_that_are_not_text_are_written_as_json_dumps_writes_them(value: dict[Any, Any]) -> None:
    try:
        expected = json.dumps(finite(value), indent=2, ensure_ascii=False)
    except TypeError:  # keys json.dumps cannot compare or write: the same error either way
        return
    assert indented_json(value) == expected


def test_nothing_unusual_is_written_by_the_fast_path() -> None:
    # An object json.dumps cannot write raises json.dumps's own error.
    try:
        indented_json({"a": object()})
    except TypeError as exc:
        assert "not JSON serializable" in str(exc)
    else:
        raise AssertionError("an object JSON cannot hold was written")
