"""The official MCP conformance suite (npm) against the generated ads server over streamable HTTP.

scripts/conformance/ installs Node 22 from npm and the pinned suite versions, runs every scenario and
fails on any scenario that applies to a tools-only server (scripts/conformance/applicable.json).
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.e2e.conftest import InstalledServer, server_env
from tests.support.paths import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_conformance_suite_passes_every_applicable_scenario(
    ads_server: InstalledServer, ads_upstream
) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    env_prefix = " ".join(f"{k}={v}" for k, v in server_env(ads_upstream).items())
    server_cmd = f"env {env_prefix} {ads_server.command[0]} --http --port {{port}}"
    completed = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "conformance" / "run_conformance.py"),
            "--server-cmd",
            server_cmd,
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    assert "PASS" in completed.stdout
