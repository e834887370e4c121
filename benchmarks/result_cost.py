"""CPU time the generated runtime spends on an answer of 45 records, before/after, interleaved.

    python benchmarks/result_cost.py BEFORE_DIR AFTER_DIR [--pairs N] [--spec github.json]

Each checkout's generated/ads package supplies `_runtime` (results.decode_body, then truncation.fit,
as a list action runs them: the credential's value redacted, the result held to the default budget of
20,000 tokens). The records come from GitHub's issue example: 45 of its `user` (41 KB, within the
budget), and 45 issues without their `repository` (255 KB, cut to fit). Beside
them, what any server does with the same body at the least: json.loads, then json.dumps for the text
copy. Runs alternate before/after in separate processes; the report is the median of per-pair
after/before ratios, with their spread.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from ads_mcp._runtime.results import decode_body
from ads_mcp._runtime.truncation import fit
body = open(sys.argv[2], "rb").read()
secrets = ("ghp_16C7e42F292c6912E7710c838347Ae178B4a",)
def mcpgen():
    data, _ = decode_body(body, secrets)
    return fit({"items": data, "has_more": False}, 20000, tool="t", arguments={}, paging=None, limit_arg=None)
def floor():
    return json.dumps(json.loads(body))
rounds = int(sys.argv[3])
out = {}
for name, f in (("mcpgen", mcpgen), ("loads+dumps", floor)):
    f()
    t = time.process_time()
    for _ in range(rounds):
        f()
    out[name] = (time.process_time() - t) / rounds * 1000
print(json.dumps(out))
"""


def bodies(spec: Path, work: Path) -> dict[str, Path]:
    issue = json.loads(spec.read_text(encoding="utf-8"))["components"]["examples"]["issue-with-repo-items"]
    issue = issue["value"][0]
    made = {}
    cases = {
        "45 users (fit)": lambda i: dict(issue["user"], id=1000 + i, login=f"octocat{i}"),
        "45 issues (cut)": lambda i: {
            **{k: v for k, v in issue.items() if k != "repository"},
            "id": 1000 + i,
            "number": i,
        },
    }
    for case, record in cases.items():
        made[case] = work / f"{len(made)}.json"
        made[case].write_text(json.dumps([record(i) for i in range(45)]), encoding="utf-8")
    return made


def run(checkout: Path, body: Path, rounds: int) -> dict[str, float]:
    package = checkout.resolve() / "generated" / "ads"
    out = subprocess.run(
        [sys.executable, "-P", "-c", CHILD, str(package), str(body), str(rounds)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--spec", type=Path, default=Path("/work/shared/specs/github.json"))
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=30)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="result-cost-"))
    for case, body in bodies(options.spec, work).items():
        rows = [
            (run(options.before, body, options.rounds), run(options.after, body, options.rounds))
            for _ in range(options.pairs)
        ]
        ratios = [a["mcpgen"] / b["mcpgen"] for b, a in rows]
        floor = statistics.median(r["loads+dumps"] for pair in rows for r in pair)
        print(
            f"{case} ({body.stat().st_size // 1000} KB): before {statistics.median(b['mcpgen'] for b, _ in rows):.1f} ms, "
            f"after {statistics.median(a['mcpgen'] for _, a in rows):.1f} ms a call; after/before median "
            f"{statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}); "
            f"json.loads + json.dumps of the body {floor:.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
