"""Jobs the API runs as tasks of the MCP Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28):
specs/exports generated and served over streamable HTTP, calling a stand-in Data Exports API whose
POST /exports answers 202 Accepted with a Location (specs/exports/exports.openapi.yaml,
#/paths/~1exports/post/responses/202) and whose status moves one step per read (tests/upstreams/exports.py).

A client that declares the extension gets a task handle at once and walks it with tasks/get from
working to completed; a second server process sharing the store answers for the same handle; a client
without the extension gets the job as before and a next step naming the status action (the fallback).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from pydantic import ConfigDict, Field

from tests.e2e.packages import write_package
from tests.support import processes
from tests.support.paths import SPECS
from tests.upstreams.exports import ExportsUpstream

pytestmark = [pytest.mark.e2e]

TOKEN = "exports-token-5d1c"
TASKS = "io.modelcontextprotocol/tasks"
TOOL = "exports_export"
START = {"action": "start", "dataset": "orders", "format": "csv"}
MAX_POLLS = 10  # the stand-in finishes a job on its third status read


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("exports") / "out"
    write_package(SPECS / "exports" / "exports.openapi.yaml", SPECS / "exports" / "mapping.yaml", out)
    return out


@pytest.fixture(scope="module")
def located_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """specs/exports without the mapping's task: the spec's 202-only answer with a Location makes
    startExport a job all the same, its status read where Location points."""
    root = tmp_path_factory.mktemp("exports-located")
    mapping = (SPECS / "exports" / "mapping.yaml").read_text(encoding="utf-8")
    declared = "        task:\n          status: get\n          poll_interval_s: 2\n"
    assert declared in mapping
    (root / "mapping.yaml").write_text(mapping.replace(declared, ""), encoding="utf-8")
    write_package(SPECS / "exports" / "exports.openapi.yaml", root / "mapping.yaml", root / "out")
    return root / "out"


@pytest.fixture
def upstream() -> Iterator[ExportsUpstream]:
    with ExportsUpstream(token=TOKEN) as stand_in:
        yield stand_in


@pytest.fixture
def env(package: Path, upstream: ExportsUpstream, tmp_path: Path) -> dict[str, str]:
    # Both server processes of a test share this store (the default SQLite file under XDG_STATE_HOME).
    return {
        "PYTHONPATH": str(package),
        "EXPORTS_BASE_URL": upstream.base_url,
        "EXPORTS_API_TOKEN": TOKEN,
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }


COMMAND = [sys.executable, "-m", "exports_mcp"]


def rpc(url: str, method: str, params: dict[str, Any], tasks: bool = True, name: str | None = None) -> Any:
    """One 2026-07-28 request over HTTP; `tasks` declares the Tasks extension in its capabilities."""
    capabilities: dict[str, Any] = {"extensions": {TASKS: {}}} if tasks else {}
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }
    headers = {
        "accept": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        "mcp-name": name or params.get("name") or params.get("taskId", ""),
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    return httpx.post(url, json=body, headers=headers, timeout=30).json()


def start_task(url: str) -> dict[str, Any]:
    answer = rpc(url, "tools/call", {"name": TOOL, "arguments": START})
    assert "result" in answer, answer
    return answer["result"]


def walk(urls: list[str], task_id: str) -> list[dict[str, Any]]:
    """tasks/get until the task is terminal, taking turns over `urls`; every answer."""
    seen: list[dict[str, Any]] = []
    for poll in range(MAX_POLLS):
        answer = rpc(urls[poll % len(urls)], "tasks/get", {"taskId": task_id})
        assert "result" in answer, answer
        seen.append(answer["result"])
        if answer["result"]["status"] in ("completed", "failed", "cancelled"):
            break
    return seen


def test_a_declaring_client_gets_a_task_that_walks_to_completed(env: dict[str, str], upstream) -> None:
    with processes.http_server(COMMAND, env) as url:
        created = start_task(url)
        assert created["resultType"] == "task" and created["status"] == "working"
        assert created["taskId"].startswith("tk.") and created["pollIntervalMs"] == 2000
        seen = walk([url], created["taskId"])
    assert [s["status"] for s in seen] == ["working", "working", "completed"]
    assert all(s["resultType"] == "complete" and s["taskId"] == created["taskId"] for s in seen)
    result = seen[-1]["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["download_url"] == "https://files.example.com/exp_1.csv"
    assert [r.method for r in upstream.requests] == [
        "POST",
        "GET",
        "GET",
        "GET",
    ]  # one start, one read a poll


def test_a_job_the_spec_shows_is_followed_at_its_location(
    env: dict[str, str], located_package: Path, upstream
) -> None:
    with processes.http_server(COMMAND, {**env, "PYTHONPATH": str(located_package)}) as url:
        created = start_task(url)
        seen = walk([url], created["taskId"])
        without_extension = rpc(url, "tools/call", {"name": TOOL, "arguments": START}, tasks=False)["result"]
    assert created["pollIntervalMs"] == 5000  # the default
    assert [s["status"] for s in seen] == ["working", "working", "completed"]
    assert [r.path for r in upstream.requests[:4]] == ["/exports"] + ["/exports/exp_1"] * 3
    assert "its status is at /exports/exp_2 on the API" in without_extension["structuredContent"]["next_step"]


@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_two_servers_sharing_the_store_answer_for_one_task(
    store: str, env: dict[str, str], upstream, tmp_path: Path
) -> None:
    # The second process stands for another replica, or the same server after a restart; each
    # tasks/get is a new connection, as a restarted client's would be.
    with contextlib.ExitStack() as stack:
        if store == "redis":
            env = {**env, "MCP_STORE_URL": stack.enter_context(processes.redis_server(tmp_path))}
        first = stack.enter_context(processes.http_server(COMMAND, env))
        second = stack.enter_context(processes.http_server(COMMAND, env))
        created = start_task(first)
        seen = walk([second, first], created["taskId"])
        again = rpc(second, "tasks/get", {"taskId": created["taskId"]})["result"]
    assert [s["status"] for s in seen] == ["working", "working", "completed"]
    assert again == seen[-1]  # a finished task is answered from the store, the API not asked again
    assert [r.method for r in upstream.requests] == ["POST", "GET", "GET", "GET"]


def test_a_task_handle_is_the_callers_own_and_needs_the_extension(env: dict[str, str], upstream) -> None:
    with processes.http_server(COMMAND, env) as url:
        task_id = start_task(url)["taskId"]
        nonce = task_id.split(".")[1]
        forged = rpc(url, "tasks/get", {"taskId": f"tk.{nonce}.AAAAAAAAAAAAAAAAAAAAAAAA"})
        undeclared = rpc(url, "tasks/get", {"taskId": task_id}, tasks=False)
        cancelled = rpc(url, "tasks/cancel", {"taskId": task_id})
        forged_cancel = rpc(url, "tasks/cancel", {"taskId": f"tk.{nonce}.AAAAAAAAAAAAAAAAAAAAAAAA"})
    assert forged["error"]["code"] == -32602
    assert "taskId" in forged["error"]["message"]
    assert undeclared["error"]["code"] == -32021
    assert undeclared["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    assert cancelled["result"]["resultType"] == "complete"  # acknowledged; the API's job runs on
    assert forged_cancel["error"]["code"] == -32602


# The official client does not ship the Tasks extension: these few models and one ClientExtension
# (the SDK's own extension interface) are all it needs to declare it and follow a task to its end.
class CreatedTask(types.Result):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str


class TaskState(types.Result):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task_id: str = Field(alias="taskId")
    status: str
    result: dict[str, Any] | None = None


class GetTaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId")


class GetTask(types.Request[GetTaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: GetTaskParams
    name_param = "taskId"


class FollowTasks(ClientExtension):
    """Declares the Tasks extension; a task handle is followed with tasks/get until it ends."""

    identifier = TASKS

    def __init__(self) -> None:
        self.seen: list[str] = []  # the created task's status, then every tasks/get's

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.follow)]

    async def follow(self, created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
        self.seen.append(created.status)
        for _ in range(MAX_POLLS):
            request = GetTask(params=GetTaskParams(taskId=created.task_id))
            state = await ctx.session.send_request(request, TaskState)
            self.seen.append(state.status)
            if state.status == "completed" and state.result is not None:
                return types.CallToolResult.model_validate(state.result)
        raise AssertionError(f"the task did not complete: {self.seen}")


@pytest.mark.anyio
async def test_the_official_client_declaring_the_extension_follows_the_task(
    env: dict[str, str], upstream
) -> None:
    tasks = FollowTasks()
    with processes.http_server(COMMAND, env) as url:
        async with Client(url, extensions=[tasks]) as client:
            result = await client.call_tool(TOOL, START)
    assert tasks.seen == ["working", "working", "working", "completed"]
    assert not result.is_error
    assert result.structured_content["download_url"] == "https://files.example.com/exp_1.csv"


@pytest.mark.anyio
async def test_a_client_without_the_extension_gets_the_job_and_the_status_action(
    env: dict[str, str], upstream
) -> None:
    with processes.http_server(COMMAND, env) as url:
        async with Client(url) as client:  # the official client, declaring no extension
            started = await client.call_tool(TOOL, START)
            status = await client.call_tool(TOOL, {"action": "get", "export_id": "exp_1"})
    job = started.structured_content
    assert not started.is_error and job["id"] == "exp_1" and job["status"] == "queued"
    assert "Call exports_export with action get and export_id 'exp_1' every 2 s" in job["next_step"]
    assert status.structured_content["status"] == "queued"


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("https://elsewhere.example.org/jobs/exp_9", "on another host"),
        ("/exports/" + "x" * 9000, "longer than 8000 characters"),
    ],
)
def test_a_job_whose_status_link_cannot_be_followed_is_not_reported_finished(
    env: dict[str, str], located_package: Path, upstream, location: str, why: str
) -> None:
    """A 202 whose Location is refused (another host: the credentials never go there) or too long to
    request: no task that could never be read, and no answer that reads as done."""
    accepted = {"id": "exp_9", "status": "queued"}
    with processes.http_server(COMMAND, {**env, "PYTHONPATH": str(located_package)}) as url:
        answers = []
        for tasks in (True, False):
            upstream.fail_next(202, accepted, {"location": location})
            answers.append(rpc(url, "tools/call", {"name": TOOL, "arguments": START}, tasks=tasks)["result"])
    for answer in answers:
        assert answer["resultType"] == "complete" and answer["isError"] is False, answer
        step = answer["structuredContent"]["next_step"]
        assert "has not said that it finished" in step and why in step, step
    assert [r.method for r in upstream.requests] == ["POST", "POST"]  # nothing followed the link


def test_a_task_the_store_cannot_keep_still_answers_with_the_api_job(
    env: dict[str, str], upstream, tmp_path: Path
) -> None:
    """The API accepted the job; a store that cannot keep the task must not drop that answer."""
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    with processes.http_server(COMMAND, {**env, "MCP_STORE_URL": f"sqlite://{blocked}/store.db"}) as url:
        answer = rpc(url, "tools/call", {"name": TOOL, "arguments": START})["result"]
    assert answer["resultType"] == "complete" and answer["isError"] is False, answer
    assert answer["structuredContent"]["id"] == "exp_1"
    assert (
        "Call exports_export with action get and export_id 'exp_1'"
        in answer["structuredContent"]["next_step"]
    )
