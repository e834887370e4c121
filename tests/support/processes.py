"""Real servers for end-to-end tests: a generated server over HTTP, and a redis-server, on 127.0.0.1."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

START_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(
    process: subprocess.Popen, port: int, what: str, timeout_s: float = START_TIMEOUT_S
) -> None:
    """Returns once `process` listens on 127.0.0.1:`port`; fails the test if it exits or takes too long."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
            pytest.fail(f"{what} exited with {process.returncode} before listening:\n{stderr}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    process.kill()
    pytest.fail(f"{what} did not listen on 127.0.0.1:{port} within {timeout_s:g} s")


@contextmanager
def http_server(command: list[str], env: dict[str, str], stderr_file: Path | None = None) -> Iterator[str]:
    """The generated server as `<command> --http` on a free port; yields its MCP endpoint URL."""
    port = free_port()
    stderr = stderr_file.open("ab") if stderr_file else subprocess.PIPE
    process = subprocess.Popen(
        [*command, "--http", "--port", str(port)],
        env={"PATH": "/usr/bin:/bin", **env},
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    try:
        wait_for_port(process, port, "the MCP server")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if stderr_file:
            stderr.close()  # type: ignore[union-attr]


@contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A throwaway redis-server on a free 127.0.0.1 port, nothing persisted; yields its redis:// URL.

    scripts/test installs redis-server where it can (apt-get, as root); elsewhere the test is skipped.
    """
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/test installs it with apt-get when run as root)")
    port = free_port()
    process = subprocess.Popen(
        [
            binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
            "--protected-mode",
            "yes",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(process, port, "redis-server")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
