"""The oracle: real specs served by Prism, the `mcpgen init` server called through the official client,
and a verdict on every request and result (issue 12). See scripts/sweep/README.md.

    .venv/bin/python -m scripts.sweep.oracle --sample 100          # the pinned sample (resumable)
    .venv/bin/python -m scripts.sweep.oracle --specs box.com.json --out /tmp/box.json
    .venv/bin/python -m scripts.sweep.oracle --summary              # print the last results' summary
    .venv/bin/python -m scripts.sweep.oracle --pin                  # redraw the pinned sample (seeded)

Each spec runs in a child process of its own with a time limit; its row is kept under
.cache/oracle/rows/ (or $MCPGEN_ORACLE_ROWS), so a stopped run goes on where it stopped (`--fresh` starts over). At most two
specs run at a time.
"""

from __future__ import annotations

import argparse
import collections
import functools
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from scripts.sweep import sweep
from scripts.sweep.oracle_judge import CATEGORIES, COUNTED

ROOT = sweep.ROOT
HERE = Path(__file__).resolve().parent
SAMPLE_FILE = HERE / "oracle-sample.json"
RESULTS_FILE = HERE / "oracle-results.json"
README = HERE / "README.md"
# Kept rows; MCPGEN_ORACLE_ROWS moves them (a worktree whose .cache is another checkout's, read-only).
ROWS = Path(os.environ.get("MCPGEN_ORACLE_ROWS") or ROOT / ".cache" / "oracle" / "rows")
SEED = 20261203
PINNED = 150  # candidates drawn; --sample N measures the first N that are not excluded
DYNAMIC_EVERY = 4  # every 4th spec of the sample is served with `prism mock --dynamic`
BUDGET_S = 90.0  # per spec: no new call starts after this many seconds (the variant steps double the calls)
HARD_LIMIT_S = 300.0  # per spec: the child is killed after this (generation, Prism start, calls)
MAX_JOBS = 2
# Specs mcpgen was built or tuned on: the project's examples (specs/, shared/specs), the specs the
# corpus sweep's test runs, and the APIs the defects were first seen on.
TUNED_ON = {
    "asana.com.json": "a project example (shared/specs/asana.json)",
    "github.com": "a project example (shared/specs/github.json): every GitHub spec",
    "atlassian.com/jira.json": "a project example (shared/specs/jira.json)",
    "swagger.io": "a project example (specs/petstore, shared/specs/petstore.json)",
    "slack.com": "a project example (shared/specs/slack.json): every Slack spec",
    "stripe.com.json": "a project example (shared/specs/stripe.json)",
    "twilio.com/twilio_api_v2010.json": "a project example (shared/specs/twilio_api_v2010.json)",
    "1forge.com.json": "in the corpus sweep's test subset",
    "codat.io/assess.json": "in the corpus sweep's test subset",
    "googleapis.com/androidpublisher.json": "in the corpus sweep's test subset",
    "healthcare.gov.json": "in the corpus sweep's test subset",
    "hubapi.com/webhooks.json": "in the corpus sweep's test subset",
    "microsoft.com/cognitiveservices-VisualSearch.json": "in the corpus sweep's test subset",
    "digitalocean.com.json": "where the issue's defects were first seen (droplet create)",
    "box.com.json": "where the issue's defects were first seen (uploads host)",
}


def tuned_on(name: str) -> str | None:
    for prefix, why in TUNED_ON.items():
        if name == prefix or name.startswith(prefix.rstrip("/") + "/"):
            return why
    return None


# ---- the pinned sample --------------------------------------------------------------------------


def draw_sample(api_dir: Path) -> dict[str, Any]:
    names = sweep.all_specs(api_dir)
    candidates = [n for n in names if tuned_on(n) is None]
    picked = random.Random(SEED).sample(candidates, PINNED)
    return {
        "corpus": sweep.CORPUS_PACKAGE,
        "seed": SEED,
        "how": f"random.Random({SEED}).sample(candidates, {PINNED}) over the corpus's {len(names)} specs in "
        f"path order, less the {len(names) - len(candidates)} mcpgen was tuned on (tuned_on in oracle.py); "
        "--sample N measures N: the first N, and one more for each excluded",
        "excluded_before_sampling": TUNED_ON,
        "specs": picked,
    }


def pinned_sample() -> list[str]:
    return json.loads(SAMPLE_FILE.read_text(encoding="utf-8"))["specs"]


def mode_of(index: int) -> str:
    return "dynamic" if index % DYNAMIC_EVERY == DYNAMIC_EVERY - 1 else "static"


# ---- one spec (child) ---------------------------------------------------------------------------


def run_child(api_dir: Path, name: str, mode: str, budget_s: float, hard_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mcpgen-oracle-") as tmp:
        argv = [sys.executable, "-m", "scripts.sweep.oracle", "--one", str(api_dir / name), tmp, "--mode", mode,
                "--budget", str(budget_s)]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        t0 = time.monotonic()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=hard_s, cwd=tmp, env=env)
        except subprocess.TimeoutExpired:
            return {"spec": name, "mode": mode, "status": "timeout",
                    "reason": f"the spec did not finish within {hard_s:g} s"}  # fmt: skip
    lines = proc.stdout.replace(f"{api_dir}/", "").strip().splitlines()
    if proc.returncode == 0 and lines:
        return {
            "spec": name,
            **json.loads(lines[-1]),
            "mode": mode,
            "wall_s": round(time.monotonic() - t0, 1),
        }
    tail = proc.stderr.strip().splitlines()[-6:]
    return {"spec": name, "mode": mode, "status": "crashed", "reason": " | ".join(tail)[-600:],
            "findings": [{"category": "d", "kind": "oracle-child-crashed", "tool": "-", "action": "-",
                          "operation": "-", "pointer": "-", "detail": " | ".join(tail)[-300:],
                          "cause": "mcpgen or the oracle raised outside a tool call (see detail)"}]}  # fmt: skip


@functools.cache
def code_version() -> str:
    """The oracle's own code and mcpgen's commit: a kept row is reused only when both are the same."""
    digest = hashlib.sha256(_commit().encode())
    for path in sorted(HERE.glob("oracle_*.py")):  # what a row depends on; oracle.py only runs them
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def row_file(name: str, mode: str) -> Path:
    digest = hashlib.sha256(f"{name}:{mode}:{code_version()}".encode()).hexdigest()[:12]
    return ROWS / f"{name.replace('/', '__')}.{mode}.{digest}.json"


# ---- the run (parent) ---------------------------------------------------------------------------


def run(
    names: list[tuple[str, str]], jobs: int, fresh: bool, budget_s: float, hard_s: float
) -> list[dict[str, Any]]:
    from scripts.sweep.oracle_upstream import install_prism

    api_dir = sweep.fetch_corpus()
    install_prism()
    ROWS.mkdir(parents=True, exist_ok=True)
    done = 0

    def one(item: tuple[str, str]) -> dict[str, Any]:
        nonlocal done
        name, mode = item
        path = row_file(name, mode)
        if path.is_file() and not fresh:
            row = json.loads(path.read_text(encoding="utf-8"))
        else:
            row = run_child(api_dir, name, mode, budget_s, hard_s)
            path.write_text(json.dumps(row) + "\n", encoding="utf-8")
        done += 1
        counts = collections.Counter(f["category"] for f in row.get("findings", []))
        shown = " ".join(f"{c}={counts[c]}" for c in COUNTED if counts[c])
        print(
            f"[{done}/{len(names)}] {row['status']:<9} {mode:<7} {name} {shown}", file=sys.stderr, flush=True
        )
        return row

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, MAX_JOBS))) as pool:
        return list(pool.map(one, names))


def run_sample(wanted: int, jobs: int, fresh: bool, budget_s: float, hard_s: float) -> list[dict[str, Any]]:
    """Measure `wanted` specs: the pinned list in order, taking one more of it for each one excluded."""
    pinned = [(n, mode_of(i)) for i, n in enumerate(pinned_sample())]
    rows: list[dict[str, Any]] = []
    taken = 0
    while taken < len(pinned):
        missing = wanted - sum(1 for r in rows if r["status"] in ("measured", "partial"))
        if missing <= 0:
            break
        rows += run(pinned[taken : taken + missing], jobs, fresh, budget_s, hard_s)
        taken += missing
    return rows


def aggregate(rows: list[dict[str, Any]], sample_size: int | None) -> dict[str, Any]:
    from scripts.sweep.oracle_upstream import prism_version

    measured = [r for r in rows if r["status"] in ("measured", "partial")]
    totals = {
        c: sum(1 for r in measured for f in r.get("findings", []) if f["category"] == c) for c in COUNTED
    }
    return {
        "corpus": sweep.CORPUS_PACKAGE,
        "prism": f"@stoplight/prism-cli {prism_version()}",
        "mcpgen_commit": _commit(),
        "seed": SEED,
        "sample": sample_size,
        "specs": len(rows),
        "measured": len(measured),
        "partial": sum(1 for r in rows if r["status"] == "partial"),
        "calls": sum(r.get("calls", 0) for r in measured),
        "exchanges": sum(r.get("exchanges", 0) for r in measured),
        "steps": dict(
            sum((collections.Counter(r.get("steps", {})) for r in measured), collections.Counter())
        ),
        "probes_with_message": sum(r.get("probes_with_message", 0) for r in measured),
        "totals": totals,
        "specs_with": {
            c: sum(1 for r in measured if any(f["category"] == c for f in r.get("findings", [])))
            for c in COUNTED
        },  # fmt: skip
        "not_counted": sum(1 for r in measured for f in r.get("findings", []) if f["category"] == "x"),
        "categories": CATEGORIES,
        "exclusions": [
            {"spec": r["spec"], "status": r["status"], "reason": r.get("reason", "")}
            for r in rows
            if r["status"] not in ("measured", "partial")
        ],  # fmt: skip
        "rows": [_compact(r) for r in rows],
    }


def _compact(row: dict[str, Any]) -> dict[str, Any]:
    """One spec's row with repeated findings folded: same category, kind, operation and cause."""
    folded: dict[tuple[str, ...], dict[str, Any]] = {}
    for f in row.get("findings", []):
        key = (f["category"], f["kind"], f["operation"], f["cause"])
        if key in folded:
            folded[key]["times"] += 1
        else:
            folded[key] = {**f, "times": 1}
    counts = collections.Counter(f["category"] for f in row.get("findings", []))
    return {**{k: v for k, v in row.items() if k != "findings"}, "counts": {c: counts[c] for c in COUNTED},
            "findings": list(folded.values())}  # fmt: skip


@functools.cache
def _commit() -> str:
    """The last commit that changed mcpgen or its templates (what the generated servers are made of)."""
    git = ["git", "-C", str(ROOT)]
    done = subprocess.run(
        [*git, "log", "-1", "--format=%h", "--", "mcpgen", "templates"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--", "mcpgen", "templates"], capture_output=True, text=True
    )
    return (done.stdout.strip() or "unknown") + ("+changes" if dirty.stdout.strip() else "")


def summary(results: dict[str, Any]) -> str:
    t, w = results["totals"], results["specs_with"]
    lines = [
        f"{results['measured']} of {results['specs']} specs measured ({results['partial']} of them partly: the "
        f"time limit stopped their calls), {results['calls']:,} tool calls, {results['exchanges']:,} requests "
        f"to Prism ({results['prism']}), mcpgen at {results['mcpgen_commit']}.",
        "",
        "Calls by step: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(results.get("steps", {}).items()))
        + f"; {results.get('probes_with_message', 0):,} error probes got an answer carrying a message.",
        "",
        "| category | findings | specs |",
        "|---|---:|---:|",
        *(f"| {c}: {CATEGORIES[c]} | {t[c]} | {w[c]} |" for c in COUNTED),
        f"| not counted (the oracle's own value, Prism's failure) | {results['not_counted']} | |",
        "",
        "Top causes (folded: one line per kind and cause; `times` counts calls, `specs` distinct specs):",
        "",
        "| cat | kind | cause | times | specs | example (spec, operation, pointer) |",
        "|---|---|---|---:|---:|---|",
    ]
    causes: dict[tuple[str, str, str], list[tuple[str, dict[str, Any]]]] = collections.defaultdict(list)
    for row in results["rows"]:
        for f in row.get("findings", []):
            if f["category"] in COUNTED:
                causes[(f["category"], f["kind"], f["cause"])].append((row["spec"], f))
    ranked = sorted(causes.items(), key=lambda kv: (kv[0][0], -sum(f["times"] for _, f in kv[1])))
    for (cat, kind, cause), hits in ranked:
        spec, f = hits[0]
        times = sum(h["times"] for _, h in hits)
        lines.append(f"| {cat} | {kind} | {cause} | {times} | {len({s for s, _ in hits})} | `{spec}` "
                     f"{f['operation']} `{f['pointer']}` |")  # fmt: skip
    if results["exclusions"]:
        reasons = collections.Counter(_reason_kind(e["reason"], e["status"]) for e in results["exclusions"])
        lines += ["", "Exclusions (not measured), by reason:", "",
                  *(f"- {why}: {n}" for why, n in reasons.most_common()), "",
                  "<details><summary>every exclusion</summary>", "",
                  *(f"- `{e['spec']}` ({e['status']}): {e['reason'][:200]}" for e in results["exclusions"]),
                  "", "</details>"]  # fmt: skip
    return "\n".join(lines)


def _reason_kind(reason: str, status: str) -> str:
    if status == "timeout":
        return "past the per-spec time limit"
    if reason.startswith("Prism"):
        return "Prism cannot serve the spec"
    if reason.startswith("mcpgen"):
        return reason.split(":")[0]
    return status


def write_readme(text: str) -> None:
    start, end = "<!-- oracle:summary -->", "<!-- /oracle:summary -->"
    readme = README.read_text(encoding="utf-8")
    if start in readme and end in readme:
        head, rest = readme.split(start, 1)
        readme = head + start + "\n" + text + "\n" + end + rest.split(end, 1)[1]
        README.write_text(readme, encoding="utf-8")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--one", nargs=2, metavar=("SPEC", "WORKDIR"), help=argparse.SUPPRESS)
    p.add_argument("--mode", choices=("static", "dynamic"), default="static", help=argparse.SUPPRESS)
    p.add_argument(
        "--sample", type=int, help="measure N specs of the pinned sample (in order, past exclusions)"
    )
    p.add_argument("--specs", help="comma-separated corpus paths instead (static; NAME@dynamic for dynamic)")
    p.add_argument("--jobs", type=int, default=1, help=f"specs at a time (at most {MAX_JOBS})")
    p.add_argument("--budget", type=float, default=BUDGET_S, help="per spec: seconds of calls")
    p.add_argument("--hard-limit", type=float, default=HARD_LIMIT_S, help="per spec: seconds before the kill")
    p.add_argument("--fresh", action="store_true", help="ignore the rows kept from earlier runs")
    p.add_argument("--out", type=Path, default=RESULTS_FILE)
    p.add_argument("--readme", action="store_true", help="also write the summary into README.md")
    p.add_argument("--summary", action="store_true", help="print the summary of --out; run nothing")
    p.add_argument("--pin", action="store_true", help="draw the pinned sample again (seeded) and write it")
    a = p.parse_args()
    if a.one:
        from scripts.sweep.oracle_run import run_spec

        row = run_spec(Path(a.one[0]), Path(a.one[1]), dynamic=a.mode == "dynamic", budget_s=a.budget)
        print(json.dumps(row), flush=True)
        return
    if a.pin:
        SAMPLE_FILE.write_text(
            json.dumps(draw_sample(sweep.fetch_corpus()), indent=1) + "\n", encoding="utf-8"
        )
        return
    if a.summary:
        print(summary(json.loads(a.out.read_text(encoding="utf-8"))))
        return
    if a.specs:
        names = [
            (s.split("@")[0], "dynamic" if s.endswith("@dynamic") else "static") for s in a.specs.split(",")
        ]
        rows = run(names, a.jobs, a.fresh, a.budget, a.hard_limit)
    else:
        rows = run_sample(a.sample or 100, a.jobs, a.fresh, a.budget, a.hard_limit)
    results = aggregate(rows, a.sample if not a.specs else None)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    text = summary(results)
    if a.readme:
        write_readme(text)
    print(text)


if __name__ == "__main__":
    main()
