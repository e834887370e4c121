"""How `mcpgen init` scales with the number of operations: time per 1,000 operations, 1k to 10k.

A script, not a test (no wall-clock budgets in tests). It writes synthetic OpenAPI specs shaped like
big vendor specs (tags of ~40 operations split by sub-resource, shared parameters and schemas behind
`$ref`s, list/get/create/update/delete on each resource), runs `mcpgen init` on each as a user does
(a subprocess, spawn to exit, the build check included), and prints a table. Linear means the last
column stays flat: the target is within 1.5x from 1k to 10k operations.

    .venv/bin/python benchmarks/init_scaling.py                  # 1k, 2k, 5k, 10k
    .venv/bin/python benchmarks/init_scaling.py --sizes 1000,10000 --runs 3
    .venv/bin/python benchmarks/init_scaling.py --profile 5000   # cProfile of one in-process init
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OPERATIONS_PER_RESOURCE = 5  # list, get, create, update, delete
RESOURCES_PER_TAG = 8  # ~40 operations a tag: big enough to be split by sub-resource


def synthetic_spec(operations: int) -> dict[str, Any]:
    """An OpenAPI 3.0 document with `operations` operations (rounded up to a whole resource)."""
    resources = -(-operations // OPERATIONS_PER_RESOURCE)
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for index in range(resources):
        tag = f"area{index // RESOURCES_PER_TAG}"
        thing = f"widget{index}"
        schema = f"Widget{index}"
        schemas[schema] = {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "name": {"type": "string", "description": f"Name of the {thing}."},
                "status": {"type": "string", "enum": ["active", "paused"]},
                "weight": {"type": "integer", "description": "Weight in grams."},
                "created_at": {"type": "string", "format": "date-time"},
            },
        }
        ref = {"$ref": f"#/components/schemas/{schema}"}
        one = {"200": {"description": "ok", "content": {"application/json": {"schema": ref}}}}
        many = {
            "200": {
                "description": "ok",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "items": {"type": "array", "items": ref},
                                "next_cursor": {"type": "string"},
                            },
                        }
                    }
                },
            }
        }
        body = {"required": True, "content": {"application/json": {"schema": ref}}}
        item_id = {"name": "widgetId", "in": "path", "required": True, "schema": {"type": "string"}}
        collection = f"/{tag}/{thing}s"
        paths[collection] = {
            "get": {
                "operationId": f"list{schema}s",
                "tags": [tag],
                "summary": f"List {thing}s.",
                "parameters": [
                    {"$ref": "#/components/parameters/Limit"},
                    {"$ref": "#/components/parameters/Cursor"},
                ],
                "responses": many,
            },
            "post": {"operationId": f"create{schema}", "tags": [tag], "requestBody": body, "responses": one},
        }
        paths[f"{collection}/{{widgetId}}"] = {
            "parameters": [item_id],
            "get": {"operationId": f"get{schema}", "tags": [tag], "responses": one},
            "patch": {"operationId": f"update{schema}", "tags": [tag], "requestBody": body, "responses": one},
            "delete": {
                "operationId": f"delete{schema}",
                "tags": [tag],
                "responses": {"204": {"description": "gone"}},
            },
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Scale API", "version": "1.0.0", "description": "A synthetic API for timing init."},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "parameters": {
                "Limit": {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}},
                "Cursor": {"name": "cursor", "in": "query", "schema": {"type": "string"}},
            },
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
        },
    }


def time_init(spec: Path, out: Path) -> float:
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "mcpgen", "init", str(spec), "-o", str(out), "--force"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"mcpgen init failed on {spec}:\n{completed.stderr}")
    return elapsed


def profile(operations: int, directory: Path) -> None:
    from mcpgen.authoring.draft import init_mapping
    from mcpgen.build.server import build_server
    from mcpgen.load.mapping import load_mapping
    from mcpgen.load.openapi import load_spec

    spec_path = directory / f"scale{operations}.json"
    spec_path.write_text(json.dumps(synthetic_spec(operations)), encoding="utf-8")
    out = directory / "mapping.yaml"
    profiler = cProfile.Profile()
    profiler.enable()
    spec = load_spec(spec_path)
    text, _ = init_mapping(spec, spec_label=spec_path.name)
    out.write_text(text, encoding="utf-8")
    build_server(spec, load_mapping(out), spec_file=spec_path.name, mapping_file=out.name)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,2000,5000,10000", help="operation counts, comma-separated")
    parser.add_argument("--runs", type=int, default=1, help="runs per size; the median is shown")
    parser.add_argument(
        "--profile", type=int, metavar="N", help="profile one in-process init of N operations"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcpgen-init-scaling-") as tmp:
        directory = Path(tmp)
        if args.profile:
            profile(args.profile, directory)
            return
        sizes = [int(s) for s in args.sizes.split(",")]
        rows = []
        for size in sizes:
            spec = directory / f"scale{size}.json"
            document = synthetic_spec(size)
            spec.write_text(json.dumps(document), encoding="utf-8")
            count = sum(len([k for k in item if k != "parameters"]) for item in document["paths"].values())
            seconds = statistics.median(
                time_init(spec, directory / f"m{size}.yaml") for _ in range(args.runs)
            )
            rows.append((count, seconds, seconds / count * 1000))
        first = rows[0][2]
        print(f"{'operations':>10} {'init s':>8} {'s per 1k ops':>13} {'vs first':>9}")
        for count, seconds, per_k in rows:
            print(f"{count:>10,} {seconds:>8.2f} {per_k:>13.3f} {per_k / first:>8.2f}x")


if __name__ == "__main__":
    main()
