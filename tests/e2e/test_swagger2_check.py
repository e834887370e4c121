"""Swagger 2.0 documents as their publishers ship them (scripts/fetch_specs swagger2): the mapping `mcpgen
init` drafts from the 2.0 file generates, and `mcpgen check` (run as a user runs it, through the
official MCP client) finds nothing wrong with it. Prism serves the 2.0 file itself.

petstore.json asks an OAuth token of findPetsByStatus and findPetsByTags (petstore_auth) while the
drafted auth is its api_key, so Prism refuses those two with 401; petstore.swagger.io answers them with
the api_key alone, so that document is checked against its stand-in. The Kubernetes and OpenShift
documents are checked by their conversion and generation (tests/unit/test_swagger2_oracle.py), not
here: kubernetes-1.10's drafted mapping (103 tools, 680 actions, 1,159 calls, about 6 minutes) still
has findings: the connect and proxy operations answer `*/*` text the server reads as JSON (K501), the
log operations document a 401 and no success (K701), events.k8s.io's Event has a field named `note`
(K601), and Prism itself fails on CustomResourceDefinition's recursive schema (HTTP 500).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import skips_fail
from tests.support import prism
from tests.support.paths import swagger2_spec
from tests.support.venvs import run_mcpgen
from tests.upstreams.petstore import PetstoreUpstream

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def prism_env() -> dict[str, str]:
    try:
        modules, node = prism.prism_modules(), prism.node_binary()
    except prism.PrismUnavailable as missing:
        if skips_fail():
            pytest.fail(f"mcpgen check needs Prism: {missing}")
        pytest.skip(f"Prism is not installed: {missing}")
    return {
        "PATH": f"{Path(node).parent}{os.pathsep}/usr/bin:/bin",
        "MCPGEN_PRISM": str(modules / ".bin" / "prism"),
    }


def _drafted(name: str, tmp_path: Path) -> tuple[Path, Path]:
    spec = swagger2_spec(name)
    completed = run_mcpgen("init", spec, "-o", tmp_path / "mapping.yaml")
    assert completed.returncode == 0, completed.stderr
    return spec, tmp_path / "mapping.yaml"


def _check(spec: Path, mapping: Path, *extra: str, env: dict[str, str]) -> tuple[int, Any, str]:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen", "check", str(spec), "-m", str(mapping), "--format", "json", *extra],
        capture_output=True, text=True, timeout=600, env={"HOME": str(Path.home()), **env},
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None, done.stderr


@pytest.mark.parametrize("name", ["petstore-expanded.json", "petstore-with-external-docs.yaml"])
def test_the_drafted_mapping_passes_check_against_prism_serving_the_2_0_file(
    name: str, tmp_path: Path, prism_env: dict[str, str]
) -> None:
    spec, mapping = _drafted(name, tmp_path)
    code, report, stderr = _check(spec, mapping, env=prism_env)
    assert report is not None, stderr
    assert (code, [f for f in report["findings"] if f["level"] == "error"]) == (0, []), stderr
    assert report["upstream"]["kind"] == "prism" and report["calls"] >= report["actions"]


def test_the_drafted_petstore_mapping_passes_check_against_its_sandbox_stand_in(tmp_path: Path) -> None:
    spec, mapping = _drafted("petstore.json", tmp_path)
    with PetstoreUpstream() as upstream:
        code, report, stderr = _check(
            spec, mapping, "--upstream", upstream.base_url,
            env={"PATH": "/usr/bin:/bin", "PETSTORE_API_KEY": "special-key"},
        )  # fmt: skip
    assert report is not None, stderr
    assert (code, [f for f in report["findings"] if f["level"] == "error"]) == (0, []), stderr
