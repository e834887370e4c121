"""Every generated .py is compiled before anything is written (issue 11, finding 1).

A module that does not compile is an internal error that names the file; `generate` exits 1 and writes
nothing. The renderer is made to emit a broken module here, since no input can make it do so anymore.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import mcpgen.pipeline
from mcpgen.cli.app import app
from mcpgen.ir import RenderedFile
from mcpgen.pipeline import generate
from tests.support.paths import SPECS

SPEC = SPECS / "petstore" / "petstore.openapi.json"
MAPPING = SPECS / "petstore" / "mapping.yaml"


@pytest.fixture
def broken_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    real = mcpgen.pipeline.render_server

    def render_with_a_broken_module(*args, **kwargs):
        files = real(*args, **kwargs)
        broken = RenderedFile("petstore_mcp/tools/broken.py", 'TOOL = "unclosed\n')
        return (*files, broken)

    monkeypatch.setattr(mcpgen.pipeline, "render_server", render_with_a_broken_module)


def test_a_module_that_does_not_compile_is_an_internal_error_naming_it(broken_renderer: None) -> None:
    result = generate(SPEC, MAPPING)

    assert not result.ok
    [problem] = [d for d in result.diagnostics if d.code == "G002"]
    assert "petstore_mcp/tools/broken.py" in problem.message and "line 1" in problem.message
    assert "internal error" in problem.message


def test_generate_writes_nothing_when_a_module_does_not_compile(
    broken_renderer: None, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["generate", str(SPEC), "-m", str(MAPPING), "-o", str(out)])

    assert result.exit_code == 1
    assert "broken.py" in result.output and "no files were written" in result.output
    assert not out.exists()


def test_every_example_module_compiles() -> None:
    result = generate(SPEC, MAPPING)
    assert result.ok, result.diagnostics
    assert all(d.code != "G002" for d in result.diagnostics)
