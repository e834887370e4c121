"""Every diagnostic code mcpgen reports, each once, with its level and what it means.

A call site names the code by its id, `codes.M219`, never as a string of its own: the id is what a user
reads (``warning[M219]``), what docs/diagnostics.md lists and what tests assert, so one search for it
finds the place that reports it, its row and its tests. A descriptive name (`REBOUND_OPERATION`) would
be a second name for the same thing, free to drift from the meaning written here, and several codes
cover more than one situation (F004, M213, M215, M216) that one such name would misname; the message
at the call site says what happened, this table says what the code is for.

Each constant is the plain string id, so a `Diagnostic.code` and every output format stay as they
were. `REGISTRY` holds its entry: the levels it is reported at (most codes have one; S010 is an error
where a mapped operation uses the invalid part and a warning where none does) and its meaning in one
line. docs/diagnostics.md is this table as a user reads it; tests/unit/test_codes.py keeps the two
equal, and keeps code strings out of every other module.

Families: F input files, S the OpenAPI spec, R `$ref`s, M1xx the mapping file alone, M2xx the mapping
against the spec, M3xx credentials, W the output directory, U the user's hooks.py, G internal errors,
D `mcpgen diff`, L `mcpgen lint`, K `mcpgen check`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpgen.diagnostics import Level


@dataclass(frozen=True, slots=True)
class Entry:
    code: str
    levels: tuple[Level, ...]
    meaning: str


REGISTRY: dict[str, Entry] = {}

_E, _W, _I = Level.ERROR, Level.WARNING, Level.INFO


def _code(code: str, levels: Level | tuple[Level, ...], meaning: str) -> str:
    REGISTRY[code] = Entry(code, levels if isinstance(levels, tuple) else (levels,), meaning)
    return code


# One line a code, so the table reads as one.
# fmt: off

# --- input files --------------------------------------------------------------------------------------------
F001 = _code("F001", _E, "an input file does not exist")
F002 = _code("F002", _E, "an input file cannot be read: a directory, or no permission")
F003 = _code("F003", _E, "a JSON file is not valid JSON, or holds a number too long to read")
F004 = _code("F004", _E, "a YAML file is not valid YAML: a syntax error, a control character, a key that is not text, or a number too long to read")
F005 = _code("F005", _E, "a key appears twice in one mapping, so the second would silently win")
F006 = _code("F006", _E, "a file is larger than the most mcpgen reads of such a file")
F007 = _code("F007", _E, "an input is not a regular file (a device, pipe or socket), so it is not read")
F008 = _code("F008", _E, "a file is not valid UTF-8")
F009 = _code("F009", _E, "YAML aliases would never end (an alias inside its own anchor) or expand past what the file holds")
F010 = _code("F010", _E, "a string holds an unpaired surrogate escape, which is not a character")
F011 = _code("F011", _E, "values are nested deeper than mcpgen reads")
F012 = _code("F012", _E, "a number is NaN or an infinity, which no generated file can hold")
F013 = _code("F013", _E, "a spec's URL cannot be fetched: no connection, a refused certificate, an HTTP error, too slow, or no room to keep it")
F014 = _code("F014", _E, "a spec's URL is refused: plain http without --allow-http, a redirect away from https, or too many redirects")

# --- the spec -----------------------------------------------------------------------------------------------
S001 = _code("S001", _E, "the OpenAPI document is not a mapping")
S002 = _code("S002", _E, "the document is not Swagger 2.0, OpenAPI 3.0 or 3.1")
S003 = _code("S003", _E, "the document is not valid OpenAPI at the place named")
S004 = _code("S004", _E, "a Swagger 2.0 operation that OpenAPI 3.0 cannot say: two body parameters, or a body and form fields")
S005 = _code("S005", _W, "a Swagger 2.0 list format (collectionFormat) OpenAPI 3.0 has no equivalent for, converted to the nearest")
S010 = _code("S010", (_E, _W), "a part of one component or operation is not valid OpenAPI: an error where a mapped operation uses it, a warning (ignored) where none does")

# --- $ref ---------------------------------------------------------------------------------------------------
R001 = _code("R001", _E, "a `$ref` points to a network URI on a host --allow-ref-host does not name; such references are not fetched")
R002 = _code("R002", _E, "a `$ref` points at nothing in its document")
R003 = _code("R003", _E, "a `$ref` chain is too long or cyclic")
R004 = _code("R004", _E, "the file a `$ref` names cannot be loaded")
R005 = _code("R005", _E, "a `$ref` points outside the spec's directory and the allowed roots")

# --- the mapping file ---------------------------------------------------------------------------------------
M101 = _code("M101", _E, "an unknown key, with the closest valid one")
M102 = _code("M102", _E, "a required key is missing")
M103 = _code("M103", _E, "a value does not match the pattern its key takes")
M104 = _code("M104", _E, "a value is not one of those its key allows")
M105 = _code("M105", _E, "a value has the wrong type")
M106 = _code("M106", _E, "a list or mapping has fewer entries than it needs")
M107 = _code("M107", _E, "a parameter combines settings that contradict each other")
M108 = _code("M108", _E, "two tools, or two actions of one tool, have the same name")
M109 = _code("M109", _E, "an `api_key` auth lacks `in` or `name`")
M110 = _code("M110", _E, "`in` or `name` is set on an auth that is not `api_key`")
M111 = _code("M111", _E, "an action's `default_limit` is larger than its `max_limit`")
M112 = _code("M112", _E, "an auth lacks a setting its type needs, sets one of another type, or puts an oauth2 auth among several")
M120 = _code("M120", _E, "a unit converts a value to itself")
M121 = _code("M121", _E, "a unit conversion with no known factor and none given")
M122 = _code("M122", _E, "a currency code outside ISO 4217")
M123 = _code("M123", _E, "a `major` amount not written `{agent: major, upstream: minor, currency_from: <field>}` without `factor`")
M124 = _code("M124", _E, "`currency_from` names no field the action sends")
M130 = _code("M130", _E, "`confirm: preview` without `preview.read` to read the current state")
M131 = _code("M131", _E, "`preview` settings on an action without `confirm: preview`")
M132 = _code("M132", _E, "an action with `confirm: preview` shares its tool with other actions")
M133 = _code("M133", _E, "a guard rule that needs the current value on an action without a preview")
M134 = _code("M134", _E, "one tool asks for two different `confirm` values")
M199 = _code("M199", _E, "any other violation of the mapping file's schema")

# --- the mapping against the spec ---------------------------------------------------------------------------
M201 = _code("M201", _E, "no operation has the operationId the mapping names")
M203 = _code("M203", _E, "a mapped parameter is not a parameter of the operation, nor a field of its request body")
M204 = _code("M204", _E, "a parameter key names more than one parameter of the operation")
M205 = _code("M205", _E, "a parameter would take the name every tool uses for its action")
M206 = _code("M206", _E, "two parameters of one operation would get the same name")
M207 = _code("M207", _E, "a parameter has one type in one action of a tool and another in another")
M208 = _code("M208", _E, "a tool name is too long or not a valid tool name")
M209 = _code("M209", _W, "a tool name is long enough that clients adding a prefix may cut it")
M210 = _code("M210", _E, "a required parameter is hidden")
M211 = _code("M211", _E, "an operation takes a request body that is not JSON, a form, multipart parts or binary")
M212 = _code("M212", _E, "a parameter name is not a valid argument name")
M213 = _code("M213", _E, "a tool takes the name of a discovery meta-tool, or two actions would share their hooks")
M214 = _code("M214", _E, "a read-action setting on an action that does not only read, or that answers a file")
M215 = _code("M215", _W, "`response.items` or another `response` setting names a field the answer does not have")
M216 = _code("M216", _E, "`pagination` names a parameter the operation lacks or cannot page by, or paging needs one the spec does not show")
M217 = _code("M217", _E, "a parameter would take a name the server uses for paging or `response_format`")
M218 = _code("M218", _W, "an operation answers only a stream of events, which the server cannot read to its end")
M219 = _code("M219", _W, "an operationId the new spec binds to another method or path than the package's `tools.lock.json` recorded")
M220 = _code("M220", _E, "a unit on a parameter that is not a number")
M221 = _code("M221", _E, "a converted parameter whose name does not carry its unit")
M222 = _code("M222", _E, "a tool takes the name of the `server_info` tool")
M223 = _code("M223", _W, "a name claims a unit the spec does not count in, and nothing converts it")
M224 = _code("M224", _W, "a converted parameter's unit is not applied to a result field of its name whose schema it does not share")
M225 = _code("M225", _W, "an answer has several lists and nothing says which holds its records")
M226 = _code("M226", _W, "`pagination` on an action whose answer is one record, not a list")
M227 = _code("M227", _E, "`response.units` names a field the answer does not have or that is not a number, or a name that does not carry its unit")
M228 = _code("M228", _W, "`pagination` names a field of the answer (next_cursor, total, ...) that the answer's schema does not have")
M229 = _code("M229", _W, "`response.concise` names no field that identifies, or none that names, a record, where its schema has one")
M230 = _code("M230", _E, "a preview's read operation changes state")
M231 = _code("M231", _E, "a preview's read operation needs a parameter the action does not take")
M232 = _code("M232", _E, "a guard rule on a parameter that is not a number")
M233 = _code("M233", _E, "a parameter would take the name of the `confirm` argument")
M234 = _code("M234", _E, "`ask_user` on a parameter no form can hold (an object, a list of free values)")
M235 = _code("M235", _E, "`ask_user` on an action with `confirm: preview`, whose apply step has no one to ask")
M240 = _code("M240", _W, "a schema constraint the server cannot check (a malformed keyword, a pattern Python cannot compile) is not passed on")
M241 = _code("M241", _I, "fields nested deeper than a tool's schema shows, named in the description only")
M242 = _code("M242", _W, "a request body with no fields or type the tool's schema can show")
M243 = _code("M243", _W, "a preview's read operation types a parameter otherwise than the action does")
M244 = _code("M244", _W, "a request body requires fields its schema marks `readOnly`, which are never sent")
M245 = _code("M245", _E, "`format: local-date-time` on a parameter that is no date-time, or has no time-zone parameter beside it")
M246 = _code("M246", _W, "`response.concise` or `drop` on an action whose spec gives no JSON schema for its answer, so nothing checks the fields")
M250 = _code("M250", _E, "a task's `status` action is not an action of the tool")
M251 = _code("M251", _E, "`task:` on an operation whose spec documents success answers but no 202 Accepted, so it never runs as a job")
M260 = _code("M260", _I, "answers whose response schema has a field that reports a failure inside a 2xx answer: such an answer becomes an error")
M261 = _code("M261", _W, "`failure.field` names a field the response schema does not show")
M262 = _code("M262", _E, "`failure` compares its field with a value of a type the field's schema never has, so it never fails an answer")

# --- credentials --------------------------------------------------------------------------------------------
M301 = _code("M301", _I, "the spec has security schemes and the mapping no `server.auth`")
M302 = _code("M302", _W, "a credential parameter the mapping names, or a required one `auth` does not send")
M303 = _code("M303", _W, "a credential would go over plain http:// to a host other than this machine; the server refuses to send it unless `allow_insecure: true`")

# --- the output directory -----------------------------------------------------------------------------------
W001 = _code("W001", _E, "the output directory exists and was not written by mcpgen")
W002 = _code("W002", _E, "the output cannot be written")
W003 = _code("W003", _W, "a file inside the generated package that mcpgen did not write")

# --- the user's hooks.py ------------------------------------------------------------------------------------
U001 = _code("U001", _E, "`hooks.py` is not valid Python, or uses syntax mcpgen cannot edit; nothing was written")
U002 = _code("U002", _W, "a hook belongs to no action any more; it was kept")
U003 = _code("U003", _W, "`hooks.py` imports `*` from a module mcpgen cannot read")
U004 = _code("U004", _E, "a renamed action's hook cannot be renamed with it; nothing was written")
U005 = _code("U005", _E, "the package has no such tool or action, or its `tools.lock.json` cannot be read")
U006 = _code("U006", _W, "a hook reads an argument under the name its action no longer gives it")

# --- internal errors ----------------------------------------------------------------------------------------
G001 = _code("G001", _E, "a package file could not be rendered (a bug in mcpgen)")
G002 = _code("G002", _E, "a generated file does not compile (a bug in mcpgen)")

# --- mcpgen diff --------------------------------------------------------------------------------------------
D001 = _code("D001", _E, "a diff operand cannot be read: no such file, not a lock file, or not at that git revision")
D002 = _code("D002", _E, "the ignore list is malformed")
D003 = _code("D003", _W, "an ignore entry has expired and no longer ignores anything")

# --- mcpgen lint --------------------------------------------------------------------------------------------
L001 = _code("L001", _E, "a directory holds no `tools.json` or more than one")
L002 = _code("L002", _E, "lint was given a mapping file without its spec")
L003 = _code("L003", _E, "the tool list file does not exist")
L004 = _code("L004", _E, "the tool list file cannot be read as JSON")
L005 = _code("L005", _E, "the file holds no tool list")
# --- mcpgen check ------------------------------------------------------------------------------------------
K101 = _code("K101", _E, "a concise field the tool keeps is in no concise record of the answers")
K102 = _code("K102", _E, "a concise record is empty where the detailed record has fields (often a wrapped record)")
K201 = _code("K201", _E, "a list result says nothing of more items: no has_more")
K202 = _code("K202", _E, "a paging field the tool reads (next cursor, has_more, total, next link) is in no answer")
K203 = _code("K203", _E, "the answer has a total of all records, and the list result carries no total_count")
K301 = _code("K301", _E, "a result field converted to the agent's unit is not a number in the answer")
K302 = _code("K302", _E, "a result field a unit converts is in no response schema")
K401 = _code("K401", _E, "a tool error carries none of the text of the API's error body")
K501 = _code("K501", _E, "a success answer's media type is one the server cannot read")
K601 = _code("K601", _E, "the server put a `note` in a result")
K701 = _code("K701", _E, "a read call failed where the upstream did not refuse it, or the upstream refused the request the tool sent")
K702 = _code("K702", _E, "a write the server must refuse before sending was accepted, or sent upstream")
K900 = _code("K900", _I, "something check could not judge, and why")
# fmt: on
