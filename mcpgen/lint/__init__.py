"""Beside the pipeline: check a tool surface against the agent-tool design rules."""
