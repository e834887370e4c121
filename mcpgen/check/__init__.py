"""`mcpgen check`: the generated server run against an upstream, its results compared with its promises.

The generator guesses about an API's answers (which fields a concise record keeps, where a list's
paging lives, which result fields carry a unit, where an error body says what went wrong). `check`
generates the package into a temporary directory, starts it over stdio as a client does, calls every
read action through the official MCP client against Prism serving the spec (or the user's sandbox),
and reports each place where what came back contradicts what the tool promises, at the mapping line
that made the promise. It judges from the outside: the upstream's raw answers (seen by a loopback
proxy) against the tool results, never the runtime's own account of them.
"""
