"""FastMCP.from_openapi on one spec: the peer we measure mcpgen against.

    python fastmcp_server.py SPEC                  serve over stdio (for cold-start runs)
    python fastmcp_server.py SPEC --list-to OUT    build, tools/list once in memory, write the
                                                   tools to OUT and one JSON stats line to stdout

The --list-to mode is the child side of baseline.fastmcp_build_and_list: it does nothing but
import, build and list, so the parent's clock (started before this process) and this
process's peak RSS cover exactly that. Token counting happens in the parent.
"""

# No imports above the timing marks except the stdlib bits needed to take them.
import time

T_START = time.monotonic()

import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402

# Quiet the per-start INFO line on stderr; it's noise in benchmark output.
os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")

import httpx2  # noqa: E402
from fastmcp import Client, FastMCP  # noqa: E402

T_IMPORTED = time.monotonic()

# Never contacted: tools/list makes no upstream call. Loopback so a stray call can't leave the box.
UPSTREAM = "http://127.0.0.1:9"


def build(spec_path: str) -> FastMCP:
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    return FastMCP.from_openapi(spec, client=httpx2.AsyncClient(base_url=UPSTREAM), name="baseline")


async def list_once(server: FastMCP) -> list[dict]:
    async with Client(server) as client:
        tools = await client.list_tools()  # follows nextCursor if the server paginates
    # The dicts as sent on the wire.
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]


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
    if "--list-to" not in argv:
        build(spec_path).run(transport="stdio", show_banner=False)
        return
    out_path = argv[argv.index("--list-to") + 1]
    server = build(spec_path)
    t_built = time.monotonic()
    tools = asyncio.run(list_once(server))
    t_listed = time.monotonic()
    # Taken before writing the output so that doesn't count.
    rss_kb = peak_rss_kb()
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(tools, f)
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
