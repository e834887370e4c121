"""Pure: two tool contracts (tools.lock.json documents) -> the changes between them, classified and traced.

Every change of names, descriptions, schemas or annotations is a contract change (C1), classified as
- breaking: a tool, action or parameter removed or renamed, a parameter became required, a type
  narrowed, an enum value removed, an annotation became less safe (readOnly true -> false, ...);
- behaviour-affecting: a description, title or default changed (agents read them), an action calls
  another endpoint, a hidden fixed value changed, an annotation became safer;
- deprecation: an operation an action calls, or a parameter it takes, is newly marked deprecated
  (`deprecated: true`, GitHub's `x-github-breaking-changes`);
- additive: a new tool, action or optional parameter, an enum value added, a constraint relaxed.

Each change is traced to the input changes that caused it: a spec operation (and JSON pointer) whose
fingerprint changed, a mapping rule, or the generator itself. The lock files' part fingerprints give
the pointer of the changed part; when both specs are at hand (`Sources`) the parts are compared value
by value and the pointer names the exact place. Input changes no contract change came from are listed
too (a reworded response description, an operation no tool maps).

The modules, in the order a diff runs: `compare` (diff_contracts, the entry), `inputs`, `walk` and
`mapping_changes` (input changes), `tools`, `actions`, `params`, `schemas` and `renames` (contract
changes and the evidence for a rename), `trace` (causes), `param_rules` (a mapping rename cited),
`semver` (the version to suggest); beside them `kinds` (the one registry of change classes and kinds),
`model` (the values), `lock` (reading a lock) and `show` (values in messages).
"""
