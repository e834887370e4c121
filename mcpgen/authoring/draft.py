"""`mcpgen init`: draft a mapping file that covers every operation of a spec (T1-T7).

Pure: a loaded `Spec` in, a `Draft` (and its YAML text, see `mapping_yaml.py`) out. The draft groups
operations into task tools by tag, or by resource path when the spec has no tags (`operations.py`,
`grouping.py`); splits a big group by sub-resource; separates reads from changes so read-only tools can
say so (S4, `tools.py`); names actions after what they do (list/get/create/update/delete, or the verb of
the operationId, `actions.py`); renames parameters whose unit the spec states (T5) and settles the clashes
the build would reject (M205-M207, `params.py`); and picks the credentials the server sends (`auth.py`).
Operations the generated server cannot call (a multipart body that names no parts, M211) stay unmapped,
each with its reason. Where a mapped body carries files, the draft names a directory the server may read
them from (`server.files.read`, FILES_DIR).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from mcpgen.authoring.actions import NAME_MAX, ids_spell_paths
from mcpgen.authoring.auth import auth_from_params, choose_auth, schemes_said, served_by
from mcpgen.authoring.auth_plumbing import plumbing_reason
from mcpgen.authoring.body_secrets import with_credential_envs
from mcpgen.authoring.grouping import group_operations, split_groups
from mcpgen.authoring.mapping_yaml import render_draft
from mcpgen.authoring.model import Draft, Unmapped
from mcpgen.authoring.operations import OpInfo, analyse, choose_grouping, shown, tag_display_names
from mcpgen.authoring.service import base_url, server_description, service_name, tag_descriptions
from mcpgen.authoring.tools import draft_tools
from mcpgen.build.checks import insecure_url
from mcpgen.load.openapi import Spec
from mcpgen.names import TOOL_NAME_COMFORT_LENGTH

# Past this many tools the draft turns on on-demand discovery (T3).
DISCOVERY_THRESHOLD = 10
# The directory a drafted server reads upload files from: one of its own, holding only what the user puts
# there for the agent to send (P3: never an arbitrary path).
FILES_DIR = "uploads"


Progress = Callable[[int, int], None]


def init_mapping(
    spec: Spec,
    *,
    spec_label: str = "",
    name: str | None = None,
    schema_ref: str | None = None,
    progress: Progress | None = None,
) -> tuple[str, Draft]:
    """The mapping file's text, and the draft it was written from (for a summary)."""
    draft = draft_mapping(spec, spec_label=spec_label, name=name, progress=progress)
    return render_draft(draft, schema_ref=schema_ref), draft


def draft_mapping(
    spec: Spec, *, spec_label: str = "", name: str | None = None, progress: Progress | None = None
) -> Draft:
    """Propose tools for every operation of `spec`. `progress(done, total)` is told about each operation."""
    server_name, name_why = (name, "given with --name") if name else service_name(spec)
    grouping = choose_grouping(spec)
    tag_names = tag_display_names(spec)
    path_naming = ids_spell_paths(spec.operations)
    id_counts = Counter(op.operation_id for op in spec.operations if op.operation_id)

    infos: list[OpInfo] = []
    unmapped: list[Unmapped] = []
    total = len(spec.operations)
    for done, op in enumerate(spec.operations, 1):
        # Sign-in plumbing first: a token endpoint that also answers HTML is left out for what it is.
        plumbing = plumbing_reason(spec, op)
        info: OpInfo | None = None
        problem: Unmapped | None = None
        if plumbing is not None:
            problem = Unmapped(operation=shown(op), reason=plumbing, deliberate=True)
        else:
            info, problem = analyse(spec, op, grouping, tag_names, id_counts)
        if info is not None:
            infos.append(info)
        elif problem is not None:
            unmapped.append(problem)
        if progress is not None:
            progress(done, total)

    auths, auth_note, chosen = choose_auth(spec, server_name)
    if not auths:
        auths, auth_note, infos, unmapped = auth_from_params(spec, server_name, infos, unmapped, auth_note)
    elif chosen:
        infos, unmapped = served_by(spec, chosen, infos, unmapped)
    limit = min(NAME_MAX, TOOL_NAME_COMFORT_LENGTH - len(server_name) - 1)
    groups = split_groups(group_operations(infos))
    tools = draft_tools(
        groups, spec, server_name, limit, path_naming, tag_descriptions=tag_descriptions(spec)
    )
    tools = with_credential_envs(spec, tools, server_name, auths)
    return Draft(
        spec_label=spec_label,
        operation_count=total,
        server_name=server_name,
        server_name_why=name_why,
        grouping_why=grouping.why,
        title=spec.title or server_name,
        description=server_description(spec),
        base_url=_safe_base_url(spec, bool(auths)),
        base_url_why=(
            "from the spec's servers"
            if _safe_base_url(spec, bool(auths)) == base_url(spec)
            else f"the spec's server is {base_url(spec)}: the credentials never go over plain http"
        ),
        auth=auths[0] if auths else None,
        extra_auth=auths[1:],
        auth_note=auth_note,
        schemes=schemes_said(spec, chosen, auths),
        discovery=len(tools) > DISCOVERY_THRESHOLD,
        tools=tuple(tools),
        unmapped=tuple(unmapped),
        files_read=FILES_DIR if any(i.sends_files for i in infos) else None,
    )


def _safe_base_url(spec: Spec, sends_credentials: bool) -> str | None:
    """The spec's server; one the credentials would cross plain http:// to reach becomes the spec's
    https:// server, or the same address over https:// (the server never sends a credential over plain
    http to another machine: P3 credentials)."""
    url = base_url(spec)
    if url is None or not sends_credentials or not insecure_url(url):
        return url
    secure = [s for s in spec.servers if s.startswith("https://") and "{" not in s]
    return secure[0] if secure else "https://" + url.split("://", 1)[1]
