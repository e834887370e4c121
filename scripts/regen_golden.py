"""Regenerate generated/<name> from every example in specs/<name>/ (the golden record reviewers diff).

Each example directory holds `mapping.yaml` and exactly one `*.openapi.yaml` or `*.openapi.json`.
    python scripts/regen_golden.py           # rewrite generated/
    python scripts/regen_golden.py --check   # exit 1 if generated/ is not what the code produces
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def examples() -> list[tuple[str, Path, Path]]:
    found = []
    for directory in sorted(p for p in (ROOT / "specs").iterdir() if (p / "mapping.yaml").is_file()):
        specs = sorted(directory.glob("*.openapi.yaml")) + sorted(directory.glob("*.openapi.json"))
        if len(specs) != 1:
            raise SystemExit(f"{directory}: expected exactly one *.openapi.yaml/json, found {len(specs)}")
        found.append((directory.name, specs[0], directory / "mapping.yaml"))
    return found


def main(argv: list[str]) -> int:
    check = "--check" in argv
    failed = 0
    for name, spec, mapping in examples():
        command = [
            sys.executable,
            "-m",
            "mcpgen",
            "generate",
            str(spec.relative_to(ROOT)),
            "-m",
            str(mapping.relative_to(ROOT)),
            "-o",
            f"generated/{name}",
            "--quiet",
        ]
        if check:
            command.append("--check")
        failed |= subprocess.run(command, cwd=ROOT).returncode
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
