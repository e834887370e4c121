"""Where things are, from the tests' point of view."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
GENERATED = ROOT / "generated"
# CI clones the repository to X and lays the shared material at X/../shared.
SHARED = (ROOT / ".." / "shared").resolve()


def shared_spec(name: str) -> Path:
    path = SHARED / "specs" / name
    if not path.is_file():
        pytest.skip(f"shared spec {path} is not present on this machine")
    return path
