"""mcpgen: generate agent-ready MCP servers from an OpenAPI spec and a workflow mapping file.

The pipeline, each stage a module: load (`sources`, `openapi`, `mapping`) -> build the IR (`build`,
`ir`) -> render files (`render`) -> write them (`write`). Only the CLI and `write` touch the outside world.
"""

__version__ = "0.1.0"

from .pipeline import GenerationResult, generate  # noqa: E402

__all__ = ["GenerationResult", "__version__", "generate"]
