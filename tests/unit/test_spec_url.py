"""A spec given by URL (mcpgen/load/remote.py): `mcpgen` run as a process, as a user runs it, against
HTTPS servers on 127.0.0.1 whose certificate is made here with the openssl command and trusted through
SSL_CERT_FILE (OpenSSL reads it; the README says so). The cache goes where MCPGEN_CACHE_DIR says."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mcpgen.diagnostics import DiagnosticError
from mcpgen.load.remote import RemoteOptions, fetch
from tests.conftest import skips_fail
from tests.support import prism
from tests.support.paths import ROOT, SPECS

EXPORTS = (SPECS / "exports" / "exports.openapi.yaml").read_bytes()
MAPPING = SPECS / "exports" / "mapping.yaml"
# A Swagger 2.0 document, its one invalid keyword made valid.
SWAGGER_2 = (
    (ROOT / "tests" / "fixtures" / "swagger2" / "inventory.yaml")
    .read_bytes()
    .replace(b"minimum: sideways", b"minimum: 0")
)
# The exports spec with its schemas moved into another document, named by a relative $ref.
SPLIT = EXPORTS.replace(b'"#/components/schemas/ExportRequest"', b'"schemas.yaml#/ExportRequest"')
SCHEMAS = b"ExportRequest:\n  type: object\n  properties:\n    dataset: {type: string}\n"
ETAG = '"exports-1"'


class _Handler(BaseHTTPRequestHandler):
    seen: list[tuple[str, str | None]]
    https_port: int
    http_port: int

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self.seen.append((self.path, self.headers.get("If-None-Match")))
        if self.path == "/exports.yaml" and self.headers.get("If-None-Match") == ETAG:
            self._answer(304, b"")
        elif self.path == "/exports.yaml":
            self._answer(200, EXPORTS, {"ETag": ETAG})
        elif self.path == "/api/split.yaml":
            self._answer(200, SPLIT)
        elif self.path == "/api/schemas.yaml":
            self._answer(200, SCHEMAS)
        elif self.path == "/swagger":
            self._answer(200, SWAGGER_2, {"Content-Type": "application/yaml"})
        elif self.path == "/to-http":
            self._answer(302, b"", {"Location": f"http://127.0.0.1:{self.http_port}/exports.yaml"})
        elif self.path == "/moved":
            self._answer(301, b"", {"Location": "/exports.yaml"})
        elif self.path == "/loop":
            self._answer(302, b"", {"Location": "/loop"})
        else:
            self._answer(404, b"not found")

    def _answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is missing (apt-get install openssl)")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


@contextlib.contextmanager
def _serving(tls: ssl.SSLContext | None, handler: type[_Handler]) -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def servers(certificate: tuple[Path, Path]) -> Iterator[type[_Handler]]:
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(*certificate)
    handler = type("Handler", (_Handler,), {"seen": []})
    with _serving(tls, handler) as secure, _serving(None, handler) as plain:
        handler.https_port, handler.http_port = secure.server_address[1], plain.server_address[1]
        yield handler


def _mcpgen(
    *args: str | Path, cert: Path | None, cache: Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    env["MCPGEN_CACHE_DIR"] = str(cache)
    if cert is not None:
        env["SSL_CERT_FILE"] = str(cert)
    return subprocess.run(
        [sys.executable, "-m", "mcpgen", *map(str, args)],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=120, check=False,
    )  # fmt: skip


def _https(servers: type[_Handler], path: str) -> str:
    return f"https://127.0.0.1:{servers.https_port}{path}"


def test_generate_from_a_url_records_it_and_its_sha256_in_the_lock(
    servers: type[_Handler], certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    url = _https(servers, "/exports.yaml")
    cache = tmp_path / "cache"
    completed = _mcpgen(
        "generate", url, "-m", MAPPING, "-o", tmp_path / "out", cert=certificate[0], cache=cache
    )
    assert completed.returncode == 0, completed.stderr
    lock = json.loads((tmp_path / "out" / "tools.lock.json").read_text(encoding="utf-8"))
    sha = hashlib.sha256(EXPORTS).hexdigest()
    assert lock["inputs"]["spec_url"] == url and lock["inputs"]["spec_sha256"] == sha
    assert (cache / "specs" / f"{sha}.yaml").read_bytes() == EXPORTS
    # Again: asked with the ETag, answered 304, and the kept copy read.
    servers.seen.clear()
    completed = _mcpgen("validate", url, "-m", MAPPING, cert=certificate[0], cache=cache)
    assert completed.returncode == 0, completed.stderr
    assert servers.seen == [("/exports.yaml", ETAG)]


def test_a_swagger_2_url_drafts_a_mapping(
    servers: type[_Handler], certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    completed = _mcpgen(
        "init", _https(servers, "/swagger"), "-o", tmp_path / "m.yaml", cert=certificate[0], cache=tmp_path
    )
    assert completed.returncode == 0, completed.stderr
    assert f"from {_https(servers, '/swagger')}" in (tmp_path / "m.yaml").read_text(encoding="utf-8")


def test_what_is_refused_and_why(
    servers: type[_Handler], certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    cert = certificate[0]
    plain = f"http://127.0.0.1:{servers.http_port}/exports.yaml"
    refused = _mcpgen("validate", plain, "-m", MAPPING, cert=cert, cache=tmp_path)
    assert refused.returncode == 1 and "error[F014]" in refused.stderr and "--allow-http" in refused.stderr
    allowed = _mcpgen("validate", plain, "-m", MAPPING, "--allow-http", cert=cert, cache=tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    # From https to http is refused even where plain http is allowed.
    down = _mcpgen(
        "validate", _https(servers, "/to-http"), "-m", MAPPING, "--allow-http", cert=cert, cache=tmp_path
    )
    assert down.returncode == 1 and "redirects from https to http://" in down.stderr
    moved = _mcpgen("validate", _https(servers, "/moved"), "-m", MAPPING, cert=cert, cache=tmp_path)
    assert moved.returncode == 0, moved.stderr
    loop = _mcpgen("validate", _https(servers, "/loop"), "-m", MAPPING, cert=cert, cache=tmp_path)
    assert "redirects more than 5 times" in loop.stderr
    missing = _mcpgen("validate", _https(servers, "/nothing.json"), "-m", MAPPING, cert=cert, cache=tmp_path)
    assert "error[F013]" in missing.stderr and "the server answered HTTP 404" in missing.stderr
    untrusted = _mcpgen(
        "validate", _https(servers, "/exports.yaml"), "-m", MAPPING, cert=None, cache=tmp_path
    )
    assert untrusted.returncode == 1 and "TLS certificate" in untrusted.stderr
    assert "SSL_CERT_FILE" in untrusted.stderr


def test_a_relative_ref_of_a_url_spec_is_fetched_only_from_an_allowed_host(
    servers: type[_Handler], certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    url = _https(servers, "/api/split.yaml")
    refused = _mcpgen("validate", url, "-m", MAPPING, cert=certificate[0], cache=tmp_path)
    assert refused.returncode == 1 and "error[R001]" in refused.stderr
    assert f"{url}:" in refused.stderr  # located in the fetched document, by its URL
    allowed = _mcpgen(
        "validate", url, "-m", MAPPING, "--allow-ref-host", "127.0.0.1", cert=certificate[0], cache=tmp_path
    )
    assert allowed.returncode == 0, allowed.stderr
    assert ("/api/schemas.yaml", None) in servers.seen


def test_the_size_is_bounded(
    servers: type[_Handler], certificate: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    with pytest.raises(DiagnosticError) as raised:
        fetch(_https(servers, "/exports.yaml"), RemoteOptions(cache_dir=tmp_path), max_bytes=len(EXPORTS) - 1)
    [problem] = raised.value.diagnostics
    assert problem.code == "F006"
    assert not (tmp_path / "specs").exists() or not any((tmp_path / "specs").glob("*.yaml"))


def test_diff_reads_a_spec_url_in_a_spec_mapping_operand(
    servers: type[_Handler], certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    """The same spec on disk and by URL: the same contract. A `$ref` of the URL's document to another
    one is refused as `generate` refuses it, unless its host is allowed."""
    cert = certificate[0]
    local = f"{SPECS / 'exports' / 'exports.openapi.yaml'}::{MAPPING}"
    same = _mcpgen(
        "diff", local, f"{_https(servers, '/exports.yaml')}::{MAPPING}", "--format", "json",
        "--fail-on", "any", cert=cert, cache=tmp_path,
    )  # fmt: skip
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)["changes"] == []
    split = f"{_https(servers, '/api/split.yaml')}::{MAPPING}"
    refused = _mcpgen("diff", local, split, cert=cert, cache=tmp_path)
    assert refused.returncode == 2 and "error[R001]" in refused.stderr
    allowed = _mcpgen(
        "diff", local, split, "--allow-ref-host", "127.0.0.1", "--format", "json", cert=cert, cache=tmp_path
    )
    assert allowed.returncode == 0, allowed.stderr
    # The fetched schema has `dataset` only, not required: what the spec on disk has beside it is gone.
    ids = {c["id"] for c in json.loads(allowed.stdout)["changes"]}
    assert {"param-removed:exports_export#format", "param-optional:exports_export.start#dataset"} <= ids


def test_lint_reads_a_spec_url_with_its_mapping(
    servers: type[_Handler], certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    url = _https(servers, "/exports.yaml")
    linted = _mcpgen("lint", url, "-m", MAPPING, "--format", "json", cert=certificate[0], cache=tmp_path)
    assert linted.returncode == 0, linted.stderr
    assert url in json.loads(linted.stdout)["target"]
    alone = _mcpgen("lint", url, cert=certificate[0], cache=tmp_path)
    assert alone.returncode == 1 and "error[L005]" in alone.stderr and "--mapping" in alone.stderr
    split = _https(servers, "/api/split.yaml")
    refused = _mcpgen("lint", split, "-m", MAPPING, cert=certificate[0], cache=tmp_path)
    assert refused.returncode == 1 and "error[R001]" in refused.stderr
    allowed = _mcpgen(
        "lint", split, "-m", MAPPING, "--allow-ref-host", "127.0.0.1", cert=certificate[0], cache=tmp_path
    )
    assert allowed.returncode == 0, allowed.stderr


def test_check_runs_a_spec_url_whose_refs_name_another_document(
    servers: type[_Handler], certificate: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generated from the URL (its `$ref` fetched from the allowed host), and Prism serves the kept copies
    laid out as on the server, so it resolves the `$ref` as mcpgen did."""
    try:
        modules, node = prism.prism_modules(), prism.node_binary()
    except prism.PrismUnavailable as missing:
        if skips_fail():
            pytest.fail(f"mcpgen check needs Prism: {missing}")
        pytest.skip(f"Prism is not installed: {missing}")
    monkeypatch.setenv("MCPGEN_PRISM", str(modules / ".bin" / "prism"))
    monkeypatch.setenv("PATH", f"{Path(node).parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}")
    url = _https(servers, "/api/split.yaml")
    refused = _mcpgen("check", url, "-m", MAPPING, cert=certificate[0], cache=tmp_path)
    assert refused.returncode == 2 and "error[R001]" in refused.stderr
    checked = _mcpgen(
        "check", url, "-m", MAPPING, "--allow-ref-host", "127.0.0.1", "--format", "json",
        cert=certificate[0], cache=tmp_path,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert json.loads(checked.stdout)["upstream"]["kind"] == "prism"
