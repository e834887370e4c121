"""Definitions say each thing once (T3): what every action does and needs is in the tool description,
not repeated in the action enum or in every parameter; link targets and pointer sentences are dropped."""

from __future__ import annotations

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
            assert f"\n- {action}: " in description  # its line: what it does, what it needs
        assert (
            properties["action"]["description"]
            == "What to do: one of the actions the tool description lists."
        )
        for name, schema in properties.items():
            assert "Used by" not in schema.get("description", ""), name
            assert "Required for" not in schema.get("description", ""), name
    orders = next(t for t in contract(result.server) if t["name"] == "petstore_orders")
    assert "- cancel: Cancel an order by its id. Needs: order_id." in orders["description"]


def test_a_description_that_is_only_a_pointer_is_kept() -> None:
    text = "For more information, see [Webhooks](https://docs.example.com/webhooks)."
    assert lean_text(text, 200) == "For more information, see Webhooks."
