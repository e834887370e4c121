"""Parts of `mcpgen check` that need no server: the Prism pin it names, and the values it calls with."""

from __future__ import annotations

import json
import re

import pytest

from mcpgen.check.arguments import NoValue, made_value, pattern_sample, value_for
from mcpgen.check.upstream import PRISM_INSTALL, PRISM_VERSION
from tests.support.paths import ROOT


def test_the_prism_check_names_is_the_one_the_project_pins() -> None:
    pinned = json.loads((ROOT / "scripts" / "sweep" / "prism" / "package.json").read_text(encoding="utf-8"))
    assert pinned["dependencies"]["@stoplight/prism-cli"] == PRISM_VERSION
    assert PRISM_INSTALL == f"npm install -g @stoplight/prism-cli@{PRISM_VERSION}"


@pytest.mark.parametrize(
    "pattern",
    ["^cmp_[0-9]+$", "^[a-z][a-z0-9-]*$", r"^(foo|bar)\d{3}$", "^[A-Z]{2}-\\d{4,6}$", "^exp_[0-9]+$"],
)
def test_a_pattern_sample_matches_its_pattern(pattern: str) -> None:
    for absent in (False, True):
        assert re.search(pattern, pattern_sample(pattern, absent=absent))
    assert pattern_sample(pattern) != pattern_sample(pattern, absent=True)  # the probe names another record


def test_what_a_sample_cannot_make_says_so() -> None:
    with pytest.raises(NoValue):
        pattern_sample("^(?!admin)[a-z]+$")


def test_values_come_from_the_schema() -> None:
    assert value_for({"type": "string", "enum": ["b", "a"]}) == "b"
    assert value_for({"type": "integer", "minimum": 5, "example": 7}) == 7
    assert made_value({"type": "integer", "minimum": 5}) == 5
    assert made_value({"type": "string", "format": "date"}) == "2026-01-15"
    assert made_value({"type": "object", "required": ["n"], "properties": {"n": {"type": "boolean"}}}) == {
        "n": True
    }
