"""Under CI=true a skipped test fails and names why it skipped (tests/conftest.py); elsewhere it skips.

Each case runs a real pytest in a subprocess on a small test file, with this suite's conftest as a plugin.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

SKIPS = """
import pytest

def test_runs():
    assert True

def test_needs_a_widget():
    pytest.skip("the widget is not installed")

@pytest.mark.skipif(True, reason="no gadget on this machine")
def test_needs_a_gadget():
    pass

@pytest.fixture
def gizmo():
    pytest.skip("no gizmo here")

def test_needs_a_gizmo(gizmo):
    pass
"""

XFAIL = """
import pytest

@pytest.mark.xfail(reason="known bug", strict=True)
def test_known_bug():
    assert False
"""

MODULE_SKIP = """
import pytest

pytest.skip("this whole module needs a sprocket", allow_module_level=True)

def test_never_collected():
    pass
"""


def _pytest(tmp_path: Path, source: str, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_case.py").write_text(source, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(ROOT)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-c", os.devnull, "--rootdir", str(tmp_path),
         "-p", "no:cacheprovider", "-q", "-rA", str(tmp_path / "test_case.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env,
    )  # fmt: skip


def test_skips_are_skips_outside_ci(tmp_path: Path) -> None:
    completed = _pytest(tmp_path, SKIPS, ci=None)
    assert completed.returncode == 0, completed.stdout
    assert "1 passed, 3 skipped" in completed.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_every_kind_of_skip_fails_under_ci_and_says_why(tmp_path: Path, ci: str) -> None:
    completed = _pytest(tmp_path, SKIPS, ci=ci)
    assert completed.returncode == 1, completed.stdout
    out = completed.stdout
    assert "1 passed" in out and "skipped" not in out.splitlines()[-1], out
    for reason in ("the widget is not installed", "no gadget on this machine", "no gizmo here"):
        assert reason in out, out
    assert out.count("skipped under CI=true, which counts as a failure") >= 3, out


def test_ci_false_keeps_skips(tmp_path: Path) -> None:
    assert _pytest(tmp_path, SKIPS, ci="false").returncode == 0


def test_an_expected_failure_is_not_a_skip(tmp_path: Path) -> None:
    completed = _pytest(tmp_path, XFAIL, ci="true")
    assert completed.returncode == 0, completed.stdout
    assert "1 xfailed" in completed.stdout


def test_a_module_level_skip_fails_under_ci(tmp_path: Path) -> None:
    completed = _pytest(tmp_path, MODULE_SKIP, ci="true")
    assert completed.returncode != 0, completed.stdout
    assert "this whole module needs a sprocket" in completed.stdout
