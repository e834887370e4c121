"""What an agent pays per task: the same jobs through mcpgen's ads server and FastMCP's from_openapi server.

Each task is written twice, as the shortest call sequence an agent would make with each server's tools,
knowing the tools from tools/list and reading ids and values from the results (never from the stand-in's
code). Both servers run over stdio against their own fresh copy of the same loopback upstream
(tests/upstreams/ads.py, served with keep-alive by upstream.py) and do the tasks in the same order, so
both see the same data.

Tokens, o200k_base, of compact JSON as the SDK sends it: the server's tools/list once per task (an agent
has it in context for every task), plus every call's name and arguments and every result as sent
(content, structuredContent and isError, as the client receives them).

    benchmarks/.venv/bin/python benchmarks/tasks.py        # prints the table; run_all.py embeds it
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

ADS_SPEC_NAME = "ads"

# ---- the session every task script drives ----------------------------------------------------------


@dataclass
class Call:
    tool: str
    arguments: dict[str, Any]
    is_error: bool
    tokens: int  # the request's name + arguments and the whole result


@dataclass
class Session:
    """One stdio client of one server: `await s.call(tool, args)` returns the result's data."""

    client: Any
    count: Callable[[str], int]
    calls: list[Call] = field(default_factory=list)

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        result = await self.client.call_tool(tool, arguments)
        sent = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        request = {"name": tool, "arguments": arguments}
        tokens = self.count(compact(request)) + self.count(compact(sent))
        self.calls.append(Call(tool, arguments, bool(result.is_error), tokens))
        return data_of(result)


def compact(value: Any) -> str:
    """JSON as the SDK puts it on the wire (pydantic's model_dump_json: no spaces, UTF-8 kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def data_of(result: Any) -> Any:
    """What an agent reads from a result: the structured content, else the text parsed as JSON."""
    if result.structured_content is not None:
        return result.structured_content
    text = "".join(getattr(c, "text", "") for c in result.content)
    try:
        return json.loads(text)
    except ValueError:
        return text


def campaigns_in(data: Any) -> list[dict[str, Any]]:
    """Every campaign record in a result, whatever envelope the server puts around it (the first list
    of records with a cmp_ id; a single record counts as a list of one)."""
    if isinstance(data, dict):
        if str(data.get("id", "")).startswith("cmp_"):
            return [data]
        for value in data.values():
            found = campaigns_in(value)
            if found:
                return found
    if isinstance(data, list):
        records = [d for d in data if isinstance(d, dict) and str(d.get("id", "")).startswith("cmp_")]
        if records:
            return records
        for value in data:
            found = campaigns_in(value)
            if found:
                return found
    return []


def value_in(data: Any, key: str) -> Any:
    """The first value under `key` anywhere in a result."""
    if isinstance(data, dict):
        if key in data:
            return data[key]
        values = list(data.values())
    elif isinstance(data, list):
        values = data
    else:
        return None
    for value in values:
        found = value_in(value, key)
        if found is not None:
            return found
    return None


# ---- the tasks: mcpgen's script, then FastMCP's --------------------------------------------------


async def raise_budget_mcpgen(s: Session) -> None:
    """Raise campaign Winter Sale 01's daily budget by 20 %."""
    [campaign] = campaigns_in(
        await s.call("ads_campaigns_find", {"action": "search", "query": "Winter Sale 01"})
    )
    new = round(campaign["daily_budget"] * 1.2)
    preview = await s.call(
        "ads_budget_change_preview", {"campaign_id": campaign["id"], "new_daily_budget_krw": new}
    )
    await s.call("ads_budget_change_apply", {"preview_id": value_in(preview, "preview_id")})


async def raise_budget_fastmcp(s: Session) -> None:
    [campaign] = campaigns_in(await s.call("searchCampaigns", {"q": "Winter Sale 01"}))
    new = round(campaign["daily_budget"] * 1.2)
    await s.call("updateCampaignBudget", {"campaign_id": campaign["id"], "daily_budget": new})


async def pause_owner_mcpgen(s: Session) -> None:
    """Pause every active campaign owned by lee@example.com."""
    found = await s.call(
        "ads_campaigns_find", {"action": "list", "status": "active", "owner": "lee@example.com", "limit": 100}
    )
    for campaign in campaigns_in(found):
        await s.call("ads_campaign_change", {"action": "pause", "campaign_id": campaign["id"]})


async def pause_owner_fastmcp(s: Session) -> None:
    found = await s.call("listCampaigns", {"status": "active", "owner": "lee@example.com", "per_page": 100})
    for campaign in campaigns_in(found):
        await s.call("pauseCampaign", {"campaign_id": campaign["id"]})


async def november_clicks_mcpgen(s: Session) -> None:
    """How many clicks did Spring Launch 02 get in November 2026?"""
    [campaign] = campaigns_in(
        await s.call("ads_campaigns_find", {"action": "search", "query": "Spring Launch 02"})
    )
    period = {"from_date": "2026-11-01", "to_date": "2026-11-30"}
    await s.call("ads_reports", {"action": "campaign_stats", "campaign_id": campaign["id"], **period})


async def november_clicks_fastmcp(s: Session) -> None:
    [campaign] = campaigns_in(await s.call("searchCampaigns", {"q": "Spring Launch 02"}))
    period = {"from_date": "2026-11-01", "to_date": "2026-11-30"}
    await s.call("getCampaignStats", {"campaign_id": campaign["id"], **period})


NEW_CAMPAIGN = {"name": "Holiday Push", "objective": "conversions", "owner": "kim@example.com"}


async def create_campaign_mcpgen(s: Session) -> None:
    """Create campaign Holiday Push, 200,000 KRW a day, for conversions, managed by kim@example.com."""
    await s.call("ads_campaign_change", {"action": "create", "daily_budget_krw": 200_000, **NEW_CAMPAIGN})


async def create_campaign_fastmcp(s: Session) -> None:
    await s.call("createCampaign", {"daily_budget": 200_000, **NEW_CAMPAIGN})


async def delete_campaign_mcpgen(s: Session) -> None:
    """Delete campaign Retargeting 04."""
    [campaign] = campaigns_in(
        await s.call("ads_campaigns_find", {"action": "search", "query": "Retargeting 04"})
    )
    await s.call(
        "ads_campaign_change",
        {"action": "delete", "campaign_id": campaign["id"], "confirm": "CONFIRM_DELETE"},
    )


async def delete_campaign_fastmcp(s: Session) -> None:
    [campaign] = campaigns_in(await s.call("searchCampaigns", {"q": "Retargeting 04"}))
    await s.call("deleteCampaign", {"campaign_id": campaign["id"]})


async def spend_limit_mcpgen(s: Session) -> None:
    """What is the account's monthly spend limit?"""
    await s.call("ads_reports", {"action": "account"})


async def spend_limit_fastmcp(s: Session) -> None:
    await s.call("getAccount", {})


async def resume_paused_mcpgen(s: Session) -> None:
    """Resume every paused Winter Sale campaign."""
    found = await s.call(
        "ads_campaigns_find", {"action": "search", "query": "Winter Sale", "status": "paused"}
    )
    for campaign in campaigns_in(found):
        await s.call("ads_campaign_change", {"action": "resume", "campaign_id": campaign["id"]})


async def resume_paused_fastmcp(s: Session) -> None:
    found = await s.call("searchCampaigns", {"q": "Winter Sale", "status": "paused"})
    for campaign in campaigns_in(found):
        await s.call("resumeCampaign", {"campaign_id": campaign["id"]})


Script = Callable[[Session], Awaitable[None]]
# (task, mcpgen's script, FastMCP's script), in the order both servers run them.
TASKS: list[tuple[str, Script, Script]] = [
    ("raise Winter Sale 01's daily budget by 20 %", raise_budget_mcpgen, raise_budget_fastmcp),
    ("pause every active campaign of lee@example.com", pause_owner_mcpgen, pause_owner_fastmcp),
    ("clicks of Spring Launch 02 in November", november_clicks_mcpgen, november_clicks_fastmcp),
    ("create campaign Holiday Push", create_campaign_mcpgen, create_campaign_fastmcp),
    ("delete campaign Retargeting 04", delete_campaign_mcpgen, delete_campaign_fastmcp),
    ("the account's monthly spend limit", spend_limit_mcpgen, spend_limit_fastmcp),
    ("resume every paused Winter Sale campaign", resume_paused_mcpgen, resume_paused_fastmcp),
]


# ---- running them ------------------------------------------------------------------------------------


@dataclass
class TaskCost:
    task: str
    calls: int
    tool_errors: int
    list_tokens: int  # the tools/list in context
    call_tokens: int  # every argument and result
    failure: str | None = None  # the script itself broke (a result it could not read)

    @property
    def tokens(self) -> int:
        return self.list_tokens + self.call_tokens


@dataclass
class ServerRun:
    server: str
    tools: int
    list_tokens: int
    tasks: list[TaskCost]
    peak_rss_mb: float | None = None
    upstream_connections: int | None = None


async def run_tasks(
    client: Any,
    count: Callable[[str], int],
    which: int,
    tasks: Sequence[tuple[str, Any, Any]] = (),
    session: Callable[[Any, Callable[[str], int]], Session] = Session,
) -> tuple[int, int, list[TaskCost]]:
    """Every task's script `which` (1 mcpgen, 2 FastMCP) through one connected client; `tasks` defaults
    to the ads tasks, `session` makes each task's Session (github_tasks.py's Agent)."""
    listed = await client.list_tools()
    wire = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
    list_tokens = count(compact({"tools": wire}))
    costs = []
    for task in tasks or TASKS:
        s = session(client, count)
        failure = None
        try:
            await task[which](s)
        # A result the script could not read, or one the SDK client refused (its outputSchema check).
        except (ValueError, KeyError, TypeError, RuntimeError) as e:
            failure = f"{type(e).__name__}: {e}"[:200]
        costs.append(
            TaskCost(
                task[0],
                calls=len(s.calls),
                tool_errors=sum(c.is_error for c in s.calls),
                list_tokens=list_tokens,
                call_tokens=sum(c.tokens for c in s.calls),
                failure=failure,
            )
        )
    return len(wire), list_tokens, costs


# The goal on this 10-operation example (FastMCP's list is small here): mcpgen <= 1/3 of its tokens.
ADS_GOAL = 1 / 3


def table(mcpgen: ServerRun, fastmcp: ServerRun, goal: float = ADS_GOAL) -> list[str]:
    rows = [
        "| task | calls mcpgen / FastMCP | tool errors | tokens mcpgen | tokens FastMCP | ratio | "
        "of which arguments + results | met? |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for m, f in zip(mcpgen.tasks, fastmcp.tasks, strict=True):
        ratio = m.tokens / f.tokens if f.tokens else float("nan")
        ok = ratio <= goal and m.calls <= f.calls and not m.tool_errors and not m.failure
        why = [] if ok else _why(m, f, ratio, goal)
        rows.append(
            f"| {m.task} | {m.calls} / {f.calls} | {m.tool_errors} / {f.tool_errors} | {m.tokens:,} | "
            f"{f.tokens:,} | {ratio:.3f} | {m.call_tokens:,} / {f.call_tokens:,} | "
            f"{'yes' if ok else 'no: ' + '; '.join(why)} |"
        )
    return rows


def _why(m: TaskCost, f: TaskCost, ratio: float, goal: float) -> list[str]:
    why = []
    if ratio > goal:
        why.append(f"tokens {ratio / goal:.1f}x the 1/{round(1 / goal)} goal")
    if m.calls > f.calls:
        why.append(f"{m.calls - f.calls} more call(s)")
    if m.tool_errors:
        why.append(f"{m.tool_errors} tool error(s)")
    for side, cost in (("mcpgen", m), ("FastMCP", f)):
        if cost.failure:
            why.append(f"{side} script failed: {cost.failure}")
    return why


if __name__ == "__main__":
    from run_all import task_costs

    m, f = task_costs()
    print("\n".join(table(m, f)))
    sys.exit(0)
