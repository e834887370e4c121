"""The two ends of `./scripts/test --coverage` (issue 10): measure every process, then report.

    python scripts/coverage_run.py start DATA_DIR   writes the .pth that starts coverage.py in every process
                                                    of this python; prints its path
    python scripts/coverage_run.py report DATA_DIR  combines what all processes wrote and prints the figures
                                                    for mcpgen/ and templates/runtime/; htmlcov/ has the lines

Servers and CLIs started by the tests often get an environment built from nothing, so the .pth names the
configuration (pyproject's [tool.coverage.*]) and the data file itself instead of reading them from the
environment. tests/e2e/conftest.py copies the same .pth into the virtualenv it builds (MCPGEN_COVERAGE_PTH).
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parents[1]
PTH_NAME = "zz_mcpgen_coverage.pth"
PARTS = ("mcpgen", "templates/runtime")


def pth_line(data_dir: Path) -> str:
    config, data = str(ROOT / "pyproject.toml"), str(data_dir / ".coverage")
    return (
        f"import os; os.environ.setdefault('COVERAGE_PROCESS_START', {config!r}); "
        f"os.environ.setdefault('COVERAGE_FILE', {data!r}); import coverage; coverage.process_startup()\n"
    )


def start(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    pth = Path(sysconfig.get_paths()["purelib"]) / PTH_NAME
    pth.write_text(pth_line(data_dir), encoding="utf-8")
    return pth


def _touch_every_source_file(data_dir: Path) -> None:
    """Files no process imported count too, at 0 %: a run with `source` records each of them."""
    cov = coverage.Coverage(
        data_file=str(data_dir / ".coverage.unexecuted"),
        source=[str(ROOT / part) for part in PARTS],
        config_file=False,
    )
    cov.start()
    cov.stop()
    cov.save()


def report(data_dir: Path) -> None:
    _touch_every_source_file(data_dir)
    cov = coverage.Coverage(data_file=str(ROOT / ".coverage"), config_file=str(ROOT / "pyproject.toml"))
    cov.combine([str(data_dir)], keep=False)
    cov.save()
    cov.html_report(directory=str(ROOT / "htmlcov"))
    print("\nfiles with the most lines not run:")
    cov.report(skip_covered=True, file=sys.stdout)
    for part in PARTS:
        with open("/dev/null", "w") as quiet:
            percent = cov.report(include=[f"{part}/*"], file=quiet)
        print(f"coverage of {part}/: {percent:.1f} %")


def main(argv: list[str]) -> int:
    command, data_dir = argv[1], Path(argv[2]).resolve()
    if command == "start":
        print(start(data_dir))
    elif command == "report":
        report(data_dir)
    else:
        print(f"unknown command {command!r}: start or report", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
