"""The runtime's parse of an answer body (E5 no internals): the credential's values are replaced in
every string and key, however the body spells them, and nesting past the limit is refused. Most bodies
hold no credential and skip the walk string by string: the answers are the same either way."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.support.paths import GENERATED

SECRET = "sk_live/4eC39HqLyjWDarjtT1zdp7dc"  # holds a `/`, which JSON may write as `\/`


@pytest.fixture(scope="module")
def results() -> Iterator[ModuleType]:
    sys.path.insert(0, str(GENERATED / "ads"))
    try:
        yield importlib.import_module("ads_mcp._runtime.results")
    finally:
        sys.path.remove(str(GENERATED / "ads"))
        for name in [n for n in sys.modules if n == "ads_mcp" or n.startswith("ads_mcp.")]:
            del sys.modules[name]


def _unicode_escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


@pytest.mark.parametrize(
    "body",
    [
        f'{{"token": "{SECRET}"}}',
        f'{{"{SECRET}": 1}}',  # a key
        '{"token": "Bearer ' + SECRET.replace("/", "\\/") + '"}',  # the short escape
        f'{{"token": "{_unicode_escaped(SECRET)}"}}',  # every character escaped
        f'{{"token": "{SECRET[:8]}{_unicode_escaped(SECRET[8:12])}{SECRET[12:]}"}}',
    ],
)
def test_the_credential_is_redacted_however_the_body_spells_it(results: ModuleType, body: str) -> None:
    data, problem = results.decode_body(body.encode(), (SECRET,))
    assert problem is None
    assert SECRET not in json.dumps(data, ensure_ascii=False)
    assert "[redacted]" in json.dumps(data)


def test_a_body_in_utf16_is_redacted_too(results: ModuleType) -> None:
    data, _ = results.decode_body(json.dumps({"token": SECRET}).encode("utf-16"), (SECRET,))
    assert data == {"token": "[redacted]"}


def test_a_body_without_the_credential_is_the_parsed_json(results: ModuleType) -> None:
    body = json.dumps(
        {"items": [{"id": n, "url": f"https:\\/\\/x.test\\/{n}", "t": "\\u00e9"} for n in range(3)]}
    )
    data, problem = results.decode_body(body.encode(), ("other-secret-value",))
    assert problem is None and data == json.loads(body)


@pytest.mark.parametrize("secrets", [(), (SECRET,)])
def test_nesting_past_the_limit_is_refused_with_or_without_a_credential(
    results: ModuleType, secrets: tuple
) -> None:
    inner = f'"{SECRET}"' if secrets else "1"
    deepest_allowed = "[" * 64 + inner + "]" * 64
    too_deep = "[" * 65 + inner + "]" * 65
    assert results.decode_body(deepest_allowed.encode(), secrets)[1] is None
    assert results.decode_body(too_deep.encode(), secrets) == (None, "nested more than 64 levels deep")
    assert results.decode_body(b'"plain"', secrets) == ("plain", None)
