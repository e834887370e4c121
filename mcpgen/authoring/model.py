"""What `mcpgen init` drafts, as plain values: read by the drafter (`draft.py`) and the YAML writer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class DraftParam:
    key: str  # as the mapping writes it: 'petId' or 'body.id'
    name: str  # the name the agent sees
    why: str  # the YAML comment
    env: str | None = None  # sent from this environment variable instead (a credential in the body)


@dataclass(frozen=True, slots=True, kw_only=True)
class DraftAction:
    name: str
    operation: str  # operationId, or 'METHOD /path' when the id is missing or not unique
    method: str
    path: str
    summary: str
    params: tuple[DraftParam, ...]
    destructive: bool
    deprecated: bool
    why: str  # how the name was chosen
    single_record: bool = False  # several lists in the answer, none named: drafted as one record
    confirm: str | None = None  # cannot be undone: confirm: user, with this confirm_param value
    # A search sent by POST that pages by its body: drafted read-only, with the list its total names
    # and the paging fields inside a body object the build would not find on its own.
    search: bool = False
    items: str | None = None
    body_paging: tuple[tuple[str, str], ...] = ()
    reads_by_post: bool = False  # a read of an RPC-style API: drafted read-only (rpc_reads.py)
    file_answer: str | None = None  # it answers a file, not JSON (build/answers.py file_answer)


@dataclass(frozen=True, slots=True, kw_only=True)
class DraftTool:
    name: str  # without the service prefix
    title: str
    description: str
    actions: tuple[DraftAction, ...]
    why: str  # how the operations were grouped


@dataclass(frozen=True, slots=True, kw_only=True)
class Unmapped:
    operation: str
    reason: str
    deliberate: bool = False  # the server could call it, but it is no task for an agent (sign-in plumbing)


@dataclass(frozen=True, slots=True, kw_only=True)
class DraftAuth:
    type: str
    env: str  # '' for the oauth2 types, which read a client id and secret instead
    location: str | None
    name: str | None
    why: str
    prefix: str | None = None  # api_key in a header: the word before the key ('Token ')
    token_url: str | None = None
    authorization_url: str | None = None
    scopes: tuple[str, ...] = ()
    client_id_env: str | None = None
    client_secret_env: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Draft:
    spec_label: str
    operation_count: int
    server_name: str
    server_name_why: str
    grouping_why: str
    title: str
    description: str
    base_url: str | None
    auth: DraftAuth | None
    auth_note: str | None
    discovery: bool
    tools: tuple[DraftTool, ...]
    unmapped: tuple[Unmapped, ...]
    extra_auth: tuple[DraftAuth, ...] = ()  # credentials the spec needs together with `auth`
    # Every security scheme of the spec, one line each, and which was chosen and why.
    schemes: tuple[str, ...] = ()
    base_url_why: str = "from the spec's servers"
    files_read: str | None = None  # a mapped body carries files: the directory the server reads them from

    @property
    def action_count(self) -> int:
        return sum(len(t.actions) for t in self.tools)
