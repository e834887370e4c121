"""Files the agent sends in a multipart or binary request body: a path under the one directory the
server is configured to read (`server.files.read`), or the file's content as a base64 data URL. Never
an arbitrary path: the path is resolved, symlinks included, and refused unless it stays in that
directory (P3 credentials: the agent reaches no file the user did not put there)."""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from .errors import Recovery, ToolError

_DATA_URL = "data:"


@dataclass(frozen=True, slots=True)
class FileReader:
    """`read`: the directory files may be read from (None: only data URLs); `max_bytes`: the most
    one file may hold."""

    read: str | None
    max_bytes: int

    def open(self, arg: str, value: object) -> tuple[str, bytes, str]:
        """(file name, content, media type) of the argument `arg`'s value."""
        if not isinstance(value, str) or not value:
            raise self._refused(arg, "it is not a file path or a data URL")
        if value.startswith(_DATA_URL):
            return self._decoded(arg, value)
        return self._read(arg, value)

    def body(
        self,
        kind: str,
        form: list[tuple[str, str]],
        files: list[tuple[str, str, object]],
        json: frozenset[str] = frozenset(),
    ) -> tuple[bytes, str] | None:
        """A multipart body of the fields and the files, or a binary one of the one file: (content,
        content type); None when there is nothing to send. `files`: (wire name, argument, value);
        `json`: the fields whose part is JSON text."""
        opened = [(wire, self.open(arg, value)) for wire, arg, value in files]
        if kind == "binary":
            return (opened[0][1][1], "application/octet-stream") if opened else None
        if not (opened or form):
            return None
        boundary = uuid.uuid4().hex
        return multipart(
            boundary, form, opened, json
        ), f"multipart/form-data; boundary={boundary}"

    def _decoded(self, arg: str, value: str) -> tuple[str, bytes, str]:
        head, _, data = value[len(_DATA_URL) :].partition(",")
        media, _, coding = head.rpartition(";")
        if coding != "base64":
            raise self._refused(
                arg, "its data URL is not base64 (data:<type>;base64,<data>)"
            )
        if len(data) * 3 // 4 > self.max_bytes:
            raise self._too_big(arg)
        try:
            content = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise self._refused(
                arg, "its data URL does not hold valid base64"
            ) from None
        return arg, content, media or "application/octet-stream"

    def _read(self, arg: str, value: str) -> tuple[str, bytes, str]:
        if self.read is None:
            raise self._refused(arg, "this server reads no files from disk")
        root = Path(self.read).resolve()
        # The resolved path (symlinks followed) must stay inside the directory.
        path = (root / value).resolve()
        if not path.is_relative_to(root) or path == root:
            raise self._refused(arg, f"{value!r} is outside {root}")
        if not path.is_file():
            raise self._refused(arg, f"there is no file {value!r} in {root}")
        if os.path.getsize(path) > self.max_bytes:
            raise self._too_big(arg)
        media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return path.name, path.read_bytes(), media

    def _refused(self, arg: str, why: str) -> ToolError:
        where = (
            f"a path inside {Path(self.read).resolve()} (the directory this server reads files from), or"
            if self.read is not None
            else "as"
        )
        return ToolError(
            f"'{arg}' cannot be sent: {why}.",
            f"Give '{arg}' {where} the file's content as data:<media type>;base64,<data>, and call again.",
            Recovery.FIX_INPUT,
        )

    def _too_big(self, arg: str) -> ToolError:
        return ToolError(
            f"'{arg}' holds more than {self.max_bytes} bytes, the most this server sends in one file.",
            "Send a smaller file, or ask the user to raise server.max_body_bytes in the mapping.",
            Recovery.FIX_INPUT,
        )


def multipart(
    boundary: str,
    form: list[tuple[str, str]],
    files: list[tuple[str, tuple[str, bytes, str]]],
    json: frozenset[str] = frozenset(),
) -> bytes:
    """A multipart/form-data body (RFC 7578): each field a part (typed application/json when its
    encoding says so), each file a part with its name and type."""
    parts: list[tuple[str, str | None, bytes]] = [
        (
            f'form-data; name="{_quoted(name)}"',
            "application/json" if name in json else None,
            value.encode(),
        )
        for name, value in form
    ]
    parts += [
        (
            f'form-data; name="{_quoted(name)}"; filename="{_quoted(file_name)}"',
            media,
            data,
        )
        for name, (file_name, data, media) in files
    ]
    out: list[bytes] = []
    for disposition, media, data in parts:
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
        head += f"Content-Type: {media}\r\n" if media else ""
        out += (head.encode(), b"\r\n", data, b"\r\n")
    return b"".join(out) + f"--{boundary}--\r\n".encode()


def _quoted(name: str) -> str:
    """A name inside a quoted header parameter: the characters that would end it percent-encoded (the
    HTML form encoding)."""
    return name.replace("\r", "%0D").replace("\n", "%0A").replace('"', "%22")
