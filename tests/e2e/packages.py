"""Generate a package into a directory and import it in this process, then forget it again."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from mcpgen.pipeline import generate
from mcpgen.write.plan import WritePlan, apply_write, plan_write

ROOT = Path(__file__).resolve().parents[2]
PETSTORE_SPEC = ROOT / "specs" / "petstore" / "petstore.openapi.json"
PETSTORE_MAPPING = ROOT / "specs" / "petstore" / "mapping.yaml"


def write_package(spec: Path, mapping: Path, out: Path) -> WritePlan:
    result = generate(spec, mapping)
    assert result.ok, [d.message for d in result.diagnostics]
    plan = plan_write(out, result.files, generator="mcpgen test")
    apply_write(plan)
    return plan


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@contextmanager
def imported(out: Path, package: str) -> Iterator[ModuleType]:
    """`package.server`, imported from `out`; the modules are dropped afterwards."""
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(f"{package}.server")
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]
