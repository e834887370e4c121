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
def ads_server(tmp_path_factory: pytest.TempPathFactory) -> InstalledServer:
    """mcpgen installed from this checkout (non-editable, so the wheel must carry its templates) into a
    fresh venv generates specs/ads into a temp dir, and the generated package is installed beside it."""
    root = tmp_path_factory.mktemp("ads")
    out = root / "ads"
    python = fresh_venv(root / "venv")
    pip_install(python, ROOT)
    generated = subprocess.run(
        [str(python.parent / "mcpgen"), "generate", str(SPECS / "ads" / "ads.openapi.yaml"),
         "-m", str(SPECS / "ads" / "mapping.yaml"), "-o", str(out)],
        capture_output=True, text=True, cwd=root, timeout=120,
    )
    assert generated.returncode == 0, generated.stderr
    pip_install(python, out)
    return InstalledServer(out, python, [str(python.parent / "ads-mcp")])


@pytest.fixture
def ads_upstream():
    with AdsUpstream(token=TOKEN) as upstream:
        yield upstream


def server_env(upstream: AdsUpstream, **extra: str) -> dict[str, str]:
    return {"ADS_BASE_URL": upstream.base_url, "ADS_API_TOKEN": TOKEN, **extra}
