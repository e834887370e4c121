"""generated/ is the golden record: it must be exactly what the current code produces, every time."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen import generate
from tests.support.paths import GENERATED, ROOT
from tests.unit.cli import run_cli

sys.path.insert(0, str(ROOT / "scripts"))
from regen_golden import examples  # noqa: E402


@pytest.mark.parametrize("name,spec,mapping", examples(), ids=[e[0] for e in examples()])
def test_generated_directory_is_up_to_date(name: str, spec: Path, mapping: Path) -> None:
    result = generate(spec, mapping)
    assert result.ok, result.diagnostics
    for file in result.files:
        on_disk = GENERATED / name / file.path
        assert on_disk.is_file(), f"{on_disk} is missing: run python scripts/regen_golden.py"
        assert on_disk.read_text(encoding="utf-8") == file.content, (
            f"{on_disk} differs from what the code produces: run python scripts/regen_golden.py"
        )


def test_check_mode_reports_up_to_date_and_detects_drift(tmp_path: Path) -> None:
    name, spec, mapping = examples()[0]
    out = tmp_path / name
    base = ["generate", spec, "-m", mapping, "-o", out, "-q"]
    assert run_cli(*base, cwd=ROOT).returncode == 0
    assert run_cli(*base, "--check", cwd=ROOT).returncode == 0
    server = next(out.rglob("server.py"))
    server.write_text(server.read_text() + "# drift\n")
    checked = run_cli(*base, "--check", cwd=ROOT)
    assert checked.returncode == 1
    assert "would change" in checked.stderr and "server.py" in checked.stderr


def test_check_mode_notices_a_file_added_by_hand_inside_the_package(tmp_path: Path) -> None:
    name, spec, mapping = examples()[0]
    out = tmp_path / name
    base = ["generate", spec, "-m", mapping, "-o", out, "-q"]
    assert run_cli(*base, cwd=ROOT).returncode == 0
    package = next(p for p in out.iterdir() if p.is_dir())
    # Left alone and not reported: the top of OUT (a virtualenv, notes) and bytecode caches.
    (out / "NOTES.md").write_text("mine")
    (package / "_runtime" / "__pycache__").mkdir(exist_ok=True)
    (package / "_runtime" / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\0")
    assert run_cli(*base, "--check", cwd=ROOT).returncode == 0
    added = package / "_runtime" / "helpers.py"
    added.write_text("SECRET_FIX = 1\n")
    checked = run_cli(*base, "--check", cwd=ROOT)
    assert checked.returncode == 1
    relative = added.relative_to(out).as_posix()
    assert f"not written by mcpgen: {out / relative}" in checked.stderr
    assert f"warning[W003] {relative} is inside the generated package" in checked.stderr
    assert "out of date" not in checked.stderr  # regenerating would not change it: only moving it does
    # A plain regeneration keeps the file (it may be the user's work) and warns about it.
    regenerated = run_cli(*base, cwd=ROOT)
    assert regenerated.returncode == 0 and "W003" in regenerated.stderr and added.is_file()


def _tree_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(directory)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def test_output_is_byte_identical_across_runs_and_hash_seeds(tmp_path: Path) -> None:
    name, spec, mapping = next(e for e in examples() if e[0] == "ads")
    digests = set()
    # Real interpreters: the hash seed is fixed when one starts. This also runs `python -m mcpgen`.
    for seed in ("0", "1", "12345"):
        out = tmp_path / f"out-{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        arguments = ["generate", str(spec), "-m", str(mapping), "-o", str(out), "-q"]
        subprocess.run([sys.executable, "-m", "mcpgen", *arguments], cwd=ROOT, env=env, check=True)
        digests.add(_tree_digest(out))
    assert len(digests) == 1


def test_failed_generation_leaves_previous_output_untouched(tmp_path: Path) -> None:
    name, spec, mapping = next(e for e in examples() if e[0] == "ads")
    out = tmp_path / "ads"
    assert run_cli("generate", spec, "-m", mapping, "-o", out, "-q", cwd=ROOT).returncode == 0
    before = _tree_digest(out)
    broken = tmp_path / "broken.yaml"
    broken.write_text(mapping.read_text().replace("operation: getCampaign\n", "operation: getCampaignX\n"))
    failed = run_cli("generate", spec, "-m", broken, "-o", out, "-q", cwd=ROOT)
    assert failed.returncode == 1 and "getCampaignX" in failed.stderr
    assert "no files were written" in failed.stderr
    assert _tree_digest(out) == before


def test_refuses_to_write_into_a_foreign_directory(tmp_path: Path) -> None:
    name, spec, mapping = examples()[0]
    (tmp_path / "notes.txt").write_text("mine")
    refused = run_cli("generate", spec, "-m", mapping, "-o", tmp_path, cwd=ROOT)
    assert refused.returncode == 1 and "W001" in refused.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
