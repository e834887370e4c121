"""mcpgen: generate agent-ready MCP servers from an OpenAPI spec and a workflow mapping file.

The pipeline, each stage a module: load (`sources`, `openapi`, `mapping`) -> build the IR (`build`,
`ir`) -> render files (`render`) -> write them (`write`). Only the CLI and `write` touch the outside world.
"""

from mcpgen.pipeline import GenerationResult, generate
from mcpgen.version import __version__

__all__ = ["GenerationResult", "__version__", "generate"]
