"""ask_user (P4 ask what the model cannot know) on the deploy example's rollback: the reason kept in
the audit log is the user's, asked through the 2026-07-28 multi round-trip requests (input_required
+ elicitation/create + requestState), never an argument the model fills in. The installed server,
driven by the official client (its elicitation_callback) over stdio, against the Deploy API stand-in
on 127.0.0.1 recording what it receives.

Spec: specs/deploy/deploy.openapi.yaml #/paths/~1deployments~1{deployment_id}~1rollback/post
(rollbackDeployment, body field `reason`); mapping: specs/deploy/mapping.yaml
#/tools/1/actions/0/params/reason (ask_user: true).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.e2e.conftest import InstalledServer
from tests.hostile.runtime_servers import SECRET, command, example_env, generate
from tests.support.mcp_client import result_text, stdio_client, tool_dicts
from tests.support.paths import SPECS
from tests.support.users import User, eliciting_client
from tests.upstreams.deploy import DeployUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

# Every request the stand-in receives is replayed against Prism serving the real spec.
PRISM_SPECS = {DeployUpstream: SPECS / "deploy" / "deploy.openapi.yaml"}

TOOL = "deploy_rollback"
KEY = "deploy-key-for-ask-user"
ROLLBACK = {"action": "start", "deployment_id": "dep_104", "confirm": "CONFIRM_ROLLBACK"}
REASON = "Checkout error rate above 5% since 2.4.1, Dana decided"


def answer(reason: str) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"reason": reason})


@pytest.fixture
def deploy_upstream() -> Iterator[DeployUpstream]:
    with DeployUpstream(key=KEY) as upstream:
        yield upstream


def _env(upstream: DeployUpstream, store: Path) -> dict[str, str]:
    return {
        "DEPLOY_BASE_URL": upstream.base_url,
        "DEPLOY_API_KEY": KEY,
        "MCP_STORE_URL": f"sqlite:///{store}",
    }


def _rollbacks(upstream: DeployUpstream) -> list[Any]:
    return [r for r in upstream.requests if r.method == "POST"]


async def test_the_users_reason_reaches_the_api_and_the_model_gives_none(
    deploy_server: InstalledServer, deploy_upstream: DeployUpstream, tmp_path: Path
) -> None:
    user = User(answer(REASON))
    async with eliciting_client(
        deploy_server.command, _env(deploy_upstream, tmp_path / "s.db"), user
    ) as client:
        listing = await client.list_tools()
        done = await client.call_tool(TOOL, ROLLBACK)
    assert not done.is_error, result_text(done)
    rollback = next(t for t in tool_dicts(listing) if t["name"] == TOOL)
    assert "reason" not in rollback["inputSchema"]["properties"]  # the model is never asked for it
    assert "asks the user, not you, for these values (action start: reason)" in rollback["description"]
    assert "a client that cannot ask the user gets an error" in rollback["description"]
    [asked] = user.asked
    assert "dep_104" in asked.message and "reason" in asked.message
    # The form field comes from the spec's schema of `reason`: its type, bounds and description.
    form = asked.requested_schema
    assert form["required"] == ["reason"]
    field = form["properties"]["reason"]
    assert (field["type"], field["minLength"], field["maxLength"]) == ("string", 1, 500)
    assert field["description"].startswith("Why the deployment is rolled back; kept in the audit log.")
    [sent] = _rollbacks(deploy_upstream)
    assert sent.path == "/deployments/dep_104/rollback" and sent.json == {"reason": REASON}
    assert deploy_upstream.rollback_reasons == {"dep_104": REASON}


async def test_a_declined_or_unusable_answer_sends_nothing(
    deploy_server: InstalledServer, deploy_upstream: DeployUpstream, tmp_path: Path
) -> None:
    user = User(types.ElicitResult(action="decline"))
    answers = (
        (types.ElicitResult(action="decline"), "the user did not give reason for start; nothing was done"),
        (types.ElicitResult(action="cancel"), "the user did not give reason for start; nothing was done"),
        # The server checks the user's answer against the spec's schema as it checks arguments.
        (answer("x" * 501), "has 501 characters; at most 500 are allowed"),
    )
    async with eliciting_client(
        deploy_server.command, _env(deploy_upstream, tmp_path / "s.db"), user
    ) as client:
        for given, said in answers:
            user.answer = given
            result = await client.call_tool(TOOL, ROLLBACK)
            text = result_text(result)
            assert result.is_error and said in text and "othing was done" in text, text
    assert len(user.asked) == len(answers)  # one question a call
    assert _rollbacks(deploy_upstream) == [] and deploy_upstream.rollback_reasons == {}


async def test_a_tampered_or_other_calls_request_state_is_refused(
    deploy_server: InstalledServer, deploy_upstream: DeployUpstream, tmp_path: Path
) -> None:
    user = User(answer(REASON))
    async with eliciting_client(
        deploy_server.command, _env(deploy_upstream, tmp_path / "s.db"), user
    ) as client:
        first = await client.session.call_tool(TOOL, ROLLBACK, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        [key] = first.input_requests or {}
        answers = {key: answer(REASON)}
        state = first.request_state
        refused = {
            "tampered": (ROLLBACK, state[:-2] + ("AA" if not state.endswith("AA") else "BB")),
            "other arguments": ({**ROLLBACK, "deployment_id": "dep_109"}, state),
            "made up": (ROLLBACK, "el.x.1.y"),
        }
        for why, (arguments, sent) in refused.items():
            with pytest.raises(MCPError) as error:
                await client.session.call_tool(
                    TOOL, arguments, input_responses=answers, request_state=sent, allow_input_required=True
                )
            assert error.value.code == types.INVALID_PARAMS and "Nothing was done" in str(error.value), why
        assert _rollbacks(deploy_upstream) == []
        done = await client.session.call_tool(
            TOOL, ROLLBACK, input_responses=answers, request_state=state, allow_input_required=True
        )
        assert isinstance(done, types.CallToolResult) and not done.is_error, done
        with pytest.raises(MCPError) as replay:
            await client.session.call_tool(
                TOOL, ROLLBACK, input_responses=answers, request_state=state, allow_input_required=True
            )
        assert "already answered once" in str(replay.value)
    assert [r.json for r in _rollbacks(deploy_upstream)] == [{"reason": REASON}]


async def test_a_client_that_cannot_ask_gets_an_error_naming_the_parameter(
    deploy_server: InstalledServer, deploy_upstream: DeployUpstream, tmp_path: Path
) -> None:
    async with stdio_client(deploy_server.command, _env(deploy_upstream, tmp_path / "s.db")) as client:
        refused = await client.call_tool(TOOL, ROLLBACK)
        # Written by the model, the reason is no argument at all: it cannot stand in for the user's.
        invented = await client.call_tool(TOOL, {**ROLLBACK, "reason": "the model thinks so"})
    text = result_text(refused)
    assert refused.is_error and "needs the user to give reason" in text, text
    assert "cannot ask the user" in text and "nothing was done" in text and "(needs a human)" in text
    assert invented.is_error and "'reason' is not a parameter of deploy_rollback" in result_text(invented)
    assert _rollbacks(deploy_upstream) == []


async def test_through_on_demand_discovery_the_user_is_asked_too(tmp_path: Path) -> None:
    # specs/deploy/mapping.yaml with server.discovery: search_tools: tools/list serves deploy_search_tools
    # and deploy_call_tool, which runs deploy_rollback; it asks the user as a call by its own name does.
    out = generate(
        "deploy",
        tmp_path,
        lambda mapping: mapping.replace("server:\n", "server:\n  discovery: search_tools\n", 1),
    )
    user = User(answer(REASON))
    call = {"tool": TOOL, "arguments": ROLLBACK}
    with DeployUpstream(key=SECRET) as upstream:
        env = example_env("deploy", out, upstream, tmp_path / "s.db")
        async with eliciting_client(command("deploy_mcp"), env, user) as client:
            done = await client.call_tool("deploy_call_tool", call)
        async with stdio_client(command("deploy_mcp"), env) as client:
            refused = await client.call_tool("deploy_call_tool", call)
        assert not done.is_error, result_text(done)
        assert len(user.asked) == 1 and [r.json for r in _rollbacks(upstream)] == [{"reason": REASON}]
        assert refused.is_error and "needs the user to give reason" in result_text(refused)
        assert len(_rollbacks(upstream)) == 1
