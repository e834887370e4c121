"""Prism judges every request that a test built from a real spec sends (issue 17; Prism is the oracle's
judge of issue 12, scripts/sweep/oracle_upstream.py, pinned in scripts/sweep/prism/).

A test module whose server is generated from a real spec (or a fragment of one) names the stand-in
upstreams that answer for that spec, and the spec:

    PRISM_SPECS = {SquareUpstream: REAL / "square-payments.json", PartsUpstream: SPEC}   # a path or a dict

tests/e2e/conftest.py then keeps every request those stand-ins receive during each test, and when the test
ends replays each one (method, path, query, headers, body) against Prism's mock server for the same spec.
The test fails when Prism finds anything wrong with a request: a violation of the spec (a parameter, a
header, the body), a missing credential, a path, method or media type the spec does not have.

One Node process per test worker serves every spec (tests/support/prism_servers.js runs Prism's own mock
HTTP server, one per spec, started when a test first needs it), so a spec costs milliseconds, not the
second of CPU that starting `prism mock` costs.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from tests.support.paths import ROOT
from tests.upstreams import recording
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest

HARNESS = Path(__file__).with_name("prism_servers.js")
START_S = 90.0  # Node loading Prism, on a busy 2-core machine (about a second when idle)
SPEC_S = 60.0  # one spec loaded and listening
# What Prism's mock server refuses a request for on its own (problem+json types); every other problem it
# answers is about making the mock response, not about the request.
REFUSALS = {
    "UNPROCESSABLE_ENTITY": "the request breaks the spec",
    "UNAUTHORIZED": "the credential the spec's security asks for is missing",
    "NOT_ACCEPTABLE": "the Accept header names no media type the operation answers with",
    "INVALID_CONTENT_TYPE": "the body's media type is not one the operation takes",
    "NO_PATH_MATCHED_ERROR": "no path of the spec matches",
    "NO_METHOD_MATCHED_ERROR": "the path has no such method in the spec",
    "NO_RESOURCE_PROVIDED_ERROR": "the spec has no operations",
    "NO_SERVER_MATCHED_ERROR": "no server of the spec matches",
}
SKIPPED_HEADERS = {"host", "content-length", "connection", "transfer-encoding"}

Spec = Path | dict[str, Any] | Callable[[], "Path | dict[str, Any]"]


class PrismUnavailable(Exception):
    """Prism or Node is not installed and cannot be: the message says how to get them."""


# ---- what the stand-ins receive -------------------------------------------------------------------


@contextlib.contextmanager
def recording_requests() -> Iterator[list[tuple[LoopbackUpstream, RecordedRequest]]]:
    """Every request any LoopbackUpstream receives inside the block, in order (also those a test
    forgets with `upstream.clear()`)."""
    seen: list[tuple[LoopbackUpstream, RecordedRequest]] = []

    def observe(upstream: LoopbackUpstream, request: RecordedRequest) -> None:
        seen.append((upstream, request))  # list.append is atomic: handler threads may race

    recording.OBSERVERS.append(observe)
    try:
        yield seen
    finally:
        recording.OBSERVERS.remove(observe)


def spec_for(upstream: LoopbackUpstream, specs: Mapping[type, Spec]) -> Spec | None:
    return next((spec for kind, spec in specs.items() if isinstance(upstream, kind)), None)


# ---- Prism ----------------------------------------------------------------------------------------


def prism_modules() -> Path:
    """The node_modules of the pinned Prism: MCPGEN_PRISM_BIN's (an installed `prism`), else the oracle's
    (.cache/prism, `npm ci` of scripts/sweep/prism on first use; scripts/test installs it beforehand)."""
    given = os.environ.get("MCPGEN_PRISM_BIN")
    if given:
        modules = Path(given).parent.parent  # <node_modules>/.bin/prism
    else:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from scripts.sweep import oracle_upstream

        if shutil.which("npm") is None:
            raise PrismUnavailable(
                "npm is not installed: Prism comes from the npm registry (apt-get install npm)"
            )
        lock = Path(tempfile.gettempdir()) / "mcpgen-prism-install.lock"
        with lock.open("w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)  # two test workers never `npm ci` into one directory at once
            try:
                oracle_upstream.install_prism()
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
                raise PrismUnavailable(f"`npm ci` of scripts/sweep/prism failed: {exc}") from exc
        modules = oracle_upstream.PRISM_HOME / "node_modules"
    if not (modules / "@stoplight" / "prism-http-server").is_dir():
        raise PrismUnavailable(f"{modules} holds no @stoplight/prism-http-server (Prism's mock server)")
    return modules


def node_binary() -> str:
    """The pinned Node 22 of scripts/conformance/node22.sh (scripts/test installs it), else `node`."""
    with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
        if shutil.which("npm"):
            found = subprocess.run(
                ["bash", str(ROOT / "scripts" / "conformance" / "node22.sh")],
                capture_output=True, text=True, check=True, timeout=900,
            ).stdout.strip()  # fmt: skip
            if found:
                return found
    node = shutil.which("node")
    if node is None:
        raise PrismUnavailable(
            "Node is not installed: bash scripts/conformance/node22.sh installs it (needs npm)"
        )
    return node


class PrismServers:
    """Prism's mock server for any number of specs, in one Node process started on first use."""

    def __init__(self, work: Path) -> None:
        self.work = work  # specs given as dicts are written here
        self._process: subprocess.Popen[str] | None = None
        self._addresses: dict[str, str] = {}  # sha256 of the spec's bytes -> base URL
        self._client = httpx.Client(timeout=30.0, follow_redirects=False)

    def start(self) -> None:
        if self._process is not None:
            return
        modules, node = prism_modules(), node_binary()
        self.work.mkdir(parents=True, exist_ok=True)
        log = (self.work / "prism.log").open("w")
        self._process = subprocess.Popen(
            [node, str(HARNESS), str(modules)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True,
        )  # fmt: skip
        log.close()

    def close(self) -> None:
        self._client.close()
        process, self._process = self._process, None
        if process is None:
            return
        assert process.stdin is not None
        process.stdin.close()  # the harness closes its servers and exits
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def address(self, spec: Path | dict[str, Any]) -> str:
        """The base URL of Prism's mock server for `spec`."""
        document = self._document(spec)
        key = hashlib.sha256(document.read_bytes()).hexdigest()
        if key not in self._addresses:
            self.start()
            reply = self._ask({"document": str(document)}, START_S if not self._addresses else SPEC_S)
            if "address" not in reply:
                raise AssertionError(
                    f"Prism cannot serve {document}: {reply.get('error')}\n"
                    "A spec (or fragment) a test generates from must be a valid OpenAPI document."
                )
            self._addresses[key] = reply["address"]
        return self._addresses[key]

    def judge(self, spec: Path | dict[str, Any], request: RecordedRequest) -> list[str]:
        """What Prism finds wrong with `request` against `spec` (empty: nothing)."""
        url = self.address(spec) + request.path
        if request.query:
            url += "?" + urlencode(request.query, doseq=True)
        headers = {k: v for k, v in request.headers.items() if k not in SKIPPED_HEADERS}
        answer = self._client.request(request.method, url, headers=headers, content=request.body)
        return request_findings(answer)

    def _document(self, spec: Path | dict[str, Any]) -> Path:
        if isinstance(spec, Path):
            return spec.resolve()
        text = json.dumps(spec, sort_keys=True)
        path = self.work / f"spec-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
        if not path.is_file():
            path.write_text(text, encoding="utf-8")
        return path

    def _ask(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
        except BrokenPipeError:
            pass  # it exited: said below
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                line = process.stdout.readline()
                if line:
                    return json.loads(line)
                break  # end of output: the process exited
        log = (self.work / "prism.log").read_text(encoding="utf-8", errors="replace")[-2000:]
        exited = process.poll() is not None
        self._restart()  # a late answer must never be read as the next spec's
        raise PrismUnavailable(
            f"Prism's mock servers (node {HARNESS.name}) "
            + (
                f"exited: {log or 'no output'}"
                if exited
                else f"did not answer within {timeout_s:g} s: {message}"
            )
        )

    def _restart(self) -> None:
        process, self._process = self._process, None
        self._addresses.clear()
        if process is not None:
            process.kill()
            process.wait(timeout=10)


def request_findings(answer: httpx.Response) -> list[str]:
    """Prism's findings about the request it answered: the `sl-violations` header's request entries, or
    the refusal Prism answered with itself (problem+json)."""
    found: list[str] = []
    header = answer.headers.get("sl-violations")
    if header:
        try:
            entries = json.loads(header)
        except ValueError:  # "Too many violations! <cut JSON>"
            entries = [{"location": ["request"], "message": header[:300]}]
        found += [
            _described(v) for v in entries if isinstance(v, dict) and v.get("location", [""])[0] == "request"
        ]
    if "problem+json" in answer.headers.get("content-type", ""):
        problem = answer.json()
        kind = str(problem.get("type", "")).rsplit("#", 1)[-1]
        details = [_described(v) for v in problem.get("validation") or [] if isinstance(v, dict)]
        if details:
            found += details
        else:
            why = REFUSALS.get(kind, "Prism could not answer the request, so it could not judge it")
            found.append(
                f"{answer.status_code} {kind}: {why} ({problem.get('detail') or problem.get('title')})"
            )
    return found


def _described(violation: dict[str, Any]) -> str:
    where = ".".join(str(part) for part in violation.get("location") or [])
    return (
        f"{where}: {violation.get('message')} [{violation.get('code', '')}, {violation.get('severity', '')}]"
    )


def findings_of(
    servers: PrismServers, specs: Mapping[type, Spec], seen: list[tuple[LoopbackUpstream, RecordedRequest]]
) -> list[str]:
    """One line per finding, naming the request and the spec it was judged against."""
    lines: list[str] = []
    resolved: dict[int, Path | dict[str, Any]] = {}
    for upstream, request in seen:
        spec = spec_for(upstream, specs)
        if spec is None:
            continue  # a stand-in for no real spec (a dropping or hostile upstream)
        if callable(spec):
            spec = resolved.setdefault(id(spec), spec())
        query = f"?{urlencode(request.query, doseq=True)}" if request.query else ""
        for finding in servers.judge(spec, request):
            lines.append(f"{request.method} {request.path}{query} ({type(upstream).__name__}): {finding}")
    return lines


def without_expected(findings: list[str], expected: tuple[str, ...]) -> list[str]:
    """`findings` less those a test declares (`prism_expects`); an expected finding that does not appear
    is a finding too (the disagreement it documents is gone, and so must the mark be)."""
    missing = [
        f"expected, and Prism did not find it: {e}" for e in expected if not any(e in f for f in findings)
    ]
    return [f for f in findings if not any(e in f for e in expected)] + missing


def log_findings(test: str, lines: list[str]) -> None:
    """MCPGEN_PRISM_FINDINGS=<file>: every finding also goes there as a JSON line (to list them all)."""
    target = os.environ.get("MCPGEN_PRISM_FINDINGS")
    if target and lines:
        with open(target, "a", encoding="utf-8") as out:
            for line in lines:
                out.write(json.dumps({"test": test, "finding": line}) + "\n")
