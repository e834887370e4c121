"""Where the tokens of the tool definitions go, per part, on the `init` mappings of real specs.

    python benchmarks/definition_parts.py [--checkout DIR] [--specs github asana jira slack stripe]

For each spec in /work/shared/specs: `mcpgen init`, then `mcpgen generate`, both from CHECKOUT (this
one by default, run with CHECKOUT first on PYTHONPATH), and the package's tools.json read as the
definitions a client gets (discovery meta-tools aside). Tokens are o200k_base by tiktoken, from the
tests' cached encoding (.cache/tiktoken/tiktoken_cache, see scripts/test), each part counted as the
JSON text it is in the definition:

  total             the whole catalog as compact JSON
  tool desc         each tool's `description`
  param desc        every `description` inside inputSchema (parameters, nested properties)
  enums             every `enum` list inside inputSchema
  output schemas    each tool's `outputSchema`
  preview/apply     whole definitions of the tools in a preview/apply pair (names ending _preview
                    or _apply), beside the rest: how much the pairs cost, not a part of their own
  repeated sent.    sentences (split at '. ') said more than once across all descriptions: the
                    tokens of every saying after the first
  top repeats       the sentences repeated most, by tokens spent on the repeats
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SPECS = Path("/work/shared/specs")
os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(ROOT / ".cache" / "tiktoken" / "tiktoken_cache"))

import tiktoken  # noqa: E402

ENCODING = tiktoken.get_encoding("o200k_base")


def tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return len(ENCODING.encode(text, disallowed_special=()))


def mcpgen(checkout: Path, *args: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(checkout.resolve()))
    subprocess.run(
        [sys.executable, "-P", "-m", "mcpgen.cli.app", *args], env=env, check=True, capture_output=True
    )


def catalog(checkout: Path, spec: Path, work: Path) -> list[dict[str, Any]]:
    mapping, out = work / "mapping.yaml", work / "pkg"
    mcpgen(checkout, "init", str(spec), "-o", str(mapping), "--force")
    mcpgen(checkout, "generate", str(spec), "-m", str(mapping), "-o", str(out), "-q")
    package = next(p for p in out.iterdir() if p.is_dir() and (p / "tools.json").is_file())
    tools = json.loads((package / "tools.json").read_text(encoding="utf-8"))
    return [t for t in tools if "dev.mcpgen/discovery" not in (t.get("_meta") or {})]


def _walk(schema: Any, key: str, found: list[Any]) -> None:
    """Every value under `key` in a JSON Schema (and `properties` named `key` are not keywords)."""
    if isinstance(schema, dict):
        for k, v in schema.items():
            if k == "properties" and isinstance(v, dict):
                for prop in v.values():
                    _walk(prop, key, found)
            elif k == key and not isinstance(v, dict):
                found.append(v)
            else:
                _walk(v, key, found)
    elif isinstance(schema, list):
        for item in schema:
            _walk(item, key, found)


SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def parts(tools: list[dict[str, Any]]) -> tuple[dict[str, int], list[tuple[int, int, str]]]:
    descriptions = [t.get("description", "") for t in tools]
    params: list[Any] = []
    enums: list[Any] = []
    for t in tools:
        _walk(t.get("inputSchema", {}), "description", params)
        _walk(t.get("inputSchema", {}), "enum", enums)
    pairs = [t for t in tools if t["name"].endswith(("_preview", "_apply"))]
    said = Counter(
        sentence
        for text in [*descriptions, *[p for p in params if isinstance(p, str)]]
        for sentence in SENTENCE_END.split(text)
        if len(sentence) > 20
    )
    repeats = sorted(((tokens(s) * (n - 1), n, s) for s, n in said.items() if n > 1), reverse=True)
    return {
        "total": tokens(tools),
        "tool desc": sum(tokens(d) for d in descriptions),
        "param desc": sum(tokens(p) for p in params if isinstance(p, str)),
        "enums": sum(tokens(e) for e in enums),
        "output schemas": sum(tokens(t["outputSchema"]) for t in tools if "outputSchema" in t),
        "preview/apply": tokens(pairs) if pairs else 0,
        "repeated sent.": sum(r[0] for r in repeats),
        "tools": len(tools),
    }, repeats


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--specs", nargs="*", default=["github", "asana", "jira", "slack", "stripe"])
    parser.add_argument("--top", type=int, default=5)
    options = parser.parse_args()
    columns = [
        "tools",
        "total",
        "tool desc",
        "param desc",
        "enums",
        "output schemas",
        "preview/apply",
        "repeated sent.",
    ]
    print("| spec | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    top: dict[str, list[tuple[int, int, str]]] = {}
    for name in options.specs:
        with tempfile.TemporaryDirectory() as tmp:
            counted, repeats = parts(catalog(options.checkout, SPECS / f"{name}.json", Path(tmp)))
        print(f"| {name} | " + " | ".join(f"{counted[c]:,}" for c in columns) + " |", flush=True)
        top[name] = repeats[: options.top]
    for name, repeats in top.items():
        print(f"\n{name}: most repeated sentences (tokens on repeats, times said)")
        for spent, n, sentence in repeats:
            print(f"  {spent:>7,}  x{n:<5} {sentence[:110]}")


if __name__ == "__main__":
    main()
