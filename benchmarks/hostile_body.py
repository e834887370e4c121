"""Peak RSS and call time of a generated server while the API answers with a 50 MB body (issue 11).

    .venv/bin/python benchmarks/hostile_body.py            # from the repository root; about 30 s

The ads example is generated with timeout_s 4 into a temp dir and run over stdio by the official MCP
client, against tests/upstreams/hostile.py on 127.0.0.1. Each case is a fresh server process: one
warm-up call, then the measured call. Peak RSS is the server process's own ru_maxrss, taken by
benchmarks/rss_probe.py when it exits (the client and the upstream are not counted). Targets: peak RSS
under 150 MB, and the call back within timeout_s + 1 s. Writes benchmarks/results/hostile_body.json.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.mcp_client import result_text, stdio_client  # noqa: E402
from tests.upstreams.hostile import HostileUpstream  # noqa: E402

TIMEOUT_S = 4.0
TOKEN = "bench-token-5c1d"
MB = 1024 * 1024
RSS_TARGET_MB = 150
CASES = {
    "a normal record (for comparison)": None,
    "50 MB array, Content-Length sent": {"size_bytes": 50 * MB, "declare_length": True},
    "50 MB array, no Content-Length (read until the cap)": {"size_bytes": 50 * MB, "declare_length": False},
    "7.9 MB array (under the cap: parsed and cut)": {
        "size_bytes": 8 * MB - 100 * 1024,
        "declare_length": True,
    },
    "gzip bomb: 1 MB on the wire, 1 GB decoded": {"gzip_decoded_mb": 1024},
}


def gzip_bomb(decoded_mb: int) -> bytes:
    """A gzip body of JSON whitespace that expands to `decoded_mb` MB (about 1 MB per GB sent)."""
    packer = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    parts = [packer.compress(b"[")] + [packer.compress(b" " * MB) for _ in range(decoded_mb)]
    return b"".join([*parts, packer.compress(b"]"), packer.flush()])


def generate(work: Path) -> Path:
    mapping = (ROOT / "specs" / "ads" / "mapping.yaml").read_text(encoding="utf-8")
    (work / "mapping.yaml").write_text(mapping.replace("timeout_s: 30", f"timeout_s: {TIMEOUT_S:g}"))
    out = work / "ads"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpgen",
            "generate",
            str(ROOT / "specs" / "ads" / "ads.openapi.yaml"),
            "-m",
            str(work / "mapping.yaml"),
            "-o",
            str(out),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    return out


async def measure(package: Path, work: Path, body: dict | None) -> dict:
    peak_file = work / "peak.json"
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "rss_probe.py"),
        str(peak_file),
        "--",
        sys.executable,
        "-m",
        "ads_mcp",
        "--log-level",
        "WARNING",
    ]
    with HostileUpstream(token=TOKEN) as upstream:
        env = {"PYTHONPATH": str(package), "ADS_BASE_URL": upstream.base_url, "ADS_API_TOKEN": TOKEN}
        async with stdio_client(command, env) as client:
            await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_001"})
            if body is not None and "gzip_decoded_mb" in body:
                headers = {"content-encoding": "gzip", "content-type": "application/json"}
                upstream.fail_next(200, gzip_bomb(body["gzip_decoded_mb"]), headers)
            elif body is not None:
                upstream.huge_next(**body)
            started = time.monotonic()
            result = await client.call_tool("ads_campaigns_find", {"action": "list"})
            elapsed = time.monotonic() - started
        for _ in range(100):  # rss_probe writes the peak once the server has exited
            if peak_file.exists():
                break
            await anyio.sleep(0.05)
    peak_mb = json.loads(peak_file.read_text())["peak_rss_kb"] / 1024
    peak_file.unlink()
    return {
        "call_s": round(elapsed, 3),
        "peak_rss_mb": round(peak_mb, 1),
        "is_error": bool(result.is_error),
        "answer": result_text(result).splitlines()[0][:120],
    }


async def main() -> None:
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        package = generate(work)
        for name, body in CASES.items():
            rows[name] = await measure(package, work, body)
    print(f"timeout_s {TIMEOUT_S:g}; targets: peak RSS < {RSS_TARGET_MB} MB, call <= {TIMEOUT_S + 1:g} s\n")
    print("| case | call s | peak RSS MB | result |")
    print("|---|---:|---:|---|")
    for name, row in rows.items():
        print(f"| {name} | {row['call_s']:.2f} | {row['peak_rss_mb']:.0f} | {row['answer']} |")
    out = ROOT / "benchmarks" / "results" / "hostile_body.json"
    out.write_text(
        json.dumps(
            {
                "timeout_s": TIMEOUT_S,
                "python": platform.python_version(),
                "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "cases": rows,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    anyio.run(main)
