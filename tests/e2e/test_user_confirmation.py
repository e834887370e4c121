"""confirm: user (P4 ask what the model cannot know) on the ads example's delete: the generated server,
driven by the official client over stdio and streamable HTTP, asks the user through the 2026-07-28
multi round-trip requests (input_required + elicitation/create + requestState).

Spec: specs/ads/ads.openapi.yaml #/paths/~1campaigns~1{campaign_id}/delete (deleteCampaign);
mapping: specs/ads/mapping.yaml #/tools/1/actions/3 (confirm: user).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.e2e.conftest import InstalledServer, server_env
from tests.support import processes
from tests.support.mcp_client import result_text, stdio_client
from tests.support.users import User, eliciting_client

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TOOL = "ads_campaign_change"
DELETE = {"action": "delete", "campaign_id": "cmp_006"}

YES = types.ElicitResult(action="accept", content={"confirm": True})
NO = types.ElicitResult(action="decline")


def _env(upstream: Any, store: Path) -> dict[str, str]:
    # One store file for every server process: any replica can take the retry.
    return server_env(upstream, MCP_STORE_URL=f"sqlite:///{store}")


def _deletes(upstream: Any) -> list[Any]:
    return [r for r in upstream.requests if r.method == "DELETE"]


async def test_a_yes_deletes_once(ads_server: InstalledServer, ads_upstream, tmp_path: Path) -> None:
    user = User(YES)
    async with eliciting_client(ads_server.command, _env(ads_upstream, tmp_path / "s.db"), user) as client:
        result = await client.call_tool(TOOL, DELETE)
    assert not result.is_error, result_text(result)
    assert len(user.asked) == 1 and "cmp_006" in user.asked[0].message
    assert [r.path for r in _deletes(ads_upstream)] == ["/campaigns/cmp_006"]


async def test_a_no_deletes_nothing(ads_server: InstalledServer, ads_upstream, tmp_path: Path) -> None:
    for answer in (
        NO,
        types.ElicitResult(action="cancel"),
        types.ElicitResult(action="accept", content={"confirm": False}),
    ):
        user = User(answer)
        async with eliciting_client(
            ads_server.command, _env(ads_upstream, tmp_path / "s.db"), user
        ) as client:
            # The model's own CONFIRM_DELETE does not stand in for the user's answer.
            result = await client.call_tool(TOOL, {**DELETE, "confirm": "CONFIRM_DELETE"})
        assert result.is_error and "nothing was done" in result_text(result)
        assert len(user.asked) == 1
    assert _deletes(ads_upstream) == []


async def test_replayed_or_altered_state_is_refused(
    ads_server: InstalledServer, ads_upstream, tmp_path: Path
) -> None:
    user = User(YES)
    async with eliciting_client(ads_server.command, _env(ads_upstream, tmp_path / "s.db"), user) as client:
        first = await client.session.call_tool(TOOL, DELETE, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        [key] = first.input_requests or {}
        answers = {key: YES}
        state = first.request_state
        refused = {
            "other arguments": (TOOL, {**DELETE, "campaign_id": "cmp_005"}, state),
            "tampered": (TOOL, DELETE, state[:-2] + ("AA" if not state.endswith("AA") else "BB")),
            "made up": (TOOL, DELETE, "el.x.1.y"),
            # digits str.isdigit() accepts and int() does not: invalid params, never an internal error
            "odd digits": (TOOL, DELETE, "el.x.\u00b2\u00b3.y"),
            "long expiry": (TOOL, DELETE, "el.x." + "9" * 40 + ".y"),
        }
        for why, (name, arguments, sent) in refused.items():
            with pytest.raises(MCPError) as error:
                await client.session.call_tool(
                    name, arguments, input_responses=answers, request_state=sent, allow_input_required=True
                )
            assert error.value.code == types.INVALID_PARAMS and "Nothing was done" in str(error.value), why
        done = await client.session.call_tool(
            TOOL, DELETE, input_responses=answers, request_state=state, allow_input_required=True
        )
        assert isinstance(done, types.CallToolResult) and not done.is_error
        with pytest.raises(MCPError) as replay:
            await client.session.call_tool(
                TOOL, DELETE, input_responses=answers, request_state=state, allow_input_required=True
            )
        assert "already answered once" in str(replay.value)
    assert len(_deletes(ads_upstream)) == 1


async def test_a_client_without_elicitation_keeps_the_confirm_argument(
    ads_server: InstalledServer, ads_upstream, tmp_path: Path
) -> None:
    async with stdio_client(ads_server.command, _env(ads_upstream, tmp_path / "s.db")) as client:
        listing = await client.list_tools()
        missing = await client.call_tool(TOOL, DELETE)
        assert missing.is_error and _deletes(ads_upstream) == []
        done = await client.call_tool(TOOL, {**DELETE, "confirm": "CONFIRM_DELETE"})
    assert not done.is_error, result_text(done)
    change = next(t for t in listing.tools if t.name == TOOL)
    assert "asks the user to confirm delete" in change.input_schema["properties"]["confirm"]["description"]
    assert len(_deletes(ads_upstream)) == 1


async def test_over_http_the_retry_lands_on_another_server(
    ads_server: InstalledServer, ads_upstream, tmp_path: Path
) -> None:
    env = _env(ads_upstream, tmp_path / "s.db")
    user = User(YES)
    with (
        processes.http_server(ads_server.command, env) as first_url,
        processes.http_server(ads_server.command, env) as second_url,
    ):
        async with Client(first_url, elicitation_callback=user) as first:
            asked = await first.session.call_tool(TOOL, DELETE, allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult) and asked.request_state
        [key] = asked.input_requests or {}
        async with Client(second_url, elicitation_callback=user) as second:
            done = await second.session.call_tool(
                TOOL,
                DELETE,
                input_responses={key: YES},
                request_state=asked.request_state,
                allow_input_required=True,
            )
            assert isinstance(done, types.CallToolResult) and not done.is_error, done
            with pytest.raises(MCPError):
                await second.session.call_tool(
                    TOOL,
                    DELETE,
                    input_responses={key: YES},
                    request_state=asked.request_state,
                    allow_input_required=True,
                )
        async with Client(second_url, elicitation_callback=User(NO)) as declined:
            no = await declined.call_tool(TOOL, {**DELETE, "campaign_id": "cmp_005"})
            assert no.is_error and "nothing was done" in result_text(no)
    assert [r.path for r in _deletes(ads_upstream)] == ["/campaigns/cmp_006"]
