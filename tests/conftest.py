"""Shared fixtures: paths, the anyio backend, and generated packages installed into fresh virtualenvs.

Under CI=true a skipped test is a failure: scripts/test installs everything the suite needs, so a skip
there means a check silently vanished (a missing tool, a spec that was not fetched).
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def skips_fail() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _skip_reason(longrepr: object) -> str:
    # A skip's longrepr is (file, line, "Skipped: reason"); anything else is shown as it is.
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        file, line, reason = longrepr
        return f"{reason} ({file}:{line})"
    return str(longrepr)


def _as_failure(report: pytest.TestReport | pytest.CollectReport) -> None:
    reason = _skip_reason(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (
        f"skipped under CI=true, which counts as a failure: {reason}\n"
        "scripts/test installs what the suite needs; see what it printed about the missing part."
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    # xfail results also arrive as "skipped" (with wasxfail); they are not skips of a check.
    if report.skipped and not hasattr(report, "wasxfail") and skips_fail():
        _as_failure(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> object:
    outcome = yield
    report: pytest.CollectReport = outcome.get_result()
    if report.skipped and skips_fail():  # a whole module skipped with allow_module_level=True
        _as_failure(report)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # A run that collected nothing must not look green (CI reads the exit code).
    if session.testscollected == 0 and exitstatus in (0, 5):
        session.exitstatus = 1
