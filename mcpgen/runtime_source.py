"""Stdlib-only modules of the generated server's runtime (templates/runtime/), loaded by the generator too.

Where the generator must decide exactly as the server will (which patterns it can check, how many
decimals a currency has), it runs the server's own code instead of a copy that could drift.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType


@cache
def runtime_module(name: str) -> ModuleType:
    """templates/runtime/<name>.py, imported on its own (it must import nothing but the standard library)."""
    packaged = Path(str(resources.files("mcpgen").joinpath("templates", "runtime", f"{name}.py")))
    path = packaged if packaged.is_file() else _source_checkout() / "templates" / "runtime" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"mcpgen_runtime_{name}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _source_checkout() -> Path:
    """A source checkout: templates/ sits beside mcpgen/."""
    return Path(__file__).resolve().parents[1]
