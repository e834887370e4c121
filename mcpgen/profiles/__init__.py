"""Per-client and per-provider profiles: what each accepts in a tool list (catalog.py, every rule with
its source) and the pure transform of a tool list to it (transform.py)."""

from mcpgen.profiles.catalog import (
    ANTHROPIC_STRICT,
    CLIENT_PROFILES,
    GEMINI,
    GEMINI_JSON_SCHEMA,
    OPENAI_STRICT,
    PORTABLE,
    PROFILES,
    NameRule,
    Profile,
    get_profile,
)
from mcpgen.profiles.transform import ANY_SCALAR, ProfileNote, apply_profile

__all__ = [
    "ANTHROPIC_STRICT",
    "ANY_SCALAR",
    "CLIENT_PROFILES",
    "GEMINI",
    "GEMINI_JSON_SCHEMA",
    "OPENAI_STRICT",
    "PORTABLE",
    "PROFILES",
    "NameRule",
    "Profile",
    "ProfileNote",
    "apply_profile",
    "get_profile",
]
