"""Runtime shared by every server mcpgen generates: routing tables, validation, upstream calls, results.

This folder is copied unchanged into each generated package, so the package needs nothing but the
`mcp` SDK, httpx and jsonschema. Regeneration rewrites it; put custom logic elsewhere.
"""
