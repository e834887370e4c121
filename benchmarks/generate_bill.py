"""CPU time and peak RSS of `mcpgen generate` and `mcpgen init` on one spec, two checkouts interleaved.

    python benchmarks/generate_bill.py BEFORE_DIR AFTER_DIR [--spec PATH] [--pairs N]

Each checkout runs on this interpreter (its environment supplies the dependencies) with the checkout
first on PYTHONPATH. Runs alternate before/after, N pairs per command, so load on a shared machine
falls on both alike; the report is the median of the per-pair after/before ratios and their spread.
CPU time (user + system of the child, from os.wait4) is steadier than wall time on a loaded machine;
peak RSS is the child's own ru_maxrss. `generate` uses the mapping the BEFORE checkout's `init` drafts
and writes into a new directory each run (a first generate, as a benchmark of it measures).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def run(checkout: Path, args: list[str]) -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of `mcpgen ARGS` from CHECKOUT."""
    env = dict(os.environ, PYTHONPATH=str(checkout.resolve()))
    child = subprocess.Popen(
        # -P: the working directory's own mcpgen (a checkout) must not come before PYTHONPATH's.
        [sys.executable, "-P", "-m", "mcpgen.cli.app", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{checkout}: mcpgen {' '.join(args)} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def fresh(work: Path, tag: str) -> Path:
    out = work / f"pkg-{tag}"
    shutil.rmtree(out, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--spec", type=Path, default=Path("/work/shared/specs/github.json"))
    parser.add_argument("--pairs", type=int, default=5)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="generate-bill-"))
    mapping = work / "mapping.yaml"
    run(options.before, ["init", str(options.spec), "-o", str(mapping), "--force"])
    commands = {
        "init": lambda tag: ["init", str(options.spec), "-o", str(work / f"{tag}.yaml"), "--force"],
        "generate": lambda tag: [
            "generate",
            str(options.spec),
            "-m",
            str(mapping),
            "-o",
            str(fresh(work, tag)),
            "-q",
        ],
    }
    for name, command in commands.items():
        rows = []
        for _ in range(options.pairs):
            before = run(options.before, command("before"))
            after = run(options.after, command("after"))
            rows.append((before, after))
        cpu = [a[0] / b[0] for b, a in rows]
        print(
            f"{name}: CPU before median {statistics.median(b[0] for b, _ in rows):.2f} s, "
            f"after {statistics.median(a[0] for _, a in rows):.2f} s; after/before per pair median "
            f"{statistics.median(cpu):.3f} (min {min(cpu):.3f}, max {max(cpu):.3f}); peak RSS before "
            f"{statistics.median(b[1] for b, _ in rows):.0f} MB, after "
            f"{statistics.median(a[1] for _, a in rows):.0f} MB",
            flush=True,
        )


if __name__ == "__main__":
    main()
