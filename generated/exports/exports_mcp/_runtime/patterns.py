"""JSON Schema `pattern`s are ECMA-262 regular expressions; this module turns one into Python `re`.

Specs write constructs Python's `re` does not have, most often Unicode property classes (AWS tag
keys: `^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$`). Those are translated here: `\\p{L}` becomes the code
point ranges of Unicode's letter categories (built from `unicodedata` on first use), `\\u{1F600}`
a Python escape, `(?<name>` a Python named group. A pattern that still does not compile is not
checked at all (the API re-checks it) instead of failing the call: `python_pattern` returns None,
and the generator warns about it with the schema's location when it writes the package.

Stdlib only: the generator loads this same file to foresee which patterns the server can check.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

# Long names ECMA-262 accepts beside the one- and two-letter category names.
_LONG_NAMES = {
    "Letter": "L",
    "Lowercase_Letter": "Ll",
    "Uppercase_Letter": "Lu",
    "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm",
    "Other_Letter": "Lo",
    "Mark": "M",
    "Number": "N",
    "Decimal_Number": "Nd",
    "Letter_Number": "Nl",
    "Other_Number": "No",
    "Punctuation": "P",
    "Symbol": "S",
    "Separator": "Z",
    "Space_Separator": "Zs",
    "Other": "C",
    "Control": "Cc",
}
_PROPERTY = re.compile(r"(?:General_Category=|gc=)?([A-Za-z_]+)")


def python_pattern(pattern: str) -> str | None:
    """The Python `re` spelling of an ECMA-262 pattern, or None when it cannot be compiled."""
    try:
        translated = _translate(pattern)
        re.compile(translated, re.ASCII)
    except (re.error, ValueError, OverflowError, RecursionError):
        return None
    return translated


def _translate(pattern: str) -> str:
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt in "pP" and pattern.startswith("{", i + 2):
                end = pattern.index(
                    "}", i + 2
                )  # ValueError when unclosed: not translatable
                ranges = _category_ranges(pattern[i + 3 : end])
                negated = nxt == "P"
                if in_class and negated:
                    raise ValueError("a negated property class inside a class")
                out.append(
                    ranges if in_class else f"[{'^' if negated else ''}{ranges}]"
                )
                i = end + 1
                continue
            if nxt == "u" and pattern.startswith("{", i + 2):
                end = pattern.index("}", i + 2)
                out.append(f"\\U{int(pattern[i + 3 : end], 16):08x}")
                i = end + 1
                continue
            if nxt == "k" and pattern.startswith("<", i + 2) and not in_class:
                end = pattern.index(">", i + 2)
                out.append(f"(?P={pattern[i + 3 : end]})")
                i = end + 1
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith("[^]", i):  # ECMA: any character at all
                out.append(r"[\s\S]")
                i += 3
                in_class = False
                continue
        elif pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
            out.append("(?P<")
            i += 3
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _category_ranges(name: str) -> str:
    found = _PROPERTY.fullmatch(name)
    if not found:
        raise ValueError(f"unknown Unicode property {name!r}")
    category = _LONG_NAMES.get(found.group(1), found.group(1))
    ranges = _all_categories().get(category)
    if ranges is None:
        raise ValueError(f"unknown Unicode property {name!r}")
    return ranges


@functools.lru_cache(maxsize=1)
def _all_categories() -> dict[str, str]:
    """Every general category (and its one-letter group) as a character-class body of ranges."""
    starts: dict[str, list[tuple[int, int]]] = {}
    for code in range(sys.maxunicode + 1):
        category = unicodedata.category(chr(code))
        for key in (category, category[0]):
            spans = starts.setdefault(key, [])
            if spans and spans[-1][1] == code - 1:
                spans[-1] = (spans[-1][0], code)
            else:
                spans.append((code, code))
    return {
        key: "".join(
            _escaped(a) if a == b else f"{_escaped(a)}-{_escaped(b)}" for a, b in spans
        )
        for key, spans in starts.items()
    }


def _escaped(code: int) -> str:
    return f"\\U{code:08x}"
