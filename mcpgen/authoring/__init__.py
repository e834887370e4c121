"""Beside the pipeline: draft a first mapping file from a spec (`mcpgen init`)."""
