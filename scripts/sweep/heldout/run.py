"""The oracle over hand-written mappings (issues 12 and 17): held-out specs, mapped as a careful user
would, through the same Prism-backed calls and verdicts as `oracle.py`. See the "Held-out mappings"
section of scripts/sweep/README.md.

    .venv/bin/python -m scripts.sweep.heldout.run                       # every mapping in HELDOUT
    .venv/bin/python -m scripts.sweep.heldout.run --only payments.service.gov.uk/payments.json
    .venv/bin/python -m scripts.sweep.heldout.run --mapping SPEC=PATH[@dynamic] --keep DIR

Each spec runs in a child process of its own (as in oracle.py); the child swaps the corpus sweep's
`mcpgen init` step for the hand-written mapping and otherwise calls `oracle_run.run_spec` unchanged.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scripts.sweep import oracle, sweep
from scripts.sweep.oracle_judge import COUNTED

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
# corpus path -> mapping file in this folder. Each runs against Prism static (the spec's examples);
# DYNAMIC also against `prism mock --dynamic` (schema-shaped random bodies): issue 17's three.
HELDOUT: dict[str, str] = {
    "payments.service.gov.uk/payments.json": "govuk-pay.yaml",
    "onsched.com/consumer.json": "onsched.yaml",
    "exavault.com.json": "exavault.yaml",
    "hetzner.cloud.json": "hetzner.yaml",
    "traccar.org.json": "traccar.yaml",
    "trello.com.json": "trello.yaml",
}
DYNAMIC = ("payments.service.gov.uk/payments.json", "onsched.com/consumer.json", "exavault.com.json")


def generate_with_mapping(mapping: Path) -> Any:
    """A stand-in for `sweep.generate_package` that generates from `mapping` instead of init's draft."""

    def generate_package(spec_path: Path, work: Path) -> tuple[dict[str, Any], Path | None]:
        from mcpgen import __version__
        from mcpgen.pipeline import generate
        from mcpgen.write.plan import apply_write, plan_write

        raw = json.loads(spec_path.read_text(encoding="utf-8"))
        ops = sum(1 for item in raw["paths"].values() for m in item if m in sweep_methods())
        generated = generate(spec_path, mapping)
        if not generated.ok or generated.server is None:
            return {"operations": ops, **sweep._refused("generate", generated.diagnostics)}, None
        out = work / "pkg"
        apply_write(plan_write(out, generated.files, generator=f"mcpgen {__version__}"), force=True)
        tools = generated.server.tools
        return {"operations": ops, "tools": len(tools), "actions": sum(len(t.actions) for t in tools)}, out

    return generate_package


def sweep_methods() -> set[str]:
    return {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def run_one_here(spec: Path, mapping: Path, work: Path, mode: str, budget_s: float) -> dict[str, Any]:
    from scripts.sweep import oracle_run

    (work / "mapping.yaml").write_text(mapping.read_text(encoding="utf-8"), encoding="utf-8")  # its units
    return oracle_run.run_spec(spec, work, dynamic=mode == "dynamic", budget_s=budget_s,
                               generate=generate_with_mapping(mapping))  # fmt: skip


def run_child(name: str, mapping: Path, mode: str, budget_s: float, keep: Path | None) -> dict[str, Any]:
    spec = sweep.fetch_corpus() / name
    with tempfile.TemporaryDirectory(prefix="mcpgen-heldout-") as tmp:
        work = keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "scripts.sweep.heldout.run", "--one", str(spec), str(mapping.resolve()),
                str(work), "--mode", mode, "--budget", str(budget_s)]  # fmt: skip
        t0 = time.monotonic()
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=oracle.HARD_LIMIT_S, cwd=work,
                              env={**os.environ, "PYTHONPATH": str(oracle.ROOT)})  # fmt: skip
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"spec": name, "mode": mode, "status": "crashed", "reason": proc.stderr.strip()[-600:]}
    row = json.loads(lines[-1])
    return {
        "spec": name,
        "mapping": mapping.name,
        **row,
        "mode": mode,
        "wall_s": round(time.monotonic() - t0, 1),
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = ["| spec | mapping | mode | tools | actions | calls | " + " | ".join(COUNTED) + " | x |",
            "|---|---|---|---:|---:|---:|" + "---:|" * (len(COUNTED) + 1)]  # fmt: skip
    body = []
    for r in rows:
        counts = collections.Counter(f["category"] for f in r.get("findings", []))
        cells = " | ".join(str(counts[c]) for c in (*COUNTED, "x"))
        body.append(f"| `{r['spec']}` | `{r.get('mapping', '-')}` | {r['mode']} | {r.get('tools', '-')} | "
                    f"{r.get('actions', '-')} | {r.get('calls', '-')} ({r['status']}) | {cells} |")  # fmt: skip
    return "\n".join(head + body)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--one", nargs=3, metavar=("SPEC", "MAPPING", "WORKDIR"), help=argparse.SUPPRESS)
    p.add_argument("--mode", choices=("static", "dynamic"), default="static", help=argparse.SUPPRESS)
    p.add_argument(
        "--mapping", action="append", default=[], help="SPEC=PATH[@dynamic]: a mapping of your own"
    )
    p.add_argument("--only", help="comma-separated corpus paths of HELDOUT to run")
    p.add_argument("--budget", type=float, default=oracle.BUDGET_S, help="per spec: seconds of calls")
    p.add_argument("--keep", type=Path, help="keep the work folder (package, prism.log, exchanges.jsonl)")
    p.add_argument("--out", type=Path, default=RESULTS)
    a = p.parse_args()
    if a.one:
        row = run_one_here(Path(a.one[0]), Path(a.one[1]), Path(a.one[2]), a.mode, a.budget)
        print(json.dumps(row), flush=True)
        return
    from scripts.sweep.oracle_upstream import install_prism

    install_prism()
    jobs: list[tuple[str, Path, str]] = []
    for item in a.mapping:
        spec, _, rest = item.partition("=")
        path, _, mode = rest.partition("@")
        jobs.append((spec, Path(path), mode or "static"))
    if not a.mapping:
        wanted = set(a.only.split(",")) if a.only else set(HELDOUT)
        if unknown := wanted - set(HELDOUT):
            p.error(
                f"not in HELDOUT: {', '.join(sorted(unknown))}; pass --mapping SPEC=PATH for another spec"
            )
        jobs = [(s, HERE / m, "static") for s, m in HELDOUT.items() if s in wanted]
        jobs += [(s, HERE / HELDOUT[s], "dynamic") for s in DYNAMIC if s in wanted]
    rows = []
    for spec, path, mode in jobs:
        keep = a.keep / spec.replace("/", "__") if a.keep else None
        rows.append(run_child(spec, path, mode, a.budget, keep))
        print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    if a.out.is_file() and not a.mapping:  # keep the other specs' rows from earlier runs
        ran = {(s, mode) for s, _, mode in jobs}
        kept = [r for r in json.loads(a.out.read_text(encoding="utf-8")) if (r["spec"], r["mode"]) not in ran]
        order = list(HELDOUT)
        rows = sorted(kept + rows, key=lambda r: (r["mode"] != "static", order.index(r["spec"])))
    a.out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(table(rows))


if __name__ == "__main__":
    main()
