"""The ads example, generated and installed as a user would, shared by the end-to-end tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import SPECS
from tests.support.venvs import fresh_venv, pip_install, run_mcpgen
from tests.upstreams.ads import AdsUpstream

TOKEN = "ads-secret-token-7f3a"


@dataclass(frozen=True)
class InstalledServer:
    package_dir: Path
    python: Path
    command: list[str]


@pytest.fixture(scope="session")
def ads_server(tmp_path_factory: pytest.TempPathFactory) -> InstalledServer:
    """Generate specs/ads into a temp dir and pip-install it (non-editable) into a fresh venv."""
    root = tmp_path_factory.mktemp("ads")
    out = root / "ads"
    generated = run_mcpgen("generate", SPECS / "ads" / "ads.openapi.yaml", "-m", SPECS / "ads" / "mapping.yaml", "-o", out)
    assert generated.returncode == 0, generated.stderr
    python = fresh_venv(root / "venv")
    pip_install(python, out)
    return InstalledServer(out, python, [str(python.parent / "ads-mcp")])


@pytest.fixture
def ads_upstream():
    with AdsUpstream(token=TOKEN) as upstream:
        yield upstream


def server_env(upstream: AdsUpstream, **extra: str) -> dict[str, str]:
    return {"ADS_BASE_URL": upstream.base_url, "ADS_API_TOKEN": TOKEN, **extra}
