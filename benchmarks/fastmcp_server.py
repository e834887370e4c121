"""FastMCP.from_openapi on one spec: the peer we measure mcpgen against.

    python fastmcp_server.py SPEC                  serve over stdio (for cold-start runs)
    python fastmcp_server.py SPEC --list-to OUT    build, tools/list once in memory, write the
                                                   tools to OUT and one JSON stats line to stdout
    python fastmcp_server.py SPEC --upstream URL [--header NAME:VALUE]
                                                   serve over stdio against a live upstream (the
                                                   task-cost and per-call benchmarks; SPEC may be YAML)
    python fastmcp_server.py SPEC --upstream URL --http PORT
                                                   the same, served over streamable HTTP on
                                                   127.0.0.1:PORT/mcp at FastMCP's defaults (http_load.py)
    python fastmcp_server.py SPEC --list-only      build, tools/list once in memory, exit: the parent
                                                   times it from spawn to exit, as it times mcpgen
    ... --search                                   with FastMCP's documented tool search on
                                                   (BM25SearchTransform, its defaults: tools/list is
                                                   search_tools + call_tool, 5 results a search)

The --list-to mode is the child side of baseline.fastmcp_build_and_list: it does nothing but
import, build and list, so the parent's clock (started before this process) and this
process's peak RSS cover exactly that. The clock stops when FastMCP's client has the list
(its own work); turning the tools into wire dicts for the output file is the harness's work
and happens after the mark. Token counting happens in the parent.
"""

# No imports above the timing marks except the stdlib bits needed to take them.
import time

T_START = time.monotonic()

import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402

# Quiet the per-start INFO line on stderr in the build+list mode; served over stdio, FastMCP keeps
# its default log level, as the generated server does in the per-call benchmark.
if "--list-to" in sys.argv or "--list-only" in sys.argv:
    os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")

import httpx2  # noqa: E402
from fastmcp import Client, FastMCP  # noqa: E402

T_IMPORTED = time.monotonic()

# Never contacted: tools/list makes no upstream call. Loopback so a stray call can't leave the box.
UPSTREAM = "http://127.0.0.1:9"


def load_spec(spec_path: str) -> dict:
    with open(spec_path, encoding="utf-8") as f:
        if spec_path.endswith((".yaml", ".yml")):
            import yaml  # only the small YAML specs of the task-cost benchmark

            return yaml.safe_load(f)
        return json.load(f)


def build(
    spec_path: str, upstream: str = UPSTREAM, headers: dict[str, str] | None = None, search: bool = False
) -> FastMCP:
    client = httpx2.AsyncClient(base_url=upstream, headers=headers or {})
    server = FastMCP.from_openapi(load_spec(spec_path), client=client, name="baseline")
    if search:
        from fastmcp.server.transforms.search import BM25SearchTransform

        server.add_transform(BM25SearchTransform())
    return server


async def list_once(server: FastMCP) -> tuple[list, float]:
    """The tools and the moment FastMCP's client had them (before any harness work)."""
    async with Client(server) as client:
        tools = await client.list_tools()  # follows nextCursor if the server paginates
        listed_at = time.monotonic()
    return tools, listed_at


def peak_rss_kb() -> int:
    """This process's own peak RSS. Linux's ru_maxrss carries over the parent's peak through
    fork+exec (a parent that just tokenized a big list would show up here), VmHWM does not."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def main(argv: list[str]) -> None:
    spec_path = argv[0]
    if "--list-only" in argv:
        asyncio.run(list_once(build(spec_path)))
        return
    if "--list-to" not in argv:
        upstream = argv[argv.index("--upstream") + 1] if "--upstream" in argv else UPSTREAM
        headers = dict(argv[i + 1].split(":", 1) for i, a in enumerate(argv) if a == "--header")
        server = build(spec_path, upstream, headers, search="--search" in argv)
        if "--http" in argv:
            port = int(argv[argv.index("--http") + 1])
            server.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
        else:
            server.run(transport="stdio", show_banner=False)
        return
    out_path = argv[argv.index("--list-to") + 1]
    server = build(spec_path)
    t_built = time.monotonic()
    tools, t_listed = asyncio.run(list_once(server))
    # Taken before the harness's own work (wire dicts, writing the output) so that doesn't count.
    rss_kb = peak_rss_kb()
    # The dicts as sent on the wire.
    wire = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(wire, f)
    stats = {
        "listed_at": t_listed,
        "tools": len(tools),
        "peak_rss_kb": rss_kb,
        "phases": {
            "imports": T_IMPORTED - T_START,
            "build": t_built - T_IMPORTED,
            "list": t_listed - t_built,
        },
    }
    print(json.dumps(stats), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
