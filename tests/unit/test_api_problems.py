"""The runtime reads the common error-body formats for the API's words and the fields they blame
(issue 12 defect 2, issue 17 defect 11). Bodies are the documented formats of real specs, cited."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import GENERATED


@pytest.fixture(scope="module")
def errors() -> Iterator[ModuleType]:
    """The runtime's errors module, imported from the generated ads package."""
    sys.path.insert(0, str(GENERATED / "ads"))
    try:
        yield importlib.import_module("ads_mcp._runtime.errors")
    finally:
        sys.path.remove(str(GENERATED / "ads"))
        for name in [n for n in sys.modules if n == "ads_mcp" or n.startswith("ads_mcp.")]:
            del sys.modules[name]


CASES: dict[str, tuple[Any, str, tuple[str, ...]]] = {
    # mashape.com/geodb.json /components/schemas/BadRequestResponse/example
    "errors[].message": (
        {"errors": [{"code": "PARAM_INVALID", "message": "Param [someParam] has invalid value: invalidValue"}]},
        "Param [someParam] has invalid value: invalidValue",
        (),
    ),
    # googleapis.com (every Google API): errors[].reason when there is no message, location structured
    "error.errors[].reason with its location": (
        {"error": {"code": 400, "errors": [{"reason": "invalidParameter", "location": "timeMax"}]}},
        "timeMax: invalidParameter",
        ("timeMax",),
    ),
    # an OAuth 2 token endpoint (RFC 6749 section 5.2): the code word and its description
    "error_description": (
        {"error": "invalid_grant", "error_description": "The refresh token has expired."},
        "The refresh token has expired.",
        (),
    ),
    # linqr.app.json /components/schemas/HTTPValidationError (FastAPI)
    "detail[].msg with loc": (
        {"detail": [{"loc": ["query", "limit"], "msg": "ensure this value is less than 100"}]},
        "limit: ensure this value is less than 100",
        ("limit",),
    ),
    # va.gov/confirmation.json /components/schemas/APIError
    "errors[].detail and title": (
        {"errors": [{"code": "103", "detail": "Detailed error message", "title": "Error title"}]},
        "Error title: Detailed error message",
        (),
    ),
    # xero.com/xero_bankfeeds.json /paths/~1Statements/get/responses/400/content/application~1problem+json
    "RFC 7807 title and detail": (
        {"detail": "For the request field missing parameter.", "status": 400, "title": "Invalid Request"},
        "Invalid Request: For the request field missing parameter.",
        (),
    ),
    # RFC 7807 section 3 example: invalid-params [{name, reason}]
    "RFC 7807 invalid-params": (
        {"type": "https://example.net/validation-error", "title": "Your request parameters didn't validate.",
         "invalid-params": [{"name": "age", "reason": "must be a positive integer"}]},
        "Your request parameters didn't validate.; age: must be a positive integer",
        ("age",),
    ),
    # JSON:API (jsonapi.org/format/#error-objects): source.pointer
    "JSON:API source.pointer": (
        {"errors": [{"status": "422", "source": {"pointer": "/data/attributes/firstName"},
                     "title": "Invalid Attribute", "detail": "First name must contain at least two characters."}]},
        "firstName: Invalid Attribute: First name must contain at least two characters.",
        ("firstName",),
    ),
    # Rails: {"errors": {"field": ["message"]}}
    "errors as a field map": ({"errors": {"email": ["is taken"]}}, "email: is taken", ("email",)),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_words_and_fields_of_each_format(errors: ModuleType, case: str) -> None:
    body, said, fields = CASES[case]
    problem = errors.api_problem(body)
    assert problem.said == said
    assert problem.fields == fields


def test_quotes_are_bounded_and_stack_traces_cut(errors: ModuleType) -> None:
    long = errors.api_problem({"errors": [{"message": "x" * 50_000}] * 1000})
    assert len(long.said) <= errors.MAX_QUOTED
    traced = errors.api_problem({"message": 'boom\nTraceback (most recent call last):\n  File "a.py"'})
    assert traced.said == "boom"
    assert errors.api_problem({"status": 500}).said == ""
    assert errors.api_problem([{"message": "a"}, {"message": "b"}, "c", "d"]).said == "a; b; c; and 1 more"


def test_a_nested_location_blames_its_top_level_field_first(errors: ModuleType) -> None:
    assert errors.field_candidates("items.0.data") == ["items", "data"]
    assert errors.field_candidates("timeMax") == ["timeMax"]
