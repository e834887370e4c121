"""The ads example, generated and installed as a user would, shared by the end-to-end tests."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import ROOT, SPECS
from tests.support.venvs import fresh_venv, pip_install
from tests.upstreams.ads import AdsUpstream

TOKEN = "ads-secret-token-7f3a"


@dataclass(frozen=True)
class InstalledServer:
    package_dir: Path
    python: Path
    command: list[str]


@pytest.fixture(scope="session")
def mcpgen_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """mcpgen installed from this checkout (non-editable, so the wheel must carry its templates) into a
    fresh venv; returns its python. The examples are generated and installed beside it."""
    python = fresh_venv(tmp_path_factory.mktemp("mcpgen") / "venv")
    pip_install(python, ROOT)
    return python


def generate_and_install(python: Path, root: Path, example: str, extras: str = "") -> Path:
    out = root / example
    spec = next((SPECS / example).glob("*.openapi.*"))
    generated = subprocess.run(
        [
            str(python.parent / "mcpgen"),
            "generate",
            str(spec),
            "-m",
            str(SPECS / example / "mapping.yaml"),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert generated.returncode == 0, generated.stderr
    pip_install(python, f"{out}{extras}")
    return out


@pytest.fixture(scope="session")
def ads_server(mcpgen_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> InstalledServer:
    """specs/ads generated into a temp dir by the installed mcpgen, and installed with its redis extra."""
    out = generate_and_install(mcpgen_venv, tmp_path_factory.mktemp("ads"), "ads", "[redis]")
    return InstalledServer(out, mcpgen_venv, [str(mcpgen_venv.parent / "ads-mcp")])


@pytest.fixture(scope="session")
def deploy_server(mcpgen_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> InstalledServer:
    out = generate_and_install(mcpgen_venv, tmp_path_factory.mktemp("deploy"), "deploy")
    return InstalledServer(out, mcpgen_venv, [str(mcpgen_venv.parent / "deploy-mcp")])


@pytest.fixture
def ads_upstream():
    with AdsUpstream(token=TOKEN) as upstream:
        yield upstream


def server_env(upstream: AdsUpstream, **extra: str) -> dict[str, str]:
    return {"ADS_BASE_URL": upstream.base_url, "ADS_API_TOKEN": TOKEN, **extra}
