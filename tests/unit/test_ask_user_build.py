"""What the build decides for `ask_user: true` (P4 ask what the model cannot know): the parameter leaves
the inputSchema, its form field comes from its schema, the tool description says what a client that
cannot ask gets, and mappings that cannot work are located errors. Pure: no package is installed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from mcpgen import generate
from mcpgen.diagnostics import Level
from tests.support.paths import SPECS

DEPLOY, ADS, PETSTORE = SPECS / "deploy", SPECS / "ads", SPECS / "petstore"


def _mapping_with(tmp_path: Path, example: Path, tool: int, action: int, params: dict[str, Any]) -> Path:
    """`example`'s mapping.yaml with the params of #/tools/<tool>/actions/<action> set to `params`."""
    mapping = yaml.safe_load((example / "mapping.yaml").read_text(encoding="utf-8"))
    mapping["tools"][tool]["actions"][action]["params"] = params
    out = tmp_path / "mapping.yaml"
    out.write_text(yaml.safe_dump(mapping, sort_keys=False), encoding="utf-8")
    return out


def _errors(result: Any) -> list[Any]:
    return [d for d in result.diagnostics if d.level is Level.ERROR]


def _contract(result: Any) -> dict[str, Any]:
    tools = json.loads(next(f.content for f in result.files if f.path.endswith("/tools.json")))
    return {t["name"]: t for t in tools}


def test_the_deploy_rollback_asks_the_user_for_its_reason() -> None:
    # specs/deploy/mapping.yaml #/tools/1/actions/0/params/reason: ask_user: true; the spec's
    # specs/deploy/deploy.openapi.yaml #/paths/~1deployments~1{deployment_id}~1rollback/post/requestBody
    result = generate(DEPLOY / "deploy.openapi.yaml", DEPLOY / "mapping.yaml")
    assert result.ok, result.diagnostics
    tool = next(t for t in result.server.tools if t.name == "deploy_rollback")
    [start] = tool.actions
    [reason] = start.asked
    assert [p.arg_name for p in start.params] == ["deployment_id"] and "reason" not in start.required_args
    assert reason.ask_user == {
        "type": "string",
        "title": "Reason",
        "description": 'Why the deployment is rolled back; kept in the audit log. Example: "Checkout error rate '
        'above 5% since the release".',
        "minLength": 1,
        "maxLength": 500,
    }
    assert reason.check_schema == {"type": "string", "minLength": 1, "maxLength": 500}  # the server re-checks
    listed = _contract(result)["deploy_rollback"]
    assert "reason" not in listed["inputSchema"]["properties"]
    assert "a client that cannot ask the user gets an error for that action" in listed["description"]
    assert "- start(deployment_id, confirm): " in listed["description"]
    rendered = next(f.content for f in result.files if f.path == "deploy_mcp/tools/rollback.py")
    assert 'required=("deployment_id", "confirm", "reason")' in rendered and "ask_user={" in rendered
    assert {"elicitation", "store"}.isdisjoint(result.server.runtime_left_out)


def test_form_fields_follow_the_parameters_type_enum_bounds_and_default(tmp_path: Path) -> None:
    # specs/deploy/deploy.openapi.yaml #/paths/~1services~1{service}~1deployments/get/parameters:
    # environment (#/components/schemas/Environment, an enum) and limit (integer 1..50, default 10).
    mapping = _mapping_with(
        tmp_path, DEPLOY, 0, 0, {"environment": {"ask_user": True}, "limit": {"ask_user": True}}
    )
    result = generate(DEPLOY / "deploy.openapi.yaml", mapping)
    assert result.ok, result.diagnostics
    listing = next(a for t in result.server.tools for a in t.actions if a.name == "list")
    fields = {p.arg_name: p.ask_user for p in listing.asked}
    assert fields["environment"] == {
        "type": "string",
        "title": "Environment",
        "description": "Only deployments to this environment.",
        "enum": ["staging", "production"],
    }
    limit = fields["limit"] or {}
    assert (limit["type"], limit["minimum"], limit["maximum"], limit["default"]) == ("integer", 1, 50, 10)
    properties = _contract(result)["deploy_deployments_find"]["inputSchema"]["properties"]
    assert "environment" not in properties and "limit" not in properties
    assert "(action list: environment, limit)" in _contract(result)["deploy_deployments_find"]["description"]


def test_ask_user_on_a_fixed_or_hidden_path_parameter_is_a_located_error(tmp_path: Path) -> None:
    for other in ({"fixed": "dep_104"}, {"hidden": True}):
        mapping = _mapping_with(tmp_path, DEPLOY, 1, 0, {"deployment_id": {"ask_user": True, **other}})
        result = generate(DEPLOY / "deploy.openapi.yaml", mapping)
        [problem] = _errors(result)
        assert problem.code == "M107" and problem.source is not None
        assert problem.source.pointer == "/tools/1/actions/0/params/deployment_id" and problem.source.line
        assert "'ask_user' asks the user for the value on every call" in (problem.hint or "")
        assert f"'{next(iter(other))}' means nobody gives it" in (problem.hint or "")


def test_ask_user_on_a_parameter_the_operation_lacks_is_a_located_error(tmp_path: Path) -> None:
    mapping = _mapping_with(tmp_path, DEPLOY, 1, 0, {"reasons": {"ask_user": True}})
    result = generate(DEPLOY / "deploy.openapi.yaml", mapping)
    [problem] = _errors(result)
    assert problem.code == "M203" and "'reasons' is not a parameter of" in problem.message
    assert problem.source is not None and problem.source.pointer == "/tools/1/actions/0/params/reasons"
    assert "did you mean 'reason'" in (problem.hint or "")


def test_a_parameter_no_form_can_hold_is_refused(tmp_path: Path) -> None:
    # specs/petstore/petstore.openapi.json #/definitions/Pet/properties/tags: an array of Tag objects.
    mapping = yaml.safe_load((PETSTORE / "mapping.yaml").read_text(encoding="utf-8"))
    mapping["tools"][1]["actions"][0]["params"]["tags"] = {"ask_user": True}
    out = tmp_path / "mapping.yaml"
    out.write_text(yaml.safe_dump(mapping, sort_keys=False), encoding="utf-8")
    result = generate(PETSTORE / "petstore.openapi.json", out)
    [problem] = _errors(result)
    assert problem.code == "M234" and "cannot be asked of the user" in problem.message
    assert "a list of values that are not strings from an enum" in problem.message
    assert problem.source is not None and problem.source.pointer == "/tools/1/actions/0/params/tags"


def test_a_previewed_change_cannot_ask_the_user(tmp_path: Path) -> None:
    # specs/ads/mapping.yaml #/tools/2/actions/0: confirm: preview, whose apply runs with nobody to ask.
    mapping = yaml.safe_load((ADS / "mapping.yaml").read_text(encoding="utf-8"))
    mapping["tools"][2]["actions"][0]["params"]["daily_budget"]["ask_user"] = True
    out = tmp_path / "mapping.yaml"
    out.write_text(yaml.safe_dump(mapping, sort_keys=False), encoding="utf-8")
    result = generate(ADS / "ads.openapi.yaml", out)
    [problem] = _errors(result)
    assert problem.code == "M235" and "confirm: preview" in problem.message
    assert problem.source is not None and problem.source.pointer == "/tools/2/actions/0/params/daily_budget"
