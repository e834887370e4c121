"""A client no one here wrote lists and calls the generated server: the MCP Inspector CLI (npm).

The Inspector is pinned in scripts/conformance/package.json (with the lock), installed by `npm ci` through
scripts/conformance/node22.sh next to the Node 22 it runs on; scripts/test runs that first.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests.e2e.conftest import InstalledServer, server_env
from tests.support.paths import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

NODE22 = ROOT / "scripts" / "conformance" / "node22.sh"


@cache
def _node22(what: str) -> Path:
    """The pinned Node 22 binary ("") or Inspector entry ("--inspector"), installed on first use."""
    completed = subprocess.run(["bash", str(NODE22), *([what] if what else [])],
                               capture_output=True, text=True, timeout=900)  # fmt: skip
    if completed.returncode != 0:
        pytest.skip(f"scripts/conformance/node22.sh could not install Node 22 and the Inspector: "
                    f"{completed.stderr.strip()[-500:]}")  # fmt: skip
    return Path(completed.stdout.strip().splitlines()[-1])


def _inspector(server: InstalledServer, env: dict[str, str], *method: str) -> dict:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed (scripts/conformance/node22.sh needs it to install Node 22)")
    command = [str(_node22("")), str(_node22("--inspector")), "--cli", "--format", "json"]
    for name, value in env.items():
        command += ["-e", f"{name}={value}"]
    command += [*server.command, *method]
    completed = subprocess.run(
        command, capture_output=True, text=True, timeout=240, env={**os.environ, "NO_COLOR": "1"}
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout[completed.stdout.index("{") :])


def test_inspector_lists_the_tools(ads_server: InstalledServer, ads_upstream) -> None:
    listed = _inspector(ads_server, server_env(ads_upstream), "--method", "tools/list")
    tools = listed.get("result", listed)["tools"]
    assert [t["name"] for t in tools] == [
        "ads_budget_change_apply",
        "ads_budget_change_preview",
        "ads_campaign_change",
        "ads_campaigns_find",
        "ads_reports",
    ]


def test_inspector_calls_a_tool(ads_server: InstalledServer, ads_upstream) -> None:
    called = _inspector(
        ads_server,
        server_env(ads_upstream),
        "--method",
        "tools/call",
        "--tool-name",
        "ads_campaigns_find",
        "--tool-arg",
        "action=get",
        "--tool-arg",
        "campaign_id=cmp_009",
    )
    result = called.get("result", called)
    assert not result.get("isError"), result
    assert result["structuredContent"]["id"] == "cmp_009"
    assert [(r.method, r.path) for r in ads_upstream.requests] == [("GET", "/campaigns/cmp_009")]
