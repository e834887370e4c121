"""The store's lease (templates/runtime/store.py), which lets one replica at a time refresh a user's
upstream token: two processes, each with its own store client on one SQLite file or one Redis, count
to 60 together under the lease (a read, a pause, a write: without mutual exclusion updates are lost),
and a lease that ran out is taken over, while its first holder's late release leaves the new holder's.
"""

from __future__ import annotations

import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.processes import redis_server

pytestmark = pytest.mark.e2e

RUNTIME = ROOT / "templates" / "runtime"

# Run in a process of its own: the runtime imported as the package every generated server carries.
CLIENT = """
import asyncio, importlib.util, os, secrets, sys, time
spec = importlib.util.spec_from_file_location("rt", sys.argv[1] + "/__init__.py",
                                              submodule_search_locations=[sys.argv[1]])
sys.modules["rt"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sys.modules["rt"])
from rt.store import open_store

async def count(store, rounds):
    owner = secrets.token_hex(8)
    done = 0
    deadline = time.monotonic() + 60
    while done < rounds and time.monotonic() < deadline:
        if not await store.lease("counter", owner, 10.0):
            await asyncio.sleep(0.005)
            continue
        n = int(await store.get_value("n") or 0)
        await asyncio.sleep(0.01)
        await store.put_value("n", str(n + 1), time.time() + 600)
        await store.release_lease("counter", owner)
        done += 1

async def main():
    store = open_store("leasetest")
    if sys.argv[2] == "count":
        await count(store, int(sys.argv[3]))
        print(await store.get_value("n"))
    elif sys.argv[2] == "hold":  # take a short lease and never release it
        print(await store.lease("held", "first", 4.0))
    elif sys.argv[2] == "take":  # refused while held; taken once it ran out; the first's release is a no-op
        print(await store.lease("held", "second", 30.0))
        await asyncio.sleep(4.2)
        print(await store.lease("held", "second", 30.0))
        await store.release_lease("held", "first")
        print(await store.lease("held", "third", 30.0))

asyncio.run(main())
"""


def _run(store_url: str, *args: str) -> subprocess.Popen[str]:
    env = {"PATH": "/usr/bin:/bin", "MCP_STORE_URL": store_url}
    return subprocess.Popen(
        [sys.executable, "-c", CLIENT, str(RUNTIME), *args], env=env, stdout=subprocess.PIPE, text=True
    )


def _out(process: subprocess.Popen[str]) -> list[str]:
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0
    return out.split()


@pytest.mark.parametrize("store", ["redis", "sqlite"])
def test_two_processes_hold_the_lease_one_at_a_time(tmp_path: Path, store: str) -> None:
    with ExitStack() as stack:
        url = (
            stack.enter_context(redis_server(tmp_path)) if store == "redis" else f"sqlite:///{tmp_path}/s.db"
        )
        counters = [_run(url, "count", "30"), _run(url, "count", "30")]
        outs = [_out(p) for p in counters]
        assert max(int(out[-1]) for out in outs) == 60  # no update lost: never two holders at once
        assert _out(_run(url, "hold")) == ["True"]
        assert _out(_run(url, "take")) == ["False", "True", "False"]
