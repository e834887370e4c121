"""The generator's version, a leaf every stage may read (it is stamped into generated headers)."""

__version__ = "0.1.0"
