"""templates/runtime imported as a package of its own, as every generated package carries it: for tests of
one runtime module on its own, optional modules included (the golden packages carry only those they use)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

from tests.support.paths import ROOT

RUNTIME = ROOT / "templates" / "runtime"
PACKAGE = "mcpgen_runtime_under_test"


def runtime_module(name: str) -> ModuleType:
    """The runtime's module `name` (e.g. 'files'), imported from templates/runtime."""
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            PACKAGE, RUNTIME / "__init__.py", submodule_search_locations=[str(RUNTIME)]
        )
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"{PACKAGE}.{name}")
