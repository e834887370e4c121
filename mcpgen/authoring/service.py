"""The server as the draft describes it: its name, how descriptions name the API, its description and
base URL, the spec's tag descriptions, and the sentence helpers descriptions are written with."""

from __future__ import annotations

import re

from mcpgen.build.schemas import short_text
from mcpgen.load.openapi import Spec

_TITLE_STOP_WORDS = frozenset(
    {"the", "a", "an", "api", "apis", "rest", "openapi", "swagger", "official", "v1", "v2", "v3"}
)


# Title words that name what an API is about rather than whose it is ('Email Activity (beta)' is
# SendGrid's): every tool name would carry the word, so a search for "send an email" matches them all.
_GENERIC_TITLE_WORDS = frozenset(
    {"email", "emails", "mail", "sms", "messaging", "message", "messages", "payment", "payments", "activity",
     "marketing", "management", "platform", "cloud", "service", "services", "data", "core", "public",
     "user", "users", "account", "accounts", "admin", "web", "open", "my", "our", "video", "voice", "chat",
     "search", "storage", "files", "file", "auth", "identity", "billing", "analytics", "reporting", "v4"}
)  # fmt: skip
_HOST_NOISE = frozenset({"www", "api", "apis", "app", "com", "io", "net", "org", "dev", "co", "uk", "local"})


def service_name(spec: Spec) -> tuple[str, str]:
    title_word = _title_word(spec)
    host = _host_word(spec)
    if title_word is not None and (title_word not in _GENERIC_TITLE_WORDS or host is None):
        return _server_name(title_word), f"from the spec title '{spec.title}'"
    if host is not None:
        name, url = host
        if title_word is not None:
            return _server_name(name), (
                f"from the server URL {url}: the title's '{title_word}' says what the API is about, "
                "not whose it is, and would be in every tool name"
            )
        return _server_name(name), f"from the server URL {url}"
    return "api", "no usable title or server URL in the spec"


def _title_word(spec: Spec) -> str | None:
    for word in re.split(r"[^A-Za-z0-9']+", spec.title):
        word = re.sub(r"'s?$", "", word).lower()
        if word and word not in _TITLE_STOP_WORDS and word[0].isalpha():
            return word
    return None


def _host_word(spec: Spec) -> tuple[str, str] | None:
    """The product name in the first server URL's host: 'sendgrid' from http://api.sendgrid.com/v3."""
    for url in spec.servers:
        host = re.sub(r"^https?://", "", url).split("/")[0].split(":")[0]
        if "{" in host or host in ("localhost", "127.0.0.1") or "example" in host:
            continue
        parts = [p for p in host.split(".") if p not in _HOST_NOISE]
        if parts and parts[-1][:1].isalpha():
            return parts[-1], url
    return None


def api_name(spec: Spec, server: str) -> str:
    """How descriptions name the API: the title's first real word as written ('GitHub', 'Jira')."""
    for word in re.split(r"[^A-Za-z0-9']+", spec.title):
        bare = re.sub(r"'s?$", "", word)
        if bare and bare.lower() not in _TITLE_STOP_WORDS and bare[0].isalpha():
            return bare
    return server


def _server_name(word: str) -> str:
    name = re.sub(r"[^a-z0-9_]", "", word.lower())[:20]
    return name if name and name[0].isalpha() else "api"


def server_description(spec: Spec) -> str:
    text = first_sentence(short_text(spec.description, 300)) if spec.description else ""
    return text or f"Tools for the {spec.title or 'upstream'} API."


def base_url(spec: Spec) -> str | None:
    for url in spec.servers:
        if url.startswith(("http://", "https://")) and "{" not in url:
            return url
    return None


def tag_descriptions(spec: Spec) -> dict[str, str]:
    found = {}
    for tag in spec.document.data.get("tags") or ():
        if isinstance(tag, dict) and isinstance(tag.get("name"), str) and tag.get("description"):
            found[tag["name"]] = first_sentence(short_text(str(tag["description"]), 200))
    return found


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    for end in (". ", "! ", "? "):
        if end in text:
            return text[: text.index(end) + 1]
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def one_line(text: str) -> str:
    return " ".join(text.split())
