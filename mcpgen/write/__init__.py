"""Stage 4, write: put rendered files on disk all at once, keeping the user's hooks."""
