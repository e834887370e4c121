"""The pipeline's layers hold and no module imports itself back through others.

load -> build -> render -> write, with contract, authoring and lint beside the pipeline and the CLI on
top: the contracts are pyproject's [tool.importlinter] section, checked by import-linter itself.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import grimp

from tests.support.paths import ROOT


def test_layer_contracts_are_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run(
        [str(lint_imports), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_no_module_imports_itself_back() -> None:
    graph = grimp.build_graph("mcpgen", include_external_packages=False)
    modules = sorted(m for m in graph.modules if not graph.find_children(m))
    cycles = [
        (a, b)
        for a, b in itertools.combinations(modules, 2)
        if graph.find_shortest_chain(importer=a, imported=b)
        and graph.find_shortest_chain(importer=b, imported=a)
    ]
    assert cycles == []
