"""The oracle's value classes (scripts/sweep/oracle_classes.py): each class of silently wrong result is
caught on a seeded case, made of recorded exchanges. The API's side of each exchange is made by the
upstream layer itself (oracle_variants.reshape, what the recording proxy sends the server); the
server's side is what a server with the defect returned, and beside it what a right one returns, which
the judge must leave alone."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from scripts.sweep.oracle_classes import EXACT_VALUE, class_findings, static_class_findings
from scripts.sweep.oracle_derive import Derived, Unit, derive
from scripts.sweep.oracle_judge import Call, Finding, judge
from scripts.sweep.oracle_spec import SpecDoc
from scripts.sweep.oracle_upstream import Exchange
from scripts.sweep.oracle_variants import error_text, failure_text, page_of, reshape

PAYMENT = {"id": "pay_1", "amount": 1250, "currency": "usd", "status": "paid", "description": "Tea"}
SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1"},
    "paths": {
        "/payments": {
            "get": {
                "parameters": [{"name": "page_token", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "payments": {"type": "array", "items": {"$ref": "#/components/schemas/Payment"}},
                        "next_page_token": {"type": "string"}, "total_records": {"type": "integer"}}}}}}},
            },
            "post": {
                "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
                    "amount": {"type": "integer"}, "description": {"type": "string"},
                    "client_secret": {"type": "string"},
                    "token": {"type": "string", "description": "Your API key, from the dashboard."}}}}}},
                "responses": {"201": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Payment"}}}},
                    "default": {"description": "error", "content": {"application/json": {"schema": {
                        "type": "object", "properties": {"message": {"type": "string"}}}}}}},
            },
        },
        "/payments/{id}": {
            "get": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "content": {"*/*": {
                    "schema": {"$ref": "#/components/schemas/Payment"}}}}},
            }
        },
    },
    "components": {"schemas": {"Payment": {"type": "object", "properties": {
        "id": {"type": "string"}, "amount": {"type": "integer"}, "currency": {"type": "string"},
        "status": {"type": "string"}, "description": {"type": "string"}}}}},
}  # fmt: skip
DOC = SpecDoc(SPEC)
MONEY = Unit("payment_change", "create", "amount", "money", "usd", 100.0)


def action(name: str, method: str, path: str, *, read: bool = True, params: tuple[Any, ...] = ()) -> Any:
    return SimpleNamespace(name=name, method=method, path=path, shape=object() if read else None, paging=None,
                           params=params, result_units=(), body="json" if method == "POST" else None,
                           required=(), confirm=None)  # fmt: skip


def exchange(method: str, path: str, variant: dict[str, Any] | None, answer: Any, *, status: int = 200,
             query: list[tuple[str, str]] | None = None, sent: Any = None) -> Exchange:  # fmt: skip
    """One exchange as the recording proxy keeps it: Prism's answer, reshaped by the variant when there is one."""
    e = Exchange(method, path, query or [], {}, sent, status=status, response_headers={}, response=answer)
    if variant is not None:
        e.status, e.response_headers, e.response, e.variant = reshape(
            variant, base_url="http://127.0.0.1:9", path=path, query=e.query, body_sent=sent, status=status,
            headers={"content-type": "application/json"}, body=answer)  # fmt: skip
    return e


def call(tool: str, act: Any, step: str, ex: Exchange | None, *, data: Any = None, text: str = "",
         is_error: bool = False, args: dict[str, Any] | None = None, **extra: Any) -> Call:  # fmt: skip
    op = DOC.operation(act.method, act.path)
    assert op is not None
    return Call(doc=DOC, op=op, tool=tool, action=act, step=step, args=args or {"action": act.name}, unsure=set(),
                input_properties={}, exchanges=[ex] if ex else [], data=data, text=text or json.dumps(data),
                is_error=is_error, derived=Derived(units=[MONEY]), extra=extra)  # fmt: skip


def kinds(found: list[Finding], category: str) -> list[str]:
    return [f.kind for f in found if f.category == category]


LIST = action("list", "GET", "/payments")
GET = action("get", "GET", "/payments/{id}")
CREATE = action("create", "POST", "/payments", read=False)


# ---- 1: a result unit leaking across tools, or applied to what is not a number ----------------------


def test_a_unit_declared_on_another_action_converting_this_result_is_a_leak() -> None:
    body = {"payments": [PAYMENT]}
    leaked = call("shop_payments_find", LIST, "full", exchange("GET", "/payments", None, body),
                  data={"items": [{**{k: v for k, v in PAYMENT.items() if k != "amount"}, "amount_usd": 12.5}]},
                  args={"action": "list", "response_format": "detailed"})  # fmt: skip
    assert kinds(class_findings(leaked), "g") == ["unit-leak"]
    kept = call("shop_payments_find", LIST, "full", exchange("GET", "/payments", None, body),
                data={"items": [PAYMENT]}, args={"action": "list", "response_format": "detailed"})  # fmt: skip
    assert kinds(class_findings(kept), "g") == []


def test_a_result_field_of_the_converted_parameters_own_schema_slot_is_converted_by_design() -> None:
    """The design scopes a result unit by schema slot (JSON pointer): a create whose body is a Payment
    converts the amount of every Payment an answer holds, and the judge must not call that a leak; an
    inline body field of the same name is another slot, and converting by it is one."""
    shared = json.loads(json.dumps(SPEC))
    shared["paths"]["/payments"]["post"]["requestBody"]["content"]["application/json"]["schema"] = {
        "$ref": "#/components/schemas/Payment"}  # fmt: skip
    body = {"payments": [PAYMENT]}
    shown = {"items": [{**{k: v for k, v in PAYMENT.items() if k != "amount"}, "amount_usd": 12.5}]}

    def listed(doc: SpecDoc, data: Any = shown) -> Call:
        c = call("shop_payments_find", LIST, "full", exchange("GET", "/payments", None, body), data=data,
                 args={"action": "list", "response_format": "detailed"})  # fmt: skip
        c.doc, c.op = doc, doc.operation("GET", "/payments")
        c.derived = Derived(
            units=[Unit("payment_change", "create", "amount", "money", "usd", 100.0, "POST /payments")]
        )
        return c

    assert kinds(class_findings(listed(SpecDoc(shared))), "g") == []
    wrong = {"items": [{**{k: v for k, v in PAYMENT.items() if k != "amount"}, "amount_usd": 1250}]}
    assert kinds(class_findings(listed(SpecDoc(shared), wrong)), "g") == ["unit-wrong-value"]
    assert kinds(class_findings(listed(DOC)), "g") == ["unit-leak"]  # the inline body field: another slot
    by_id = json.loads(json.dumps(shared))
    by_id["paths"]["/payments"]["post"]["operationId"] = "createPayment"  # a hand-written mapping's way
    named = listed(SpecDoc(by_id))
    named.derived = Derived(
        units=[Unit("payment_change", "create", "amount", "mapping", "usd", 100.0, "createPayment")]
    )
    assert kinds(class_findings(named), "g") == []


def test_a_declared_unit_must_divide_a_number_by_its_factor() -> None:
    def created(raw: Any, shown: Any) -> Call:
        answer = {**PAYMENT, "amount": raw}
        data = {**{k: v for k, v in PAYMENT.items() if k != "amount"}, "amount_usd": shown}
        return call("shop_payment_change", CREATE, "full", exchange("POST", "/payments", None, answer, status=201),
                    data=data)  # fmt: skip

    assert kinds(class_findings(created(1250, 12.5)), "g") == []
    assert kinds(class_findings(created("12.50", 0.125)), "g") == ["unit-on-non-number"]
    assert kinds(class_findings(created(None, None)), "g") == []  # no value, nothing converted
    assert kinds(class_findings(created(1250, 1250)), "g") == ["unit-wrong-value"]


# ---- 2: exactness refusing valid values -------------------------------------------------------------


def test_an_amount_of_whole_cents_must_reach_the_api_as_cents() -> None:
    extra = {"wire": "amount", "at": "body", "arg": "amount_usd", "factor": 100.0}
    refused = call("shop_payment_change", CREATE, "exact", None, is_error=True,
                   text="Error: amount_usd=0.30000000000000004 is finer than 0.01 usd", **extra)  # fmt: skip
    assert kinds(judge(refused), "h") == ["exact-value-refused"]
    assert kinds(judge(refused), "c") == []  # counted once, under its own class
    sent = call("shop_payment_change", CREATE, "exact",
                exchange("POST", "/payments", None, PAYMENT, status=201, sent={"amount": 30}), data=PAYMENT, **extra)  # fmt: skip
    assert kinds(class_findings(sent), "h") == []
    off = call("shop_payment_change", CREATE, "exact",
               exchange("POST", "/payments", None, PAYMENT, status=201, sent={"amount": EXACT_VALUE * 100}),
               data=PAYMENT, **extra)  # fmt: skip
    assert kinds(class_findings(off), "h") == ["exact-value-misconverted"]
    # Stopped before its value was weighed (no user to call the API for): no verdict on exactness.
    no_user = call("shop_payment_change", CREATE, "exact", None, is_error=True,
                   text="Error: this server calls the API with each user's own account, and this call has no "
                        "user: it did not come over HTTP with an access token of this server.", **extra)  # fmt: skip
    assert kinds(class_findings(no_user), "h") == []


# ---- 3 and 8: concise results emptier than the record -----------------------------------------------


def test_a_concise_record_wrapped_in_data_must_not_come_back_empty() -> None:
    ex = exchange("GET", "/payments/pay_1", {"kind": "data"}, PAYMENT)
    assert ex.response == {"data": PAYMENT} and ex.variant == {"kind": "wrap", "key": "data"}
    empty = call("shop_payments_find", GET, "concise", ex, data={})
    found = judge(empty)
    assert kinds(found, "i") == ["concise-empty"] and "wrapped in 'data'" in found[0].detail
    shown = call("shop_payments_find", GET, "concise", ex, data={"data": {"id": "pay_1", "status": "paid"}})
    assert kinds(judge(shown), "i") == []


def test_concise_lists_of_empty_records_and_a_dropped_id_are_caught() -> None:
    ex = exchange("GET", "/payments", None, {"payments": [PAYMENT, {**PAYMENT, "id": "pay_2"}]})
    empties = call("shop_payments_find", LIST, "minimal", ex, data={"items": [{}, {}], "has_more": False})
    assert kinds(class_findings(empties), "i") == ["concise-empty-items"]
    no_id = call("shop_payments_find", LIST, "minimal", ex,
                 data={"items": [{"status": "paid"}, {"status": "paid"}], "has_more": False})  # fmt: skip
    assert kinds(class_findings(no_id), "i") == ["concise-dropped-id"]
    right = call("shop_payments_find", LIST, "minimal", ex,
                 data={"items": [{"id": "pay_1"}, {"id": "pay_2"}], "has_more": False})  # fmt: skip
    assert kinds(class_findings(right), "i") == []
    # Concise fields the mapping names without the id: the records show what it asked for.
    no_id.derived = Derived(units=[MONEY], concise={"payments_find.list": ["status"]})
    assert kinds(class_findings(no_id), "i") == []
    no_id.derived = Derived(units=[MONEY], concise={"payments_find.list": ["id", "status"]})
    assert kinds(class_findings(no_id), "i") == ["concise-dropped-id"]


def test_the_oracle_reads_the_application_json_answer_before_other_json_media() -> None:
    """A client asking for JSON gets application/json (va.gov lists a GeoJSON Feature first): the record
    the oracle derives concise fields from, and judges, is that one."""
    spec = json.loads(json.dumps(SPEC))
    spec["paths"]["/payments/{id}"]["get"]["responses"]["200"]["content"] = {
        "application/geo+json": {"schema": {"type": "object", "properties": {"type": {"type": "string"}}}},
        "application/json": {"schema": {"$ref": "#/components/schemas/Payment"}}}  # fmt: skip
    op = SpecDoc(spec).operation("GET", "/payments/{id}")
    assert op is not None and set(op.response_schema(200)["properties"]) == set(PAYMENT)


# ---- 4: JSON-ish media types not read as schemas ----------------------------------------------------


def test_a_star_star_answer_whose_schema_the_tool_does_not_describe_is_caught() -> None:
    tool = SimpleNamespace(name="shop_payments_find", actions=(GET,))
    unread = {"shop_payments_find": {"inputSchema": {}, "outputSchema": {"properties": {"truncated": {}}}}}
    found = static_class_findings(DOC, [tool], unread, Finding)
    assert kinds(found, "j") == ["media-not-read"] and "*/*" in found[0].cause
    read = {"shop_payments_find": {"inputSchema": {}, "outputSchema": {"properties": {
        "id": {}, "amount": {}, "status": {}}}}}  # fmt: skip
    assert kinds(static_class_findings(DOC, [tool], read, Finding), "j") == []
    listing = SimpleNamespace(name="shop_payments_find", actions=(LIST,))  # application/json: not this class
    assert kinds(static_class_findings(DOC, [listing], unread, Finding), "j") == []


def test_a_json_ish_answer_whose_records_the_package_places_was_read() -> None:
    """One outputSchema serves all a tool's actions and names the default format's fields only (a list's
    under `items`, left open when two lists disagree): the records placed by the schema (a list's path,
    an envelope's record) show it was read, whatever the media type (`; charset=utf-8`, vendor `+json`)."""
    spec = json.loads(json.dumps(SPEC))
    spec["paths"]["/payments/{id}"]["get"]["responses"]["200"]["content"] = {
        "application/vnd.shop.v1+json": {"schema": {"type": "object", "properties": {
            "data": {"$ref": "#/components/schemas/Payment"}, "meta": {"type": "object"}}}}}  # fmt: skip
    spec["paths"]["/payments"]["get"]["responses"]["200"]["content"] = {
        "application/json; charset=utf-8": spec["paths"]["/payments"]["get"]["responses"]["200"]["content"][
            "application/json"]}  # fmt: skip
    doc = SpecDoc(spec)
    open_items = {"shop_payments_find": {"inputSchema": {}, "outputSchema": {"properties": {"items": {}}}}}

    def judged(act: Any, items: str | None = None, record: str | None = None) -> list[str]:
        placed = SimpleNamespace(**{**vars(act), "shape": SimpleNamespace(items=items, record=record)})
        tool = SimpleNamespace(name="shop_payments_find", actions=(placed,))
        return kinds(static_class_findings(doc, [tool], open_items, Finding), "j")

    assert judged(GET) == ["media-not-read"]
    assert judged(GET, record="data") == []
    assert judged(LIST) == ["media-not-read"]
    assert judged(LIST, items="payments") == []


# ---- 5: a partial list looking whole ----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["token", "link", "x-total", "body-total"])
def test_a_list_whose_answer_says_more_follows_must_say_has_more(kind: str) -> None:
    ex = exchange("GET", "/payments", {"kind": kind}, {"payments": [PAYMENT]})
    assert ex.variant is not None and ex.variant["more"] is True
    whole = call("shop_payments_find", LIST, "paged", ex, data={"items": [PAYMENT], "has_more": False},
                 args={"action": "list", "response_format": "detailed"})  # fmt: skip
    found = kinds(class_findings(whole), "k")
    assert "has-more-missed" in found
    assert ("total-dropped" in found) == (kind in ("x-total", "body-total"))
    paged = call("shop_payments_find", LIST, "paged", ex, args={"action": "list", "response_format": "detailed"},
                 data={"items": [PAYMENT], "has_more": True, "next_cursor": "x", "total_count": 8})  # fmt: skip
    assert kinds(class_findings(paged), "k") == []
    # More that this action cannot reach, announced: has_more null with the rest explained.
    unreachable = call("shop_payments_find", LIST, "paged", ex, args={"action": "list", "response_format": "detailed"},
                       data={"items": [PAYMENT], "has_more": None, "total_count": 8,
                             "rest": "the API says more items follow, and this action takes no page or cursor"})  # fmt: skip
    assert "has-more-missed" not in kinds(class_findings(unreachable), "k")
    silent = call("shop_payments_find", LIST, "paged", ex, args={"action": "list", "response_format": "detailed"},
                  data={"items": [PAYMENT], "has_more": None, "total_count": 8})  # fmt: skip
    assert "has-more-missed" in kinds(class_findings(silent), "k")


def test_a_total_says_more_only_past_the_pages_the_call_asked_for() -> None:
    # page 2 of 30 a page, 2 records, a total of 9: the list ended on page 1, so nothing follows.
    ex = exchange("GET", "/payments", {"kind": "x-total"}, {"payments": [PAYMENT, PAYMENT]})
    later = call("shop_payments_find", LIST, "paged", ex, data={"items": [PAYMENT, PAYMENT], "has_more": False,
                 "total_count": 9}, args={"action": "list", "page": 2, "limit": 30})  # fmt: skip
    assert kinds(class_findings(later), "k") == []
    # page 2 of 3 a page: records 4 and 5 of 9, more follows.
    short = call("shop_payments_find", LIST, "paged", ex, data={"items": [PAYMENT, PAYMENT], "has_more": False,
                 "total_count": 9}, args={"action": "list", "page": 2, "limit": 3})  # fmt: skip
    assert kinds(class_findings(short), "k") == ["has-more-missed"]


def test_an_answer_whose_own_total_contradicts_the_layer_s_is_not_judged() -> None:
    # unicourt.com.json /components/schemas/CaseRelationshipTypeResponse: totalCount 1 and totalPages 1
    # in the body, which the X-Total variant leaves as they are beside its header of 8.
    body = {"payments": [PAYMENT], "totalCount": 1, "totalPages": 1, "nextPageAPI": None}
    ex = exchange("GET", "/payments", {"kind": "x-total"}, body)
    assert ex.response_headers["x-total"] == "8" and ex.response["totalCount"] == 1
    follows_body = call("shop_payments_find", LIST, "paged", ex, args={"action": "list", "response_format": "detailed"},
                        data={"items": [PAYMENT], "has_more": False, "total_count": 1})  # fmt: skip
    assert kinds(class_findings(follows_body), "k") == []
    # A count of something else than records (an amount) is no total: the header is judged.
    spent = exchange("GET", "/payments", {"kind": "x-total"}, {"payments": [PAYMENT], "total_amount": 1250})
    whole = call("shop_payments_find", LIST, "paged", spent, args={"action": "list", "response_format": "detailed"},
                 data={"items": [PAYMENT], "has_more": False, "total_count": 8})  # fmt: skip
    assert kinds(class_findings(whole), "k") == ["has-more-missed"]


def test_the_last_page_and_the_pages_between_are_judged() -> None:
    last = exchange(
        "GET", "/payments", {"kind": "last-page"}, {"payments": [PAYMENT], "next_page_token": "abc"}
    )
    assert last.response["next_page"] is None and last.response["next_page_token"] is None
    claims_more = call("shop_payments_find", LIST, "paged", last, data={"items": [PAYMENT], "has_more": True},
                       args={"action": "list", "response_format": "detailed"})  # fmt: skip
    assert kinds(class_findings(claims_more), "k") == ["has-more-on-last-page"]
    # the token this layer gave for page 2 names it; the third page is the last
    assert page_of([("page_token", "oracle-page-2")], None) == 2
    third = exchange("GET", "/payments", {"kind": "token"}, {"payments": [PAYMENT]},
                     query=[("page_token", "oracle-page-3")])  # fmt: skip
    assert (
        third.variant is not None
        and third.variant["more"] is False
        and third.response["next_page_token"] == ""
    )
    # a next call that asks for the same page again: the token never reached the request
    again = exchange("GET", "/payments", {"kind": "token"}, {"payments": [PAYMENT]})
    lost = call("shop_payments_find", LIST, "paged-next", again, data={"items": [PAYMENT], "has_more": True},
                args={"action": "list", "cursor": "abc"}, previous=[[], None])  # fmt: skip
    assert kinds(class_findings(lost), "k") == ["next-page-lost"]


def test_items_must_be_the_records_beside_another_array() -> None:
    ex = exchange("GET", "/payments", {"kind": "extra-array"}, {"payments": [PAYMENT]})
    assert len(ex.response["included"]) == 3
    wrong = call("shop_payments_find", LIST, "paged", ex, data={"items": ex.response["included"]},
                 args={"action": "list", "response_format": "detailed"})  # fmt: skip
    assert kinds(class_findings(wrong), "k") == ["items-from-wrong-array"]
    # A page cut to the server's budget shows fewer records, and says so: its records, not the wrong array.
    records = [dict(PAYMENT, id=f"pay_{i}") for i in range(4)]
    big = exchange("GET", "/payments", {"kind": "extra-array"}, {"payments": records})
    cut = {
        "items": records[:1],
        "has_more": None,
        "truncated": {"shown": "items 1-1; this page had 4", "rest": "the other items cannot be paged to"},
    }
    shown = call(
        "shop_payments_find",
        LIST,
        "paged",
        big,
        data=cut,
        args={"action": "list", "response_format": "detailed"},
    )
    assert kinds(class_findings(shown), "k") == []
    # ...but fewer records without that note, or one of the other array's, are not the records.
    quiet = call(
        "shop_payments_find",
        LIST,
        "paged",
        big,
        data={"items": records[:1], "has_more": False},
        args={"action": "list", "response_format": "detailed"},
    )
    mixed = call(
        "shop_payments_find",
        LIST,
        "paged",
        big,
        data={**cut, "items": big.response["included"][:1]},
        args={"action": "list", "response_format": "detailed"},
    )
    assert (
        kinds(class_findings(quiet), "k") == kinds(class_findings(mixed), "k") == ["items-from-wrong-array"]
    )


def test_a_page_cut_to_the_budget_announces_the_rest_in_its_truncated_note() -> None:
    ex = exchange("GET", "/payments", {"kind": "link"}, {"payments": [PAYMENT, PAYMENT]})
    cut = call(
        "shop_payments_find",
        LIST,
        "paged",
        ex,
        args={"action": "list", "response_format": "detailed"},
        data={
            "items": [PAYMENT],
            "has_more": None,
            "truncated": {
                "shown": "items 1-1; this page had 2",
                "rest": "the other items cannot be paged to",
            },
        },
    )
    assert kinds(class_findings(cut), "k") == []
    unsaid = call(
        "shop_payments_find",
        LIST,
        "paged",
        ex,
        args={"action": "list", "response_format": "detailed"},
        data={"items": [PAYMENT], "has_more": None, "truncated": {"shown": "items 1-1"}},
    )
    assert kinds(class_findings(unsaid), "k") == ["has-more-missed"]


# ---- 6: the API's own error text dropped ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["error_message", "invalid-params", "problems", "errors-by-field"])
def test_a_vendor_error_body_must_reach_the_tool_error(kind: str) -> None:
    ex = exchange("POST", "/payments", {"kind": kind}, PAYMENT, status=201)
    assert 400 <= ex.status < 500 and error_text(kind) in json.dumps(ex.response)
    generic = f"Error: the API rejected the arguments of 'create' (HTTP {ex.status})."
    dropped = call("shop_payment_change", CREATE, "vendor-error", ex, is_error=True, text=generic)
    assert kinds(judge(dropped), "l") == ["vendor-error-text-dropped"]
    assert kinds(judge(dropped), "c") == []  # the made-up error is no API refusal of a valid request
    quoted = call("shop_payment_change", CREATE, "vendor-error", ex, is_error=True,
                  text=f"{generic} The API said: {error_text(kind)}")  # fmt: skip
    assert judge(quoted) == []


def test_an_operation_whose_errors_are_only_default_gets_a_probe() -> None:
    op = DOC.operation("POST", "/payments")
    assert op is not None and op.error_statuses() == [] and op.default_error()
    tool = SimpleNamespace(name="shop_payment_change", preview=None, actions=(CREATE,))
    from scripts.sweep.oracle_run import _plans

    plans = _plans(DOC, tool, {"shop_payment_change": {"inputSchema": {"properties": {}}}})
    assert [p.step for p in plans] == ["full", "probe"] and plans[1].extra == {"default_only": True}
    said = exchange("POST", "/payments", None, {"message": "amount must be positive"}, status=400)
    said.forced = "code=400"
    dropped = call("shop_payment_change", CREATE, "probe", said, is_error=True, text="Error: HTTP 400.")
    assert kinds(judge(dropped), "e") == ["api-message-dropped"]


# ---- 7: a failure inside a 200 ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["success-false", "ok-false", "error-code"])
def test_a_failure_inside_a_200_must_be_an_error(kind: str) -> None:
    ex = exchange("POST", "/payments", {"kind": kind}, PAYMENT, status=201)
    assert ex.status == 200 and failure_text(kind) in json.dumps(ex.response)
    success = call("shop_payment_change", CREATE, "fail200", ex, data=ex.response)
    assert kinds(judge(success), "m") == ["failure-read-as-success"]
    error = call("shop_payment_change", CREATE, "fail200", ex, is_error=True,
                 text=f"Error: the API said the request failed: {failure_text(kind)}")  # fmt: skip
    assert judge(error) == []


def test_a_made_up_answer_that_reports_a_failure_is_rightly_an_error() -> None:
    """mashape.com/geodb.json under --dynamic: every 200 schema declares an `errors` list
    (/components/schemas/BaseResponse), and Prism fills it; the server reading that as the API's failure is
    right (x), while an error on an answer that reports none is the server's (c)."""
    failing = {
        "data": PAYMENT,
        "errors": [{"code": "INCOMPATIBLE", "message": "velit nostrud aute in irure"}],
    }
    text = ("Error: the API reported a failure in its answer to 'get' (HTTP 200, errors is not empty). The API "
            "said: velit nostrud aute in irure.")  # fmt: skip
    made_up = call("shop_payments_find", GET, "full", exchange("GET", "/payments/pay_1", None, failing),
                   is_error=True, text=text)  # fmt: skip
    assert [(f.category, f.kind) for f in judge(made_up)] == [("x", "prism-answer-reports-failure")]
    clean = call("shop_payments_find", GET, "full", exchange("GET", "/payments/pay_1", None, {**failing, "errors": []}),
                 is_error=True, text=text)  # fmt: skip
    assert kinds(judge(clean), "c") == ["failed-on-valid-answer"]


def test_a_binary_body_the_spec_gives_an_object_schema_is_the_specs_contradiction() -> None:
    """googleapis.com/drive.json POST /files: application/octet-stream with the File object schema; Prism
    wants an object where the server sends the file's bytes (x, not a)."""
    spec = {"openapi": "3.0.3", "info": {"title": "d", "version": "1"}, "paths": {"/files": {"post": {
        "requestBody": {"content": {"application/octet-stream": {"schema": {
            "type": "object", "properties": {"name": {"type": "string"}}}}}},
        "responses": {"200": {"description": "ok"}}}}}}  # fmt: skip
    doc = SpecDoc(spec)
    op = doc.operation("POST", "/files")
    assert op is not None
    upload = action("create", "POST", "/files", read=False)
    violation = {
        "location": ["request", "body"],
        "severity": "Error",
        "message": "Request body must be object",
    }
    ex = Exchange("POST", "/files", [], {"content-type": "application/octet-stream"}, "oracle", status=422,
                  response_headers={"sl-violations": json.dumps([violation])}, response={})  # fmt: skip
    made = Call(doc=doc, op=op, tool="d_files_change", action=upload, step="full", args={"action": "create"},
                unsure=set(), input_properties={}, exchanges=[ex], data={"id": "1"}, text="{}")  # fmt: skip
    assert [(f.category, f.kind) for f in judge(made) if f.category in "ax"] == [
        ("x", "spec-binary-object-body")
    ]


# ---- (e): credentials offered as agent arguments ----------------------------------------------------


def test_credential_looking_body_fields_offered_to_the_agent_are_caught() -> None:
    params = tuple(SimpleNamespace(arg=w, wire=w, at="body", unit=None)
                   for w in ("amount", "description", "client_secret", "token"))  # fmt: skip
    create = action("create", "POST", "/payments", read=False, params=params)
    tool = SimpleNamespace(name="shop_payment_change", actions=(create,))
    contract = {"shop_payment_change": {"inputSchema": {"properties": {p.arg: {} for p in params}}}}
    found = static_class_findings(DOC, [tool], contract, Finding)
    assert [f.detail.split(" (")[0] for f in found if f.category == "n"] == [
        "body field client_secret", "body field token"]  # fmt: skip
    hidden = {"shop_payment_change": {"inputSchema": {"properties": {"amount": {}, "description": {}}}}}
    assert kinds(static_class_findings(DOC, [tool], hidden, Finding), "n") == []


def test_secrets_that_are_the_requests_data_are_not_credentials() -> None:
    """The shapes of amazonaws.com/apigateway.json (POST /domainnames `certificatePrivateKey`, PUT .../methods/
    {http_method} `apiKeyRequired`, POST /restapis `apiKeySource`, POST /apikeys `description` "The description
    of the ApiKey."), launchdarkly.com.json POST /webhooks `secret` and googleapis.com/drive.json POST
    /files/{fileId}/copy `appProperties`: flags, choices, objects and the secrets of what the request creates
    are the agent's; a bare `password` described as the caller's own is not."""
    fields = {
        "certificatePrivateKey": {
            "type": "string",
            "description": "[Deprecated] Your edge-optimized endpoint's "
            "domain name certificate's private key.",
        },
        "apiKeyRequired": {
            "type": "boolean",
            "description": "Specifies whether the method requires a valid ApiKey.",
        },
        "apiKeySource": {
            "type": "string",
            "enum": ["HEADER", "AUTHORIZER"],
            "description": "The source of the API key",
        },
        "description": {"type": "string", "description": "The description of the ApiKey."},
        "secret": {
            "type": "string",
            "description": "If sign is true, and the secret attribute is omitted, "
            "LaunchDarkly will automatically generate a secret for you.",
        },
        "appProperties": {"type": "object", "description": "An authenticated request uses an access token."},
        "password": {"type": "string", "description": "Your account password."},
        "x-api-key": {"type": "string"},
    }
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/things": {
                "post": {
                    "requestBody": {
                        "content": {"application/json": {"schema": {"type": "object", "properties": fields}}}
                    },
                    "responses": {"201": {"description": "ok"}},
                }
            }
        },
    }
    params = tuple(SimpleNamespace(arg=w, wire=w, at="body", unit=None) for w in fields)
    create = action("create", "POST", "/things", read=False, params=params)
    tool = SimpleNamespace(name="t_thing_change", actions=(create,))
    contract = {"t_thing_change": {"inputSchema": {"properties": {p.arg: {} for p in params}}}}
    found = static_class_findings(SpecDoc(spec), [tool], contract, Finding)
    assert [f.detail.split(" (")[0] for f in found if f.category == "n"] == [
        "body field password", "body field x-api-key"]  # fmt: skip


# ---- (a): the derived mapping -----------------------------------------------------------------------


def test_the_derived_mapping_adds_a_money_unit_concise_fields_and_token_paging() -> None:
    mapping = {"tools": [
        {"name": "payments_find", "actions": [{"name": "list", "operation": "GET /payments"},
                                              {"name": "get", "operation": "GET /payments/{id}"}]},
        {"name": "payment_change", "actions": [{"name": "create", "operation": "POST /payments"}]}]}  # fmt: skip
    derived = derive(DOC, mapping)
    assert [(u.tool, u.action, u.field, u.kind) for u in derived.units] == [
        ("payment_change", "create", "amount", "money")]  # fmt: skip
    assert mapping["tools"][1]["actions"][0]["params"] == {
        "amount": {"unit": {"agent": "usd", "upstream": "cents"}}
    }
    assert derived.concise == {"payments_find.list": ["id", "amount", "currency"]}
    assert mapping["tools"][0]["actions"][0]["pagination"] == {
        "style": "cursor", "cursor": "page_token", "next_cursor": "next_page_token", "total": "total_records"}  # fmt: skip
    again = json.loads(json.dumps(mapping))
    derive(DOC, again)  # deterministic, and adds nothing twice
    assert again == mapping
