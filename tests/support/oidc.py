"""A real OAuth 2.0 / OpenID authorization server for the credential tests: oidc-provider, pinned in
tests/support/oidc/ (package.json, package-lock.json), installed with `npm ci --ignore-scripts` into
.cache/oidc-provider and run on 127.0.0.1 with the Node 22 that scripts/conformance/node22.sh installs.

    with authorization_server(tmp_path, clients=[...], ttl={"ClientCredentials": 5}) as provider:
        provider.issuer, provider.token_url, provider.stats(), provider.introspect(token)

`Introspecting` is an API stand-in that accepts a bearer token only when the provider says it is active
(RFC 7662 introspection), and answers 401 `WWW-Authenticate: Bearer error="invalid_token"` otherwise,
as an API behind such a server does.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
import pytest

from tests.support.paths import ROOT
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

PIN = Path(__file__).with_name("oidc")
HOME = ROOT / ".cache" / "oidc-provider"
START_S = 60.0
INTROSPECTOR = {"client_id": "the-api", "client_secret": "the-api-introspection-secret-31c7"}


def install() -> Path:
    """`npm ci` the pinned oidc-provider into .cache/oidc-provider once; returns its node_modules."""
    modules = HOME / "node_modules"
    lock = (PIN / "package-lock.json").read_bytes()
    if (modules / "oidc-provider").is_dir() and (HOME / "package-lock.json").read_bytes() == lock:
        return modules
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed (scripts/test installs it with apt-get when run as root)")
    HOME.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        (HOME / name).write_bytes((PIN / name).read_bytes())
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=HOME,
                   check=True, capture_output=True, timeout=600)  # fmt: skip
    return modules


def node22() -> str:
    completed = subprocess.run(
        ["bash", str(ROOT / "scripts" / "conformance" / "node22.sh")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if completed.returncode != 0:
        pytest.skip(f"Node 22 could not be installed: {completed.stderr[-300:]}")
    return completed.stdout.strip()


@dataclass
class Provider:
    issuer: str
    process: subprocess.Popen[bytes]

    @property
    def token_url(self) -> str:
        return f"{self.issuer}/token"

    @property
    def authorization_url(self) -> str:
        return f"{self.issuer}/auth"

    @property
    def revocation_url(self) -> str:
        return f"{self.issuer}/token/revocation"

    def stats(self) -> dict[str, int]:
        counts: dict[str, int] = httpx.get(f"{self.issuer}/__stats", timeout=10).json()
        return counts

    def token_requests(self, grant: str) -> int:
        return sum(n for key, n in self.stats().items() if key.startswith(f"{grant} "))

    def introspect(self, token: str) -> dict[str, Any]:
        answer = httpx.post(
            f"{self.issuer}/token/introspection",
            data={"token": token},
            auth=(INTROSPECTOR["client_id"], INTROSPECTOR["client_secret"]),
            timeout=10,
        )
        found: dict[str, Any] = answer.json()
        return found

    def revoke(self, token: str, client_id: str, client_secret: str | None = None) -> None:
        data = {"token": token} if client_secret else {"token": token, "client_id": client_id}
        auth = (client_id, client_secret) if client_secret else None
        answer = httpx.post(self.revocation_url, data=data, auth=auth, timeout=10)
        assert answer.status_code == 200, answer.text


@contextlib.contextmanager
def authorization_server(
    directory: Path,
    clients: list[dict[str, Any]],
    ttl: dict[str, int] | None = None,
    rotate_refresh_tokens: bool = True,
) -> Iterator[Provider]:
    """oidc-provider on a free 127.0.0.1 port with these clients (and the API's introspection client)."""
    modules = install()
    node = node22()
    config = directory / "oidc-config.json"
    introspector = {**INTROSPECTOR, "grant_types": [], "redirect_uris": [], "response_types": []}
    config.write_text(json.dumps({"port": 0, "clients": [*clients, introspector], "ttl": ttl or {},
                                  "rotate_refresh_tokens": rotate_refresh_tokens}), encoding="utf-8")  # fmt: skip
    log = (directory / "oidc-provider.log").open("wb")
    process = subprocess.Popen(
        [node, str(PIN / "provider.js"), str(config)],
        env={"PATH": "/usr/bin:/bin", "NODE_PATH": str(modules), "NODE_ENV": "test"},
        stdout=subprocess.PIPE,
        stderr=log,
        start_new_session=True,
    )
    try:
        line = _first_line(process, directory / "oidc-provider.log")
        yield Provider(issuer=json.loads(line)["issuer"], process=process)
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def _first_line(process: subprocess.Popen[bytes], log: Path) -> str:
    import select

    assert process.stdout is not None
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.5)
        if ready:
            line = process.stdout.readline().decode()
            if line.strip():
                return line
        if process.poll() is not None:
            break
    pytest.fail(f"oidc-provider did not start: {log.read_text(errors='replace')[-2000:]}")


class Introspecting(LoopbackUpstream):
    """An API that checks every bearer token with the authorization server (RFC 7662)."""

    def __init__(self, provider: Provider) -> None:
        super().__init__()
        self.provider = provider
        self.tokens: list[str] = []  # every bearer token received, in order
        self.subjects: list[str | None] = []  # whose token each was (None: a client's own token)

    def authorize(self, request: RecordedRequest) -> Reply | None:
        header = request.headers.get("authorization", "")
        match = re.fullmatch(r"Bearer (\S+)", header)
        if match is None:
            return Reply(401, {"error": "unauthorized"}, {"www-authenticate": 'Bearer realm="api"'})
        token = match.group(1)
        self.tokens.append(token)
        found = self.provider.introspect(token)
        self.subjects.append(found.get("sub"))
        if not found.get("active"):
            challenge = 'Bearer realm="api", error="invalid_token", error_description="expired or revoked"'
            return Reply(401, {"error": "invalid_token"}, {"www-authenticate": challenge})
        return None


class _Forms(HTMLParser):
    """The first form of an HTML page: its action and its input fields."""

    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = values.get("action") or ""
        elif tag == "input" and values.get("name"):
            self.fields.setdefault(str(values["name"]), values.get("value") or "")


def sign_in(url: str, login: str, stop_at: str, max_steps: int = 12) -> httpx.Response:
    """Follow an authorization URL as a browser would: redirects, then the provider's own sign-in and
    consent pages (their forms, filled with `login`), until a redirect to `stop_at` (the client's
    callback), which is requested too; returns the callback's answer."""
    with httpx.Client(follow_redirects=False, timeout=30) as browser:
        response = browser.get(url)
        for _ in range(max_steps):
            if response.is_redirect:
                target = urljoin(str(response.url), response.headers["location"])
                response = browser.get(target)
                if target.startswith(stop_at):
                    return response
                continue
            form = _Forms()
            form.feed(response.text)
            if form.action is None:
                raise AssertionError(f"no form on {response.url}: {response.text[:300]}")
            fields = {**form.fields, "login": login, "password": "any"}
            response = browser.post(urljoin(str(response.url), form.action), data=fields)
        raise AssertionError("the sign-in did not reach the callback")


def callback_query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
