"""`mcpgen check` as a user runs it: a process of its own, which generates the package, starts Prism (the
pinned one, scripts/sweep/prism/) or calls a sandbox stand-in, drives the server through the official MCP
client, and prints where the results break the tool's promises.

Each wrong mapping below is wrong in one way, and the finding must name that way at that mapping line.
The findings come from comparing the upstream's raw answers with the tool results, so they hold whatever
the runtime says about itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import skips_fail
from tests.support import prism
from tests.support.paths import ROOT, SPECS
from tests.upstreams.catalog import CatalogUpstream
from tests.upstreams.petstore import PetstoreUpstream
from tests.upstreams.recording import LoopbackUpstream, Reply

pytestmark = pytest.mark.e2e

FIXTURES = ROOT / "tests" / "fixtures" / "check"
CATALOG = FIXTURES / "catalog.openapi.yaml"
CLEAN = (FIXTURES / "mapping.yaml").read_text(encoding="utf-8")
TOKEN = "test-token"


@pytest.fixture(scope="module")
def prism_env() -> dict[str, str]:
    """The environment a user with Node and the pinned Prism has: both found through it."""
    try:
        modules = prism.prism_modules()
        node = prism.node_binary()
    except prism.PrismUnavailable as missing:
        if skips_fail():
            pytest.fail(f"mcpgen check needs Prism: {missing}")
        pytest.skip(f"Prism is not installed: {missing}")
    return {
        "PATH": f"{Path(node).parent}{os.pathsep}/usr/bin:/bin",
        "MCPGEN_PRISM": str(modules / ".bin" / "prism"),
    }


def check(
    spec: Path, mapping: Path, *extra: str, env: dict[str, str], fmt: str = "json"
) -> tuple[int, Any, str]:
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen", "check", str(spec), "-m", str(mapping), "--format", fmt, *extra],
        capture_output=True, text=True, timeout=300, env={"HOME": str(Path.home()), **env},
    )  # fmt: skip
    report = json.loads(done.stdout) if fmt == "json" and done.stdout.strip() else done.stdout
    return done.returncode, report, done.stderr


def errors(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["level"] == "error"]


def line_of(path: Path, text: str, occurrence: int = 1) -> int:
    """The 1-based line of the `occurrence`-th line of `path` holding `text`."""
    lines = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line]
    return lines[occurrence - 1]


def wrong_mapping(tmp_path: Path, old: str, new: str) -> Path:
    assert old in CLEAN
    path = tmp_path / "mapping.yaml"
    path.write_text(CLEAN.replace(old, new, 1), encoding="utf-8")
    return path


# ---- the bundled examples -----------------------------------------------------------------------


@pytest.mark.parametrize("example", ["ads", "deploy", "exports"])
def test_bundled_examples_pass_against_prism(example: str, prism_env: dict[str, str]) -> None:
    spec = next((SPECS / example).glob("*.openapi.*"))
    code, report, stderr = check(spec, SPECS / example / "mapping.yaml", env=prism_env)
    assert (code, errors(report)) == (0, []), stderr
    assert report["upstream"] == {"kind": "prism", "url": None, "prism_version": "5.16.0"}
    assert report["calls"] >= 2 * report["actions"] - 4  # every read twice, every write refused


def test_petstore_passes_against_its_sandbox_stand_in() -> None:
    """Not Prism: the petstore spec asks an OAuth token of findPetsByStatus and findPetsByTags (its
    petstore_auth scheme), which the mapping's api_key auth does not send, so Prism refuses them with 401
    (check reports that too, as K701). petstore.swagger.io itself answers with the api_key alone."""
    with PetstoreUpstream() as upstream:
        code, report, stderr = check(
            SPECS / "petstore" / "petstore.openapi.json", SPECS / "petstore" / "mapping.yaml",
            "--upstream", upstream.base_url, env={"PATH": "/usr/bin:/bin", "PETSTORE_API_KEY": "special-key"},
        )  # fmt: skip
    assert (code, errors(report)) == (0, []), stderr


def test_the_catalog_mapping_is_clean_against_prism(prism_env: dict[str, str]) -> None:
    """The mapping the wrong ones below change in one place each: nothing to find in it."""
    code, report, stderr = check(CATALOG, FIXTURES / "mapping.yaml", env=prism_env)
    assert (code, report["findings"]) == (0, []), stderr


# ---- one wrong mapping per class ----------------------------------------------------------------


def test_concise_fields_that_do_not_exist(tmp_path: Path, prism_env: dict[str, str]) -> None:
    """Check finds the missing concise field itself (K101) at its entry; the server, which now shows the
    record's id and name instead, says so in a note that check quotes too (K601)."""
    mapping = wrong_mapping(tmp_path, "concise: [id, name, status]", "concise: [id, title, status]")
    code, report, _ = check(CATALOG, mapping, env=prism_env)
    found = errors(report)
    assert code == 1
    at_entry = [f for f in found if f["line"] == line_of(mapping, "[id, title")]
    assert at_entry and {f["code"] for f in at_entry} <= {"K101", "K601"}, found
    assert all(f["tool"] == "catalog_items_find" and f["action"] == "list" for f in found), found
    first = at_entry[0]
    assert first["pointer"] == "/tools/0/actions/0/response/concise/1"
    assert first["column"] == mapping.read_text().splitlines()[first["line"] - 1].index("title") + 1
    assert any("title" in f["message"] for f in at_entry)


def test_a_unit_on_a_field_that_is_not_a_number(tmp_path: Path) -> None:
    """The spec (edited here) says an item's `size` is a number of megabytes, and the mapping shows it in
    gigabytes; the sandbox sends a text ('20 MB') in every answer, as the real catalog does. The server
    leaves the text as it is and says so in the result's note; check reports it at the unit's line."""
    spec = tmp_path / "catalog.openapi.yaml"
    spec.write_text(
        CATALOG.read_text(encoding="utf-8").replace(
            "size: {type: string, description: \"The package size as the catalog shows it, such as '20 MB'.\", "
            "example: 20 MB}",
            "size: {type: integer, description: The package size in megabytes., example: 20}",
        ),
        encoding="utf-8",
    )
    units = (
        "        response:\n          units: {size: {name: size_gb, agent: gb, upstream: mb, factor: 1000}}\n"
    )
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        CLEAN.replace("          concise: [id, name, status]\n", "          concise: [id, name, status]\n", 1)
        .replace("        response:\n          concise: [id, name, status]\n", "", 2)
        .replace("        operation: getItem\n", "        operation: getItem\n" + units)
        .replace("        operation: listItems\n", "        operation: listItems\n" + units),
        encoding="utf-8",
    )
    with CatalogUpstream(TOKEN) as upstream:
        code, report, stderr = check(
            spec,
            mapping,
            "--upstream",
            upstream.base_url,
            env={"PATH": "/usr/bin:/bin", "CATALOG_TOKEN": TOKEN},
        )
    found = errors(report)
    assert code == 1, stderr
    # K301 from check's own judging of the values, K601 quoting the note the server put in each result
    assert {(f["code"], f["action"]) for f in found} >= {("K301", "list"), ("K601", "list"), ("K601", "get")}
    assert {f["code"] for f in found} == {"K301", "K601"}
    notes = [f["message"] for f in found if f["code"] == "K601"]
    assert all("size was not converted" in n and "string" in n for n in notes), notes


def test_a_list_with_paging_the_answers_do_not_carry(tmp_path: Path, prism_env: dict[str, str]) -> None:
    paging = "        pagination: {style: cursor, cursor: cursor, next_cursor: next_page_token}\n"
    mapping = wrong_mapping(
        tmp_path, "        operation: listItems\n", f"        operation: listItems\n{paging}"
    )
    code, report, _ = check(CATALOG, mapping, env=prism_env)
    assert code == 1
    assert [(f["code"], f["action"], f["line"], f["pointer"]) for f in errors(report)] == [
        ("K202", "list", line_of(mapping, "next_page_token"), "/tools/0/actions/0/pagination/next_cursor")
    ]


def test_a_csv_answer_is_a_file_the_tool_returns(tmp_path: Path, prism_env: dict[str, str]) -> None:
    """A media type that is no JSON is a file the tool returns as content (files in answers): no K501."""
    prices = "      - name: prices\n        operation: getItemPrices\n"
    mapping = wrong_mapping(tmp_path, "      - name: get\n", f"{prices}      - name: get\n")
    code, report, stderr = check(CATALOG, mapping, env=prism_env)
    assert [f for f in errors(report) if f["action"] == "prices"] == [], report
    assert code == 0, stderr


def test_an_error_text_the_server_does_not_find() -> None:
    """A sandbox answering errors in a gateway's shape, {"fault": {"faultstring": ...}}, whose keys name no
    message: the probe asks for an item that does not exist, and the tool's error must say what the API
    said. (A vendor's `error_message` the server reads: check is clean on it, below.)"""
    mapping = FIXTURES / "mapping.yaml"
    with CatalogUpstream(TOKEN, errors="fault") as upstream:
        code, report, stderr = check(
            CATALOG,
            mapping,
            "--upstream",
            upstream.base_url,
            env={"PATH": "/usr/bin:/bin", "CATALOG_TOKEN": TOKEN},
        )
        sent = [(r.method, r.path) for r in upstream.requests]
    assert code == 1, stderr
    assert [(f["code"], f["action"], f["line"]) for f in errors(report)] == [
        ("K401", "get", line_of(mapping, "- name: get"))
    ]
    assert "No item itm_999999999 in this catalog." in errors(report)[0]["message"]
    assert all(method == "GET" for method, _ in sent)  # no write ever reaches a sandbox


def test_a_wrapped_record_gives_an_empty_concise_record(tmp_path: Path) -> None:
    """A sandbox wrapping each record in {"data": ...}, which the spec does not show."""
    mapping = FIXTURES / "mapping.yaml"
    with CatalogUpstream(TOKEN, wrapped=True) as upstream:
        code, report, _ = check(
            CATALOG,
            mapping,
            "--upstream",
            upstream.base_url,
            env={"PATH": "/usr/bin:/bin", "CATALOG_TOKEN": TOKEN},
        )
    # The server unwraps the envelope and says so in each result; check quotes that note at the action.
    assert code == 1
    found = errors(report)
    assert [(f["code"], f["action"], f["line"]) for f in found] == [
        ("K601", "list", line_of(mapping, "- name: list")),
        ("K601", "get", line_of(mapping, "- name: get")),
    ]
    assert all("wrapped in 'data', an envelope the spec does not de" in f["message"] for f in found)


# ---- output and environment ----------------------------------------------------------------------


def test_github_annotations_and_text(tmp_path: Path, prism_env: dict[str, str]) -> None:
    mapping = wrong_mapping(tmp_path, "concise: [id, name, status]", "concise: [id, title, status]")
    line = line_of(mapping, "[id, title")
    code, out, _ = check(CATALOG, mapping, env=prism_env, fmt="github")
    assert code == 1
    assert all(f" file={mapping},line=" in row for row in out.splitlines() if row.startswith("::error"))
    assert any(row.startswith(f"::error file={mapping},line={line},col=") for row in out.splitlines())
    assert "catalog_items_find list::" in out and "title=mcpgen check K" in out
    code, out, _ = check(CATALOG, mapping, env=prism_env, fmt="text")
    assert code == 1
    assert f"{mapping}:{line}:" in out
    assert "/tools/0/actions/0/response/concise/1: catalog_items_find list:" in out
    assert out.splitlines()[-1].startswith("checked 2 tools, 3 actions with ")


def test_without_node_it_says_what_to_install(prism_env: dict[str, str]) -> None:
    code, _, stderr = check(CATALOG, FIXTURES / "mapping.yaml", env={"PATH": "/nonexistent"})
    assert code == 2
    assert "Node is not installed" in stderr
    assert "npm install -g @stoplight/prism-cli@5.16.0" in stderr


def test_without_prism_it_says_what_to_install(tmp_path: Path, prism_env: dict[str, str]) -> None:
    env = {**prism_env, "MCPGEN_PRISM": str(tmp_path / "no-prism-here")}
    code, _, stderr = check(CATALOG, FIXTURES / "mapping.yaml", env=env)
    assert code == 2
    assert "npm install -g @stoplight/prism-cli@5.16.0" in stderr


def test_a_sandbox_without_its_credential_is_a_usage_error() -> None:
    code, _, stderr = check(
        CATALOG, FIXTURES / "mapping.yaml", "--upstream", "http://127.0.0.1:9", env={"PATH": "/usr/bin:/bin"}
    )
    assert code == 2
    assert "set CATALOG_TOKEN" in stderr


def test_a_ref_outside_the_specs_directory_needs_allow_ref_root(
    tmp_path: Path, prism_env: dict[str, str]
) -> None:
    """As generate: a `$ref` may read files under the spec's own directory only, unless --allow-ref-root
    names another; then the generated server is checked, Prism resolving the same file."""
    exports = (SPECS / "exports" / "exports.openapi.yaml").read_text(encoding="utf-8")
    ref = '"#/components/schemas/ExportRequest"'
    assert ref in exports
    (tmp_path / "api").mkdir()
    (tmp_path / "shared").mkdir()
    spec = tmp_path / "api" / "exports.yaml"
    spec.write_text(exports.replace(ref, '"../shared/schemas.yaml#/ExportRequest"'), encoding="utf-8")
    schema = "ExportRequest:\n  type: object\n  properties:\n    dataset: {type: string}\n"
    (tmp_path / "shared" / "schemas.yaml").write_text(schema, encoding="utf-8")
    mapping = SPECS / "exports" / "mapping.yaml"
    code, report, stderr = check(spec, mapping, env=prism_env)
    assert code == 2 and "error[R005]" in stderr and "--allow-ref-root" in stderr
    code, report, stderr = check(spec, mapping, "--allow-ref-root", str(tmp_path / "shared"), env=prism_env)
    assert (code, errors(report)) == (0, []), stderr


# ---- OAuth 2.0: what check can obtain, and what it says to set ---------------------------------------

SANDBOX_TOKEN = "sandbox-token-2f9e4d71c0ab"


def oauth_drafted(
    tmp_path: Path, flow: str, api: str = "https://api.things.example.com/v1"
) -> tuple[Path, Path]:
    """A one-operation spec whose only scheme is OAuth 2.0 with this flow, and the mapping init drafts."""
    urls = {"tokenUrl": "https://auth.things.example.com/token", "scopes": {"read": "r"}}
    if flow == "authorizationCode":
        urls["authorizationUrl"] = "https://auth.things.example.com/authorize"
    record = {"type": "object", "properties": {"owner": {"type": "string"}}, "required": ["owner"]}
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": record}}}}
    document = {
        "openapi": "3.0.3", "info": {"title": "Things", "version": "1.0.0"}, "servers": [{"url": api}],
        "components": {"securitySchemes": {"oauth": {"type": "oauth2", "flows": {flow: urls}}}},
        "security": [{"oauth": ["read"]}],
        "paths": {"/me/things": {"get": {"operationId": "myThings", "summary": "My things", "responses": ok}}},
    }  # fmt: skip
    spec, mapping = tmp_path / "things.json", tmp_path / "mapping.yaml"
    spec.write_text(json.dumps(document), encoding="utf-8")
    drafted = subprocess.run(
        [sys.executable, "-m", "mcpgen", "init", str(spec), "-o", str(mapping), "--name", "things"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert drafted.returncode == 0, drafted.stderr
    return spec, mapping


def test_a_per_user_sign_in_is_checked_with_the_token_of_its_env(
    tmp_path: Path, prism_env: dict[str, str]
) -> None:
    """Over stdio a call has no user to sign in: check sends the token of server.auth's env (THINGS_TOKEN,
    drafted by init) as a bearer token, a placeholder to Prism, the sandbox's own to --upstream."""
    spec, mapping = oauth_drafted(tmp_path, "authorizationCode")
    code, report, stderr = check(spec, mapping, env=prism_env)
    assert (code, errors(report)) == (0, []), stderr
    assert [f["message"] for f in report["findings"] if "has no user" in f["message"]] == []

    code, _, stderr = check(spec, mapping, "--upstream", "http://127.0.0.1:9", env={"PATH": "/usr/bin:/bin"})
    assert code == 2 and "set THINGS_TOKEN" in stderr, stderr

    class OneAccount(LoopbackUpstream):
        def __init__(self) -> None:
            super().__init__()
            self.route("GET", "/me/things", lambda r, p: Reply(200, {"owner": "the deployment"}))

    with OneAccount() as upstream:
        env = {"PATH": "/usr/bin:/bin", "THINGS_TOKEN": SANDBOX_TOKEN}
        code, report, stderr = check(spec, mapping, "--upstream", upstream.base_url, env=env)
        sent = {r.headers.get("authorization") for r in upstream.requests if r.path == "/me/things"}
    assert (code, errors(report)) == (0, []), stderr
    assert sent == {f"Bearer {SANDBOX_TOKEN}"}


def test_client_credentials_against_prism_say_to_check_a_sandbox(
    tmp_path: Path, prism_env: dict[str, str]
) -> None:
    """Prism mocks the API, not its token endpoint: check says so, and what to set, instead of reporting
    every call refused."""
    spec, mapping = oauth_drafted(tmp_path, "clientCredentials")
    code, _, stderr = check(spec, mapping, env=prism_env)
    assert code == 2, stderr
    assert "not its token endpoint (https://auth.things.example.com/token)" in stderr
    assert "--upstream" in stderr and "THINGS_CLIENT_ID and THINGS_CLIENT_SECRET" in stderr
