"""A generated package runs on the oldest Python it declares (`requires-python = ">=3.10"`).

The golden packages in generated/ are installed, as a user would, into a fresh venv made by a real
Python 3.10 interpreter; each starts as a stdio subprocess and lists its tools to the official MCP
client, and the ads server also reads, previews and applies against the Ads API on 127.0.0.1 (the
upstream, results, store and preview modules at work). mypy checks the runtime at 3.10 too
(tests/unit/test_static_checks.py), but only a real 3.10 catches what the type stubs do not.

Without a 3.10 interpreter the tests skip, which under CI=true is a failure (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import TOKEN, server_env
from tests.support.mcp_client import result_text, stdio_client
from tests.support.paths import GENERATED
from tests.support.venvs import pip_install
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.slow]

OLDEST = (3, 10)
PYTHON310_ENV = "MCPGEN_TEST_PYTHON310"
PACKAGES = sorted(p.name for p in GENERATED.iterdir() if (p / "pyproject.toml").is_file())


def _candidates() -> list[Path]:
    """Where a 3.10 interpreter may be: named by the environment, on PATH, or installed by pyenv."""
    named = os.environ.get(PYTHON310_ENV)
    on_path = shutil.which("python3.10")
    pyenv = sorted((Path.home() / ".pyenv" / "versions").glob("3.10.*/bin/python"))
    return [Path(p) for p in (named, on_path) if p] + pyenv


def _version(python: Path) -> tuple[int, int] | None:
    try:
        shown = subprocess.run(
            [str(python), "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except OSError:
        return None
    if shown.returncode != 0:
        return None
    major, minor = shown.stdout.split()
    return int(major), int(minor)


@pytest.fixture(scope="module")
def python310() -> Path:
    found = next((p for p in _candidates() if _version(p) == OLDEST), None)
    if found is None:
        pytest.skip(
            f"no Python 3.10 interpreter (set {PYTHON310_ENV}, put python3.10 on PATH, or "
            "`pyenv install 3.10`): a generated package's oldest declared Python goes untested"
        )
    return found


@pytest.fixture(scope="module")
def venv310(python310: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every golden package installed (non-editable, from a copy) into one fresh 3.10 venv."""
    root = tmp_path_factory.mktemp("py310")
    made = subprocess.run(
        [str(python310), "-m", "venv", str(root / "venv")], capture_output=True, text=True, timeout=120
    )
    assert made.returncode == 0, made.stderr
    python = root / "venv" / "bin" / "python"
    copies = [shutil.copytree(GENERATED / name, root / name) for name in PACKAGES]
    pip_install(python, *copies)
    assert _version(python) == OLDEST
    return python


def _command(venv_python: Path, package: str) -> list[str]:
    return [str(venv_python.parent / f"{package}-mcp")]


def _declared_tools(package: str) -> list[str]:
    contract = json.loads((GENERATED / package / f"{package}_mcp" / "tools.json").read_text("utf-8"))
    return sorted(tool["name"] for tool in contract)


@pytest.mark.parametrize("package", PACKAGES)
async def test_a_generated_package_starts_and_lists_its_tools_on_python_310(
    venv310: Path, package: str
) -> None:
    async with stdio_client(_command(venv310, package), {}) as client:
        listing = await client.list_tools()
    assert sorted(tool.name for tool in listing.tools) == _declared_tools(package)


async def test_the_ads_server_reads_previews_and_applies_on_python_310(venv310: Path, tmp_path: Path) -> None:
    with AdsUpstream(token=TOKEN) as upstream:
        env = server_env(upstream, MCP_STORE_URL=f"sqlite://{tmp_path / 'p.db'}")
        async with stdio_client(_command(venv310, "ads"), env) as client:
            found = await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_003"})
            preview = await client.call_tool(
                "ads_budget_change_preview", {"campaign_id": "cmp_003", "new_daily_budget_krw": 150_000}
            )
            assert not preview.is_error, result_text(preview)
            applied = await client.call_tool(
                "ads_budget_change_apply", {"preview_id": preview.structured_content["preview_id"]}
            )
    assert not found.is_error and found.structured_content["daily_budget"] == 100_000, result_text(found)
    assert not applied.is_error, result_text(applied)
    assert [r.method for r in upstream.requests].count("PATCH") == 1
