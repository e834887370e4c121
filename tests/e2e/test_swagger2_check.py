"""Swagger 2.0 documents as their publishers ship them (scripts/fetch_specs swagger2): the mapping `mcpgen
init` drafts from the 2.0 file generates, and `mcpgen check` (run as a user runs it, through the
official MCP client) finds nothing wrong with it. Prism serves the 2.0 file itself.

petstore.json asks its OAuth petstore_auth alone of most pet operations while the drafted auth is its
api_key: the draft leaves those unmapped, saying what they need, so the rest passes against Prism too
(and against the stand-in of petstore.swagger.io). A full Kubernetes or OpenShift check takes minutes
(kubernetes-1.10: 103 tools), so the suite checks a slice of kubernetes-1.10 with each kind of operation
the full runs meet (README "Swagger 2.0 specs" records those runs): a list and a read, a proxy
answering text, the log reads documenting only a 401, events.k8s.io's Event (a record with a `note` of
its own), and CustomResourceDefinition, whose recursive schema Prism itself fails on.
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


@pytest.mark.parametrize(
    "name", ["petstore-expanded.json", "petstore-with-external-docs.yaml", "petstore.json"]
)
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


KUBERNETES_SLICE = (
    "/api/v1/namespaces",
    "/api/v1/namespaces/{name}",
    "/api/v1/namespaces/{namespace}/pods/{name}/proxy",
    "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions",
    "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/{name}",
    "/logs/",
    "/logs/{logpath}",
    "/apis/events.k8s.io/v1beta1/namespaces/{namespace}/events",
    "/apis/events.k8s.io/v1beta1/namespaces/{namespace}/events/{name}",
)


def test_a_slice_of_kubernetes_passes_check_with_what_prism_cannot_mock_said_as_prism_s(
    tmp_path: Path, prism_env: dict[str, str]
) -> None:
    whole = json.loads(swagger2_spec("kubernetes-1.10.json").read_text(encoding="utf-8"))
    spec = tmp_path / "kubernetes-1.10-slice.json"
    spec.write_text(json.dumps({**whole, "paths": {p: whole["paths"][p] for p in KUBERNETES_SLICE}}), "utf-8")
    drafted = run_mcpgen("init", spec, "-o", tmp_path / "mapping.yaml")
    assert drafted.returncode == 0, drafted.stderr
    text = (tmp_path / "mapping.yaml").read_text(encoding="utf-8")
    # The log reads document a 401 only: nothing says what they return, so they are not drafted.
    assert "GET /logs/ (logFileListHandler): a read that documents only error answers (401)" in text
    assert "operation: logFileHandler" not in text
    # The whole spec's draft serves its 103 tools by on-demand discovery; so does this one, so that the
    # catalog tools check calls by name are not in tools/list.
    (tmp_path / "mapping.yaml").write_text(
        text.replace("\nserver:\n", "\nserver:\n  discovery: search_tools\n")
    )
    code, report, stderr = _check(spec, tmp_path / "mapping.yaml", env=prism_env)
    assert report is not None, stderr
    # The MCP client's warning on each call of a tool tools/list did not show is not the check's to print.
    assert "not listed by server" not in stderr
    crd = [f for f in report["findings"] if "apiextensions" in (f["action"] or "")]
    assert crd and all(f["level"] == "note" and "Prism failed (HTTP 500)" in f["message"] for f in crd), crd
    assert all("not of the mapping" in f["message"] for f in crd)
    errors = [f for f in report["findings"] if f["level"] == "error"]
    assert (code, errors) == (0, []), stderr
