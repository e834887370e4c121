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
    # plaid.com.json /components/schemas/PlaidError: error_message beside display_message, read by key words
    "Plaid error_message": (
        {"error_type": "ITEM_ERROR", "error_code": "ITEM_LOGIN_REQUIRED", "display_message": None,
         "error_message": "a user login is required to update this information.", "request_id": "m8MDnv9okw"},
        "a user login is required to update this information.",
        (),
    ),
    # api.video.json /paths/~1videos/post/responses/400 example: problems[] of {name, title}
    "api.video problems[]": (
        {"name": "title", "problems": [{"name": "title", "title": "This attribute is required."},
                                       {"name": "tags", "title": "This attribute must be an array."}],
         "status": 400, "title": "This attribute is required."},
        "title: This attribute is required.; tags: This attribute must be an array.",
        ("title", "tags"),
    ),
    # cpy.re/peertube.json: RFC 7807 invalid-params as a map of field -> {location, msg, param}
    "PeerTube invalid-params map": (
        {"detail": "Incorrect request parameters: id", "title": "Bad Request", "type": "about:blank",
         "invalid-params": {"id": {"location": "params", "msg": "Invalid value", "param": "id"}}},
        "Bad Request: Incorrect request parameters: id; id: Invalid value",
        ("id",),
    ),
    # ASP.NET Web API: {"Message", "ModelState": {field: [messages]}}, keys in PascalCase
    "ASP.NET Message and ModelState": (
        {"Message": "The request is invalid.", "ModelState": {"Name": ["The Name field is required."]}},
        "The request is invalid.; Name: The Name field is required.",
        ("Name",),
    ),
    # Django REST framework: field -> [messages] at the top
    "Django REST field map": ({"email": ["This field is required."]}, "email: This field is required.", ("email",)),
    # Slack: {"ok": false, "error": "<code word>"}
    "Slack error code word": ({"ok": False, "error": "channel_not_found"}, "channel_not_found", ()),
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


def test_error_codes_are_read_from_code_keys_in_any_case(errors: ModuleType) -> None:
    assert errors.api_problem({"error_code": "PRODUCT_NOT_READY", "error_message": "x"}).codes == (
        "PRODUCT_NOT_READY",
    )
    assert errors.api_problem({"ErrorCode": 1001}).codes == ("1001",)
    assert errors.api_problem({"errors": [{"code": "PARAM_INVALID", "message": "m"}]}).codes == (
        "PARAM_INVALID",
    )
    assert errors.api_problem({"error": "invalid_grant", "error_description": "expired"}).codes == (
        "invalid_grant",
    )
    assert errors.api_problem({"error": "Bad Request", "message": "m"}).codes == ()  # Spring's words, no code
    # a key naming a code, a link or a type is never quoted as the API's words
    assert errors.api_problem({"error_type": "ITEM_ERROR", "documentation_url": "https://x"}).said == ""


def test_a_nested_location_blames_its_top_level_field_first(errors: ModuleType) -> None:
    assert errors.field_candidates("items.0.data") == ["items", "data"]
    assert errors.field_candidates("timeMax") == ["timeMax"]
