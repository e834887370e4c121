"""Files in answers: an operation that answers a PDF, an image or a CSV export is mapped, and its tool result
carries the file as MCP content (an image as `image`, text as an embedded text resource, anything else as
an embedded base64 blob resource) beside structuredContent `{"file": {name, media_type, size_bytes}}`,
which the tool's outputSchema declares; never decoded into the JSON result. A file past
`server.max_body_bytes` is an error naming its size and the cap; a text past the result budget is cut and
says so.

Through the official MCP client over stdio: against Prism serving apisetu.gov.in/cisce.json (a certificate
answered as application/pdf), and against stand-ins answering real PDF, PNG and CSV bytes as
pdfblocks.com, ritekit.com and opendatasoft.com do (Prism answers binary examples poorly), every request
they receive judged by Prism against the real spec.
"""

from __future__ import annotations

import base64
import struct
import sys
import zlib
from pathlib import Path

import pytest

from tests.support import prism
from tests.support.mcp_client import result_json, result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.support.spec_fragments import request_fragment
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CORPUS = ROOT / ".cache" / "corpus" / "package" / "api"
CISCE = CORPUS / "apisetu.gov.in" / "cisce.json"
PDFBLOCKS = CORPUS / "pdfblocks.com.json"
RITEKIT = CORPUS / "ritekit.com.json"
OPENDATASOFT = CORPUS / "opendatasoft.com.json"


def png_bytes(width: int = 2, height: int = 2) -> bytes:
    """A real PNG (signature, IHDR, IDAT, IEND, each chunk with its CRC): a grey square."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def pdf_bytes(text: str = "Watermarked") -> bytes:
    """A real one-page PDF 1.4 with its cross-reference table, and bytes past ASCII as PDFs carry."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>",
    ]
    stream = f"BT /F1 12 Tf 20 50 Td ({text}) Tj ET".encode()
    objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def generate(root: Path, spec: Path, mapping: str) -> Path:
    (root / "mapping.yaml").write_text(mapping, encoding="utf-8")
    completed = run_mcpgen("generate", spec, "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


CISCE_MAPPING = """\
mcpgen: 1
server:
  name: cisce
  base_url: {env: CISCE_BASE_URL}
  auth:
    - {type: api_key, env: CISCE_API_KEY, in: header, name: X-APISETU-APIKEY}
    - {type: api_key, env: CISCE_CLIENT_ID, in: header, name: X-APISETU-CLIENTID}
tools:
  - name: certificates
    description: Fetch a CISCE certificate as a PDF.
    actions:
      - {name: marksheet, operation: hscer}
"""


async def test_a_pdf_certificate_comes_back_as_a_blob_resource_with_its_name_type_and_size(
    tmp_path: Path, prism_servers: prism.PrismServers
) -> None:
    try:
        base = prism_servers.address(CISCE)
    except prism.PrismUnavailable as missing:
        pytest.skip(f"Prism serves the certificate: {missing}")
    package = generate(tmp_path, CISCE, CISCE_MAPPING)
    env = {
        "PYTHONPATH": str(package),
        "CISCE_BASE_URL": base,
        "CISCE_API_KEY": "k-1",
        "CISCE_CLIENT_ID": "c-1",
    }
    call = {
        "action": "marksheet",
        "txn_id": "f7f1469c-29b0-4325-9dfc-c567200a70f7",
        "format": "pdf",
        "certificate_parameters": {
            "CUID": "6374638",
            "YOE": "2016",
            "IDXN": "1234567/001",
            "UID": "123412341234",
            "FullName": "Sunil Kumar",
            "DOB": "31-12-1980",
        },
    }
    async with stdio_client([sys.executable, "-m", "cisce_mcp"], env) as client:
        [tool] = tool_dicts(await client.list_tools())
        result = await client.call_tool("cisce_certificates", call)
    assert not result.is_error, result_text(result)  # Prism answers 422 to a request the spec refuses
    assert tool["outputSchema"]["properties"]["file"]["required"] == ["name", "media_type", "size_bytes"]
    summary, resource = result.content
    blob = base64.b64decode(resource.resource.blob)
    assert resource.type == "resource" and resource.resource.mime_type == "application/pdf"
    assert resource.resource.uri == f"{base}/hscer/certificate"
    assert blob.startswith(b"Response body contains")  # Prism's example of the spec, as the file's bytes
    file = {"name": "certificate.pdf", "media_type": "application/pdf", "size_bytes": len(blob)}
    assert result.structured_content == {"file": file} == result_json(result)
    assert summary.type == "text"


PDFBLOCKS_MAPPING = """\
mcpgen: 1
server:
  name: pdfblocks
  base_url: {env: PDFBLOCKS_BASE_URL}
  auth: {type: api_key, env: PDFBLOCKS_API_KEY, in: header, name: X-Api-Key}
  max_body_bytes: MAX
tools:
  - name: watermarks
    description: Add a text watermark to a PDF document.
    actions:
      - {name: add_text, operation: addTextWatermarkV1}
"""


class PdfBlocks(LoopbackUpstream):
    """Answers as pdfblocks.com does: the watermarked PDF, named in Content-Disposition (RFC 6266, with
    filename* for a name past ASCII)."""

    def __init__(self, answer: bytes) -> None:
        super().__init__()
        self.answer = answer
        self.route("POST", "/v1/add_watermark/text", self.watermark)

    def watermark(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        disposition = "attachment; filename=\"contract.pdf\"; filename*=UTF-8''contrat%C3%A9.pdf"
        headers = {"content-type": "application/pdf", "content-disposition": disposition}
        return Reply(200, self.answer, headers)


PRISM_SPECS = {PdfBlocks: lambda: request_fragment(PDFBLOCKS, [("/v1/add_watermark/text", "post")])}


async def test_a_pdf_goes_up_and_the_watermarked_pdf_comes_back_named_as_the_api_names_it(
    tmp_path: Path,
) -> None:
    pdf = pdf_bytes()
    package = generate(tmp_path, PDFBLOCKS, PDFBLOCKS_MAPPING.replace("MAX", "1048576"))
    upload = "data:application/pdf;base64," + base64.b64encode(pdf_bytes("Original")).decode()
    with PdfBlocks(pdf) as upstream:
        env = {
            "PYTHONPATH": str(package),
            "PDFBLOCKS_BASE_URL": upstream.base_url,
            "PDFBLOCKS_API_KEY": "k-1",
        }
        async with stdio_client([sys.executable, "-m", "pdfblocks_mcp"], env) as client:
            result = await client.call_tool(
                "pdfblocks_watermarks", {"action": "add_text", "file": upload, "line_1": "Jane Doe"}
            )
        [sent] = upstream.requests
    assert not result.is_error, result_text(result)
    assert b"Original" in sent.body and b"Jane Doe" in sent.body
    _, resource = result.content
    assert base64.b64decode(resource.resource.blob) == pdf
    assert result.structured_content == {
        "file": {"name": "contraté.pdf", "media_type": "application/pdf", "size_bytes": len(pdf)}
    }


async def test_a_file_past_max_body_bytes_is_an_error_naming_its_size_and_the_cap(tmp_path: Path) -> None:
    pdf = pdf_bytes("x" * 3000)
    package = generate(tmp_path, PDFBLOCKS, PDFBLOCKS_MAPPING.replace("MAX", "2048"))
    upload = "data:application/pdf;base64," + base64.b64encode(b"%PDF-1.4 small").decode()
    with PdfBlocks(pdf) as upstream:
        env = {
            "PYTHONPATH": str(package),
            "PDFBLOCKS_BASE_URL": upstream.base_url,
            "PDFBLOCKS_API_KEY": "k-1",
        }
        async with stdio_client([sys.executable, "-m", "pdfblocks_mcp"], env) as client:
            result = await client.call_tool(
                "pdfblocks_watermarks", {"action": "add_text", "file": upload, "line_1": "Jane Doe"}
            )
    text = result_text(result)
    assert result.is_error and [block.type for block in result.content] == ["text"]
    assert f"a file of {len(pdf):,} bytes (its Content-Length)" in text, text
    assert "at most 2,048 bytes" in text and "server.max_body_bytes" in text, text


RITEKIT_MAPPING = """\
mcpgen: 1
server:
  name: ritekit
  base_url: {env: RITEKIT_BASE_URL}
tools:
  - name: logos
    description: Find a company's logo by its web domain.
    actions:
      - {name: get, operation: GET /v1/images/logo}
"""


class Ritekit(LoopbackUpstream):
    """Answers as ritekit.com does: the logo as image/png, no Content-Disposition."""

    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/v1/images/logo", self.logo)

    def logo(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, png_bytes(), {"content-type": "image/png"})


PRISM_SPECS[Ritekit] = lambda: request_fragment(RITEKIT, [("/v1/images/logo", "get")])


async def test_an_image_comes_back_as_image_content_named_after_the_path(tmp_path: Path) -> None:
    package = generate(tmp_path, RITEKIT, RITEKIT_MAPPING)
    with Ritekit() as upstream:
        env = {"PYTHONPATH": str(package), "RITEKIT_BASE_URL": upstream.base_url}
        async with stdio_client([sys.executable, "-m", "ritekit_mcp"], env) as client:
            [tool] = tool_dicts(await client.list_tools())
            result = await client.call_tool("ritekit_logos", {"action": "get", "domain": "google.com"})
        [sent] = upstream.requests
    assert not result.is_error, result_text(result)
    assert sent.headers["accept"] == "image/png"
    assert "response_format" not in tool["inputSchema"]["properties"]  # a file has no concise form
    _, image = result.content
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == png_bytes()
    assert result.structured_content == {
        "file": {"name": "logo.png", "media_type": "image/png", "size_bytes": len(png_bytes())}
    }


OPENDATASOFT_MAPPING = """\
mcpgen: 1
server:
  name: opendata
  base_url: {env: OPENDATA_BASE_URL}
  auth: {type: api_key, env: OPENDATA_KEY, in: query, name: apikey}
  max_result_tokens: 1000
tools:
  - name: exports
    description: Export a dataset's records as CSV.
    actions:
      - {name: csv, operation: exportRecordsCSV}
"""


class Exports(LoopbackUpstream):
    """Answers as opendatasoft.com does: the export as text/csv with its charset, named in
    Content-Disposition."""

    def __init__(self, rows: int) -> None:
        super().__init__()
        self.rows = rows
        self.route("GET", "/{source}/datasets/{dataset_id}/exports/csv", self.export)

    def export(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        lines = ["name;population"] + [f"Zürich {n};{400000 + n}" for n in range(self.rows)]
        headers = {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": f'attachment; filename="{path["dataset_id"]}.csv"',
        }
        return Reply(200, ("\n".join(lines) + "\n").encode(), headers)


PRISM_SPECS[Exports] = lambda: request_fragment(
    OPENDATASOFT, [("/{source}/datasets/{dataset_id}/exports/csv", "get")]
)


async def test_a_csv_export_comes_back_as_text_and_one_past_the_result_budget_is_cut_and_says_so(
    tmp_path: Path,
) -> None:
    package = generate(tmp_path, OPENDATASOFT, OPENDATASOFT_MAPPING)
    call = {"action": "csv", "source": "catalog", "dataset_id": "cities"}
    results = []
    for rows in (3, 2000):
        with Exports(rows) as upstream:
            env = {
                "PYTHONPATH": str(package),
                "OPENDATA_BASE_URL": upstream.base_url,
                "OPENDATA_KEY": "key-123",
            }
            async with stdio_client([sys.executable, "-m", "opendata_mcp"], env) as client:
                results.append(await client.call_tool("opendata_exports", call))
    small, large = results
    assert not small.is_error, result_text(small)
    text = small.content[1].resource.text
    assert small.content[1].resource.mime_type == "text/csv" and text.startswith("name;population\nZürich 0;")
    # Where it came from, without the query that carries the key.
    assert small.content[1].resource.uri.endswith("/catalog/datasets/cities/exports/csv")
    assert small.structured_content == {
        "file": {"name": "cities.csv", "media_type": "text/csv", "size_bytes": len(text.encode())}
    }
    cut = large.structured_content["truncated"]
    shown = large.content[1].resource.text
    assert (
        cut["shown"]
        == f"characters 1-{len(shown)} of {large.structured_content['file']['size_bytes'] - 2000}"
    )
    assert "1000 tokens" in cut["reason"] and shown.startswith("name;population")
