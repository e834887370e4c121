"""What the build decides about results (R1-R3): paging styles and concise fields derived from the spec,
and the mapping's settings checked against it."""

from __future__ import annotations

from pathlib import Path

from mcpgen.diagnostics import Level
from mcpgen.ir import ActionSpec, ServerSpec
from mcpgen.pipeline import generate
from tests.support.paths import ROOT, SPECS

PAGES = ROOT / "tests" / "fixtures" / "pages"


def _built(spec: Path, mapping: Path) -> ServerSpec:
    result = generate(spec, mapping)
    assert result.ok, result.diagnostics
    assert result.server is not None
    return result.server


def _actions(server: ServerSpec) -> dict[str, ActionSpec]:
    return {f"{t.name}.{a.name}": a for t in server.tools for a in t.actions}


def test_paging_styles_are_derived_from_parameters_body_fields_and_link_headers() -> None:
    actions = _actions(_built(PAGES / "pages.openapi.yaml", PAGES / "mapping.yaml"))
    books, events, commits, note = (
        actions[f"pages_catalog_find.{n}"] for n in ("books", "events", "commits", "note")
    )
    assert (books.paging.style, books.paging.offset_wire, books.paging.total) == ("offset", "offset", "total")
    assert [p.arg_name for p in books.params] == ["limit"]  # the offset is the server's to compute
    assert [p.arg_name for p in books.server_params] == ["page", "response_format"]
    assert (events.paging.style, events.paging.next_cursor, events.paging.has_more) == (
        "cursor",
        "meta.next_cursor",
        "meta.has_more",
    )
    assert [(p.arg_name, p.wire_name) for p in events.params] == [
        ("cursor", "cursor"),
        ("limit", "page_size"),
    ]
    assert commits.paging.style == "link" and commits.shape.items == ""
    assert note.paging is None and note.shape.items is None
    # Default and maximum: the spec's when it has them, else 20 and 100.
    assert dict(books.defaults)["limit"] == 10 and books.paging.max_limit == 60
    assert dict(events.defaults)["limit"] == 20 and events.paging.max_limit == 50


def test_ads_list_folds_its_page_fields_into_the_one_shape() -> None:
    actions = _actions(_built(SPECS / "ads" / "ads.openapi.yaml", SPECS / "ads" / "mapping.yaml"))
    listing = actions["ads_campaigns_find.list"]
    assert listing.paging.style == "page" and listing.paging.echoed == ("page", "per_page")
    assert listing.shape.items == "campaigns" and listing.shape.concise == (
        "id",
        "name",
        "status",
        "daily_budget",
    )
    assert actions["ads_campaigns_find.search"].paging.style == "limit"
    assert actions["ads_campaign_change.create"].shape is None  # response_format is for reads only


def test_concise_is_derived_for_large_records_when_the_mapping_names_none(tmp_path: Path) -> None:
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: ads}\ntools:\n  - name: find\n    description: Find.\n    actions:\n"
        "      - {name: get, operation: getCampaign}\n      - {name: account, operation: getAccount}\n"
    )
    actions = _actions(_built(SPECS / "ads" / "ads.openapi.yaml", mapping))
    # ids, names, status and dates of a 12-field record; a 4-field record is concise already.
    assert actions["ads_find.get"].shape.concise == (
        "id",
        "name",
        "status",
        "start_date",
        "created_at",
        "updated_at",
    )
    assert actions["ads_find.account"].shape.concise == ()


def test_a_field_the_records_lack_is_a_located_warning(tmp_path: Path) -> None:
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: ads}\ntools:\n  - name: find\n    description: Find.\n    actions:\n"
        "      - name: get\n        operation: getCampaign\n        response: {concise: [id, nmae]}\n"
    )
    result = generate(SPECS / "ads" / "ads.openapi.yaml", mapping)
    [warned] = [d for d in result.diagnostics if d.code == "M215"]
    assert warned.level == Level.WARNING and warned.source.line == 9
    assert "'nmae'" in warned.message and "did you mean 'name'" in warned.hint


def test_one_limit_property_states_each_actions_bounds() -> None:
    [tool] = _built(PAGES / "pages.openapi.yaml", PAGES / "mapping.yaml").tools
    limit = tool.input_schema["properties"]["limit"]
    assert (
        limit["maximum"] == 60 and "default" not in limit
    )  # the defaults differ, so none is stated as the one
    assert (
        "books 1 to 60 (default 10); events 1 to 50 (default 20); commits 1 to 30 (default 30)"
        in limit["description"]
    )
