"""`mcpgen init` on an RPC-style API that sends every call by POST (plaid.com.json): the reads are
drafted as read-only finders (`hints: {read_only: true}`, S4), the changes stay changes; the built
server marks them so, and a change's preview may read with them (M230 accepts a marked POST read)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from mcpgen import codes
from mcpgen.authoring.draft import init_mapping
from mcpgen.build.server import build_server
from mcpgen.diagnostics import has_errors
from mcpgen.load.mapping import load_mapping
from mcpgen.load.openapi import load_spec
from tests.support.paths import ROOT
from tests.support.spec_fragments import fragment

PLAID = ROOT / ".cache" / "corpus" / "package" / "api" / "plaid.com.json"
OPERATIONS = [
    ("/item/get", "post"),
    ("/transactions/get", "post"),
    ("/item/webhook/update", "post"),
    ("/item/remove", "post"),
    ("/item/public_token/exchange", "post"),
]


def test_reads_of_an_all_post_api_are_drafted_read_only(tmp_path: Path) -> None:
    spec_file = tmp_path / "plaid.json"
    spec_file.write_text(json.dumps(fragment(PLAID, OPERATIONS)), encoding="utf-8")
    spec = load_spec(spec_file)
    text, _ = init_mapping(spec)
    drafted = yaml.safe_load(text)
    marked = {
        action["operation"]: (action.get("hints") or {}).get("read_only")
        for tool in drafted["tools"]
        for action in tool["actions"]
    }
    assert marked == {
        "itemGet": True,
        "transactionsGet": True,
        "itemWebhookUpdate": None,
        "itemRemove": None,
        "itemPublicTokenExchange": None,
    }
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(text, encoding="utf-8")
    built = build_server(spec, load_mapping(mapping), spec_file="plaid.json", mapping_file="mapping.yaml")
    assert not has_errors(built.diagnostics) and built.server is not None
    hints = {a.operation_id: a.hints.read_only for t in built.server.tools for a in t.actions if a.hints}
    assert hints["itemGet"] and hints["transactionsGet"] and not hints["itemRemove"]


def test_a_preview_reads_with_a_post_only_once_the_mapping_marks_it(tmp_path: Path) -> None:
    spec_file = tmp_path / "plaid.json"
    spec_file.write_text(json.dumps(fragment(PLAID, OPERATIONS)), encoding="utf-8")
    change = """\
  - name: webhook_change
    description: Point the item's webhook at a new URL, after a preview of the change.
    actions:
      - name: update
        operation: itemWebhookUpdate
        confirm: preview
        preview: {read: itemGet}
        params: {access_token: {env: PLAID_ACCESS_TOKEN}, webhook: {current: item.webhook}}
"""
    reader = """\
  - name: item_find
    description: Read the linked bank item. It changes nothing.
    actions:
      - {name: get, operation: itemGet, hints: {read_only: true}, params: {access_token: {env: PLAID_ACCESS_TOKEN}}}
"""
    head = "mcpgen: 1\nserver:\n  name: plaid\n  base_url: {env: PLAID_BASE_URL}\ntools:\n"
    codes_found = []
    for tools in (change, change + reader):
        mapping = tmp_path / "mapping.yaml"
        mapping.write_text(head + tools, encoding="utf-8")
        built = build_server(load_spec(spec_file), load_mapping(mapping), spec_file="s", mapping_file="m")
        codes_found.append({d.code for d in built.diagnostics if d.code == codes.M230})
    assert codes_found == [{codes.M230}, set()]
