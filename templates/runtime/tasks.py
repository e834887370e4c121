"""Jobs the API runs for a call (202 Accepted plus a status URL or a job id) as tasks of the MCP
Tasks extension (`io.modelcontextprotocol/tasks`, revision 2026-07-28).

A client that declares the extension on its request gets a task handle at once; each `tasks/get`
reads the job's status from the API and reports it as working, input_required, completed (with the
tool result), failed or cancelled. The handle is `tk.<nonce>.<signature>`: random, signed with the
store's key over the nonce, the tool and the caller, so it is opaque, tamper-evident and bound to
whoever started it (S3 handles). It lives in the preview store (store.py: SQLite by default, Redis
when replicated), so another replica answers for it, and a client that restarts resumes with it.

A job the API reports as failed or cancelled is a tool result with isError (status completed or
cancelled): the extension keeps `failed` for JSON-RPC errors. A client without the extension gets
the API's first answer as before, and a next step naming the action that reads the job's status.
So does every client when the job cannot be followed (its status link is on another host, or too
long to request) or the store cannot keep the task: the API accepted the request, and its answer is
never dropped for a task that cannot be made.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import Field

from .errors import Recovery, ToolError
from .routing import Action, TaskPoll, Tool
from .store import PreviewStore, StoreUnavailable, TaskRecord, TaskStatus, open_store

EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = frozenset({"completed", "failed", "cancelled"})
TTL_S = 86_400.0  # how long a task's record is kept
# The longest status link or job id followed: far below the 65,536 characters httpx sends at most.
MAX_LINK_CHARS = 8_000

# The words APIs use for a job's state, by the task status each means; anything else is working.
_STATES: dict[str, Literal["completed", "cancelled", "input_required"]] = {
    **dict.fromkeys(
        ("completed", "complete", "succeeded", "success", "done", "finished", "ready"),
        "completed",
    ),
    **dict.fromkeys(("failed", "failure", "error", "errored"), "completed"),
    **dict.fromkeys(("cancelled", "canceled", "aborted"), "cancelled"),
    **dict.fromkeys(
        ("input_required", "needs_input", "awaiting_input"), "input_required"
    ),
}
_FAILED = frozenset({"failed", "failure", "error", "errored"})

# Reads one job's status: a status action and its arguments, or None and a URL path on the API.
PollStatus = Callable[[Action | None, dict[str, Any], str], Awaitable[dict[str, Any]]]


class GetTaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId")


TaskMethod = Callable[[str, str], Awaitable[dict[str, Any]]]


def serve_tasks(server: Server[Any], methods: dict[str, TaskMethod]) -> None:
    """Advertises the Tasks extension and answers each of `methods` (tasks/get, tasks/cancel) with
    `answer(method, task_id)`, for clients that declare the extension."""
    server.extensions[EXTENSION] = {}
    for method, answer in methods.items():
        server.add_request_handler(method, GetTaskParams, _handler(method, answer))


def _handler(
    method: str, answer: TaskMethod
) -> Callable[[Any, GetTaskParams], Awaitable[dict[str, Any]]]:
    async def handle(ctx: Any, params: GetTaskParams) -> dict[str, Any]:
        if not declared(ctx.session.client_capabilities):
            raise MCPError(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=f"{method} needs the Tasks extension in the request's client capabilities",
                data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
            )
        return await answer(method, params.task_id)

    return handle


def declared(capabilities: Any) -> bool:
    """Whether the request's client capabilities name the Tasks extension."""
    extensions = getattr(capabilities, "extensions", None)
    return isinstance(extensions, dict) and EXTENSION in extensions


def job_of(
    action: Action, answer: dict[str, Any], location: str | None, base_url: str
) -> dict[str, Any] | None:
    """How to read the job's status later: its status action and the job's id, or the Location
    path (only on the API itself: the credentials never go elsewhere); `{"unfollowed": why}` when
    the API names a job this server cannot follow; None when the answer names no job (the API
    finished at once)."""
    poll: TaskPoll = action.task  # type: ignore[assignment]
    job_id = answer.get(poll.job_id)
    if poll.status is not None and isinstance(job_id, str | int) and job_id != "":
        if len(str(job_id)) > MAX_LINK_CHARS:
            return {
                "unfollowed": f"its job id is longer than {MAX_LINK_CHARS} characters"
            }
        return {"action": poll.status, "job_id": str(job_id)}
    if not location:
        return None
    url = urljoin(base_url + "/", location)
    base, target = urlsplit(base_url), urlsplit(url)
    if (target.scheme, target.netloc) != (base.scheme, base.netloc):
        return {
            "unfollowed": "its status link is on another host, where this server does not send "
            "the API's credentials"
        }
    if len(url) > MAX_LINK_CHARS:
        return {
            "unfollowed": f"its status link is longer than {MAX_LINK_CHARS} characters"
        }
    path = target.path.removeprefix(base.path.rstrip("/"))
    return {"path": path + (f"?{target.query}" if target.query else "")}


def next_step(tool: Tool, action: Action, job: dict[str, Any]) -> str:
    """For a client without the Tasks extension: how the agent follows the job itself."""
    poll: TaskPoll = action.task  # type: ignore[assignment]
    if "unfollowed" in job:
        check = action.check_with or "a read action of this server"
        return (
            "The API accepted this as a job and has not said that it finished; this server cannot "
            f"follow it: {job['unfollowed']}. Check later with {check} whether it is done before "
            "calling again."
        )
    every = f"every {poll.poll_interval_s:g} s"
    if "action" in job:
        status = tool.action(job["action"])
        arg = _id_arg(status) if status is not None else "id"
        return (
            f"The API runs this as a job and has not finished it yet. Call {tool.name} with action "
            f"{job['action']} and {arg} {job['job_id']!r} {every} until its {poll.state} says it is done."
        )
    return (
        f"The API runs this as a job and has not finished it yet; its status is at {job['path']} "
        "on the API. Check it later with a read action of this server."
    )


class Tasks:
    def __init__(self, package: str):
        self.package = package
        self._store: PreviewStore | None = None

    # What config.py's TaskFlow asks of a task flow.
    def declared(self, capabilities: Any) -> bool:
        return declared(capabilities)

    def job_of(
        self,
        action: Action,
        answer: dict[str, Any],
        location: str | None,
        base_url: str,
    ) -> dict[str, Any] | None:
        return job_of(action, answer, location, base_url)

    def next_step(self, tool: Tool, action: Action, job: dict[str, Any]) -> str:
        return next_step(tool, action, job)

    def serve(self, server: Server[Any], answer: TaskMethod) -> None:
        serve_tasks(server, {"tasks/get": answer, "tasks/cancel": answer})

    def store(self) -> PreviewStore:
        if self._store is None:
            # Opened at the first task, never at start-up.
            self._store = open_store(self.package)
        return self._store

    async def create(
        self, tool: Tool, action: Action, job: dict[str, Any], subject: str
    ) -> dict[str, Any] | None:
        """A durable task for the job, stored before its handle is handed out (a tasks/get for it
        resolves at once); the CreateTaskResult. None when there is no task to give: a job this
        server cannot follow, or a store that cannot keep it just now (the API has the job: the
        caller answers with the API's answer and `next_step` instead)."""
        if "unfollowed" in job:
            return None
        try:
            return await self._create(tool, action, job, subject)
        except StoreUnavailable:
            return None

    async def _create(
        self, tool: Tool, action: Action, job: dict[str, Any], subject: str
    ) -> dict[str, Any]:
        store = self.store()
        nonce = secrets.token_urlsafe(18)
        task_id = f"tk.{nonce}.{_signature(await store.signing_key(), nonce, tool.name, subject)}"
        now = time.time()
        record = TaskRecord(
            id=task_id,
            tool=tool.name,
            subject=subject,
            job={**job, "poll": action.name},
            created_at=now,
            expires_at=now + TTL_S,
            message="The API accepted the job and is running it.",
            updated_at=now,
        )
        await store.put_task(record)
        return {**_task(record, action.task), "resultType": "task"}  # type: ignore[arg-type]

    async def get(
        self,
        task_id: Any,
        subject: str,
        tools: dict[str, Tool],
        poll: PollStatus,
        as_result: Callable[[dict[str, Any], bool], dict[str, Any]],
    ) -> dict[str, Any]:
        """The task's state, read from the API while it is not terminal; raises ToolError when the
        id is not one of this caller's tasks (the handler answers it as invalid params)."""
        store = self.store()
        record = await self._own(store, task_id, subject)
        tool = tools.get(record.tool)
        action = tool.action(record.job["poll"]) if tool is not None else None
        if tool is None or action is None or action.task is None:
            raise _unknown("was started by a tool this server no longer has")
        if record.status not in TERMINAL:
            record = await self._polled(
                store, record, tool, action.task, poll, as_result
            )
        return {**_task(record, action.task), "resultType": "complete"}

    async def cancel(self, task_id: Any, subject: str) -> dict[str, Any]:
        """tasks/cancel, acknowledged: the API's job has no cancel this server knows of, so it runs
        on, and tasks/get goes on reporting what the API says (cancellation is the server's to
        honour or not, in the extension's words)."""
        await self._own(self.store(), task_id, subject)
        return {"resultType": "complete"}

    async def _own(self, store: PreviewStore, task_id: Any, subject: str) -> TaskRecord:
        parts = task_id.split(".") if isinstance(task_id, str) else []
        record = await store.get_task(task_id) if len(parts) == 3 else None
        if record is None or record.subject != subject:
            raise _unknown(
                "is unknown to this server: it expired, is another caller's, or its record went "
                "with a store that lost its data"
            )
        key = await store.signing_key()
        if parts[0] != "tk" or not hmac.compare_digest(
            parts[2], _signature(key, parts[1], record.tool, subject)
        ):
            raise _unknown("is not one this server issued to you")
        return record

    async def _polled(
        self,
        store: PreviewStore,
        record: TaskRecord,
        tool: Tool,
        poll_rule: TaskPoll,
        poll: PollStatus,
        as_result: Callable[[dict[str, Any], bool], dict[str, Any]],
    ) -> TaskRecord:
        job = record.job
        status_action = tool.action(job["action"]) if "action" in job else None
        args = (
            {_id_arg(status_action): job["job_id"]} if status_action is not None else {}
        )
        try:
            body = await poll(status_action, args, job.get("path", ""))
        except ToolError as exc:
            if exc.recovery is Recovery.RETRY_LATER:
                # The API did not answer this time; the job goes on, and so does the task.
                return _with(
                    record, message=f"The status could not be read just now: {exc.what}"
                )
            # The API refuses the status read (the job is gone, say): the tool call's result.
            failed = as_result({"error": exc.what, "next_step": exc.how}, True)
            return await _settle(store, record, "completed", exc.what, failed)
        word = str(body.get(poll_rule.state, "")).strip().lower()
        status: TaskStatus = _STATES.get(word, "working")
        message = f"The API reports the job as {word or 'running'}."
        if status == "working" or status == "input_required":
            updated = _with(record, status=status, message=message)
            await store.update_task(updated)
            return updated
        result = as_result(body, word in _FAILED or status == "cancelled")
        return await _settle(store, record, status, message, result)


async def _settle(
    store: PreviewStore,
    record: TaskRecord,
    status: TaskStatus,
    message: str,
    result: dict[str, Any],
) -> TaskRecord:
    settled = _with(record, status=status, message=message, result=result)
    await store.update_task(settled)
    # Another replica may have settled it first: what the store holds is the answer.
    return await store.get_task(record.id) or settled


def _with(record: TaskRecord, **changes: Any) -> TaskRecord:
    """The record with these fields changed, stamped with the time of the change."""
    return dataclasses.replace(record, updated_at=time.time(), **changes)


def _task(record: TaskRecord, poll: TaskPoll) -> dict[str, Any]:
    """The Task shape of the extension, with the result once completed."""
    task: dict[str, Any] = {
        "taskId": record.id,
        "status": record.status,
        "statusMessage": record.message,
        "createdAt": _utc(record.created_at),
        "lastUpdatedAt": _utc(record.updated_at or record.created_at),
        "ttlMs": int(TTL_S * 1000),
        "pollIntervalMs": int(poll.poll_interval_s * 1000),
    }
    if record.status == "input_required":
        task[
            "inputRequests"
        ] = {}  # the API waits on someone else; nothing for the client to answer
    if record.result is not None and record.status == "completed":
        task["result"] = record.result
    return task


def _id_arg(action: Action) -> str:
    """The status action's argument that takes the job's id: its first path parameter."""
    return next((p.arg for p in action.params if p.at == "path"), "id")


def _signature(key: bytes, nonce: str, tool: str, subject: str) -> str:
    digest = hmac.new(
        key, f"task\n{nonce}\n{tool}\n{subject}".encode(), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def _unknown(why: str) -> ToolError:
    return ToolError(
        f"this taskId {why}.",
        "Pass a taskId this server returned to you for a call; start the call again for a new one.",
        Recovery.FIX_INPUT,
    )


def _utc(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
