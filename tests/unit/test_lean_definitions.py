"""Definitions say each thing once (T3): what every action does and needs is in the tool description,
not repeated in the action enum or in every parameter, and a spec's summary that only repeats the
action's name is left out; link targets and pointer sentences are dropped."""

from __future__ import annotations

import re

from mcpgen.build.contract import contract
from mcpgen.build.schemas import lean_text
from mcpgen.pipeline import generate
from tests.support.paths import ROOT

PETSTORE = ROOT / "specs" / "petstore"


def test_lean_text_keeps_link_text_and_drops_pointer_sentences() -> None:
    text = (
        'The number of results per page (max 100). For more information, see "[Using pagination in the '
        'REST API](https://docs.github.com/rest/using-pagination)." Use `0` for "all."'
    )
    assert lean_text(text, 200) == 'The number of results per page (max 100). Use `0` for "all."'
    assert lean_text("See [the guide](https://example.com/guide) for the format.", 200) == (
        "See the guide for the format."
    )


def test_each_action_is_described_once_in_its_tool() -> None:
    result = generate(PETSTORE / "petstore.openapi.json", PETSTORE / "mapping.yaml")
    assert result.ok and result.server is not None
    for tool in contract(result.server):
        properties = tool["inputSchema"]["properties"]
        description = tool["description"]
        for action in properties["action"]["enum"]:
            # its line: what it needs (in parentheses), what it does unless its name says it all
            assert re.search(rf"\n- {action}(\(|:|\n|$)", description), action
        assert properties["action"]["description"] == "One of the actions the tool description lists."
        for name, schema in properties.items():
            assert "Used by" not in schema.get("description", ""), name
            assert "Required for" not in schema.get("description", ""), name
    orders = next(t for t in contract(result.server) if t["name"] == "petstore_orders")
    assert "- cancel(order_id): Cancel an order by its id." in orders["description"]


def test_a_description_that_is_only_a_pointer_is_kept() -> None:
    text = "For more information, see [Webhooks](https://docs.example.com/webhooks)."
    assert lean_text(text, 200) == "For more information, see Webhooks."


SHARED_SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Repos", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "paths": {
        "/repos/{owner}/issues": {
            "get": {
                "operationId": "listIssues",
                "summary": "List issues",
                "parameters": [
                    {"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "state",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["open", "closed"]},
                        "example": "open",
                    },
                    {"name": "locked", "in": "query", "schema": {"type": "boolean"}, "example": True},
                    {
                        "name": "per_page",
                        "in": "query",
                        "schema": {"type": "integer", "default": 30},
                        "example": 30,
                    },
                    {"name": "label", "in": "query", "schema": {"type": "string"}, "example": "bug"},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/repos/{owner}/issues/{number}": {
            "get": {
                "operationId": "getIssue",
                "summary": "Get an issue",
                "parameters": [
                    {"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "number", "in": "path", "required": True, "schema": {"type": "integer"}},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
}
SHARED_MAPPING = """\
mcpgen: 1
server: {name: repos, title: Repos, version: 0.1.0, description: Issues of repositories.}
tools:
  - name: issues_find
    description: >-
      Look issues up in a repository. Use it to list issues or read one. It changes nothing.
      Returns the issue records.
    actions:
      - {name: list, operation: listIssues}
      - {name: get, operation: getIssue}
"""


def test_what_every_action_needs_and_examples_that_say_nothing_new_are_not_repeated(tmp_path) -> None:
    import json

    (tmp_path / "spec.json").write_text(json.dumps(SHARED_SPEC), encoding="utf-8")
    (tmp_path / "mapping.yaml").write_text(SHARED_MAPPING, encoding="utf-8")
    result = generate(tmp_path / "spec.json", tmp_path / "mapping.yaml")
    assert result.ok and result.server is not None, result.diagnostics
    (tool,) = contract(result.server)
    description = tool["description"]
    assert "Actions (each needs owner, and what is in its parentheses):" in description
    # No "(owner)" of its own, and no "List issues." / "Get an issue.": the names say it.
    assert "- list\n- get(number)" in description
    properties = tool["inputSchema"]["properties"]
    assert "Example" not in properties["state"]["description"]  # the enum lists the values
    assert "Example" not in properties["locked"]["description"]  # a boolean
    assert "Example" not in properties["per_page"]["description"]  # the default says it
    assert 'Example: "bug".' in properties["label"]["description"]
