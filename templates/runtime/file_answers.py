"""Files the API answers with instead of JSON (a PDF certificate, a PNG, a CSV export), returned as MCP
content and never decoded into the JSON result: an image as `image` content, a sound as `audio`, text as
an embedded text resource, anything else as an embedded base64 blob resource. The structured result
names the file, `{"file": {"name", "media_type", "size_bytes"}}` (R5 structured and text), and its text
copy comes first.

Every answer is read within the byte cap (`server.max_body_bytes`, upstream.py): a bigger file is
refused with its size and the cap, never cut. Text also counts against the result budget like any
result; a longer text is cut there and the result says so (R4 truncation is announced)."""

from __future__ import annotations

import base64
import email.message
import json
import mimetypes
import re
import unicodedata
from typing import Any
from urllib.parse import unquote

import httpx
import mcp_types as types

from .errors import Recovery, ToolError
from .refusals import check_before_repeating
from .results import Answer, redact
from .routing import Action
from .truncation import count_tokens

# What MCP clients show as an image; other image types (BMP, TIFF, SVG) go as a resource.
_IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
# Text under a type that does not start with text/.
_TEXT = frozenset(
    {
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/csv",
        "application/javascript",
        "application/x-ndjson",
        "application/sql",
        "application/x-sh",
    }
)
# A file typed JSON too (an API that answers JSON where its spec says a file): text, shown as it came.
_TEXT_SUFFIXES = ("+xml", "+yaml", "+csv", "/json", "+json")
_NAME_CHARS = 120  # a longer file name keeps its start and its extension
# The built-in table only: the same extension on every machine, whatever /etc/mime.types says.
_TYPES = mimetypes.MimeTypes()
_ANY_FILE = "application/octet-stream"


def described(answer: httpx.Response, action: Action, max_bytes: int) -> dict[str, Any]:
    """What the result says of the file: its name, media type and size. An answer with no body says
    so as any other does; one past the byte cap is an error naming its size and the cap."""
    if isinstance(answer, Answer) and answer.too_big:
        raise _too_big(answer, action, max_bytes)
    if not answer.content:
        return {"ok": True, "status": answer.status_code}
    media = media_type(answer, action)
    return {
        "file": {
            "name": file_name(answer, media),
            "media_type": media,
            "size_bytes": len(answer.content),
        }
    }


def file_result(
    shown: dict[str, Any],
    answer: httpx.Response,
    max_tokens: int,
    secrets: tuple[str, ...],
) -> types.CallToolResult:
    """The result: the description as JSON text and structured content, then the file itself."""
    media = str(shown["file"]["media_type"])
    content = answer.content
    block: types.ImageContent | types.AudioContent | types.EmbeddedResource
    text = _text_of(content, media, answer)
    if media in _IMAGES:
        block = types.ImageContent(type="image", data=_base64(content), mime_type=media)
    elif media.startswith("audio/"):
        block = types.AudioContent(type="audio", data=_base64(content), mime_type=media)
    elif text is not None:
        text, cut = _within(redact(text, secrets), max_tokens)
        if cut is not None:
            shown = {**shown, "truncated": cut}
        resource: Any = types.TextResourceContents(
            uri=_address(answer), mime_type=media, text=text
        )
        block = types.EmbeddedResource(type="resource", resource=resource)
    else:
        resource = types.BlobResourceContents(
            uri=_address(answer), mime_type=media, blob=_base64(content)
        )
        block = types.EmbeddedResource(type="resource", resource=resource)
    summary = types.TextContent(type="text", text=_compact(shown))
    return types.CallToolResult(content=[summary, block], structured_content=shown)


def media_type(answer: httpx.Response, action: Action) -> str:
    """The answer's own Content-Type (without parameters), else the type the spec declares."""
    own = str(answer.headers.get("content-type", "")).split(";")[0].strip().lower()
    declared = action.file or _ANY_FILE
    if not own or (own == _ANY_FILE and declared != _ANY_FILE):
        return declared
    return own


def file_name(answer: httpx.Response, media: str) -> str:
    """The name Content-Disposition gives the file (filename* first, RFC 6266), else the request
    path's last segment, else 'file'; made safe: no directory, no control characters, no leading dot,
    at most 120 characters, and an extension from its media type when it has none."""
    disposition = answer.headers.get("content-disposition", "")
    name = _disposition_name(disposition) if disposition else None
    if not name:
        name = unquote(answer.request.url.path.rstrip("/").rpartition("/")[2])
    name = name.replace("\\", "/").rpartition("/")[2]
    name = "".join(c for c in name if unicodedata.category(c)[0] != "C")
    name = name.strip().lstrip(".").strip() or "file"
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, (_TYPES.guess_extension(media) or ".bin")[1:]
    return f"{stem[: _NAME_CHARS - len(extension) - 1]}.{extension[:16]}"


# RFC 6266: `filename*=UTF-8''%e2%82%ac%20rates.pdf` (RFC 8187) wins over a plain `filename`.
_EXTENDED = re.compile(
    r"filename\*\s*=\s*([\w!#$%&+^`{}~-]*)'[^']*'([^;\s]+)", re.IGNORECASE
)


def _disposition_name(disposition: str) -> str | None:
    extended = _EXTENDED.search(disposition)
    if extended is not None:
        try:
            return unquote(
                extended[2], encoding=extended[1] or "utf-8", errors="strict"
            )
        except (LookupError, UnicodeDecodeError):
            pass
    header = email.message.Message()
    header["content-disposition"] = disposition
    try:
        name = header.get_filename()
    except (LookupError, ValueError):  # an unknown charset in filename*
        return None
    return name if isinstance(name, str) else None


def _text_of(content: bytes, media: str, answer: httpx.Response) -> str | None:
    """The file as text, when its type is a text type and its bytes are text in its charset."""
    if not (
        media.startswith("text/") or media in _TEXT or media.endswith(_TEXT_SUFFIXES)
    ):
        return None
    charset = answer.charset_encoding or "utf-8"
    try:
        return content.decode(charset)
    except (LookupError, UnicodeDecodeError):
        return None


def _within(text: str, max_tokens: int) -> tuple[str, dict[str, Any] | None]:
    """The text, or its start that fits the result budget with a note of the cut (R4 truncation is announced)."""
    tokens = count_tokens(text)
    if tokens <= max_tokens:
        return text, None
    keep = len(text)
    for _ in range(8):  # bounded: each step shrinks by the measured ratio
        keep = int(keep * max_tokens / max(tokens, 1) * 0.95)
        tokens = count_tokens(text[:keep])
        if tokens <= max_tokens:
            break
    cut = {
        "reason": f"the file's text is longer than the {max_tokens} tokens this server returns in one result",
        "shown": f"characters 1-{keep} of {len(text)}",
        "rest": "not shown: ask the API for a smaller part of the file (a narrower export, a date range), "
        "if it offers one",
    }
    return text[:keep], cut


def _too_big(answer: Answer, action: Action, max_bytes: int) -> ToolError:
    size = (
        f"{_sized(answer.declared_bytes)} (its Content-Length)"
        if answer.declared_bytes is not None and answer.declared_bytes > max_bytes
        else f"more than {_sized(max_bytes)}"
    )
    what = (
        f"the API answered '{action.name}' (HTTP {answer.status_code}) with a file of {size}; this server "
        f"reads at most {_sized(max_bytes)} of one answer, so none of it is returned."
    )
    how = (
        "Ask for a smaller file if the API can make one (fewer pages, a lower resolution, a narrower "
        "export), or ask the user to raise server.max_body_bytes in the mapping and regenerate the server."
    )
    recovery = Recovery.FIX_INPUT if action.idempotent else Recovery.CHECK_OUTCOME
    return ToolError(what, check_before_repeating(action, how), recovery)


def _sized(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count:,} bytes ({count / 1024 / 1024:.1f} MB)"
    return f"{count:,} bytes"


def _address(answer: httpx.Response) -> str:
    """Where the file came from, as the resource's URI: the request's URL without its query (which may
    carry a credential) and without any user part."""
    url = answer.request.url
    port = f":{url.port}" if url.port else ""
    return (
        f"{url.scheme}://{url.host}{port}{url.raw_path.split(b'?')[0].decode('ascii')}"
    )


def _base64(content: bytes) -> str:
    return base64.b64encode(content).decode("ascii")


def _compact(data: Any) -> str:
    """The text copy of the structured result, compact as every result's (results.py)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
