"""Baseline measurements (FastMCP) and the reusable pieces mcpgen's side plugs into.

Each build+list measurement runs in a fresh subprocess so its import cost and peak RSS are
its own; cold starts spawn the server under test with the official `mcp` stdio client.

    python baseline.py build SPEC [--timeout S]        FastMCP build + tools/list
    python baseline.py cold CMD... [--runs N] [--timeout S]   spawn -> tools/list over stdio
    python baseline.py tokens FILE                     o200k_base tokens of a file

Run with benchmarks/.venv/bin/python (see setup.sh).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# tiktoken would otherwise try to download o200k_base: the tests' cached file (scripts/fetch_specs
# tiktoken) when there is one, else the one setup.sh builds.
_TESTS_TIKTOKEN = HERE.parent / ".cache" / "tiktoken" / "tiktoken_cache"
os.environ.setdefault(
    "TIKTOKEN_CACHE_DIR",
    str(_TESTS_TIKTOKEN if _TESTS_TIKTOKEN.is_dir() else HERE / ".cache" / "tiktoken_cache"),
)

DEFAULT_TIMEOUT_S = 300.0


# ---- tokens -------------------------------------------------------------------------------------


@cache
def _encoding() -> Any:
    import tiktoken

    return tiktoken.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    """o200k_base tokens; encode_ordinary so text like '<|endoftext|>' counts as plain text."""
    return len(_encoding().encode_ordinary(text))


def tools_json(tools: list[dict[str, Any]]) -> str:
    """The one serialisation every side is counted with: json.dumps of the wire tool dicts."""
    return json.dumps(tools)


def count_tool_tokens(tools: list[dict[str, Any]]) -> int:
    return count_tokens(tools_json(tools))


def wire_tools(tools: list[Any]) -> list[dict[str, Any]]:
    """mcp Tool models -> dicts as sent on the wire (by alias, no nulls)."""
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]


# ---- build + list in a fresh process ------------------------------------------------------------


@dataclass
class BuildList:
    name: str
    status: str  # "ok" | "timeout" | "error"
    tools: int | None = None
    tokens: int | None = None
    seconds: float | None = None  # process spawn -> tools/list complete
    peak_rss_mb: float | None = None
    phases: dict[str, float] = field(default_factory=dict)  # what the child reports, for insight
    error: str | None = None


def measure_child(
    name: str, argv: list[str], timeout: float = DEFAULT_TIMEOUT_S, tokens: bool = True
) -> BuildList:
    """Run argv + ['--list-to', OUT]; the child writes the tools JSON to OUT and prints one
    stats line {"listed_at": time.monotonic(), "tools", "peak_rss_kb", "phases"}.

    CLOCK_MONOTONIC is system-wide on Linux, so the child's listed_at minus our pre-spawn
    mark is spawn -> list complete, interpreter start and imports included. Any command that
    speaks this protocol (e.g. an mcpgen-generated server's own lister) can be measured.
    """
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tools.json"
        t0 = time.monotonic()
        try:
            proc = subprocess.run(
                [*argv, "--list-to", str(out)], capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:  # subprocess.run kills the child before raising
            return BuildList(name, "timeout", error=f"no tools/list within {timeout:g} s")
        if proc.returncode != 0:
            return BuildList(name, "error", error=_tail(proc.stderr) or f"exit {proc.returncode}")
        stats = json.loads(proc.stdout.strip().splitlines()[-1])
        text = out.read_text(encoding="utf-8")
    return BuildList(
        name,
        "ok",
        tools=stats["tools"],
        tokens=count_tokens(text) if tokens else None,  # stripe: 50M tokens, a minute to count
        seconds=stats["listed_at"] - t0,
        peak_rss_mb=stats["peak_rss_kb"] / 1024,
        phases=stats.get("phases", {}),
    )


def fastmcp_build_and_list(
    spec_path: str | Path, timeout: float = DEFAULT_TIMEOUT_S, tokens: bool = True
) -> BuildList:
    """FastMCP.from_openapi(spec) + a complete tools/list through its in-memory client."""
    argv = [sys.executable, str(HERE / "fastmcp_server.py"), str(spec_path)]
    return measure_child(Path(spec_path).stem, argv, timeout, tokens)


# ---- cold start over stdio ----------------------------------------------------------------------


@dataclass
class ColdStart:
    name: str
    status: str  # "ok" | "timeout" | "error"
    seconds: float | None = None  # median of runs
    runs: list[float] = field(default_factory=list)
    tools: int | None = None
    error: str | None = None


async def _spawn_and_list(
    command: list[str], cwd: str | Path | None = None, env: dict[str, str] | None = None, max_pages: int = 100
) -> list[Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=cwd, env=env)
    tools: list[Any] = []
    async with Client(params) as client:
        cursor: str | None = None
        for _ in range(max_pages):  # bounded: a buggy server can't loop us forever
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
    return tools


def list_tools_stdio(
    command: list[str],
    timeout: float = DEFAULT_TIMEOUT_S,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Spawn a stdio MCP server and return its tools as wire dicts (for token counts)."""
    import anyio

    async def go() -> list[Any]:
        with anyio.fail_after(timeout):
            return await _spawn_and_list(command, cwd, env)

    return wire_tools(anyio.run(go))


def cold_start_stdio(
    command: list[str],
    runs: int = 5,
    timeout: float = 60.0,
    name: str | None = None,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
) -> ColdStart:
    """Median wall time from spawning `command` to its complete first tools/list, over `runs`
    fresh spawns (each its own process, so nothing is warm but the OS page cache).
    `env` is merged over the SDK's default environment; `cwd` is where the server starts."""
    import anyio

    name = name or " ".join(Path(c).name for c in command)
    times: list[float] = []
    n_tools = None

    async def one() -> None:
        nonlocal n_tools
        t0 = time.monotonic()
        with anyio.fail_after(timeout):
            tools = await _spawn_and_list(command, cwd, env)
        times.append(time.monotonic() - t0)
        n_tools = len(tools)

    for _ in range(max(1, min(runs, 50))):  # bounded run count
        try:
            anyio.run(one)
        except Exception as e:  # noqa: BLE001 - any server failure becomes a result row
            e = _leaf(e)
            if isinstance(e, TimeoutError):
                return ColdStart(name, "timeout", runs=times, error=f"no tools/list within {timeout:g} s")
            return ColdStart(name, "error", runs=times, error=f"{type(e).__name__}: {e}"[:500])
    return ColdStart(name, "ok", seconds=statistics.median(times), runs=times, tools=n_tools)


def fastmcp_stdio_command(spec_path: str | Path) -> list[str]:
    return [sys.executable, str(HERE / "fastmcp_server.py"), str(spec_path)]


def hello_stdio_command() -> list[str]:
    return [sys.executable, str(HERE / "hello_server.py")]


# ---- helpers / CLI ------------------------------------------------------------------------------


def _leaf(e: BaseException) -> BaseException:
    """anyio wraps failures in ExceptionGroups; the first leaf says what happened."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def _tail(text: str, lines: int = 5) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def to_json(obj: Any) -> dict[str, Any]:
    return asdict(obj)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="FastMCP build + tools/list of a spec")
    b.add_argument("spec")
    b.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S)
    c = sub.add_parser("cold", help="cold start of a stdio MCP server command")
    c.add_argument("command", nargs="+")
    c.add_argument("--runs", type=int, default=5)
    c.add_argument("--timeout", type=float, default=60.0)
    t = sub.add_parser("tokens", help="o200k_base tokens of a file")
    t.add_argument("file")
    a = p.parse_args(argv)
    if a.cmd == "build":
        print(json.dumps(to_json(fastmcp_build_and_list(a.spec, a.timeout)), indent=2))
    elif a.cmd == "cold":
        print(json.dumps(to_json(cold_start_stdio(a.command, a.runs, a.timeout)), indent=2))
    else:
        print(count_tokens(Path(a.file).read_text(encoding="utf-8")))


if __name__ == "__main__":
    main()
