"""`$ref` resolution across local files. A reference to a network URI is refused (T6) unless the
command line names its host (`--allow-ref-host`): then it is fetched like a spec given by URL
(remote.py: https only, bounded, cached). In a document fetched by URL, a relative reference is one to
the network too, resolved against that URL."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote, urljoin, urlsplit

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, DiagnosticError, SourceRef, error
from mcpgen.load.remote import RemoteOptions, fetch
from mcpgen.load.sources import Document, join_pointer, load_document, split_pointer


class Located:
    """A value together with the document and pointer it was found at. Never changed once made.

    A child's pointer is joined the first time something reads it: the build walks hundreds of
    thousands of values of a large spec (GitHub's: some 200,000) and reads the place of a third of
    them. Equality, hashing and repr are a frozen dataclass's over (document, pointer, value).
    """

    __slots__ = ("document", "value", "_pointer", "_parent", "_tokens")

    def __init__(
        self,
        document: Document,
        pointer: str,
        value: Any,
        _parent: Located | None = None,
        _tokens: tuple[str | int, ...] = (),
    ) -> None:
        self.document: Final = document
        self.value: Final = value
        self._pointer = pointer
        self._parent = _parent  # with `_tokens`, until the pointer is first read
        self._tokens = _tokens

    @property
    def pointer(self) -> str:
        parent = self._parent
        if parent is not None:
            self._pointer = join_pointer(parent.pointer, *self._tokens)
            self._parent, self._tokens = None, ()
        return self._pointer

    @property
    def source(self) -> SourceRef:
        return self.document.locate(self.pointer)

    def child(self, *tokens: str | int) -> Located:
        value = self.value
        for token in tokens:
            value = value[token]
        return Located(self.document, "", value, self, tokens)

    def _fields(self) -> tuple[Document, str, Any]:
        return (self.document, self.pointer, self.value)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"Located(document={self.document!r}, pointer={self.pointer!r}, value={self.value!r})"


class RefResolver:
    """Follows `$ref`s from a root document into the same file or other files on disk.

    Files are read only from the spec's own directory tree and the directories in `roots` (the
    command line's --allow-ref-root): a spec is untrusted, and `$ref: /etc/passwd` or `../../.ssh/...`
    would otherwise copy a file of the user's into the generated package. Links are followed before
    the check, so a symlink cannot lead out either. Only regular files are read, at most
    MAX_SPEC_BYTES each: a `$ref` to /dev/zero or a named pipe neither fills memory nor hangs.
    """

    def __init__(
        self,
        root: Document,
        loader: Callable[[Path], Document] | None = None,
        *,
        roots: Sequence[Path] = (),
        remote: RemoteOptions | None = None,
    ):
        self.root = root
        self.remote = remote or RemoteOptions()
        self._fetched: dict[str, Document] = {}
        self._loader = loader or (
            lambda path: load_document(path, display_path=_display(path, root), regular_only=True)
        )
        self._documents: dict[Path, Document] = {root.path.resolve(): root}
        # What each `$ref` string leads to from each document (kept beside it, so its id stays its
        # own): a generate of GitHub's spec follows 1,400 of them some 24,000 times.
        self._followed: dict[tuple[int, str], tuple[Document, Located]] = {}
        # The spec's directory as the user named it, so a spec reached through a symlink keeps its tree.
        self.roots = (Path(os.path.abspath(root.path)).parent.resolve(), *(Path(r).resolve() for r in roots))

    def deref(self, located: Located, limit: int = 32) -> Located:
        """Follow `$ref` chains until a non-reference value (bounded, so cycles end in an error)."""
        current = located
        for _ in range(limit):
            value = current.value
            if not (isinstance(value, dict) and isinstance(value.get("$ref"), str)):
                return current
            current = self.follow(current)
        raise DiagnosticError([error(codes.R003, "$ref chain is too long or cyclic", located.source)])

    def follow(self, located: Located) -> Located:
        ref = located.value["$ref"]
        key = (id(located.document), ref)
        found = self._followed.get(key)
        if found is None:
            found = self._followed[key] = (located.document, self._follow(located, ref))
        return found[1]

    def _follow(self, located: Located, ref: str) -> Located:
        file_part, _, fragment = ref.partition("#")
        # A $ref is a URI reference: its path and its fragment (a JSON pointer) may be percent-encoded,
        # as in '#/paths/~1a~1%7Bid%7D' (RFC 6901, section 6).
        if "%" in fragment:
            fragment = unquote(fragment)
        document = located.document
        url = _remote_url(ref, file_part, document)
        if url is not None:
            if (urlsplit(url).hostname or "").lower() not in self.remote.ref_hosts:
                raise DiagnosticError([_network_error(ref, located)])
            document = self._fetched.get(url) or self._load_url(url, located)
        elif file_part:
            if "\x00" in unquote(file_part):  # no file name holds one: the OS refuses the path
                raise DiagnosticError([_nul_error(ref, located)])
            target = (located.document.path.parent / unquote(file_part)).resolve()
            if not any(target.is_relative_to(root) for root in self.roots):
                raise DiagnosticError([self._outside(ref, located)])
            document = self._documents.get(target) or self._load(target, located)
        value = _walk(document.data, fragment)
        if value is _MISSING:
            raise DiagnosticError(
                [
                    error(
                        codes.R002,
                        f"$ref '{_shown(ref)}' points at nothing in {document.display_path}",
                        located.child("$ref").source,
                        hint="check the spelling of the path after '#', e.g. #/components/schemas/Pet",
                    )
                ]
            )
        return Located(document, fragment, value)

    def _outside(self, ref: str, located: Located) -> Diagnostic:
        where = f"the spec's directory ({self.roots[0]})"
        if len(self.roots) > 1:
            where += " or a directory given with --allow-ref-root"
        return error(
            codes.R005,
            f"$ref '{_shown(ref)}' points outside {where}; mcpgen reads referenced files only from there",
            located.child("$ref").source,
            hint="copy the referenced file into the spec's directory, or pass --allow-ref-root DIR to "
            "let references reach files under DIR",
        )

    def _load_url(self, url: str, located: Located) -> Document:
        def load() -> Document:
            fetched = fetch(url, self.remote)
            document = load_document(fetched.path, display_path=url, regular_only=True)
            document.base_url = fetched.final_url
            return document

        document = self._wrapped(load, located)
        self._fetched[url] = document
        return document

    def _load(self, target: Path, located: Located) -> Document:
        document = self._wrapped(lambda: self._loader(target), located)
        self._documents[target] = document
        return document

    def _wrapped(self, load: Callable[[], Document], located: Located) -> Document:
        try:
            return load()
        except DiagnosticError as exc:
            first = exc.diagnostics[0]
            raise DiagnosticError(
                [
                    error(
                        codes.R004,
                        f"$ref '{_shown(located.value['$ref'])}' cannot be loaded: {first.message}",
                        located.child("$ref").source,
                        hint=first.hint,
                    )
                ]
            ) from None


_MISSING = object()


def _walk(data: Any, fragment: str) -> Any:
    value = data
    for token in split_pointer(fragment):
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return _MISSING
    return value


def _remote_url(ref: str, file_part: str, document: Document) -> str | None:
    """The URL a `$ref` names without its fragment: one written as a URL, or, in a document fetched
    by URL, any reference to another document."""
    if network_ref_problem(ref):
        return urljoin(document.base_url or "", file_part) if file_part.startswith("//") else file_part
    if file_part and document.base_url:
        return urljoin(document.base_url, file_part)
    return None


def network_ref_problem(ref: str) -> str | None:
    parts = urlsplit(ref)
    if parts.scheme or ref.startswith("//"):
        return f"'{ref}' is a network reference"
    return None


def _nul_error(ref: str, located: Located) -> Diagnostic:
    return error(
        codes.R004,
        f"$ref '{_shown(ref)}' cannot be loaded: its file path holds a NUL character, which no file name can",
        located.child("$ref").source,
        hint="write the relative path of the referenced file, e.g. schemas/pet.yaml#/Pet",
    )


def _network_error(ref: str, located: Located) -> Diagnostic:
    return error(
        codes.R001,
        f"$ref '{_shown(ref)}' points to the network; mcpgen fetches references only from hosts "
        "--allow-ref-host names",
        located.child("$ref").source,
        hint="pass --allow-ref-host HOST to fetch it (https only), or download the referenced document "
        "next to the spec and refer to it by relative path",
    )


def iter_refs(located: Located) -> Iterator[Located]:
    """Every object holding a `$ref` string below `located`, in document order."""
    # Plain tuples on the stack: this walks all of a 13 MB spec, so pointers are built only for hits.
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(located.value, ())]
    while stack:
        value, tokens = stack.pop()
        if isinstance(value, dict):
            if isinstance(value.get("$ref"), str):
                yield Located(located.document, join_pointer(located.pointer, *tokens), value)
            stack.extend((value[key], (*tokens, key)) for key in reversed(list(value)))
        elif isinstance(value, list):
            stack.extend((value[i], (*tokens, i)) for i in range(len(value) - 1, -1, -1))


def check_network_refs(root: Document, allowed_hosts: Sequence[str] = ()) -> list[Diagnostic]:
    """Every `$ref` to the network whose host is not allowed (a relative one in a document fetched by
    URL is met, and refused, when it is followed)."""

    def refused(ref: str) -> bool:
        return bool(network_ref_problem(ref)) and (urlsplit(ref).hostname or "").lower() not in allowed_hosts

    if not any(refused(ref) for ref in _ref_strings(root.data) if not ref.startswith("#")):
        return []  # the common case, found without making a pointer for every `$ref` (`iter_refs`)
    return [
        _network_error(found.value["$ref"], found)
        for found in iter_refs(Located(root, "", root.data))
        if refused(found.value["$ref"])
    ]


def _ref_strings(data: Any) -> set[str]:
    """Every `$ref` string in the value, as `iter_refs` finds them (each written once)."""
    found: set[str] = set()
    stack = [data]
    pop, push = stack.pop, stack.append
    while stack:
        value = pop()
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        for child in children:
            if isinstance(child, (dict, list)):
                push(child)
    return found


def _shown(ref: str, limit: int = 200) -> str:
    """A reference as a message quotes it: control characters escaped, at most `limit` characters."""
    text = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in ref)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _display(path: Path, root: Document) -> str:
    try:
        return str(Path(root.display_path).parent / path.relative_to(root.path.resolve().parent))
    except ValueError:
        return str(path)
