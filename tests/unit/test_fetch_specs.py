"""scripts/fetch_specs: the real specs the suite reads are the pinned bytes, whichever folder they come from,
and a fetch through npm checks every sha256 (a tampered file is replaced, a tampered seed never copied)."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import ROOT, SPEC_DIRS, find_spec

SCRIPT = ROOT / "scripts" / "fetch_specs"
PINS = json.loads((ROOT / "scripts" / "fetch_specs.pins.json").read_text(encoding="utf-8"))


def _script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("fetch_specs", str(SCRIPT))
    spec = importlib.util.spec_from_loader("fetch_specs", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_pin_names_a_pinned_package_and_a_full_sha256() -> None:
    for name, pin in PINS["specs"].items():
        assert pin["package"] in PINS["packages"], name
        assert len(pin["sha256"]) == 64 and int(pin["sha256"], 16) >= 0, name
    for name, pin in PINS["releases"].items():
        assert pin["package"] in PINS["packages"], name
        assert len(pin["sha256"]) == 64 and int(pin["sha256"], 16) >= 0, name
    assert PINS["corpus"]["package"] in PINS["packages"]
    assert PINS["tiktoken"]["package"] in PINS["packages"]


@pytest.mark.parametrize("name", sorted(PINS["specs"]))
def test_the_spec_the_tests_read_is_the_pinned_file(name: str) -> None:
    path = find_spec(name)
    if path is None:
        pytest.skip(
            f"{name} is in neither {SPEC_DIRS[0]} nor {SPEC_DIRS[1]}: run python3 scripts/fetch_specs"
        )
    assert _sha256(path) == PINS["specs"][name]["sha256"], path
    for other in (d / name for d in SPEC_DIRS if (d / name).is_file()):
        assert other.read_bytes() == path.read_bytes(), f"{other} differs from {path}"


def test_tiktoken_file_lists_tokens_in_rank_order() -> None:
    ranks = (
        'module.exports = {"pat_str":"x","special_tokens":{},"bpe_ranks":"! 2 Yw== ZA==\\n! 0 YQ== Yg=="};'
    )
    assert _script().tiktoken_file(ranks.encode()) == b"YQ== 0\nYg== 1\nYw== 2\nZA== 3\n"


def test_fetch_through_npm_checks_every_hash(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: scripts/fetch_specs takes the specs from npm packages")
    pin = PINS["specs"]["petstore.json"]
    cache, seed = tmp_path / "cache", tmp_path / "seed"
    seed.mkdir()
    (seed / "petstore.json").write_text('{"openapi": "3.0.0", "tampered": true}')  # never copied
    tarball = cache / "npm" / PINS["packages"][pin["package"]]["tarball"]
    tarball.parent.mkdir(parents=True)
    tarball.write_bytes(b"not the pinned tarball")  # replaced by a fresh npm pack
    (cache / "specs").mkdir()
    (cache / "specs" / "petstore.json").write_text("{}")  # a damaged earlier copy

    def fetch() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(SCRIPT), "specs", "--spec", "petstore.json", "--cache", str(cache),
                   "--seed", str(seed)]  # fmt: skip
        return subprocess.run(command, capture_output=True, text=True, timeout=300)

    first = fetch()
    assert first.returncode == 0, first.stderr
    assert _sha256(cache / "specs" / "petstore.json") == pin["sha256"]
    assert f"downloading {pin['package']} with npm pack" in first.stderr
    assert _sha256(tarball) == PINS["packages"][pin["package"]]["sha256"]
    again = fetch()
    assert again.returncode == 0 and again.stderr == ""  # all in place: silent


def test_an_unknown_spec_is_refused_with_the_known_names(tmp_path: Path) -> None:
    command = [sys.executable, str(SCRIPT), "specs", "--spec", "nope.json", "--cache", str(tmp_path)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 1
    assert "no pin for nope.json" in completed.stderr and "github.json" in completed.stderr


ORACLE_TEXTS = [
    ROOT / "README.md",
    ROOT / "generated" / "ads" / "ads_mcp" / "tools.json",
    ROOT / "generated" / "petstore" / "petstore_mcp" / "tools.json",
    ROOT / "specs" / "ads" / "mapping.yaml",
]


def test_the_rebuilt_tiktoken_data_counts_like_bpe_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken on the o200k_base file fetch_specs builds is the oracle for bpe-openai's shipped copy."""
    tiktoken = pytest.importorskip("tiktoken")
    bpe_openai = pytest.importorskip("bpe_openai")
    pin = PINS["tiktoken"]
    cache = ROOT / ".cache" / "tiktoken" / "tiktoken_cache"
    if not (cache / pin["cache_key"]).is_file():
        pytest.skip(f"{cache / pin['cache_key']} is missing: run python3 scripts/fetch_specs tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    oracle, counted = tiktoken.get_encoding("o200k_base"), bpe_openai.get_encoding("o200k_base")
    texts = [p.read_text(encoding="utf-8") for p in ORACLE_TEXTS]
    texts += ["Grüße, 東京 — naïve café 🙂", "1234567890" * 50, " \n\t  spaced   out\n\n"]
    for text in texts:
        assert counted.encode(text) == oracle.encode_ordinary(text), text[:80]


@pytest.mark.parametrize("name", sorted(PINS["releases"]))
def test_the_release_specs_the_diff_tests_read_are_the_pinned_files(name: str) -> None:
    from tests.support.paths import release_spec

    assert _sha256(release_spec(name)) == PINS["releases"][name]["sha256"]
