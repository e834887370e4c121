"""Measure the FastMCP baseline on every spec, print a table, write results/baseline.json.

benchmarks/.venv/bin/python benchmarks/run_baseline.py [--timeout S] [--runs N] [--specs a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from baseline import (
    HERE,
    BuildList,
    ColdStart,
    cold_start_stdio,
    fastmcp_build_and_list,
    fastmcp_stdio_command,
    hello_stdio_command,
    to_json,
)

# The shared specs beside the repo, else the pinned copies scripts/fetch_specs keeps in .cache/specs.
SPECS_DIR = Path(
    os.environ.get("MCPGEN_SPECS_DIR")
    or next(
        (
            d
            for d in (HERE.parent.parent / "shared" / "specs", HERE.parent / ".cache" / "specs")
            if d.is_dir()
        ),
        HERE.parent.parent / "shared" / "specs",
    )
)
SPECS = ["petstore", "asana", "slack", "jira", "twilio_api_v2010", "github", "stripe"]
COLD_SPEC = "github"


def machine() -> dict[str, Any]:
    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    mem_kb = next(
        int(ln.split()[1])
        for ln in Path("/proc/meminfo").read_text().splitlines()
        if ln.startswith("MemTotal")
    )
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "mem_gib": round(mem_kb / 2**20, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {p: metadata.version(p) for p in ("fastmcp", "mcp", "httpx2", "pydantic", "tiktoken")},
    }


def fmt(v: float | int | None, spec: str) -> str:
    return "—" if v is None else format(v, spec)


def build_row(r: BuildList, spec_mb: float) -> str:
    if r.status != "ok":
        return f"| {r.name} | {spec_mb:.2f} | {r.status} | | | |"
    return (
        f"| {r.name} | {spec_mb:.2f} | {r.tools:,} | {r.tokens:,} | {r.seconds:.2f} | {r.peak_rss_mb:,.0f} |"
    )


def cold_row(c: ColdStart) -> str:
    runs = ", ".join(f"{t:.2f}" for t in c.runs)
    return f"| {c.name} | {c.status if c.status != 'ok' else fmt(c.seconds, '.2f')} | {runs} | {fmt(c.tools, ',')} |"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--timeout", type=float, default=300.0, help="per build+list measurement, seconds")
    p.add_argument("--cold-timeout", type=float, default=60.0, help="per cold-start spawn, seconds")
    p.add_argument("--runs", type=int, default=5, help="cold-start spawns per server (median)")
    p.add_argument("--specs", default=",".join(SPECS))
    p.add_argument("--out", type=Path, default=HERE / "results" / "baseline.json")
    a = p.parse_args()

    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    builds: list[BuildList] = []
    sizes: dict[str, float] = {}
    print("| spec | spec MB | FastMCP tools | tools/list tokens (o200k) | build+list s | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in a.specs.split(","):
        spec = SPECS_DIR / f"{name}.json"
        sizes[name] = spec.stat().st_size / 1e6
        r = fastmcp_build_and_list(spec, timeout=a.timeout)
        builds.append(r)
        print(build_row(r, sizes[name]), flush=True)
        if r.error:
            print(f"  {r.name}: {r.error}", file=sys.stderr)

    colds = [
        cold_start_stdio(
            fastmcp_stdio_command(SPECS_DIR / f"{COLD_SPEC}.json"),
            a.runs,
            a.cold_timeout,
            name=f"FastMCP.from_openapi({COLD_SPEC})",
        ),
        cold_start_stdio(hello_stdio_command(), a.runs, a.cold_timeout, name="hello-world (mcp MCPServer)"),
    ]
    print("\n| cold start: spawn -> tools/list over stdio | median s | runs s | tools |")
    print("|---|---:|---|---:|")
    for c in colds:
        print(cold_row(c), flush=True)
        if c.error:
            print(f"  {c.name}: {c.error}", file=sys.stderr)

    a.out.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "started": started,
        "machine": machine(),
        "settings": {"timeout_s": a.timeout, "cold_timeout_s": a.cold_timeout, "cold_runs": a.runs},
        "spec_mb": sizes,
        "build_and_list": [to_json(r) for r in builds],
        "cold_start": [to_json(c) for c in colds],
    }
    a.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {a.out}")


if __name__ == "__main__":
    main()
