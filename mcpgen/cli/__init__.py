"""The command line: the only place besides write that touches the outside world."""
