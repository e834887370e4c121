"""Stage 2, build: every contract decision, pure: spec + mapping -> the frozen IR and the served tools."""
