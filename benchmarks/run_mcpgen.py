"""mcpgen against FastMCP, measured side by side in one run; prints ratios, writes results/mcpgen.json.

    benchmarks/.venv/bin/python benchmarks/run_mcpgen.py [--specs github,stripe,asana,jira]
        [--runs 5] [--calls 200] [--mcpgen PATH] [--skip-fastmcp-build] [--out FILE]

For each spec: `mcpgen init` drafts a mapping covering every operation, `mcpgen generate` writes the
package, and the generated server is started over stdio for a real tools/list. FastMCP's
`from_openapi` is built and listed on the same spec in the same run (baseline.py). Then cold starts
(generated GitHub server, FastMCP on GitHub, a hello-world SDK server), peak RSS of each after its
first tools/list, and per-call overhead through the generated ads server against a direct httpx call
to the same loopback upstream.

mcpgen runs from the project's .venv (the user's path: its console script); the servers under test
all run on this venv's interpreter so their cold starts compare like for like.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from baseline import (
    HERE,
    BuildList,
    ColdStart,
    cold_start_stdio,
    count_tool_tokens,
    fastmcp_build_and_list,
    fastmcp_stdio_command,
    hello_stdio_command,
    list_tools_stdio,
)
from run_baseline import SPECS_DIR, machine

ROOT = HERE.parent
WORK = HERE / ".cache" / "work"
TOKEN_SPECS = ["github", "asana", "jira", "stripe"]
COLD_SPEC = "github"
ADS_SPEC = ROOT / "specs" / "ads" / "ads.openapi.yaml"
ADS_MAPPING = ROOT / "specs" / "ads" / "mapping.yaml"
ADS_TOKEN = "bench-token"


# ---- mcpgen side --------------------------------------------------------------------------------


@dataclass
class Generated:
    name: str
    status: str  # "ok" | "error"
    init_s: float | None = None
    generate_s: float | None = None
    tools: int | None = None
    actions: int | None = None
    catalog_tokens: int | None = None  # every tool definition: what tools/list sends without discovery
    listed_tools: int | None = None
    listed_tokens: int | None = None  # what the generated server's tools/list actually sends
    package: str | None = None
    error: str | None = None


def _timed(argv: list[str], timeout: float) -> float:
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    elapsed = time.monotonic() - t0
    if proc.returncode != 0:
        raise RuntimeError(
            f"{Path(argv[0]).name} {argv[1]} exit {proc.returncode}: {proc.stderr.strip()[-600:]}"
        )
    return elapsed


def package_dir(out: Path) -> Path:
    return next(p for p in out.iterdir() if p.is_dir() and (p / "tools.json").is_file())


def wire_catalog(package: Path) -> list[dict[str, Any]]:
    """Every definition in tools.json (discovery meta-tools aside) as the SDK would send it."""
    from mcp import types

    contract = json.loads((package / "tools.json").read_text(encoding="utf-8"))
    catalog = [t for t in contract if "dev.mcpgen/discovery" not in (t.get("_meta") or {})]
    return [
        types.Tool.model_validate(t).model_dump(mode="json", by_alias=True, exclude_none=True)
        for t in catalog
    ]


def server_command(out: Path) -> tuple[list[str], dict[str, str]]:
    package = package_dir(out)
    # One INFO line per call on stderr is the default; benchmarks keep their output to the tables.
    return [sys.executable, "-m", package.name, "--log-level", "WARNING"], {"PYTHONPATH": str(out)}


def mcpgen_generate(mcpgen: str, name: str, spec: Path, timeout: float) -> Generated:
    work = WORK / name
    mapping, out = work / "mapping.yaml", work / "pkg"
    work.mkdir(parents=True, exist_ok=True)
    try:
        init_s = _timed([mcpgen, "init", str(spec), "-o", str(mapping), "--force"], timeout)
        if out.exists():
            subprocess.run(["rm", "-rf", str(out)], check=True)
        generate_s = _timed(
            [mcpgen, "generate", str(spec), "-m", str(mapping), "-o", str(out), "-q"], timeout
        )
        package = package_dir(out)
        catalog = wire_catalog(package)
        command, env = server_command(out)
        listed = list_tools_stdio(command, timeout=120, env=env)
    except (RuntimeError, subprocess.TimeoutExpired, StopIteration) as e:
        return Generated(name, "error", error=str(e)[:800])
    actions = sum(len(t["inputSchema"]["properties"]["action"]["enum"]) for t in catalog)
    return Generated(
        name,
        "ok",
        init_s=init_s,
        generate_s=generate_s,
        tools=len(catalog),
        actions=actions,
        catalog_tokens=count_tool_tokens(catalog),
        listed_tools=len(listed),
        listed_tokens=count_tool_tokens(listed),
        package=package.name,
    )


@dataclass
class Timing:
    """generate and FastMCP build+list, taken in turns so both see the same load; medians."""

    name: str
    generate_runs: list[float]
    fastmcp_runs: list[float]

    @property
    def generate_s(self) -> float:
        return statistics.median(self.generate_runs)

    @property
    def fastmcp_s(self) -> float:
        return statistics.median(self.fastmcp_runs)


def timing(mcpgen: str, name: str, spec: Path, first: Generated, peer: BuildList, repeat: int) -> Timing:
    """Starts from the first run's two numbers and adds `repeat - 1` more pairs."""
    work = WORK / name
    t = Timing(name, [first.generate_s or 0.0], [peer.seconds or 0.0])
    for _ in range(max(0, min(repeat, 20) - 1)):  # bounded
        out = work / "pkg"
        subprocess.run(["rm", "-rf", str(out)], check=True)
        argv = [mcpgen, "generate", str(spec), "-m", str(work / "mapping.yaml"), "-o", str(out), "-q"]
        t.generate_runs.append(_timed(argv, 300))
        again = fastmcp_build_and_list(spec, tokens=False)
        if again.seconds is not None:
            t.fastmcp_runs.append(again.seconds)
    return t


# ---- peak RSS -----------------------------------------------------------------------------------


def peak_rss_mb(command: list[str], env: dict[str, str] | None = None) -> float | None:
    """The server's own peak RSS after one spawn -> tools/list -> stdin closed (rss_probe.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rss.json"
        list_tools_stdio([sys.executable, str(HERE / "rss_probe.py"), str(out), "--", *command], 120, env=env)
        for _ in range(400):  # the probe writes when the server has exited; bounded wait (20 s)
            if out.is_file() and out.read_text():
                return json.loads(out.read_text())["peak_rss_kb"] / 1024
            time.sleep(0.05)
    return None


# ---- per-call overhead --------------------------------------------------------------------------


@dataclass
class CallOverhead:
    calls: int
    direct_median_ms: float
    direct_p90_ms: float
    mcp_median_ms: float
    mcp_p90_ms: float
    overhead_median_ms: float


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_listening(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"upstream did not listen on 127.0.0.1:{port}")


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def call_overhead(mcpgen: str, calls: int) -> CallOverhead:
    """The same GET through the generated ads server (MCP over stdio) and through httpx directly."""
    import anyio
    import httpx
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    out = WORK / "ads" / "pkg"
    if out.exists():
        subprocess.run(["rm", "-rf", str(out)], check=True)
    _timed([mcpgen, "generate", str(ADS_SPEC), "-m", str(ADS_MAPPING), "-o", str(out), "-q"], 120)
    port = _free_port()
    upstream = subprocess.Popen(
        [sys.executable, "-m", "tests.upstreams.ads", "--port", str(port), "--token", ADS_TOKEN],
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    warmup = 10
    try:
        _wait_listening(port)

        async def direct() -> list[float]:
            times = []
            async with httpx.AsyncClient(
                base_url=base, headers={"Authorization": f"Bearer {ADS_TOKEN}"}
            ) as c:
                for i in range(warmup + calls):
                    t0 = time.perf_counter()
                    r = await c.get("/campaigns/cmp_001")
                    r.raise_for_status()
                    if i >= warmup:
                        times.append(time.perf_counter() - t0)
            return times

        async def through_mcp() -> list[float]:
            command, env = server_command(out)
            env = {**env, "ADS_BASE_URL": base, "ADS_API_TOKEN": ADS_TOKEN}
            params = StdioServerParameters(command=command[0], args=command[1:], env=env)
            times = []
            async with Client(params) as client:
                for i in range(warmup + calls):
                    t0 = time.perf_counter()
                    result = await client.call_tool(
                        "ads_campaigns_find", {"action": "get", "campaign_id": "cmp_001"}
                    )
                    if result.is_error:
                        raise RuntimeError(f"tools/call failed: {result.content}")
                    if i >= warmup:
                        times.append(time.perf_counter() - t0)
            return times

        direct_t = anyio.run(direct)
        mcp_t = anyio.run(through_mcp)
    finally:
        upstream.terminate()
        upstream.wait(timeout=10)
    ms = 1000.0
    return CallOverhead(
        calls=calls,
        direct_median_ms=statistics.median(direct_t) * ms,
        direct_p90_ms=_p90(direct_t) * ms,
        mcp_median_ms=statistics.median(mcp_t) * ms,
        mcp_p90_ms=_p90(mcp_t) * ms,
        overhead_median_ms=(statistics.median(mcp_t) - statistics.median(direct_t)) * ms,
    )


# ---- report -------------------------------------------------------------------------------------


def _pct(part: float | None, whole: float | None) -> str:
    return "—" if not part or not whole else f"{100 * part / whole:.2f} %"


def _x(a: float | None, b: float | None) -> str:
    """How many times faster a is than b."""
    return "—" if not a or not b else f"{b / a:.1f}x"


def _n(v: float | int | None, spec: str) -> str:
    return "—" if v is None else format(v, spec)


def token_table(gens: list[Generated], peers: dict[str, BuildList]) -> list[str]:
    rows = [
        "| spec | FastMCP tools | FastMCP tokens | mcpgen tools (actions) | mcpgen all definitions | "
        "ratio | mcpgen tools/list (discovery) | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for g in gens:
        p = peers.get(g.name)
        rows.append(
            f"| {g.name} | {_n(p and p.tools, ',')} | {_n(p and p.tokens, ',')} | "
            f"{_n(g.tools, ',')} ({_n(g.actions, ',')}) | {_n(g.catalog_tokens, ',')} | "
            f"{_pct(g.catalog_tokens, p and p.tokens)} | {_n(g.listed_tokens, ',')} | "
            f"{_pct(g.listed_tokens, p and p.tokens)} |"
        )
    return rows


def time_table(gens: list[Generated], timings: dict[str, Timing]) -> list[str]:
    rows = [
        "| spec | mcpgen init s | mcpgen generate s (median) | FastMCP build+list s (median) | "
        "generate faster by | runs: generate / FastMCP s |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for g in gens:
        t = timings.get(g.name)
        if t is None:
            rows.append(f"| {g.name} | {g.status} | | | | |")
            continue
        runs = (
            ", ".join(f"{x:.1f}" for x in t.generate_runs)
            + " / "
            + ", ".join(f"{x:.1f}" for x in t.fastmcp_runs)
        )
        rows.append(
            f"| {g.name} | {_n(g.init_s, '.2f')} | {t.generate_s:.2f} | {t.fastmcp_s:.2f} | "
            f"{_x(t.generate_s, t.fastmcp_s)} | {runs} |"
        )
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--specs", default=",".join(TOKEN_SPECS), help="FastMCP on stripe lists 50M tokens; keep it last"
    )
    p.add_argument("--runs", type=int, default=5, help="cold-start spawns per server (median)")
    p.add_argument("--calls", type=int, default=200, help="timed calls per side for the overhead")
    p.add_argument(
        "--repeat", type=int, default=3, help="generate vs FastMCP build+list pairs per spec (median)"
    )
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--mcpgen", default=str(ROOT / ".venv" / "bin" / "mcpgen"))
    p.add_argument("--out", type=Path, default=HERE / "results" / "mcpgen.json")
    a = p.parse_args()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    os.chdir(ROOT)

    gens: list[Generated] = []
    peers: dict[str, BuildList] = {}
    for name in a.specs.split(","):
        spec = SPECS_DIR / f"{name}.json"
        peers[name] = fastmcp_build_and_list(spec, timeout=a.timeout)
        gens.append(mcpgen_generate(a.mcpgen, name, spec, a.timeout))
        g = gens[-1]
        print(f"{name}: mcpgen {g.status} {g.error or ''} | FastMCP {peers[name].status}", file=sys.stderr)

    print("\n".join(["", *token_table(gens, peers)]), flush=True)
    timings: dict[str, Timing] = {}
    for g in gens:
        if g.status == "ok" and peers[g.name].status == "ok":
            timings[g.name] = timing(
                a.mcpgen, g.name, SPECS_DIR / f"{g.name}.json", g, peers[g.name], a.repeat
            )
    print("\n".join(["", *time_table(gens, timings)]), flush=True)

    cold_gen = next((g for g in gens if g.name == COLD_SPEC and g.status == "ok"), None)
    colds: list[ColdStart] = []
    rss: dict[str, float | None] = {}
    servers: list[tuple[str, list[str], dict[str, str] | None]] = []
    if cold_gen is not None:
        command, env = server_command(WORK / COLD_SPEC / "pkg")
        servers.append((f"mcpgen-generated {COLD_SPEC} server", command, env))
    servers += [
        (f"FastMCP.from_openapi({COLD_SPEC})", fastmcp_stdio_command(SPECS_DIR / f"{COLD_SPEC}.json"), None),
        ("hello-world (mcp MCPServer, one tool)", hello_stdio_command(), None),
    ]
    for label, command, env in servers:
        colds.append(cold_start_stdio(command, a.runs, 120, name=label, env=env))
        rss[label] = peak_rss_mb(command, env)
    print("\n| cold start: spawn -> first tools/list over stdio | median s | runs s | tools | peak RSS MB |")
    print("|---|---:|---|---:|---:|")
    for c in colds:
        runs = ", ".join(f"{t:.2f}" for t in c.runs)
        print(
            f"| {c.name} | {_n(c.seconds, '.2f')} | {runs} | {_n(c.tools, ',')} | {_n(rss.get(c.name), ',.0f')} |"
        )
    if len(colds) == 3:
        print(
            f"\ngenerated server starts {_x(colds[0].seconds, colds[1].seconds)} faster than FastMCP; "
            f"{_n(colds[0].seconds and colds[2].seconds and colds[0].seconds / colds[2].seconds, '.2f')}x "
            "the hello-world server's time"
        )

    overhead = call_overhead(a.mcpgen, a.calls)
    print("\n| per call (loopback upstream, GET one campaign) | median ms | p90 ms |")
    print("|---|---:|---:|")
    print(f"| direct httpx | {overhead.direct_median_ms:.2f} | {overhead.direct_p90_ms:.2f} |")
    print(
        f"| generated ads server, tools/call over stdio | {overhead.mcp_median_ms:.2f} | {overhead.mcp_p90_ms:.2f} |"
    )
    print(f"\noverhead per call (median): {overhead.overhead_median_ms:.2f} ms over {overhead.calls} calls")

    a.out.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    result = {
        "started": started,
        "mcpgen_commit": commit.stdout.strip(),
        # Other work shares these 2 cores; the load says how quiet the machine was.
        "load_avg_at_start": load_at_start,
        "machine": machine(),
        "generated": [asdict(g) for g in gens],
        "fastmcp": [asdict(p) for p in peers.values()],
        "timing": [
            {**asdict(t), "generate_median_s": t.generate_s, "fastmcp_median_s": t.fastmcp_s}
            for t in timings.values()
        ],
        "cold_start": [asdict(c) for c in colds],
        "peak_rss_mb": rss,
        "call_overhead": asdict(overhead),
    }
    a.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {a.out}")


if __name__ == "__main__":
    main()
