"""Words for action names: which words are verbs, singular and plural, and the verb + object of a summary.

Pure functions over strings. `mcpgen init` names an action after what it does (T2 flat action enums,
T7 descriptions): a verb first, then what it acts on, in the words the spec's author chose. The
operationId gives them when it is a name (`issues/list-for-repo`); the summary when the operationId only
spells the method and the path (box.com.json `put_folders_id`, "Update folder").
"""

from __future__ import annotations

import re

HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
# HTTP methods that are no English verb of their own in an action name: 'post_files_id' says nothing.
# (`patch` and `delete` are words people use: DigitalOcean's "Patch a Project".)
HTTP_ONLY = frozenset({"post", "put", "head", "options"})

VERB_SYNONYMS = {
    "fetch": "get",
    "retrieve": "get",
    "read": "get",
    "show": "get",
    "describe": "get",
    "return": "get",
    "obtain": "get",
}
DESTRUCTIVE_WORDS = frozenset(
    {"delete", "remove", "destroy", "revoke", "purge", "cancel", "void", "archive", "reject", "ban", "kick"}
)
# What cannot be undone: these get a confirmation by default (S1 preview, then apply; P4 ask the user).
# Archiving, rejecting or banning can be reversed by another call, so they stay a comment.
IRREVERSIBLE_WORDS = frozenset({"delete", "remove", "destroy", "purge", "erase", "wipe", "void", "terminate"})
CHANGE_VERBS = DESTRUCTIVE_WORDS | frozenset(
    {"create", "add", "update", "set", "put", "post", "send", "upload", "invite", "join", "leave", "rename",
     "unarchive", "close", "open", "mark", "approve", "deny", "restrict", "assign", "enable", "disable", "reset",
     "invalidate", "end", "start", "uninstall", "install", "move", "copy", "merge", "lock", "unlock"}
)  # fmt: skip
READ_VERBS = frozenset(
    {"get", "list", "search", "find", "query", "count", "check", "download", "export", "lookup", "view",
     "preview", "validate", "verify", "test", "watch", "poll", "ping", "compare", "calculate", "estimate",
     "render", "resolve", "browse", "inspect", "diff", "explain", "summarize", "suggest", "match", "scan"}
)  # fmt: skip
# Verbs an action name may start with: the words above, and the ones vendors use for their own actions.
VERBS = (
    READ_VERBS
    | CHANGE_VERBS
    | frozenset(VERB_SYNONYMS)
    | IRREVERSIBLE_WORDS
    | frozenset(
        {"replace", "patch", "apply", "promote", "restore", "commit", "revert", "rollback", "retry",
         "resend", "recycle", "resize", "upgrade", "downgrade", "migrate", "configure", "initiate",
         "trigger", "run", "execute", "schedule", "submit", "publish", "unpublish", "import", "transfer",
         "attach", "detach", "tag", "untag", "unassign", "share", "unshare", "subscribe", "unsubscribe",
         "follow", "unfollow", "star", "unstar", "pin", "unpin", "like", "unlike", "mute", "unmute",
         "block", "unblock", "suspend", "unsuspend", "resume", "pause", "stop", "restart", "reboot",
         "shutdown", "rebuild", "refresh", "rotate", "regenerate", "generate", "request", "confirm",
         "accept", "decline", "dismiss", "acknowledge", "redeliver", "rerun", "sync", "force", "act",
         "propose", "release", "capture", "refund", "pay", "finalize", "exchange", "link", "unlink",
         "register", "unregister", "notify", "report", "review", "complete", "upsert", "duplicate",
         "clone", "reorder", "sort", "convert", "translate", "authorize", "authenticate", "login",
         "logout", "sign", "grant", "cleanup", "clear", "reopen", "reactivate", "activate", "deactivate",
         "provision", "deprovision", "enroll", "unenroll", "announce", "toggle", "hide", "unhide",
         "approve", "transition", "map", "place", "rerequest", "preflight", "expand", "trash", "escalate",
         "snooze", "unsnooze", "replay", "redirect", "forward", "reply", "post", "put", "modify", "change",
         "edit", "save", "write", "insert", "append", "prepend", "increment", "decrement", "reserve",
         "checkout", "track", "trace", "archive", "deploy", "undeploy", "scale", "build", "test", "mount",
         "unmount", "connect", "disconnect", "enqueue", "dequeue", "flush", "reindex", "evict", "kill",
         "abort"}
    )
)  # fmt: skip

# Leave these out of a name: they say nothing the action enum needs ("Retrieve an Existing Droplet").
FILLERS = frozenset(
    {"a", "an", "the", "all", "any", "existing", "new", "specific", "given", "single", "one", "multiple",
     "several", "your", "my", "our", "their", "its", "his", "her", "this", "these", "those", "some",
     "information", "info", "details", "detail", "available", "particular", "certain", "specified",
     "object", "objects", "resource", "resources"}
)  # fmt: skip
# The object of a summary ends where these begin: "Add shared link to file" -> add_shared_link.
ENDS_OBJECT = frozenset(
    {"to", "from", "on", "for", "in", "of", "with", "by", "into", "via", "at", "as", "under", "within",
     "across", "using", "based", "and", "or", "that", "which", "when", "if", "where", "after", "before",
     "without", "per", "between", "against", "through", "over", "onto", "about", "inside", "is", "are"}
)  # fmt: skip
MAX_OBJECT_WORDS = 4
_TELLS_APART = frozenset({"by", "for", "on", "in", "from", "to", "with"})

UNCOUNTABLE = frozenset(
    {"auth", "data", "info", "meta", "billing", "search", "status", "metadata", "access", "stats", "dnd", "emoji",
     "media", "analytics", "security", "settings", "news", "feedback", "reporting", "identity", "tax", "sigma"}
)  # fmt: skip
# Plurals the suffix rules get wrong, and words that only look plural.
_SINGULAR = {
    "aliases": "alias",
    "statuses": "status",
    "caches": "cache",
    "analyses": "analysis",
    "bases": "base",
    "databases": "database",
    "indices": "index",
    "matrices": "matrix",
    "series": "series",
    "species": "species",
    "kubernetes": "kubernetes",
}
_KEEPS_S = ("ss", "us", "is", "ias", "news", "series")


def singular(word: str) -> str:
    """'policies' -> 'policy', 'aliases' -> 'alias', 'boxes' -> 'box', 'status' -> 'status'."""
    if word in _SINGULAR:
        return _SINGULAR[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]
    if word.endswith(("iases", "tuses", "nuses", "ruses", "buses")):
        return word[:-2]  # aliases, statuses, bonuses, viruses, buses: the 'es' is the plural's
    if word.endswith("s") and not word.endswith(_KEEPS_S) and len(word) > 3:
        return word[:-1]
    return word


def plural(word: str) -> str:
    """The last word of `word` in the plural: 'issue comment' -> 'issue comments'."""
    last = word.rsplit(" ", 1)[-1].rsplit("_", 1)[-1]
    if not last.isalpha() or last.lower() in UNCOUNTABLE:
        return word
    if last.endswith(("ss", "us", "ias", "x", "ch", "sh")):
        return word + "es"
    if last.endswith("s"):
        return word
    if last.endswith("y") and len(last) > 2 and last[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def base_verb(word: str) -> str | None:
    """The verb `word` is a form of, as an action name says it: 'Lists' -> list, 'Retrieves' -> get,
    'Deleting' -> delete; None when it is no verb this module knows."""
    word = word.lower()
    for candidate in _forms(word):
        if candidate in VERBS:
            return VERB_SYNONYMS.get(candidate, candidate)
    return None


def _forms(word: str) -> list[str]:
    forms = [word]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    if word.endswith("ing") and len(word) > 5:
        stem = word[:-3]
        forms += [stem, stem + "e"]
        if len(stem) > 2 and stem[-1] == stem[-2]:
            forms.append(stem[:-1])  # 'stopping' -> 'stop'
    return forms


def is_verb(word: str) -> bool:
    return word in VERBS


# Verbs an operationId may put after its object ('balance_get', 'checks_list'): moved to the front.
# Others read as nouns there ('map_commit_author' is no 'commit').
TRAILING_VERBS = frozenset(
    {"get", "list", "create", "update", "delete", "patch", "replace", "set", "search", "count"}
)


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:'s\b|s'|')?|\d+")


def summary_name(summary: str, known: set[str], *, whole: bool = False) -> tuple[str, list[str]] | None:
    """The verb and object words of a summary that starts with a verb, without the words in `known`
    (the tool's own, the API's name) and fillers: ("Add shared link to file", {file}) ->
    ('add', ['shared', 'link']). `whole`: the words after the object too, to tell look-alikes apart
    ("Delete a cluster and its resources" -> delete, cluster, resources). None when the summary does
    not start with a verb."""
    text = re.sub(r"\([^)]*\)", " ", summary)  # "(PostgreSQL)", "(Dangerous)"
    text = re.sub(r"\s-\s.*$", "", text)  # "Get a thing - deprecated"
    first, _, text = text.strip().partition(" ")
    parts = [p for p in first.split("-") if p]
    tokens = _TOKEN.findall(text.replace("-", " ").replace("/", " "))
    verb = base_verb(parts[-1]) if parts else None
    if verb is None:
        return None
    if len(parts) > 1:  # "Force-apply metadata cascade policy": the whole compound is the verb
        verb = "_".join([*(p.lower() for p in parts[:-1] if p.isalpha()), verb])
    tokens.insert(0, first)
    words = [t.lower() for t in tokens[1:]]
    second = base_verb(words[1]) if words[:1] in (["or"], ["and"]) and len(words) > 1 else None
    if second is not None:  # "Create or update custom property values": both verbs are the action
        verb, words = f"{verb}_{words[0]}_{second}", words[2:]
    if (
        verb == "get"
        and words[:3] in (["a", "list", "of"], ["the", "list", "of"])
        or words[:2] == ["list", "of"]
    ):
        verb, words = "list", words[words.index("of") + 1 :]
    objects: list[str] = []
    for word in words:
        if word.endswith(("'s", "'")):  # "user's email aliases": the owner, usually the tool's resource
            continue
        if word in ENDS_OBJECT:
            if whole and word in _TELLS_APART and objects:
                objects.append(word)  # "by id" and "by name" tell two look-alikes apart
            if whole:
                continue
            break
        # The tool's own words go when they lead ("List Box Skill cards" in box_files), not when they
        # end what the action acts on ("Get all custom properties" in orgs_properties).
        if word in FILLERS or word.isdigit() or (word in known and not objects and not whole):
            continue
        objects.append(word)
    return verb, objects[: MAX_OBJECT_WORDS * (2 if whole else 1)]


def looks_random(part: str) -> bool:
    """A path word that is an identifier someone pasted, not a word: box.com.json's
    'securityClassification-6VMVochwUWo' ends in '6VMVochwUWo'; '1a2b3c4d5e' is a hash. Acronyms and
    versions stay words: 'repositoriesV2', 'S3Bucket', 'getURLs'."""
    if re.fullmatch(r"[0-9a-fA-F]{8,}", part) and any(c.isdigit() for c in part):
        return True
    letters = re.sub(r"[^A-Za-z]", "", part)
    mixed_case = any(c.isupper() for c in letters) and any(c.islower() for c in letters)
    return (part[:1].isdigit() and mixed_case) or len(re.findall(r"[A-Z]{2,}[a-z]", part)) >= 2


def word_forms(key: str) -> tuple[str, ...]:
    """How a path segment may spell the group: 'issue_comments' -> issue_comments, comment, comments, ..."""
    last = key.rsplit("_", 1)[-1]
    return tuple(sorted({key, singular(key), plural(key), last, singular(last), plural(last)}))


def name_words(key: str) -> set[str]:
    """Every word of a tool's name, singular and plural: an action name need not repeat them."""
    return {form for word in key.split("_") if word for form in (word, singular(word), plural(word))}
