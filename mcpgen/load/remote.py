"""A spec (or a `$ref`'s document) named by URL: fetched over HTTPS, bounded, cached, its sha256 kept.

https only, unless the user allows plain http (`--allow-http`); a redirect may not lead from https
to anything else, and at most MAX_REDIRECTS are followed. At most MAX_SPEC_BYTES are read, within
DEADLINE_S in all. Certificates are checked against the system's store, or the one SSL_CERT_FILE
names (OpenSSL reads it). Proxies are not used.

The bytes are kept in the user's cache directory (`cache_dir`): the file `specs/<sha256>.<ext>`, and
per URL a small record of its sha256 and the validators the server sent (ETag, Last-Modified). A later
fetch of the same URL asks with them, and a 304 Not Modified reuses the kept file; anything else is
fetched again. The cache is only ever a copy: deleting it costs a download.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, DiagnosticError, SourceRef, error
from mcpgen.load.sources import MAX_SPEC_BYTES, MB

MAX_REDIRECTS = 5
TIMEOUT_S = 30.0  # connecting, and each read
DEADLINE_S = 120.0  # the whole fetch, redirects included
CHUNK = 1 << 16
_REDIRECTS = (301, 302, 303, 307, 308)


@dataclass(frozen=True, slots=True)
class RemoteOptions:
    """What the command line allows: plain http, the hosts `$ref`s may fetch from, the cache."""

    allow_http: bool = False
    ref_hosts: tuple[str, ...] = ()
    cache_dir: Path | None = None


@dataclass(frozen=True, slots=True)
class Fetched:
    url: str  # as asked for
    final_url: str  # after redirects: where relative `$ref`s are resolved
    path: Path  # the kept copy
    sha256: str


def is_url(text: str) -> bool:
    return text[:8].lower() == "https://" or text[:7].lower() == "http://"


def default_cache_dir() -> Path:
    """$MCPGEN_CACHE_DIR, else $XDG_CACHE_HOME/mcpgen, else ~/.cache/mcpgen."""
    if os.environ.get("MCPGEN_CACHE_DIR"):
        return Path(os.environ["MCPGEN_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mcpgen"


def fetch(url: str, options: RemoteOptions, *, max_bytes: int = MAX_SPEC_BYTES) -> Fetched:
    """The document at `url`, kept in the cache; DiagnosticError (F013, F014, F006) when it cannot be had."""
    _check_scheme(url, url, options, redirected_from=None)
    cache = options.cache_dir or default_cache_dir()
    record_file = cache / "specs" / "urls" / f"{_sha(url.encode())}.json"
    record = _read_record(record_file, cache)
    deadline = time.monotonic() + DEADLINE_S
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        asked = record if current == url else None
        status, headers, body = _get(url, current, deadline, max_bytes, asked)
        if status in _REDIRECTS and headers.get("location"):
            target = urljoin(current, headers["location"])
            _check_scheme(url, target, options, redirected_from=current)
            current = target
            continue
        if status == 304 and asked is not None:
            return Fetched(url, current, cache / "specs" / asked["file"], asked["sha256"])
        if status != 200:
            raise _failed(
                url, f"the server answered HTTP {status}" + (f" (from {current})" if current != url else "")
            )
        return _keep(url, current, body, headers, cache, record_file)
    raise DiagnosticError(
        [
            error(
                codes.F014,
                f"{url} redirects more than {MAX_REDIRECTS} times; mcpgen stops there",
                SourceRef(file=url),
            )
        ]
    )


def _check_scheme(url: str, target: str, options: RemoteOptions, *, redirected_from: str | None) -> None:
    scheme = urlsplit(target).scheme.lower()
    if scheme == "https" or (scheme == "http" and options.allow_http and not _is_https(redirected_from)):
        return
    if redirected_from is None:
        message = f"{url} is plain http, which anyone on the way can read and change"
        hint = "use its https:// address, or pass --allow-http to fetch it over plain http anyway"
    elif _is_https(redirected_from):
        message = f"{url} redirects from https to {target}, which is not https; mcpgen does not follow it"
        hint = "use the address it redirects to if that is https, or download the spec and give its path"
    else:
        message = f"{url} redirects to {target}, which is neither https nor allowed plain http"
        hint = "use an https:// address, or download the spec and give its path"
    raise DiagnosticError([error(codes.F014, message, SourceRef(file=url), hint=hint)])


def _is_https(url: str | None) -> bool:
    return url is not None and urlsplit(url).scheme.lower() == "https"


def _get(
    url: str, current: str, deadline: float, max_bytes: int, record: dict[str, str] | None
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(current)
    if not parts.hostname:
        raise _failed(url, f"{current} names no host")
    timeout = max(0.1, min(TIMEOUT_S, deadline - time.monotonic()))
    connection: http.client.HTTPConnection
    if parts.scheme.lower() == "https":
        connection = http.client.HTTPSConnection(
            parts.hostname, parts.port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    headers = {"Accept": "application/json, application/yaml, text/yaml, */*", "User-Agent": "mcpgen"}
    if record is not None:
        headers.update({k: v for k, v in (("If-None-Match", record.get("etag")),
                                          ("If-Modified-Since", record.get("last_modified"))) if v})  # fmt: skip
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("GET", target, headers=headers)
        response = connection.getresponse()
        answered = {k.lower(): v for k, v in response.getheaders()}
        body = _read_body(url, response, deadline, max_bytes) if response.status == 200 else b""
        return response.status, answered, body
    except ssl.SSLError as exc:
        raise _failed(url, f"its TLS certificate or connection is refused ({exc.reason or exc})",
                      "if it is signed by your own authority, point SSL_CERT_FILE at that CA's PEM file") from None  # fmt: skip
    except TimeoutError:
        raise _failed(url, f"no answer within {TIMEOUT_S:.0f} s") from None
    except (OSError, http.client.HTTPException) as exc:
        raise _failed(
            url, f"{exc.strerror or exc}" if isinstance(exc, OSError) else str(exc) or type(exc).__name__
        ) from None
    finally:
        connection.close()


def _read_body(url: str, response: http.client.HTTPResponse, deadline: float, max_bytes: int) -> bytes:
    length = response.getheader("content-length")
    if length and length.isdigit() and int(length) > max_bytes:
        raise DiagnosticError([_too_large(url, max_bytes)])
    chunks: list[bytes] = []
    read = 0
    while True:
        if time.monotonic() > deadline:
            raise _failed(url, f"the download took longer than {DEADLINE_S:.0f} s")
        chunk = response.read(CHUNK)
        if not chunk:
            return b"".join(chunks)
        read += len(chunk)
        if read > max_bytes:
            raise DiagnosticError([_too_large(url, max_bytes)])
        chunks.append(chunk)


def _keep(
    url: str, final: str, body: bytes, headers: dict[str, str], cache: Path, record_file: Path
) -> Fetched:
    sha = _sha(body)
    name = f"{sha}{_suffix(final, headers.get('content-type', ''), body)}"
    path = cache / "specs" / name
    try:
        if not path.is_file():
            _write(path, body)
        record = {"url": url, "sha256": sha, "file": name}
        record.update(
            {k: headers[h] for k, h in (("etag", "etag"), ("last_modified", "last-modified")) if h in headers}
        )
        _write(record_file, json.dumps(record, sort_keys=True).encode())
    except OSError as exc:
        raise DiagnosticError(
            [
                error(
                    codes.F013,
                    f"{url} was fetched but cannot be kept in {cache}: {exc.strerror or exc}",
                    SourceRef(file=url),
                    hint="set MCPGEN_CACHE_DIR to a directory mcpgen may write",
                )
            ]
        ) from None
    return Fetched(url, final, path, sha)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    partial.replace(path)


def _read_record(record_file: Path, cache: Path) -> dict[str, str] | None:
    """The URL's record, when its kept file is still there with its sha256."""
    try:
        record = json.loads(record_file.read_text(encoding="utf-8"))
        kept = cache / "specs" / str(record["file"])
        if _sha(kept.read_bytes()) == record["sha256"] and (
            record.get("etag") or record.get("last_modified")
        ):
            return {k: str(v) for k, v in record.items()}
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no usable record: fetched whole
    return None


def _suffix(url: str, content_type: str, body: bytes) -> str:
    """.json or .yaml, which decides how the kept file is parsed: by the URL's name, then the media type,
    then the first character."""
    name = urlsplit(url).path.lower()
    for suffix in (".json", ".yaml", ".yml"):
        if name.endswith(suffix):
            return suffix
    if "json" in content_type.lower():
        return ".json"
    return ".json" if body.lstrip()[:1] in (b"{", b"[") else ".yaml"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _failed(url: str, why: str, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError(
        [
            error(
                codes.F013,
                f"cannot fetch {url}: {why}",
                SourceRef(file=url),
                hint=hint or "check the address and your connection, or download the spec and give its path",
            )
        ]
    )


def _too_large(url: str, max_bytes: int) -> Diagnostic:
    return error(
        codes.F006,
        f"{url} is larger than {max_bytes // MB} MB, the most mcpgen reads of such a file",
        SourceRef(file=url),
        hint="check that this is the document you meant",
    )
