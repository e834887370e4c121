"""Shared fixtures: paths, the anyio backend, and generated packages installed into fresh virtualenvs."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
