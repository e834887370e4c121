"""The spec file Prism serves for `mcpgen check`: the user's file, or, for a spec given by URL, its kept
copy laid out with the documents its `$ref`s name at the same relative places, so Prism (which reads
files) resolves them as mcpgen did. They are fetched as `generate` fetches them: from the hosts the
command line allows only, and through the same cache."""

from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

from mcpgen.load.openapi import Spec
from mcpgen.load.refs import Located, iter_refs
from mcpgen.load.sources import Document

MAX_DOCUMENTS = 200  # a spec split into more files than this is not laid out past it


def served_spec(given: Path | str, spec: Spec, folder: Path) -> Path:
    """The file Prism serves; raises DiagnosticError when a referenced document cannot be fetched."""
    if spec.fetched is None:
        return Path(given)
    base = spec.fetched.final_url
    served = folder / (PurePosixPath(urlsplit(base).path).name or "openapi")
    _copy(spec.fetched.path, served)
    seen: set[str] = set()
    pending: list[Document] = [spec.document]
    while pending and len(seen) < MAX_DOCUMENTS:
        document = pending.pop()
        for found in iter_refs(Located(document, "", document.data)):
            file_part = str(found.value["$ref"]).partition("#")[0]
            url = urljoin(document.base_url or base, file_part) if file_part else None
            relative = _beside(base, url) if url else None
            if url is None or relative is None or url in seen:
                continue  # within the document, or elsewhere: Prism reads those itself
            seen.add(url)
            loaded = spec.resolver.follow(Located(document, found.pointer, {"$ref": file_part})).document
            _copy(loaded.path, folder / relative)
            pending.append(loaded)
    return served


def _beside(base: str, url: str) -> str | None:
    """`url`'s path relative to the directory of `base`, when it is on the same host under it."""
    root, target = urlsplit(base), urlsplit(url)
    if (root.scheme, root.netloc) != (target.scheme, target.netloc):
        return None
    directory = root.path.rsplit("/", 1)[0] + "/"
    relative = target.path[len(directory) :] if target.path.startswith(directory) else ""
    parts = PurePosixPath(relative).parts
    return relative if parts and ".." not in parts and relative != root.path[len(directory) :] else None


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
