"""Actions the API runs as jobs (202 Accepted plus a status URL or a job id): the mapping's `task:`,
or an operation whose spec answers only 202 with a Location header. The generated server follows
them as tasks of the MCP Tasks extension (runtime tasks.py)."""

from __future__ import annotations

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, error
from mcpgen.ir import TaskSpec
from mcpgen.load.mapping import ActionRule, ToolRule
from mcpgen.load.openapi import Operation


def task_spec(
    operation: Operation, rule: ActionRule, tool: ToolRule
) -> tuple[TaskSpec | None, list[Diagnostic]]:
    """How the server follows this action's job, or None when it answers at once."""
    declared = rule.task
    if declared is None:
        return (TaskSpec(status=None) if _spec_says_job(operation) else None), []
    never = _never_a_job(operation, rule)
    if never is not None:
        return None, [never]
    names = [a.name for a in tool.actions if a.name != rule.name]
    if declared.status is not None and declared.status not in names:
        known = ", ".join(names) or "none"
        return None, [
            error(
                codes.M250,
                f"action '{rule.name}' says its job's status is read by action '{declared.status}', "
                f"which tool '{tool.name}' does not have (its other actions: {known})",
                rule.source,
                hint="name the action of this tool that reads the job by its id, or leave task.status "
                "out to read the URL the 202 answer's Location names",
            )
        ]
    return (
        TaskSpec(
            status=declared.status,
            job_id=declared.job_id,
            state=declared.state,
            poll_interval_s=declared.poll_interval_s,
        ),
        [],
    )


def _never_a_job(operation: Operation, rule: ActionRule) -> Diagnostic | None:
    """`task:` where the spec documents success answers and none of them is 202 Accepted: the API
    answers at once, so the server would never follow a job and the setting would do nothing."""
    responses = operation.located.value.get("responses")
    if not isinstance(responses, dict):
        return None
    successes = [str(code) for code in responses if str(code).startswith("2")]
    if not successes or any(code in ("202", "2XX", "2xx") for code in successes):
        return None
    documented = ", ".join(successes)
    return error(
        codes.M251,
        f"action '{rule.name}' has `task:`, but {operation.key} answers {documented} and documents no "
        "202 Accepted, so the API never runs it as a job and the server would never follow one",
        (rule.task.source if rule.task is not None else None) or rule.source,
        hint="remove `task:` from this action, or, if the API does answer 202 with a job, add that "
        "202 response to the spec",
    )


def _spec_says_job(operation: Operation) -> bool:
    """The operation's only success answer is 202 Accepted, and it names a Location to look at."""
    responses = operation.located.value.get("responses")
    if not isinstance(responses, dict):
        return False
    successes = [str(code) for code in responses if str(code).startswith("2")]
    accepted = responses.get("202", responses.get(202))
    if successes != ["202"] or not isinstance(accepted, dict):
        return False
    headers = accepted.get("headers")
    return isinstance(headers, dict) and any(str(name).lower() == "location" for name in headers)
