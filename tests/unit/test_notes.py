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


def _shaping():
    import importlib
    import sys

    from tests.support.paths import GENERATED

    sys.path.insert(0, str(GENERATED / "petstore"))
    try:
        return importlib.import_module("petstore_mcp._runtime.shaping")
    finally:
        sys.path.remove(str(GENERATED / "petstore"))


def test_a_concise_record_is_never_emptier_than_the_record() -> None:
    """The runtime's shaping as generated (R1 meaningful fields): a derived set that finds nothing shows
    the record whole; a named one that misses a field shows the id and name fields beside the rest."""
    shaping = _shaping()
    derived = shaping.Shape(concise=("id", "title", "status"), drop=("internal",))
    record = {"uid": "dpl_1", "label": "x", "internal": 1}
    assert shaping.concise_or_more(record, derived) == (
        {"uid": "dpl_1", "label": "x"},
        ("id", "title", "status"),
        False,
    )
    assert shaping.concise_or_more({"size": 3, "internal": 1}, derived) == (
        {"size": 3},
        ("id", "title", "status"),
        True,
    )
    named = shaping.Shape(concise=("status", "owner.email"), named=True)
    shown, missing, whole = shaping.concise_or_more(
        {"uid": "u1", "name": "n", "size": 3, "owner": {"email": "e"}}, named
    )
    assert (shown, missing, whole) == (
        {"owner": {"email": "e"}, "uid": "u1", "name": "n"},
        ("status",),
        False,
    )
    # A derived set's optional field left out hides nothing: no note.
    assert shaping.concise_or_more({"id": 1, "title": "t"}, derived) == ({"id": 1, "title": "t"}, (), False)


def test_only_an_envelope_the_spec_does_not_describe_is_unwrapped() -> None:
    shaping = _shaping()
    shape = shaping.Shape(concise=("id", "name"))
    assert shaping.unwrap_unsaid({"data": {"id": 1}}, shape) == ({"id": 1}, "data")
    assert shaping.unwrap_unsaid({"data": {}}, shape) == ({"data": {}}, None)  # nothing to show inside
    assert shaping.unwrap_unsaid({"id": {"a": 1}}, shape) == ({"id": {"a": 1}}, None)  # a concise field
    assert shaping.unwrap_unsaid({"settings": {"a": 1}}, shaping.Shape(bare="settings"))[1] is None
    assert shaping.unwrap_unsaid({"data": {"id": 1}, "meta": {}}, shape)[1] is None
