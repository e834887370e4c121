"""Beside the pipeline: compare two tool contracts (lock files) and explain each change."""
