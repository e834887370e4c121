"""What the build decides about results (R1-R3): paging styles and concise fields derived from the spec,
and the mapping's settings checked against it."""

from __future__ import annotations

from pathlib import Path

from mcpgen.authoring.draft import init_mapping
from mcpgen.build.results import output_schema
from mcpgen.diagnostics import Level
from mcpgen.ir import ActionSpec, ServerSpec
from mcpgen.load.openapi import load_spec
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


# --- real spec fragments (tests/fixtures/shapes/shapes.openapi.yaml names each spec and pointer) -------

SHAPES = ROOT / "tests" / "fixtures" / "shapes"


def _shapes_mapping(tmp_path: Path, actions: str) -> Path:
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: shapes}\ntools:\n  - name: find\n    description: Find.\n    actions:\n"
        + actions
    )
    return mapping


def test_lists_and_records_follow_the_schema_not_the_number_of_arrays() -> None:
    """Issue 12 defect 1 and its reverse; issue 17 defects 8 and 10."""
    actions = _actions(_built(SHAPES / "shapes.openapi.yaml", SHAPES / "mapping.yaml"))
    get = "shapes_records_find."
    # box.com.json /paths/~1webhooks~1{webhook_id}/get: one array field (triggers) in a record.
    assert actions[get + "webhook"].shape.items is None and actions[get + "webhook"].paging is None
    # googleapis.com/metastore.json /paths/~1v1beta~1{parent}~1backups/get: two arrays, one of records.
    backups = actions[get + "backups"]
    assert backups.shape.items == "backups"
    assert (backups.paging.style, backups.paging.next_cursor) == ("cursor", "nextPageToken")
    # azure.com/storage.json .../storageAccounts/get: {value, nextLink}.
    accounts = actions[get + "accounts"]
    assert (accounts.shape.items, accounts.paging.style, accounts.paging.next_link) == (
        "value",
        "link",
        "nextLink",
    )
    # squareup.com.json /paths/~1v2~1payments/get: the body's `cursor` answers the query's `cursor`.
    payments = actions[get + "payments"]
    assert (payments.shape.items, payments.paging.next_cursor) == ("payments", "cursor")
    # twilio.com/twilio_flex_v1.json /paths/~1v1~1Channels/get: Page and PageToken come from the next URL.
    channels = actions[get + "channels"]
    assert (channels.paging.style, channels.paging.next_link) == ("link", "meta.next_page_url")
    assert [p.arg_name for p in channels.params] == ["limit"]
    assert [p.wire_name for p in channels.params] == ["PageSize"]
    # squareup.com.json /paths/~1v2~1payments~1{payment_id}/get: {errors, payment} is one payment.
    payment = actions[get + "payment"]
    assert (payment.shape.items, payment.shape.record) == (None, "payment")
    assert "id" in payment.shape.concise and "amount_money" not in payment.shape.concise


def test_pagination_on_a_one_record_answer_is_a_warning_with_the_pointer(tmp_path: Path) -> None:
    """Issue 12 defect 3. box.com.json /paths/~1webhooks~1{webhook_id}/get answers one Webhook."""
    mapping = _shapes_mapping(
        tmp_path,
        "      - name: webhook\n        operation: get_webhooks_id\n        pagination: {style: limit, limit: x}\n",
    )
    result = generate(SHAPES / "shapes.openapi.yaml", mapping)
    assert [d.code for d in result.diagnostics if d.level == Level.ERROR] == ["M216"]  # x is no parameter
    mapping = _shapes_mapping(
        tmp_path,
        "      - name: webhook\n        operation: get_webhooks_id\n        pagination: {style: link}\n",
    )
    result = generate(SHAPES / "shapes.openapi.yaml", mapping)
    assert result.ok
    [warned] = [d for d in result.diagnostics if d.code == "M226"]
    assert warned.level == Level.WARNING and warned.source.line == 9  # the mapping's pagination
    assert "/components/schemas/Webhook" in warned.message and "one record" in warned.message
    assert "response: {items:" in warned.hint


def test_single_true_keeps_a_list_shaped_answer_one_record(tmp_path: Path) -> None:
    """googleapis.com/metastore.json /paths/~1v1beta~1{parent}~1backups/get, as the mapping overrides it."""
    mapping = _shapes_mapping(
        tmp_path,
        "      - name: backups\n        operation: metastore.projects.locations.services.backups.list\n"
        "        response: {single: true}\n",
    )
    actions = _actions(_built(SHAPES / "shapes.openapi.yaml", mapping))
    assert actions["shapes_find.backups"].shape.items is None
    assert actions["shapes_find.backups"].paging is None


AMBIGUOUS_SPEC = """
openapi: 3.0.3
info: {title: Browshot, version: 1.0.0}
servers: [{url: "https://api.browshot.com/api/v1"}]
paths:
  # browshot.com.json /paths/~1instance~1list/get, /components/schemas/InstanceList: three lists of
  # instances, none named for the path.
  /instance/list:
    get:
      operationId: instanceList
      responses:
        "200":
          description: Instance information
          content:
            application/json:
              schema: {$ref: "#/components/schemas/InstanceList"}
  # discourse.local.json /paths/~1groups~1{id}~1members.json/get: members and owners beside meta paging.
  /groups/{id}/members.json:
    get:
      operationId: listGroupMembers
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: success response
          content:
            application/json:
              schema:
                type: object
                properties:
                  members: {type: array, items: {$ref: "#/components/schemas/Member"}}
                  owners: {type: array, items: {$ref: "#/components/schemas/Member"}}
                  meta: {type: object, properties: {limit: {type: integer}, offset: {type: integer}, total: {type: integer}}}
components:
  schemas:
    Instance:
      type: object
      properties: {id: {type: integer}, width: {type: integer}, height: {type: integer}}
    InstanceList:
      type: object
      properties:
        free: {type: array, items: {$ref: "#/components/schemas/Instance"}}
        private: {type: array, items: {$ref: "#/components/schemas/Instance"}}
        shared: {type: array, items: {$ref: "#/components/schemas/Instance"}}
    Member:
      type: object
      properties: {id: {type: integer}, username: {type: string}}
"""


def test_an_answer_with_several_unnamed_lists_is_one_record_and_says_how_to_name_one(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(AMBIGUOUS_SPEC)
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: shots}\ntools:\n  - name: find\n    description: Find.\n    actions:\n"
        "      - {name: instances, operation: instanceList}\n      - {name: members, operation: listGroupMembers}\n"
    )
    result = generate(spec, mapping)
    assert result.ok and result.server is not None
    actions = _actions(result.server)
    assert actions["shots_find.instances"].shape.items is None
    [warned] = [d for d in result.diagnostics if d.code == "M225"]
    assert warned.level == Level.WARNING and "free, private, shared" in warned.message
    assert "response: {items: free}" in warned.hint and "response: {single: true}" in warned.hint
    assert warned.source.pointer == "/components/schemas/InstanceList"
    # The path names the list: members.json lists members, owners is a field beside it.
    assert actions["shots_find.members"].shape.items == "members"


def test_a_search_sent_by_post_pages_by_its_body_fields_when_the_mapping_says_it_reads(
    tmp_path: Path,
) -> None:
    """Issue 17 defect 8 (body cursor). squareup.com.json /paths/~1v2~1customers~1search/post and
    /paths/~1v2~1orders~1search/post: `cursor` and `limit` are fields of the JSON request body
    (/components/schemas/SearchCustomersRequest, SearchOrdersRequest); the answer's `cursor` is the next."""
    actions = _actions(_built(SHAPES / "shapes.openapi.yaml", SHAPES / "mapping.yaml"))
    for name, default in (("customers_search", 20), ("orders_search", 4)):
        search = actions[f"shapes_records_find.{name}"]
        assert (search.paging.style, search.paging.next_cursor, search.paging.limit_arg) == (
            "cursor",
            "cursor",
            "limit",
        )
        paging_params = [
            (p.arg_name, p.wire_name, p.location) for p in search.params if p.arg_name in ("cursor", "limit")
        ]
        assert paging_params == [("cursor", "cursor", "body"), ("limit", "limit", "body")]
        assert dict(search.defaults)["limit"] == default
        assert [p.arg_name for p in search.server_params] == ["response_format"]
    # The spec's maximum bounds the body limit as it bounds a query one (SearchCustomersRequest.limit: 100).
    assert actions["shapes_records_find.customers_search"].paging.max_limit == 100
    assert actions["shapes_records_find.orders_search"].shape.items == "orders"
    # Both read (S4): one by its hints, the other because the mapping pages it.
    assert all(
        actions[f"shapes_records_find.{n}"].hints.read_only for n in ("customers_search", "orders_search")
    )
    # Unmarked, a POST stays a change: no paging, no response_format, nothing taken from its body.
    plain = _shapes_mapping(tmp_path, "      - name: search\n        operation: SearchCustomers\n")
    search = _actions(_built(SHAPES / "shapes.openapi.yaml", plain))["shapes_find.search"]
    assert search.paging is None and search.shape is None and search.server_params == ()


def test_paging_a_post_the_mapping_says_changes_things_is_an_error_that_says_how_to_mark_a_read(
    tmp_path: Path,
) -> None:
    """Issue 17 defect 8: `hints: {read_only: false}` beats `pagination:`; the error names the way out."""
    mapping = _shapes_mapping(
        tmp_path,
        "      - name: search\n        operation: SearchOrders\n        hints: {read_only: false}\n"
        "        pagination: {default_limit: 4}\n",
    )
    result = generate(SHAPES / "shapes.openapi.yaml", mapping)
    [problem] = [d for d in result.diagnostics if d.level == Level.ERROR]
    assert problem.code == "M214" and "hints: {read_only: true}" in problem.hint


# --- paging of real APIs (tests/fixtures/paging/paging.openapi.yaml names each spec and pointer) -------

PAGING = ROOT / "tests" / "fixtures" / "paging"


def test_an_offset_inside_a_body_object_pages_a_read_sent_by_post() -> None:
    """plaid.com.json /paths/~1transactions~1get/post: `pagination: {offset: options.offset, limit:
    options.count}` used to be refused (M216, "computes an offset into the query only")."""
    actions = _actions(_built(PAGING / "paging.openapi.yaml", PAGING / "mapping.yaml"))
    plaid = actions["paging_records_find.transactions"]
    paging = plaid.paging
    assert (paging.style, paging.offset_wire, paging.offset_in_body) == ("offset", "options.offset", True)
    assert paging.total == "total_transactions" and paging.max_limit == 500
    limit = next(p for p in plaid.params if p.arg_name == "limit")
    assert (limit.location, limit.wire_name, limit.path) == ("body", "options", ("count",))
    assert "offset" not in str([p.wire_path for p in plaid.params])  # the server computes it from page
    assert [p.arg_name for p in plaid.server_params] == ["page", "response_format"]
    assert plaid.shape.items == "transactions" and plaid.shape.lists == ("accounts",)


def test_paging_is_read_from_each_answer_by_meaning() -> None:
    """Cursor parameters named like the answer's next cursor, totals under their many names (beside
    the list, in a paging object, in a header), a next_page that ends the list, every list of records."""
    actions = _actions(_built(PAGING / "paging.openapi.yaml", PAGING / "mapping.yaml"))
    found = {
        name.split(".")[1]: (a.paging.style, a.paging.next_cursor, a.paging.total, a.paging.total_header)
        for name, a in actions.items()
    }
    assert found == {
        "transactions": ("offset", None, "total_transactions", None),
        "transaction_updates": ("cursor", "next_cursor", None, None),
        "contacts": (
            "cursor",
            "next_page_token",
            None,
            None,
        ),  # zoom.us.json: was "limit", page 2 unreachable
        "users": ("cursor", "next_page_token", "total_records", None),  # page_count counts pages, not users
        "linodes": (
            "page",
            None,
            "results",
            None,
        ),  # linode.com.json PaginationEnvelope: "The total number of results."
        "videos": ("page", None, "pagination.itemsTotal", None),  # not pagesTotal nor currentPageItems
        "commits": ("page", None, None, "X-Total"),  # gitea.io.json: a header; not X-PageCount
        "workflows": ("page", None, None, None),
    }
    assert actions["paging_records_find.workflows"].paging.next_page == "pagination.next_page"
    sync = actions["paging_records_find.transaction_updates"]
    assert sync.shape.items == "added" and sync.shape.lists == ("modified", "removed")
    assert [
        (p.arg_name, p.wire_name, p.location) for p in sync.params if p.arg_name in ("cursor", "limit")
    ] == [
        ("cursor", "cursor", "body"),
        ("limit", "count", "body"),
    ]
    # The outputSchema allows what each list says: has_more null with rest, a total, the other lists.
    [tool] = _built(PAGING / "paging.openapi.yaml", PAGING / "mapping.yaml").tools
    output = output_schema(tool.actions)["properties"]
    assert output["has_more"] == {"type": ["boolean", "null"]} and output["rest"] == {"type": "string"}
    assert output["total_count"] == {"type": "integer"}
    assert output["modified"] == output["removed"] == output["accounts"] == {"type": "array"}


def test_a_count_of_this_page_is_not_a_total(tmp_path: Path) -> None:
    """anchore.io.json /components/schemas/EventsList: `item_count` is "Number of events in this page",
    and `next_page` a boolean that says whether more follow."""
    spec = tmp_path / "anchore.yaml"
    spec.write_text(
        "openapi: 3.0.0\ninfo: {title: Anchore, version: '1'}\nservers: [{url: 'https://anchore.example'}]\n"
        "paths:\n  /events:\n    get:\n      operationId: list_events\n      parameters:\n"
        "        - {name: page, in: query, schema: {type: integer}}\n"
        "        - {name: limit, in: query, schema: {type: integer}}\n"
        "      responses:\n        '200':\n          description: Paginated event list\n"
        "          content: {application/json: {schema: {$ref: '#/components/schemas/EventsList'}}}\n"
        "components:\n  schemas:\n    EventsList:\n      type: object\n      properties:\n"
        "        item_count: {description: Number of events in this page, type: integer}\n"
        "        next_page: {description: 'Boolean flag, True indicates there are more events', type: boolean}\n"
        "        page: {description: Page number of this result set, type: integer}\n"
        "        results: {description: List of events, type: array, items: {type: object, properties: "
        "{event_id: {type: string}}}}\n"
    )
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: anchore}\ntools:\n  - name: find\n    description: Find.\n    actions:\n"
        "      - {name: events, operation: list_events}\n"
    )
    events = _actions(_built(spec, mapping))["anchore_find.events"]
    assert events.shape.items == "results"
    assert (events.paging.style, events.paging.total, events.paging.next_page) == ("page", None, "next_page")


def test_a_pagination_path_the_answer_lacks_is_a_warning_with_the_pointer(tmp_path: Path) -> None:
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: paging}\ntools:\n  - name: find\n    description: Find.\n    actions:\n"
        "      - name: linodes\n        operation: getLinodeInstances\n        pagination: {total: result}\n"
    )
    result = generate(PAGING / "paging.openapi.yaml", mapping)
    assert result.ok
    [warned] = [d for d in result.diagnostics if d.code == "M228"]
    assert warned.level == Level.WARNING and warned.source.line == 9
    assert (
        "pagination.total 'result'" in warned.message and "/paths/~1linode~1instances/get" in warned.message
    )
    assert "did you mean 'results'" in warned.hint


def test_init_drafts_a_search_sent_by_post_with_its_body_paging(tmp_path: Path) -> None:
    """`mcpgen init` on plaid.com.json /paths/~1transactions~1get/post drafts it read-only, its list (the
    one total_transactions counts, beside accounts) and its paging inside `options`; the GETs' token
    paging (zoom.us.json's next_page_token) needs nothing drafted, and the draft builds as it is."""
    spec = load_spec(PAGING / "paging.openapi.yaml")
    text = init_mapping(spec)[0]
    assert "hints: {read_only: true}" in text and "response: {items: transactions}" in text
    assert "pagination: {limit: options.count, offset: options.offset}" in text
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(text, encoding="utf-8")
    actions = {
        a.operation_id: a for t in _built(PAGING / "paging.openapi.yaml", mapping).tools for a in t.actions
    }
    plaid, zoom = actions["transactionsGet"].paging, actions["getUserContacts"].paging
    assert (plaid.style, plaid.offset_wire, plaid.offset_in_body) == ("offset", "options.offset", True)
    assert (zoom.style, zoom.next_cursor) == ("cursor", "next_page_token")


REAL = ROOT / "tests" / "fixtures" / "realspecs"


def test_every_json_media_type_is_read_as_the_answers_schema() -> None:
    """salesloft.com.json answers `*/*` only: its Person schema is read, so the concise set the mapping
    names is checked and the list's records get a derived one."""
    from mcpgen.build.records import json_rank

    assert [json_rank(m) for m in ("application/json", "application/json; charset=utf-8")] == [0, 0]
    assert {json_rank(m) for m in ("application/vnd.api+json", "text/json", "application/x-json")} == {1}
    assert [json_rank(m) for m in ("*/*", "application/*", "text/csv", "application/xml")] == [
        2,
        2,
        None,
        None,
    ]
    actions = _actions(_built(REAL / "salesloft-people.json", REAL / "salesloft.mapping.yaml"))
    people, one = actions["salesloft_people.list"], actions["salesloft_people.get"]
    assert people.shape.items == "" and {"id", "display_name"} <= set(people.shape.concise)
    assert one.shape.named and "email_address" in one.result_fields


def test_derived_concise_sets_keep_one_identifier_and_the_name() -> None:
    """vercel.com.json's Deployment has `uid` and no `id`; zoom.us.json's meeting has `id` and `uuid`,
    and is named by its `topic`."""
    vercel = _actions(_built(REAL / "vercel-deployments.json", REAL / "vercel.mapping.yaml"))
    zoom = _actions(_built(REAL / "zoom-meeting.json", REAL / "zoom.mapping.yaml"))
    assert {"uid", "name", "state"} <= set(vercel["vercel_deployments.list"].shape.concise)
    meeting = zoom["zoom_meetings.get"].shape
    assert {"id", "topic"} <= set(meeting.concise) and "uuid" not in meeting.concise and not meeting.named


def test_a_named_concise_set_without_an_id_or_name_is_warned_at_its_line(tmp_path: Path) -> None:
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: ads}\ntools:\n  - name: find\n    description: Find.\n    actions:\n"
        "      - name: get\n        operation: getCampaign\n        response:\n"
        "          concise: [status, daily_budget]\n"
    )
    result = generate(SPECS / "ads" / "ads.openapi.yaml", mapping)
    [warned] = [d for d in result.diagnostics if d.code == "M229"]
    assert (warned.level, warned.source.line, warned.source.pointer) == (
        Level.WARNING,
        10,
        "/tools/0/actions/0/response/concise",
    )
    assert (
        "identifies or names a record" in warned.message
        and "(/components/schemas/Campaign)" in warned.message
    )
    assert warned.hint == "add id and name:  concise: [id, name, status, daily_budget]"


def test_response_settings_of_an_action_answering_a_file_are_refused(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: Reports, version: '1'}\npaths:\n  /report:\n    get:\n"
        "      operationId: getReport\n      responses:\n        '200':\n          description: A CSV file.\n"
        "          content:\n            text/csv:\n              schema: {type: string}\n"
    )
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: reports}\ntools:\n  - name: read\n    description: Read.\n    actions:\n"
        "      - name: report\n        operation: getReport\n        response:\n          concise: [id]\n"
    )
    result = generate(spec, mapping)
    # A CSV file is returned whole as the result's content: no fields to choose from.
    [refused] = [d for d in result.diagnostics if d.code == "M214"]
    assert refused.level == Level.ERROR and refused.source.line == 9, refused
    assert "answers a file (text/csv)" in refused.message
