"""Where things are, from the tests' point of view."""

from __future__ import annotations

import os
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


# `scripts/fetch_specs releases` puts real release pairs for `mcpgen diff` there; MCPGEN_RELEASES names
# another folder fetched the same way (`--cache DIR` puts them in DIR/releases).
RELEASE_DIRS = tuple(
    Path(d) for d in (os.environ.get("MCPGEN_RELEASES"), str(ROOT / ".cache" / "releases")) if d
)


def release_spec(name: str) -> Path:
    """A pinned release spec (e.g. "github-16.6.0.json"), or the test is skipped saying how to fetch it."""
    found = next((d / name for d in RELEASE_DIRS if (d / name).is_file()), None)
    if found is None:
        pytest.skip(f"release spec {name} is not fetched: run python3 scripts/fetch_specs releases")
    return found


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


# `scripts/fetch_specs schemas` puts JSON Schemas that output is validated against there (the SARIF 2.1.0
# schema); MCPGEN_SCHEMAS names another folder fetched the same way (`--cache DIR` puts them in DIR/schemas).
SCHEMA_DIRS = tuple(
    Path(d) for d in (os.environ.get("MCPGEN_SCHEMAS"), str(ROOT / ".cache" / "schemas")) if d
)


def pinned_schema(name: str) -> Path:
    """A pinned JSON Schema (e.g. "sarif-schema-2.1.0.json"), or the test is skipped saying how to fetch it."""
    found = next((d / name for d in SCHEMA_DIRS if (d / name).is_file()), None)
    if found is None:
        pytest.skip(f"schema {name} is not fetched: run python3 scripts/fetch_specs schemas")
    return found


SWAGGER2_CACHE = ROOT / ".cache" / "swagger2"


def swagger2_spec(name: str) -> Path:
    """A pinned real Swagger 2.0 document (e.g. "kubernetes-1.13.json"), or the test is skipped saying
    how to fetch it."""
    path = SWAGGER2_CACHE / name
    if not path.is_file():
        pytest.skip(f"Swagger 2.0 spec {name} is not fetched: run python3 scripts/fetch_specs swagger2")
    return path
