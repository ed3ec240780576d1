"""A table whose cells a browser centres on their rows, with no header and no rules.

gtk-doc prints an enumeration's values as a table of two columns: each value's name on one line,
its description beside it wrapped in a column narrower than the names, and the name centred on
the description's lines. Against it: a definition list, each term on the first line of its
paragraph, stays text; and labels beside a column of colons are no table.
"""

from __future__ import annotations

from tests.support.drawn import drawn_pdf, fragments, tables

VALUES = [("POPPLER_ERROR_INVALID", ["Generic error when a", "document operation fails"]),
          ("POPPLER_ERROR_ENCRYPTED", ["Document is encrypted"]),
          ("POPPLER_ERROR_OPEN_FILE", ["File could not be opened", "for writing when saving", "document"]),
          ("POPPLER_ERROR_BAD_CATALOG", ["Failed to read the", "document catalog"]),
          ("POPPLER_ERROR_DAMAGED", ["Document is damaged"])]


def _rows(items: list[tuple[str, list[str]]], *, centred: bool, x: float = 265) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        y = 740.0
        for name, lines in items:
            height = 13 * len(lines)
            c.setFont("Courier", 11)
            # the name in the middle of its description's lines, or on the first of them
            c.drawString(39, y - (height - 13) / 2 if centred else y, name)
            c.setFont("Helvetica", 11)
            for k, line in enumerate(lines):
                c.drawString(x, y - 13 * k, line)
            y -= height + 18  # (the rows' padding)
    return drawn_pdf(draw)


def test_names_centred_on_descriptions_narrower_than_they_are_are_a_table() -> None:
    assert tables(_rows(VALUES, centred=True)) == [[[name, " ".join(lines)] for name, lines in VALUES]]


def test_terms_on_the_first_line_of_their_paragraphs_stay_text() -> None:
    assert tables(_rows(VALUES, centred=False)) == []


def test_labels_centred_on_a_column_of_colons_are_no_table() -> None:
    colons = [(name, [":"] * len(lines)) for name, lines in VALUES]
    data = _rows(colons, centred=True, x=250)
    assert tables(data) == [] and all(f.fragment_type != "table" for f in fragments(data))
