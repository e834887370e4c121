"""Where things are, from the tests' point of view."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
GENERATED = ROOT / "generated"
# CI clones the repository to X and lays the shared material at X/../shared.
SHARED = (ROOT / ".." / "shared").resolve()
# scripts/fetch_specs puts the same files there (pinned npm packages, sha256 checked); scripts/test runs it.
SPEC_CACHE = ROOT / ".cache" / "specs"
SPEC_DIRS = (SHARED / "specs", SPEC_CACHE)


def find_spec(name: str) -> Path | None:
    """A real vendor spec (e.g. "github.json"): ../shared/specs first, then the fetched cache."""
    return next((d / name for d in SPEC_DIRS if (d / name).is_file()), None)


def shared_spec(name: str) -> Path:
    path = find_spec(name)
    if path is None:
        pytest.skip(
            f"real spec {name} is in neither {SPEC_DIRS[0]} nor {SPEC_CACHE}: "
            "run python3 scripts/fetch_specs (scripts/test does)"
        )
    return path
