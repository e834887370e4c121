"""Hello-world MCP server on the official SDK: the floor for a Python stdio cold start."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("hello")


@server.tool()
def hello(name: str = "world") -> str:
    """Say hello."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    server.run()  # stdio
