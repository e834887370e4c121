"""One `mcpgen check`: generate into a temporary directory, start the upstream and the server, call,
judge. Whatever cannot be set up (inputs that do not generate, a missing Prism or Python package, a
credential a sandbox needs) comes back as an `Unusable` saying what to do, never as a finding."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from mcpgen.check.judge import Context, judge
from mcpgen.check.model import Call, Finding
from mcpgen.check.served_spec import served_spec
from mcpgen.check.session import Drive, UpstreamKind, drive
from mcpgen.check.spec_facts import AnswerFacts, answer_facts
from mcpgen.check.upstream import (
    Recorder,
    UpstreamUnavailable,
    find_prism,
    node_problem,
    prism_mock,
)
from mcpgen.diagnostics import Diagnostic, DiagnosticError
from mcpgen.ir import AuthSpec, RenderedFile, ServerSpec
from mcpgen.load.remote import RemoteOptions
from mcpgen.pipeline import generate

PLACEHOLDER_CREDENTIAL = "mcpgen-check-credential"  # what Prism gets: it checks a credential is there
PLACEHOLDER_BASIC = "mcpgen-check:credential"
CHECK_EXTRA = "pip install 'mcpgen[check]'"


@dataclass(frozen=True, slots=True)
class Unusable:
    """The check could not run: why, and what to do (exit 2)."""

    message: str
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class Checked:
    findings: list[Finding]
    calls: list[Call]  # in the order made
    upstream: str  # the URL, or 'prism' (PRISM_VERSION, serving the spec)
    tools: int
    actions: int


def run_check(
    spec: Path | str,
    mapping: Path,
    upstream: str | None,
    environ: Mapping[str, str] = os.environ,
    *,
    ref_roots: Sequence[Path] = (),
    remote: RemoteOptions | None = None,
) -> Checked | Unusable:
    """`spec` may be an https URL (a str): generated from it as `generate` does (its `$ref`s read
    under `ref_roots` too, and fetched from the hosts `remote` allows), and Prism serves the copy kept
    in the cache."""
    result = generate(spec, mapping, ref_roots=ref_roots, remote=remote)
    if not result.ok or result.server is None or result.spec is None or result.mapping is None:
        return Unusable(
            "the spec and mapping do not generate a server (fix what is listed above)", result.diagnostics
        )
    server = result.server
    kind: UpstreamKind = "url" if upstream else "prism"
    problem = _upstream_problem(upstream) if upstream else None
    problem = problem or _missing_python(server, result.files)
    credentials, missing = credentials_for(server, kind, environ)
    problem = problem or missing
    prism = None
    if problem is None and kind == "prism":
        problem = node_problem(environ)
        try:
            prism = find_prism(environ) if problem is None else None
        except UpstreamUnavailable as exc:
            problem = str(exc)
    if problem is not None:
        return Unusable(problem)
    facts = {(t.name, a.name): answer_facts(result.spec, a) for t in server.tools for a in t.actions}
    with tempfile.TemporaryDirectory(prefix="mcpgen-check-") as temp:
        work = Path(temp)
        out = work / "package"
        write_files(out, result.files)
        try:
            served = served_spec(spec, result.spec, work / "spec") if prism is not None else None
        except DiagnosticError as exc:
            return Unusable("Prism cannot be given the documents the spec's $refs name", exc.diagnostics)
        try:
            with (
                _target(prism, served, upstream, work) as target,
                Recorder(target, server.timeout_s) as recorder,
            ):
                env = {
                    "PATH": environ.get("PATH", os.defpath),
                    "PYTHONPATH": str(out),
                    server.base_url_env: recorder.base_url,
                    **credentials,
                }
                done = _run_drive(server, env, work / "server.log", recorder, facts, kind)
        except UpstreamUnavailable as exc:
            return Unusable(str(exc))
        log = (work / "server.log").read_text(encoding="utf-8", errors="replace")
        if isinstance(done, Unusable):
            return Unusable(f"{done.message}\n{_tail(log)}")
    context = Context(server, result.mapping.document, facts, kind)
    findings = judge(context, done.calls, done.skips)
    actions = sum(len(t.actions) for t in server.tools)
    return Checked(findings, done.calls, upstream or "prism", len(server.tools), actions)


def _run_drive(
    server: ServerSpec,
    env: dict[str, str],
    log: Path,
    recorder: Recorder,
    facts: dict[tuple[str, str], AnswerFacts],
    kind: UpstreamKind,
) -> Drive | Unusable:
    import anyio

    command = [sys.executable, "-m", server.package_name, "--contract-poll-s", "0", "--log-level", "WARNING"]
    try:
        return anyio.run(drive, server, command, env, log, recorder, facts, kind)
    except (OSError, RuntimeError, TimeoutError, ExceptionGroup) as exc:  # it did not start, or went away
        first = exc.exceptions[0] if isinstance(exc, ExceptionGroup) else exc
        return Unusable(f"the generated server could not be driven: {first!r}")


@contextlib.contextmanager
def _target(prism: Path | None, spec: Path | None, upstream: str | None, work: Path) -> Iterator[str]:
    if prism is None or spec is None:
        assert upstream is not None
        yield upstream
        return
    with prism_mock(prism, spec.resolve(), work / "prism.log") as url:
        yield url


def write_files(out: Path, files: tuple[RenderedFile, ...]) -> None:
    for file in files:
        path = out / file.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.content, encoding="utf-8")


def credentials_for(
    server: ServerSpec, kind: UpstreamKind, environ: Mapping[str, str]
) -> tuple[dict[str, str], str | None]:
    """The credential variables the server reads: placeholders for Prism (it checks one is sent),
    the environment's values for a sandbox; the message naming those that are not set, or saying why
    an OAuth 2.0 credential cannot be had in this check and what to set instead."""
    auths = (server.auth, *server.extra_auth) if server.auth else ()
    oauth = next((a for a in auths if a.kind.startswith("oauth2")), None)
    problem = _oauth_problem(oauth, kind) if oauth else None
    if problem:
        return {}, problem
    envs = [env for a in auths for env in _check_envs(a)]
    if kind == "prism":
        basic = {env for a in auths if a.kind == "basic" for env in a.envs}
        return {env: PLACEHOLDER_BASIC if env in basic else PLACEHOLDER_CREDENTIAL for env in envs}, None
    unset = [env for env in envs if not environ.get(env)]
    if unset:
        return {}, (
            f"set {' and '.join(unset)} to the sandbox's credential (the mapping's server.auth names "
            f"{'them' if len(unset) > 1 else 'it'}); check sends it only to --upstream"
        )
    return {env: environ[env] for env in envs}, None


def _check_envs(auth: AuthSpec) -> tuple[str, ...]:
    """What the server reads in a check: over stdio a call has no user, so a per-user sign-in sends the
    token of `env` (as a bearer token would); every other kind reads its own variables."""
    if auth.kind == "oauth2_user":
        return (auth.env,) if auth.env else ()
    return auth.envs


def _oauth_problem(auth: AuthSpec, kind: UpstreamKind) -> str | None:
    if auth.kind == "oauth2_user" and not auth.env:
        return (
            "check calls the server over stdio, where a call has no user to sign in at the API (server.auth "
            "is oauth2_user): add `env: <NAME>_TOKEN` to server.auth (the token a call with no user sends), "
            "regenerate, and for --upstream set that variable to a token of the sandbox"
        )
    if auth.kind == "oauth2_client_credentials" and kind == "prism":
        return (
            f"Prism mocks the API, not its token endpoint ({auth.token_url}), so the server cannot obtain "
            "its token: run check with --upstream <the sandbox's base URL> and set "
            f"{' and '.join(auth.envs)} to a client of the sandbox's authorization server"
        )
    return None


def _upstream_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"--upstream {url!r} is not an http(s) URL such as https://sandbox.example.com/v1"
    return None


def _missing_python(server: ServerSpec, files: tuple[RenderedFile, ...]) -> str | None:
    """The generated server runs on this interpreter: its dependencies (and the MCP client's) must be
    importable here. A message naming the install line when they are not."""
    missing = [name for name in ("mcp", "httpx", "jsonschema", "anyio") if not _importable(name)]
    if not missing:
        return None
    pyproject = next((f for f in files if f.path == "pyproject.toml"), None)
    wanted: list[str] = tomllib.loads(pyproject.content)["project"]["dependencies"] if pyproject else []
    line = " ".join(f"'{d}'" for d in wanted if re.split(r"[<>=!~ \[]", d)[0] != "uvicorn")
    return (
        f"{', '.join(missing)} cannot be imported by {sys.executable}, and check runs the generated server and "
        f"the MCP client on it: {CHECK_EXTRA}, or pip install {line}"
    )


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _tail(log: str) -> str:
    lines = [line for line in log.splitlines() if line.strip()]
    return "the server's log ends: " + "\n".join(lines[-8:]) if lines else "the server wrote no log"
