"""README.md's tables of change classes and kinds of change say what the diff's one registry says
(mcpgen/contract/diff/kinds.py): the same entries, in the same order, with the same meanings."""

from __future__ import annotations

from mcpgen.contract.diff.kinds import Impact, Kind
from tests.support.paths import ROOT


def _readme_tables() -> dict[tuple[str, ...], list[tuple[str, ...]]]:
    """The tables of README's section on reviewing a change, by header row: their rows, as cells."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Regenerating and reviewing a change\n", 1)[1].split("\n## ", 1)[0]
    tables: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    rows: list[tuple[str, ...]] | None = None
    for line in section.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            rows = None
            continue
        cells = tuple(cell.strip() for cell in line.strip("|").split("|"))
        if rows is None:
            rows = tables.setdefault(cells, [])
        elif not all(set(cell) <= set("-:") for cell in cells):
            rows.append(cells)
    return tables


def test_readme_lists_the_four_classes_most_severe_first() -> None:
    expected = [(impact.label, impact.meaning) for impact in sorted(Impact, reverse=True)]
    assert _readme_tables().get(("Class", "Meaning")) == expected


def test_readme_lists_every_kind_of_change_with_its_classes_and_meaning() -> None:
    expected = [(f"`{kind.value}`", ", ".join(i.label for i in kind.impacts), kind.meaning) for kind in Kind]
    assert _readme_tables().get(("Kind", "Class", "Meaning")) == expected


def test_each_kind_names_its_classes_once_least_severe_first() -> None:
    for kind in Kind:
        assert kind.impacts and list(kind.impacts) == sorted(set(kind.impacts)), kind
