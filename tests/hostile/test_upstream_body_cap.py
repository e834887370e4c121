"""Upstream bodies are bounded (issue 11, finding 4): an answer past the byte cap is refused without being
read whole, and `timeout_s` bounds the whole exchange, a body that trickles in included. The cap counts
decoded bytes (a gzip bomb is cut at the cap) and is the mapping's `server.max_body_bytes`. The timing
tests measure elapsed time because the issue itself demands "within timeout_s + 1 s"."""

# ruff: noqa: F401, F811 - hostile_package and hostile_upstream are pytest fixtures, imported to be used by name
from __future__ import annotations

import itertools
import json
import os
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.upstream_server import CAP_BYTES, TIMEOUT_S, ads_client, hostile_package, hostile_upstream
from tests.support.mcp_client import result_json, result_text
from tests.support.paths import SPECS
from tests.support.venvs import run_mcpgen
from tests.upstreams.hostile import HostileUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

FIND = "ads_campaigns_find"
MB = 1024 * 1024


@pytest.mark.parametrize(
    "declare_length", [True, False], ids=["with Content-Length", "without Content-Length"]
)
async def test_a_50_mb_answer_is_refused_within_the_timeout(
    hostile_package: Path, hostile_upstream: HostileUpstream, declare_length: bool
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_001"})  # the server is warm
        hostile_upstream.huge_next(50 * MB, declare_length=declare_length)
        started = time.monotonic()
        result = await client.call_tool(FIND, {"action": "list"})
        elapsed = time.monotonic() - started
    text = result_text(result)
    assert result.is_error and "the API answered with more than 8 MB" in text, text
    assert "Next step (fix the input): Narrow the request" in text
    assert elapsed <= TIMEOUT_S + 1, elapsed


async def test_a_body_that_trickles_in_times_out_within_the_timeout(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_001"})
        hostile_upstream.drip_next(200, pause_s=0.1)  # 20 s for the whole body, a byte at a time
        started = time.monotonic()
        result = await client.call_tool(FIND, {"action": "list"})
        elapsed = time.monotonic() - started
    text = result_text(result)
    assert result.is_error and f"the API did not answer within {TIMEOUT_S:g} s" in text, text
    assert elapsed <= TIMEOUT_S + 1, elapsed


async def test_an_answer_just_under_the_cap_is_read_and_cut_to_the_budget(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.huge_next(CAP_BYTES - 1024)
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, {"action": "search", "query": "Sale"})
    assert not result.is_error, result_text(result)
    data = result_json(result)
    assert len(result_text(result)) / 4 <= 20_000
    # A list body without the mapped 'campaigns' key is shown as the API sent it, cut and announced (R4).
    assert data["truncated"]["reason"].startswith("the full result is larger than")


def _gzip(data_parts: Iterator[bytes], wbits: int = zlib.MAX_WBITS | 16) -> bytes:
    packer = zlib.compressobj(1, zlib.DEFLATED, wbits)
    return b"".join(packer.compress(part) for part in data_parts) + packer.flush()


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """About 1 MB of gzip that expands to 1 GB of JSON whitespace: far past the cap once decoded."""
    return _gzip(itertools.chain([b"["], itertools.repeat(b" " * MB, 1024), [b"]"]))


def _peak_rss_kb(package: Path) -> int:
    """VmHWM of the server subprocess this test started (a child of this process running the package)."""
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            cmdline = (status.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields["PPid"]) == os.getpid() and b"ads_mcp" in cmdline:
            return int(fields["VmHWM"].split()[0])
    raise AssertionError("the server process was not found")


async def test_a_gzip_bomb_is_refused_at_the_cap_of_its_decoded_size(
    hostile_package: Path, hostile_upstream: HostileUpstream, gzip_bomb: bytes
) -> None:
    async with ads_client(hostile_package, hostile_upstream) as client:
        await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_001"})
        before_kb = _peak_rss_kb(hostile_package)
        hostile_upstream.fail_next(
            200, gzip_bomb, {"content-encoding": "gzip", "content-type": "application/json"}
        )
        result = await client.call_tool(FIND, {"action": "list"})
        grown_mb = (_peak_rss_kb(hostile_package) - before_kb) / 1024
    text = result_text(result)
    assert result.is_error and "the API answered with more than 8 MB" in text, text
    # Decoded one bounded piece at a time: the peak grows by about the cap (8.8 MB measured; httpx's
    # own decoding grew it by 28.6 MB), never by the gigabyte the body expands to.
    assert grown_mb < 1.5 * CAP_BYTES / MB, grown_mb
    assert hostile_upstream.requests[-1].headers.get("accept-encoding") == "gzip, deflate"


@pytest.mark.parametrize(
    "encoding, wbits",
    [("gzip", zlib.MAX_WBITS | 16), ("deflate", zlib.MAX_WBITS), ("deflate", -zlib.MAX_WBITS)],
    ids=["gzip", "deflate", "raw deflate"],
)
async def test_a_compressed_answer_under_the_cap_is_read(
    hostile_package: Path, hostile_upstream: HostileUpstream, encoding: str, wbits: int
) -> None:
    record = {"id": "cmp_001", "name": "Winter sale", "status": "active", "daily_budget": 100_000}
    packed = _gzip(iter([json.dumps(record).encode()]), wbits)
    hostile_upstream.fail_next(
        200, packed, {"content-encoding": encoding, "content-type": "application/json"}
    )
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_001"})
    assert not result.is_error, result_text(result)
    assert result_json(result)["name"] == "Winter sale"


async def test_an_encoding_the_server_did_not_ask_for_is_refused_undecoded(
    hostile_package: Path, hostile_upstream: HostileUpstream
) -> None:
    hostile_upstream.fail_next(
        200, b"\x1b\x00\x00\x00" * 64, {"content-encoding": "br", "content-type": "application/json"}
    )
    async with ads_client(hostile_package, hostile_upstream) as client:
        result = await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_001"})
    text = result_text(result)
    assert result.is_error and "encoded as 'br', which this server does not decode" in text, text


@pytest.fixture(scope="module")
def small_cap_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """specs/ads with server.max_body_bytes 65536."""
    work = tmp_path_factory.mktemp("small-cap")
    mapping = (SPECS / "ads" / "mapping.yaml").read_text(encoding="utf-8")
    (work / "mapping.yaml").write_text(
        mapping.replace("  timeout_s: 30\n", "  timeout_s: 30\n  max_body_bytes: 65536\n")
    )
    out = work / "ads"
    completed = run_mcpgen(
        "generate", SPECS / "ads" / "ads.openapi.yaml", "-m", work / "mapping.yaml", "-o", out
    )
    assert completed.returncode == 0, completed.stderr
    assert "max_body_bytes=65536" in (out / "ads_mcp" / "server.py").read_text()
    return out


async def test_the_mappings_max_body_bytes_is_the_cap(
    small_cap_package: Path, hostile_upstream: HostileUpstream
) -> None:
    async with ads_client(small_cap_package, hostile_upstream) as client:
        small = await client.call_tool(FIND, {"action": "get", "campaign_id": "cmp_001"})
        hostile_upstream.huge_next(100 * 1024)
        big = await client.call_tool(FIND, {"action": "list"})
    assert not small.is_error, result_text(small)
    assert big.is_error and "the API answered with more than 65536 bytes" in result_text(big), result_text(
        big
    )


@pytest.mark.parametrize("value", [0, 1023, 268435457, "8MB"])
def test_an_out_of_range_max_body_bytes_is_a_located_error(tmp_path: Path, value: object) -> None:
    mapping = (SPECS / "ads" / "mapping.yaml").read_text(encoding="utf-8")
    (tmp_path / "mapping.yaml").write_text(
        mapping.replace("  timeout_s: 30\n", f"  timeout_s: 30\n  max_body_bytes: {value}\n")
    )
    completed = run_mcpgen("validate", SPECS / "ads" / "ads.openapi.yaml", "-m", tmp_path / "mapping.yaml")
    assert completed.returncode == 1
    assert "mapping.yaml:" in completed.stderr and "/server/max_body_bytes" in completed.stderr, (
        completed.stderr
    )
    assert "Traceback" not in completed.stderr
