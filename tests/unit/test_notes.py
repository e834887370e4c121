"""The `note` of a result on its own (templates/runtime/notes.py): the one way the server says that an
answer differs from what the tool promises (R4 truncation is announced; R5 structured and text)."""

from __future__ import annotations

from mcpgen.runtime_source import runtime_module

notes = runtime_module("notes")


def test_a_note_comes_first_and_leaves_the_results_fields_as_they_were() -> None:
    result = {"id": 7, "name": "x"}
    noted = notes.with_note(result, "the concise fields were missing")
    assert list(noted) == ["note", "id", "name"]
    assert noted["note"] == "the concise fields were missing"
    assert result == {"id": 7, "name": "x"}  # a new dict: the caller's is untouched


def test_several_notes_are_joined_once_each_and_bounded() -> None:
    noted = notes.with_note(notes.with_note({}, "first."), "second.")
    assert noted["note"] == "first. second."
    assert notes.with_note(noted, "second.") == noted
    long = notes.with_note({}, "word " * 500)
    assert len(long["note"]) <= notes.MAX_NOTE_CHARS and long["note"].endswith("[...]")
    assert notes.with_note({"a": 1}, "  ") == {"a": 1}


def test_an_apis_own_note_is_neither_overwritten_nor_written_into() -> None:
    """Square's payments have a `note` of their own (squareup.com.json /components/schemas/Payment)."""
    record = {"id": "pay_03", "note": "Payment 3"}
    noted = notes.with_note(notes.with_note(record, "unwrapped."), "fields missing.")
    assert noted == {"server_note": "unwrapped. fields missing.", "id": "pay_03", "note": "Payment 3"}
    assert notes.with_note({"note": {"by": "api"}}, "x") == {"server_note": "x", "note": {"by": "api"}}
