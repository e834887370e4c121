"""openapi-pydantic validates a spec's path items and component schemas one at a time (load/openapi.py,
to keep the whole model out of memory), and reports exactly what one validation of the whole reports:
the same errors, in the same order, so every diagnostic keeps its pointer and line.

Built from specs/petstore/petstore.openapi.json (the whole document) and
tests/fixtures/realspecs/square-payments.json (#/components/schemas), broken in many places at once.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest

from mcpgen.load.openapi import OpenAPI30, OpenAPI31, _validation_errors
from tests.support.paths import ROOT

SPECS = [
    ROOT / "specs/petstore/petstore.openapi.json",
    ROOT / "tests/fixtures/realspecs/square-payments.json",
]
WRONG = [5, "text", [1], {"unexpected": 1}, None, True]


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if path:
        yield path
    children = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in children:
        yield from _places(child, (*path, key))


def _whole(model: type[pydantic.BaseModel], data: Any) -> list[tuple[tuple[int | str, ...], str]]:
    try:
        model.model_validate(data)
    except pydantic.ValidationError as exc:
        return [(tuple(e["loc"]), str(e["msg"])) for e in exc.errors()]
    return []


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.name)
def test_split_validation_reports_what_whole_validation_reports(spec: Path) -> None:
    data = json.loads(spec.read_text(encoding="utf-8"))
    model = OpenAPI30 if str(data["openapi"]).startswith("3.0") else OpenAPI31
    assert _validation_errors(model, data) == _whole(model, data)
    places = list(_places(data))
    chooser = random.Random(15)  # deterministic
    broken = 0
    for _ in range(40):
        changed = copy.deepcopy(data)
        for path in chooser.sample(places, 4):
            target = changed
            try:
                for token in path[:-1]:
                    target = target[token]
                target[path[-1]] = chooser.choice(WRONG)
            except (KeyError, IndexError, TypeError):  # an earlier change replaced a parent
                continue
        expected = _whole(model, changed)
        broken += bool(expected)
        assert _validation_errors(model, changed) == expected
    assert broken >= 20  # the comparison is about errors, not only valid documents
