"""Every docs/ file that the CLI or the generated runtime points a reader to ships in mcpgen's wheel and
sdist, so the pointer works for someone who installed mcpgen rather than cloned it."""

from __future__ import annotations

import re
import tarfile
import zipfile

import pytest
from hatchling.builders.sdist import SdistBuilder
from hatchling.builders.wheel import WheelBuilder
from typer.testing import CliRunner

from mcpgen.cli.app import app
from tests.support.paths import ROOT

CITED = re.compile(r"\bdocs/([\w.-]+\.md)\b")


def _cited_docs() -> set[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "mcpgen").rglob("*.py"))]
    texts += [
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "templates").rglob("*"))
        if p.suffix in (".py", ".jinja", ".toml", ".md") and "__pycache__" not in p.parts
    ]
    runner = CliRunner()
    for command in [[], *[[c.name] for c in app.registered_commands if c.name]]:
        texts.append(runner.invoke(app, [*command, "--help"], terminal_width=400).output)
    return {name for text in texts for name in CITED.findall(text)}


@pytest.fixture(scope="module")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> tuple[set[str], set[str]]:
    """The file names inside the wheel and the sdist hatchling builds from this checkout."""
    out = tmp_path_factory.mktemp("dist")
    [wheel] = WheelBuilder(str(ROOT)).build(directory=str(out), versions=["standard"])
    [sdist] = SdistBuilder(str(ROOT)).build(directory=str(out), versions=["standard"])
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = set(archive.namelist())
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    return in_wheel, in_sdist


def test_the_cli_and_the_runtime_cite_docs() -> None:
    assert {"rules.md", "errors.md"} <= _cited_docs()  # else this test checks nothing


def test_the_sdist_holds_the_source_and_nothing_of_generated(
    distributions: tuple[set[str], set[str]],
) -> None:
    _, in_sdist = distributions
    tops = {name.split("/", 1)[0] for name in in_sdist}
    assert tops <= {"mcpgen", "templates", "docs", "README.md", "pyproject.toml", "PKG-INFO", ".gitignore"}


def test_every_cited_doc_exists_and_ships(distributions: tuple[set[str], set[str]]) -> None:
    in_wheel, in_sdist = distributions
    for name in sorted(_cited_docs()):
        assert (ROOT / "docs" / name).is_file(), f"docs/{name} is cited but missing"
        assert f"mcpgen/docs/{name}" in in_wheel, f"docs/{name} is cited but not in the wheel"
        assert f"docs/{name}" in in_sdist, f"docs/{name} is cited but not in the sdist"
