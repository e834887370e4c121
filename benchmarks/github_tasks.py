"""What an agent pays per task on a large API: GitHub (1,223 operations) through three servers.

- mcpgen: the package `mcpgen init` drafts for GitHub's spec, generated as is. Past 10 tools it lists two
  meta-tools (on-demand discovery): the agent calls `github_search_tools` with a query, reads the
  definitions it returns, then runs the tool through `github_call_tool`.
- FastMCP with search: `FastMCP.from_openapi(spec)` plus its documented tool search
  (`BM25SearchTransform()`, its defaults): tools/list is `search_tools` + `call_tool`, five full
  definitions a search, the tool run through `call_tool`.
- FastMCP without it: one tool per operation, the whole list in context. Its list is measured and the
  same calls are made directly, but an agent cannot hold that list: past a 200k context it does not fit.

Each task is written as the shortest call sequence an agent makes with each side: the same search
queries on both search sides (what an agent would type), one search per tool it needs and a reworded
one when a search missed, ids and values read from the results. When no query returns the tool the
task needs, the script fails (the table says so). The upstream is Prism's mock server for the same spec (tests/support/prism.py: static
examples, every request checked against the spec), so every answer is in GitHub's own shapes.

Tokens are counted as tasks.py counts them: tools/list once per task, every call's name and arguments,
every whole result (search results included), compact JSON, o200k_base.

    benchmarks/.venv/bin/python benchmarks/github_tasks.py      # prints the table; run_all.py embeds it
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from tasks import Session, value_in

OWNER, REPO = "octocat", "Hello-World"
HERE_REPO = {"owner": OWNER, "repo": REPO}
CONTEXT_TOKENS = 200_000  # a large model context: a tools/list past it cannot be held at all


@dataclass(frozen=True)
class Catalog:
    """How an agent reaches one server's tools: a search meta-tool and a call proxy, or (both None)
    the whole list in context and each tool called by its own name."""

    search: str | None = None
    call: str | None = None
    call_name_key: str = "name"


MCPGEN = Catalog("github_search_tools", "github_call_tool", "tool")
FASTMCP_SEARCH = Catalog("search_tools", "call_tool", "name")
FASTMCP_ALL = Catalog()


def tool_names(data: Any) -> list[str]:
    """The names of the tools in a search result, whatever its envelope: whole definitions (FastMCP's,
    and mcpgen's tools without actions) or a tool with the matching actions' own schemas (mcpgen's)."""
    if isinstance(data, dict):
        if "name" in data and ("inputSchema" in data or "actions" in data):
            return [str(data["name"])]
        return [n for v in data.values() for n in tool_names(v)]
    if isinstance(data, list):
        return [n for v in data for n in tool_names(v)]
    return []


@dataclass
class Agent(Session):
    """A Session that looks a tool up before it runs it, the way its server lets it."""

    catalog: Catalog = field(default_factory=Catalog)

    async def find(self, queries: tuple[str, ...], tool: str) -> None:
        """Search for `tool`, the queries in turn until one returns it, as an agent rewords a search that
        missed (nothing to do when the whole list is in context)."""
        if self.catalog.search is None:
            return
        names: list[str] = []
        for query in queries:
            names = tool_names(await self.call(self.catalog.search, {"query": query}))
            if tool in names:
                return
        raise ValueError(f"searches {list(queries)} did not return {tool} (the last returned {names})")

    async def run(self, tool: str, arguments: dict[str, Any]) -> Any:
        if self.catalog.call is None:
            return await self.call(tool, arguments)
        return await self.call(self.catalog.call, {self.catalog.call_name_key: tool, "arguments": arguments})


def first_number(data: Any) -> int:
    """The `number` of the first issue or pull request in a result."""
    number = value_in(data, "number")
    if not isinstance(number, int):
        raise ValueError(f"no issue number in the result: {str(data)[:200]}")
    return number


# ---- the tasks: mcpgen's script, then FastMCP's (the same for both FastMCP servers) ---------------
# Queries are the same on both search sides: each names what the step does, as an agent would ask; a
# second one rewords it, for a side whose first search missed (both stop at the first that finds it).

Q_LIST_ISSUES = ("list issues of a repository",)
Q_COMMENT = ("comment on an issue", "issue comment body issue_number")


async def comment_bug_mcpgen(a: Agent) -> None:
    """Comment on the first open issue labelled bug in octocat/Hello-World."""
    await a.find(Q_LIST_ISSUES, "github_issues_find")
    found = await a.run(
        "github_issues_find", {"action": "list_for_repo", **HERE_REPO, "labels": "bug", "state": "open"}
    )
    await a.find(Q_COMMENT, "github_issues_comments")
    body = {"issue_number": first_number(found), "body": "Reproduced on main."}
    await a.run("github_issues_comments", {"action": "create", **HERE_REPO, **body})


async def comment_bug_fastmcp(a: Agent) -> None:
    await a.find(Q_LIST_ISSUES, "issueslist_for_repo")
    found = await a.run("issueslist_for_repo", {**HERE_REPO, "labels": "bug", "state": "open"})
    await a.find(Q_COMMENT, "issuescreate_comment")
    body = {"issue_number": first_number(found), "body": "Reproduced on main."}
    await a.run("issuescreate_comment", {**HERE_REPO, **body})


Q_SEARCH = ("search issues and pull requests",)
PRS_BY_LABEL = f"repo:{OWNER}/{REPO} is:pr is:open label:bug"


async def prs_by_label_mcpgen(a: Agent) -> None:
    """List octocat/Hello-World's open pull requests labelled bug."""
    await a.find(Q_SEARCH, "github_search_find")
    await a.run("github_search_find", {"action": "search_issues", "q": PRS_BY_LABEL})


async def prs_by_label_fastmcp(a: Agent) -> None:
    await a.find(Q_SEARCH, "searchissues_and_pull_requests")
    await a.run("searchissues_and_pull_requests", {"q": PRS_BY_LABEL})


Q_LABEL = ("add labels to an issue",)


async def label_issue_mcpgen(a: Agent) -> None:
    """Label issue #1347 as triaged."""
    await a.find(Q_LABEL, "github_issues_labels_change")
    await a.run(
        "github_issues_labels_change",
        {"action": "add", **HERE_REPO, "issue_number": 1347, "labels_list": ["triaged"]},
    )


async def label_issue_fastmcp(a: Agent) -> None:
    await a.find(Q_LABEL, "issuesadd_labels")
    await a.run("issuesadd_labels", {**HERE_REPO, "issue_number": 1347, "body": {"labels": ["triaged"]}})


Q_CLOSE = ("update an issue", "close an issue in a repository state reason")
CLOSE = {"issue_number": 1347, "state": "closed", "state_reason": "completed"}


async def close_issue_mcpgen(a: Agent) -> None:
    """Close issue #1347 as completed."""
    await a.find(Q_CLOSE, "github_issues_change")
    await a.run("github_issues_change", {"action": "update", **HERE_REPO, **CLOSE})


async def close_issue_fastmcp(a: Agent) -> None:
    await a.find(Q_CLOSE, "issuesupdate")
    await a.run("issuesupdate", {**HERE_REPO, **CLOSE})


Q_RELEASE = ("get the latest release",)


async def latest_release_mcpgen(a: Agent) -> None:
    """Which is octocat/Hello-World's latest release?"""
    await a.find(Q_RELEASE, "github_repos_releases_find")
    await a.run("github_repos_releases_find", {"action": "get_latest_release", **HERE_REPO})


async def latest_release_fastmcp(a: Agent) -> None:
    await a.find(Q_RELEASE, "reposget_latest_release")
    await a.run("reposget_latest_release", HERE_REPO)


Q_FILES = ("list files of a pull request", "list the files in a pull request")


async def pr_files_mcpgen(a: Agent) -> None:
    """Which files does pull request #1347 change?"""
    await a.find(Q_FILES, "github_pulls_find")
    await a.run("github_pulls_find", {"action": "list_files", **HERE_REPO, "pull_number": 1347})


async def pr_files_fastmcp(a: Agent) -> None:
    await a.find(Q_FILES, "pullslist_files")
    await a.run("pullslist_files", {**HERE_REPO, "pull_number": 1347})


Q_REVIEW = ("create a review for a pull request",)
APPROVE = {"pull_number": 1347, "event": "APPROVE", "body": "Looks good."}


async def approve_pr_mcpgen(a: Agent) -> None:
    """Approve pull request #1347."""
    await a.find(Q_REVIEW, "github_pulls_reviews")
    await a.run("github_pulls_reviews", {"action": "create", **HERE_REPO, **APPROVE})


async def approve_pr_fastmcp(a: Agent) -> None:
    await a.find(Q_REVIEW, "pullscreate_review")
    await a.run("pullscreate_review", {**HERE_REPO, **APPROVE})


Q_RUNS = ("list workflow runs for a repository",)


async def failed_runs_mcpgen(a: Agent) -> None:
    """Which workflow runs of octocat/Hello-World failed?"""
    await a.find(Q_RUNS, "github_actions_runs_find")
    await a.run(
        "github_actions_runs_find",
        {"action": "list_workflow_runs_for_repo", **HERE_REPO, "status": "failure"},
    )


async def failed_runs_fastmcp(a: Agent) -> None:
    await a.find(Q_RUNS, "actionslist_workflow_runs_for_repo")
    await a.run("actionslist_workflow_runs_for_repo", {**HERE_REPO, "status": "failure"})


Q_CREATE = ("create an issue", "open a new issue in a repository")
NEW_ISSUE = {"title": "Found a bug", "body": "The build fails on Windows."}


async def open_issue_mcpgen(a: Agent) -> None:
    """Open an issue 'Found a bug' in octocat/Hello-World."""
    await a.find(Q_CREATE, "github_issues_change")
    await a.run("github_issues_change", {"action": "create", **HERE_REPO, **NEW_ISSUE})


async def open_issue_fastmcp(a: Agent) -> None:
    await a.find(Q_CREATE, "issuescreate")
    await a.run("issuescreate", {**HERE_REPO, **NEW_ISSUE})


Q_USER = ("get a user", "get a user's public profile by username")


async def user_profile_mcpgen(a: Agent) -> None:
    """Who is the user octocat?"""
    await a.find(Q_USER, "github_users_find")
    await a.run("github_users_find", {"action": "get_by_username", "username": OWNER})


async def user_profile_fastmcp(a: Agent) -> None:
    await a.find(Q_USER, "usersget_by_username")
    await a.run("usersget_by_username", {"username": OWNER})


Script = Callable[[Agent], Awaitable[None]]
# (task, mcpgen's script, FastMCP's script), in the order every server runs them.
GITHUB_TASKS: list[tuple[str, Script, Script]] = [
    ("comment on the first open bug issue", comment_bug_mcpgen, comment_bug_fastmcp),
    ("list the repo's open PRs labelled bug", prs_by_label_mcpgen, prs_by_label_fastmcp),
    ("label issue #1347 as triaged", label_issue_mcpgen, label_issue_fastmcp),
    ("close issue #1347 as completed", close_issue_mcpgen, close_issue_fastmcp),
    ("the repo's latest release", latest_release_mcpgen, latest_release_fastmcp),
    ("files changed by PR #1347", pr_files_mcpgen, pr_files_fastmcp),
    ("approve PR #1347", approve_pr_mcpgen, approve_pr_fastmcp),
    ("the repo's failed workflow runs", failed_runs_mcpgen, failed_runs_fastmcp),
    ("open an issue", open_issue_mcpgen, open_issue_fastmcp),
    ("the user octocat", user_profile_mcpgen, user_profile_fastmcp),
]

# ---- the table ----------------------------------------------------------------------------------------


def table(mcpgen: Any, search: Any, plain: Any, goal: float = 0.2) -> list[str]:
    """One row a task: mcpgen against FastMCP with search (the goal), and FastMCP without it."""
    fits = plain.list_tokens <= CONTEXT_TOKENS
    rows = [
        "| task | calls mcpgen / FastMCP search / plain | tool errors | tokens mcpgen | FastMCP with search | "
        "ratio | FastMCP without search | met? |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for m, s, p in zip(mcpgen.tasks, search.tasks, plain.tasks, strict=True):
        ratio = m.tokens / s.tokens if s.tokens else float("nan")
        why = []
        if ratio > goal:
            why.append(f"tokens {ratio / goal:.1f}x the 1/{round(1 / goal)} goal")
        if m.calls > s.calls:
            why.append(f"{m.calls - s.calls} more call(s)")
        for side, cost in (("mcpgen", m), ("FastMCP search", s)):
            if cost.tool_errors:
                why.append(f"{side}: {cost.tool_errors} tool error(s)")
            if cost.failure:
                why.append(f"{side} script failed: {cost.failure}")
        # Without search FastMCP is reported, not judged: its failures are said in its own cell.
        plain_cell = f"{p.tokens:,}" + ("" if fits else " (does not fit 200k)")
        if p.failure:
            plain_cell += f"; script failed: {p.failure[:100]}"
        rows.append(
            f"| {m.task} | {m.calls} / {s.calls} / {p.calls} | {m.tool_errors} / {s.tool_errors} / "
            f"{p.tool_errors} | {m.tokens:,} | {s.tokens:,} | {ratio:.3f} | {plain_cell} | "
            f"{'yes' if not why else 'no: ' + '; '.join(why)} |"
        )
    return rows


if __name__ == "__main__":
    from run_all import github_task_costs

    runs = github_task_costs()
    print("\n".join(table(*runs)))
