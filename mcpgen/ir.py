"""The intermediate representation: what the generated server will be, decided before any rendering.

Frozen dataclasses named for the target (server, tools, actions, params), tuples not lists, each node
with the source it came from. Schemas are plain JSON-compatible dicts built once and never mutated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from mcpgen.diagnostics import SourceRef

JsonSchema = dict[str, Any]
ParamLocation = Literal["path", "query", "header", "cookie", "body", "body_whole"]
BodyEncoding = Literal["json", "form", "multipart", "binary"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Fingerprint:
    """A piece of an input file and the sha256 of its canonical JSON: what tools.lock.json records (C1)."""

    pointer: str
    sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class OperationFingerprint:
    """An operation as a whole, and each part of it a tool change can come from ('parameter query.state')."""

    pointer: str
    sha256: str
    parts: tuple[tuple[str, Fingerprint], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class UnitSpec:
    """The agent passes `agent` units; the server sends `value * factor` in `upstream` units (T5)."""

    agent: str
    upstream: str
    factor: float  # 0 for money whose currency is another argument: the factor follows that currency
    integer: bool  # the API takes whole numbers, so a value finer than one upstream unit is refused
    # Money in the main unit of the currency the call names: the argument holding the code (and the
    # key inside it, when the code sits in an object argument), or the code the server always sends.
    currency_arg: str | None = None
    currency_key: tuple[str, ...] = ()
    currency_fixed: str | None = None
    currency_sibling: str | None = None  # in a record (result, current state): the key beside the amount
    as_is: tuple[float, ...] = ()  # special values (-1 = unlimited) sent and returned unscaled


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamSpec:
    """One parameter as the agent sees it (`arg_name`) and as the upstream expects it (`wire_name`)."""

    arg_name: str
    wire_name: str
    location: ParamLocation
    required: bool
    schema: JsonSchema  # property schema in the tool's inputSchema, description included
    source: SourceRef
    unit: UnitSpec | None = None
    # A field inside the body object `wire_name` that the mapping addressed ('amount_money.amount'):
    # the keys below it, so the server sends the value at body[wire_name][path...].
    path: tuple[str, ...] = ()
    # How the value is written on the wire (OpenAPI `style`/`explode`; 'json' for `content`): None
    # is the location's default (form, exploded, for query and form bodies; simple for path/header).
    style: str | None = None
    explode: bool | None = None
    # This action's own schema where it differs from the tool's flat property (T2: a `sort` whose
    # values differ by action); the server checks the action's values with it.
    check_schema: JsonSchema | None = None
    # ask_user (P4 ask what the model cannot know): the form field the user is asked with; such a
    # parameter is in ActionSpec.asked, never in the tool's inputSchema.
    ask_user: JsonSchema | None = None

    @property
    def wire_path(self) -> str:
        """'amount_money.amount', or the wire name for a parameter that is not nested."""
        return ".".join((self.wire_name, *self.path))


@dataclass(frozen=True, slots=True, kw_only=True)
class VariantSpec:
    """One branch of a `oneOf`/`anyOf` body (T2): the arguments it has and those it needs."""

    name: str
    args: tuple[str, ...]
    required: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class FixedValue:
    """A value always sent for this action, hidden from the agent."""

    wire_name: str
    location: ParamLocation
    value: Any
    path: tuple[str, ...] = ()  # inside the body object `wire_name`, as for ParamSpec
    env: str | None = None  # the value is this environment variable's, read on each call (P3 credentials)


PagingStyle = Literal["page", "offset", "cursor", "link", "limit"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultShape:
    """How a read action's records are shown (R1, R2): the runtime's `Shape`."""

    items: str | None  # dotted path of the record list; "" when the body is the list; None: one record
    concise: tuple[str, ...]  # fields response_format=concise keeps; () keeps all
    drop: tuple[str, ...]  # fields no format shows
    record: str | None = None  # one record inside a one-record envelope ({"payment": {...}}): its path
    bare: str | None = None  # the one field of a record whose schema has no other: never an envelope
    named: bool = False  # the mapping names the concise fields: a record without one is announced
    # The answer's other lists of records beside `items` (a sync's `modified`, `removed` beside
    # `added`), kept whole in every format under their own names: a list is never left out of concise.
    lists: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PagingSpec:
    """How a list action pages upstream (R3): the runtime's `Paging`."""

    style: PagingStyle
    limit_arg: str | None  # the agent argument carrying the page size
    offset_wire: str | None  # offset style: the API's offset parameter, computed from page and limit
    next_cursor: str | None  # dotted body paths
    has_more: str | None
    total: str | None
    echoed: tuple[str, ...]  # body fields that only repeat the paging
    max_limit: int | None = None  # enforced at run time: the tool's schema holds one bound for all actions
    next_link: str | None = None  # link style: body path of the next page's URL (else the Link header)
    offset_in_body: bool = False  # offset style: offset_wire is a dotted body path (a search sent by POST)
    total_header: str | None = None  # the response header the spec says carries the total
    next_page: str | None = None  # page style: body path of the API's next page, null on the last


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardSpec:
    """A business limit checked against the current value before a change is previewed (S2)."""

    arg_name: str
    current_field: str  # key of the preview's read result
    max_increase_pct: float
    unit: UnitSpec | None = None  # the current value is in the API's unit; the argument in the agent's


@dataclass(frozen=True, slots=True, kw_only=True)
class PreviewSpec:
    """confirm: preview (S1): the tool becomes <tool>_preview and <tool>_apply(preview_id)."""

    read: ActionSpec  # the read operation; its arguments come from the previewed action's
    ttl_minutes: int
    approval: str  # where a change that breaks a guard goes instead (S2)
    compared: tuple[tuple[str, str], ...]  # (arg_name, field of the read result) shown before/after
    guards: tuple[GuardSpec, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultUnitSpec:
    """A result field in the API's unit, shown in the agent's unit and under a name that says it (T5):
    `size` in MB comes back as `size_gb` when the agent passes `size_gb` for the same schema's field."""

    field: str  # dotted path in a record: 'size', 'amount_money.amount'
    name: str  # the key it gets: the argument's name, or '<key>_<agent unit>'
    unit: UnitSpec
    # The schema slot the field's value is written at, as a JSON pointer in the spec
    # ('#/components/schemas/Money/properties/amount'): a converted parameter's unit applies to the
    # fields of the same slot only; a unit the mapping states (`response.units`) names its field's.
    pointer: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskSpec:
    """The API runs an action as a job (202 Accepted): how the server follows it (runtime tasks.py)."""

    status: str | None  # the tool's action that reads the job's status; None: the 202's Location
    job_id: str = "id"
    state: str = "status"
    poll_interval_s: float = 5.0


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureSpec:
    """A failure the API reports inside a 2xx answer (build/failures.py), the runtime's `Failure`: the value
    at JSON pointer `at` fails the answer when it is one of `equals`, when it is set and none of `unless`, or,
    with `non_empty`, when it holds anything."""

    at: str  # '/ok', '/meta/success'
    equals: tuple[Any, ...] = ()
    unless: tuple[Any, ...] = ()
    non_empty: bool = False
    message: str | None = None  # JSON pointer of the API's words about it
    unchanged: bool = False  # the mapping says a failing answer means the API made no change


@dataclass(frozen=True, slots=True, kw_only=True)
class Deprecation:
    """The spec says an operation or a parameter is going away (C1), and where."""

    marker: str  # as the spec writes it: 'deprecated: true', 'x-release-status: DEPRECATED', ...
    pointer: str
    said: bool = False  # only its words say so ("Deprecated: use ..."): a weaker signal than a marker


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamFacts:
    """What the spec says of one parameter an action sends, beyond its schema (C1, T5)."""

    arg: str
    deprecated: Deprecation | None = None
    unit: str | None = None  # 'seconds': from a conversion, the name, `x-unit`, `format` or the words


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldFacts:
    """One result field the default format shows: its JSON types and unit (R1, T5)."""

    name: str
    types: tuple[str, ...]
    unit: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractFacts:
    """What tools.lock.json records of an action besides its schemas, so `mcpgen diff` of two lock
    files sees what a comparison of the specs sees: deprecations, units, result field types (C1)."""

    deprecated: Deprecation | None = None
    params: tuple[ParamFacts, ...] = ()
    results: tuple[FieldFacts, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionSpec:
    name: str
    description: str
    method: str
    path: str
    operation_id: str | None
    params: tuple[ParamSpec, ...]
    fixed: tuple[FixedValue, ...]
    defaults: tuple[tuple[str, Any], ...]  # (arg_name, value) sent when the agent leaves it out
    body_encoding: BodyEncoding | None
    source: SourceRef  # the action in the mapping file
    operation_source: SourceRef  # the operation in the spec
    operation_fingerprint: OperationFingerprint | None = None
    mapping_fingerprint: Fingerprint | None = None
    # Where an error message sends the agent next (E2, E4), decided from the server's other actions:
    find_with: str | None = None  # the action(s) that find the `finds` identifier, for a 404
    finds: str | None = None  # the path argument a 404 is about: 'campaign_id'
    check_with: str | None = None  # the read action that shows whether a change took effect
    shape: ResultShape | None = None  # read actions only
    paging: PagingSpec | None = None  # list actions only
    # Arguments the server handles itself, never sent as they are: response_format, and `page` or
    # `cursor` when the API pages by offset or Link header.
    server_params: tuple[ParamSpec, ...] = ()
    preview: PreviewSpec | None = None
    confirm_value: str | None = None  # e.g. CONFIRM_DELETE, required as the argument 'confirm'
    idempotency_header: str | None = (
        None  # the spec declares one: the server fills it, the agent never sees it
    )
    result_units: tuple[ResultUnitSpec, ...] = ()  # result fields shown in the agent's unit (T5)
    # The body field the mapping's server.idempotency_key names, when this action's body has it: the
    # server fills it with a key per logical request, the agent never sees it.
    idempotency_body: str | None = None
    # What the action does (S4), decided by build/hints.py for every action, a preview's read too:
    # `idempotent` is also the runtime's rule for a timeout (E4), placed as it is by render.
    hints: ToolHints
    accept: str | None = None  # the Accept header its answers call for; None: application/json
    # The spec sends this operation to a server of its own (build/hosts.py), and its variable.
    base_url: str | None = None
    base_url_env: str | None = None
    # A body the operation may leave out (`requestBody.required` false): the arguments its schema
    # requires are needed only once any body argument is given.
    body_requires: tuple[str, ...] = ()
    body_required: bool = False  # `requestBody.required`: a JSON body goes out even with no field set
    variants: tuple[VariantSpec, ...] = ()  # a oneOf/anyOf body: the call must fit one of them
    # The top-level fields of one record of its answer, from the spec (R5): for a read, what its
    # outputSchema names; for a change, which of the result's fields could share a paging field's name.
    result_fields: tuple[str, ...] = ()
    # confirm: user (P4 ask what the model cannot know): the user confirms through elicitation when the
    # client declared it; confirm_value stays the fallback for clients that cannot ask.
    confirm_user: bool = False
    # Parameters the server asks the user for (ask_user), each with its form field: not the agent's,
    # so not in `params` nor the inputSchema; sent upstream like the others.
    asked: tuple[ParamSpec, ...] = ()
    task: TaskSpec | None = None  # the API runs it as a job (mapping's `task:` or a 202 with Location)
    facts: ContractFacts | None = None  # for tools.lock.json (build/contract_facts.py)
    # The API's error codes and the kind of recovery each calls for (the action's `errors:`, E3).
    errors: tuple[tuple[str, str], ...] = ()
    failures: tuple[FailureSpec, ...] = ()  # where a 2xx answer reports a failure (build/failures.py)
    # whether a 2xx answer's top-level failure flags the spec does not show fail the call (off: failure: false)
    undescribed_failures: bool = True
    # The operation answers a file, not JSON (build/answers.py file_answer): the media type the spec
    # declares for it, or application/octet-stream; the result carries the file as MCP content.
    file_answer: str | None = None

    @property
    def required_args(self) -> tuple[str, ...]:
        confirm = ("confirm",) if self.confirm_value else ()
        return tuple(p.arg_name for p in self.params if p.required) + confirm


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolHints:
    """MCP tool annotations (S4); always stated explicitly, since client defaults are pessimistic."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    name: str  # full MCP tool name, service prefix included
    module_name: str  # Python module in <package>/tools/
    title: str
    description: str
    actions: tuple[ActionSpec, ...]
    input_schema: JsonSchema
    hints: ToolHints
    source: SourceRef
    mapping_fingerprint: Fingerprint | None = None  # the tool rule without its actions
    scopes: tuple[str, ...] = ()  # a caller's token needs them to see and call the tool over HTTP (P3)

    @property
    def preview(self) -> PreviewSpec | None:
        """Set when the tool's one action says confirm: preview."""
        return self.actions[0].preview if len(self.actions) == 1 else None

    @property
    def served_names(self) -> tuple[str, ...]:
        """The MCP tool names this tool is served as: itself, or its preview and apply pair (S1)."""
        if self.preview is None:
            return (self.name,)
        return (f"{self.name}_preview", f"{self.name}_apply")


@dataclass(frozen=True, slots=True, kw_only=True)
class AuthSpec:
    """The credential the server sends upstream (P3 credentials): from its environment, or a token it
    obtains with its own client credentials, or one each user grants (oauth2_user)."""

    kind: Literal["bearer", "api_key", "basic", "oauth2_client_credentials", "oauth2_user"]
    env: str | None
    location: Literal["header", "query", "body"] | None
    param_name: str | None
    prefix: str | None = None  # api_key in a header: what goes before the key ('Bearer ')
    token_url: str | None = None
    authorization_url: str | None = None
    revocation_url: str | None = None
    scopes: tuple[str, ...] = ()
    client_id_env: str | None = None
    client_secret_env: str | None = None
    allow_insecure: bool = False

    @property
    def envs(self) -> tuple[str, ...]:
        """The environment variables this credential is read from, the secret ones last."""
        named = (
            (self.client_id_env, self.client_secret_env) if self.kind.startswith("oauth2") else (self.env,)
        )
        return tuple(e for e in named if e)

    @property
    def secret_env(self) -> str:
        """The variable a refused credential is most likely wrong in."""
        return self.env or self.client_secret_env or self.client_id_env or ""


@dataclass(frozen=True, slots=True, kw_only=True)
class AccessSpec:
    """Incoming bearer tokens over HTTP (P3): JWTs from `issuer` for `audience`, with `scopes`."""

    issuer: str
    audience: str
    scopes: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerSpec:
    name: str  # service prefix
    package_name: str  # Python import name, e.g. ads_mcp
    distribution_name: str  # pip name and console script, e.g. ads-mcp
    title: str
    version: str
    description: str
    base_url_env: str
    default_base_url: str
    auth: AuthSpec | None
    timeout_s: float
    tools: tuple[ToolSpec, ...]  # sorted by name (P2)
    spec_file: str  # as shown in headers: a path relative to the mapping file
    mapping_file: str
    unmapped_operations: tuple[str, ...]  # 'METHOD /path (operationId)', for the report
    mcpgen_version: str
    # ('GET /path', sha256) for every operation of the spec, mapped or not
    spec_operations: tuple[tuple[str, str], ...] = ()
    mapping_fingerprint: Fingerprint | None = None  # the server rule
    discovery: bool = False  # serve the search/call meta-tools instead of the catalog (T3)
    server_info: bool = False  # serve the '<name>_server_info' diagnostic tool
    output_schemas: bool = True  # read tools declare the shape of their results (R5)
    max_result_tokens: int = 20_000  # size budget of one result (R4)
    max_body_bytes: int = 8 * 1024 * 1024  # the most of one upstream answer the server reads (P5)
    files_read: str | None = None  # the directory the files of multipart and binary bodies are read from
    access: AccessSpec | None = None
    idempotency_header: str | None = None  # sent with every POST when the API supports it (E4)
    # Modules of templates/runtime this package does not carry (and the dependencies they alone need):
    # those for previews without a previewed tool, for access checks without server.access.
    runtime_left_out: frozenset[str] = frozenset()
    extra_auth: tuple[AuthSpec, ...] = ()  # further credentials the API needs together with `auth`
    headers: tuple[tuple[str, str], ...] = ()  # the mapping's fixed request headers, sent on every call
    errors: tuple[tuple[str, str], ...] = ()  # server.errors: the API's error codes and their kinds (E3)
    spec_url: tuple[str, str] | None = None  # (URL, sha256 of what was fetched): a spec given by URL

    @property
    def value_envs(self) -> tuple[str, ...]:
        """Environment variables whose values the server sends in parameters (`params: {x: {env}}`, an
        auth `in: body`), never shown to the agent; sorted."""
        return tuple(sorted({f.env for t in self.tools for a in t.actions for f in a.fixed if f.env}))


@dataclass(frozen=True, slots=True)
class RenderedFile:
    path: str  # POSIX path relative to the output directory
    content: str
    ownership: Literal["generated", "user"] = "generated"
