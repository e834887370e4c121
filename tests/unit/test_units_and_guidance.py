"""Generation-time decisions behind the agent-facing errors and units: conversion factors, the actions
error messages point to, description sections, and the runtime's Retry-After and message cleaning."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from types import ModuleType

import httpx
import pytest

from mcpgen.build.contract import contract
from mcpgen.conversions import known_factor, restate
from mcpgen.lint.rules import SHOUTS
from mcpgen.pipeline import generate
from tests.support.paths import GENERATED, ROOT, SPECS

SHIPPING = ROOT / "tests" / "fixtures" / "units"


@pytest.mark.parametrize(
    "agent,upstream,factor",
    [
        ("kg", "g", 1000),
        ("g", "kg", 0.001),
        ("s", "ms", 1000),
        ("min", "s", 60),
        ("usd", "cents", 100),
        ("cents", "eur", 0.01),
        ("km", "m", 1000),
        ("kg", "s", None),
        ("usd", "eur", None),
        ("dozen", "pieces", None),
    ],
)
def test_known_factors_are_same_dimension_or_currency_cents(
    agent: str, upstream: str, factor: float | None
) -> None:
    assert known_factor(agent, upstream) == factor


def test_descriptions_are_restated_in_the_agents_unit() -> None:
    assert (
        restate("Weight in grams; at least 1 gram.", "g", "kg") == "Weight in kilograms; at least 1 kilogram."
    )
    assert restate("Declared value in cents.", "cents", "usd") == "Declared value in USD."
    assert restate("Timeout in milliseconds.", "ms", "s") == "Timeout in seconds."


def _actions(spec, mapping) -> dict[tuple[str, str], object]:
    result = generate(spec, mapping)
    assert result.ok, result.diagnostics
    return {(t.name, a.name): a for t in result.server.tools for a in t.actions}


def test_errors_point_to_the_actions_that_help_next() -> None:
    actions = _actions(SPECS / "ads" / "ads.openapi.yaml", SPECS / "ads" / "mapping.yaml")
    get = actions[("ads_campaigns_find", "get")]
    assert (get.find_with, get.finds, get.check_with) == (
        "ads_campaigns_find (action list or search)",
        "campaign_id",
        None,
    )
    pause = actions[("ads_campaign_change", "pause")]
    assert pause.check_with == "ads_campaigns_find (action get)"  # the read on the longest common path
    assert actions[("ads_campaign_change", "create")].check_with == "ads_campaigns_find (action list)"
    assert actions[("ads_campaign_change", "create")].find_with is None  # no identifier in its path
    stats = actions[("ads_reports", "campaign_stats")]
    assert (stats.find_with, stats.finds) == ("ads_campaigns_find (action list or search)", "campaign_id")
    account = actions[("ads_reports", "account")]
    assert (account.find_with, account.check_with) == (None, None)


def test_unit_conversions_reach_the_tool_tables() -> None:
    result = generate(SHIPPING / "shipping.openapi.yaml", SHIPPING / "mapping.yaml")
    assert result.ok
    table = next(f.content for f in result.files if f.path.endswith("tools/shipment_change.py"))
    assert 'unit=Unit(agent="kg", upstream="g", factor=1000, integer=True)' in table
    assert 'unit=Unit(agent="usd", upstream="cents", factor=100, integer=True)' in table
    names = [t["name"] for t in contract(result.server)]
    assert names == ["ship_server_info", "ship_shipment_change", "ship_shipments_find"]  # in name order (P2)


def test_no_generated_description_shouts() -> None:
    for path in sorted(GENERATED.glob("*/*/tools.json")):
        for tool in json.loads(path.read_text(encoding="utf-8")):
            text = json.dumps(tool)
            assert not [w for w in SHOUTS if f" {w} " in text or f"{w}:" in text], (path, tool["name"])


@pytest.fixture(scope="module")
def results() -> Iterator[ModuleType]:
    """The runtime's refusals module (the API's refusals as tool errors), imported from the generated ads package."""
    sys.path.insert(0, str(GENERATED / "ads"))
    try:
        yield importlib.import_module("ads_mcp._runtime.refusals")
    finally:
        sys.path.remove(str(GENERATED / "ads"))
        for name in [n for n in sys.modules if n == "ads_mcp" or n.startswith("ads_mcp.")]:
            del sys.modules[name]


def test_retry_after_in_seconds_or_as_a_date(results: ModuleType) -> None:
    assert results._retry_after_s("17") == 17
    assert results._retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT") == 0  # already past: no waiting
    assert results._retry_after_s("soon") is None


def test_stack_traces_and_html_never_reach_the_agent(results: ModuleType) -> None:
    trace = httpx.Response(
        500, text='database down\nTraceback (most recent call last):\n  File "x.py", line 1'
    )
    assert results._upstream_problem(trace).said == "database down"
    html = httpx.Response(502, text="<html><body>Bad gateway</body></html>")
    assert results._upstream_problem(html).said == ""
    nested = httpx.Response(422, json={"error": {"message": "bad owner", "field": "owner"}})
    problem = results._upstream_problem(nested)
    assert (problem.said, problem.fields) == ("bad owner", ("owner",))


def test_refusals_without_a_configured_credential_or_a_named_scope(results: ModuleType) -> None:
    from ads_mcp._runtime.routing import Action  # type: ignore[import-not-found]

    action = Action(name="list", method="GET", path="/things")
    unauthenticated = results.http_error(httpx.Response(401, json={"message": "login first"}), action, None)
    assert unauthenticated.recovery.name == "NEEDS_HUMAN" and "this server sends none" in unauthenticated.what
    forbidden = results.http_error(httpx.Response(403), action, "THINGS_TOKEN")
    assert forbidden.what == "the credentials in THINGS_TOKEN may not run 'list' (HTTP 403)."
    assert forbidden.how.startswith(
        "This needs the user: ask them to grant permission for 'list' to that credential"
    )
    teapot = results.http_error(httpx.Response(418, text="I'm a teapot"), action, None)
    assert teapot.what == "the API answered HTTP 418 to 'list'. The API said: I'm a teapot."
