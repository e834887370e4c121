"""The version a diff suggests: semver, read the way Cargo and npm read 0.x versions."""

from __future__ import annotations

import re

from mcpgen.contract.diff.kinds import Impact
from mcpgen.contract.diff.model import Bump

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def suggest_version(old_version: str, impact: Impact | None, inputs_changed: bool) -> tuple[Bump, str, str]:
    """(bump, version, why): breaking -> major, behaviour/additive -> minor, inputs only -> patch.

    Below 1.0 each moves one place down (breaking -> minor, others -> patch), the way Cargo and npm's
    caret ranges read 0.x versions.
    """
    match = _VERSION.match(old_version)
    major, minor, patch = (int(g) for g in match.groups()) if match else (0, 0, 0)
    if impact is None:
        if inputs_changed:
            return "patch", f"{major}.{minor}.{patch + 1}", "inputs changed but the contract did not"
        return "none", old_version, "nothing changed"
    if impact == Impact.BREAKING:
        if major == 0:
            return "minor", f"0.{minor + 1}.0", "breaking changes in a 0.x version"
        return "major", f"{major + 1}.0.0", "breaking changes"
    what = f"{impact.label} changes"
    if major == 0:
        return "patch", f"0.{minor}.{patch + 1}", f"{what} in a 0.x version"
    return "minor", f"{major}.{minor + 1}.0", what
