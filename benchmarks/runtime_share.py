"""How much of a generated package is the runtime it copies: `_runtime/*.py` lines over all its .py lines.

Counted with `str.count("\\n")` per file (blank lines and comments included), over every .py file under
generated/<name>/ (server.py, tools/, hooks.py, __init__.py, __main__.py and `_runtime/`); tools.json,
README, Dockerfile and the rest are not Python and not counted.

    .venv/bin/python benchmarks/runtime_share.py                      # generated/ as it is now
    .venv/bin/python benchmarks/runtime_share.py --before REV         # and generated/ at a git revision
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def runtime_share(files: dict[str, str]) -> tuple[int, int]:
    """(runtime lines, package lines) of one package's .py files, by path relative to its folder."""
    lines = {path: text.count("\n") for path, text in files.items() if path.endswith(".py")}
    runtime = sum(n for path, n in lines.items() if "/_runtime/" in path)
    return runtime, sum(lines.values())


def _now(name: str) -> dict[str, str]:
    folder = ROOT / "generated" / name
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in folder.rglob("*.py")}


def _at(rev: str, name: str) -> dict[str, str]:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout

    paths = git("ls-tree", "-r", "--name-only", rev, f"generated/{name}/").split()
    prefix = f"generated/{name}/"
    return {p.removeprefix(prefix): git("show", f"{rev}:{p}") for p in paths if p.endswith(".py")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", metavar="REV", help="also count generated/ at this git revision")
    args = parser.parse_args()
    names = sorted(p.parent.name for p in (ROOT / "generated").glob("*/pyproject.toml"))
    heads = ["before", "after"] if args.before else ["runtime lines / package lines"]
    print("| package | " + " | ".join(heads) + " |")
    print("|---|---:|" + ("---:|" if args.before else ""))
    for name in names:
        cells = [runtime_share(_at(args.before, name))] if args.before else []
        cells.append(runtime_share(_now(name)))
        shown = " | ".join(f"{r:,} / {t:,} = {100 * r / t:.1f} %" for r, t in cells)
        print(f"| {name} | {shown} |")


if __name__ == "__main__":
    main()
