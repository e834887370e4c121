"""Stage 1, load: read the spec and the mapping from disk into located, validated values."""
