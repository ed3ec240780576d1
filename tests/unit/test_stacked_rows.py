"""A parameter table as gtk-doc prints it: each name beside a stack of rows.

JSON-GLib's reference lists a function's parameters in a table of two columns without rules or
header: the name on the first row, its type beside it, and under the type, in rows of their own
set apart by the rows' padding, its description and the notes on who owns the data. A line of a
note that wraps runs on at the text's leading. LibreOffice prints a page of it with the first row
in the page's top margin, where a running head would be. Against it: a definition list, each
term beside a paragraph set at its leading, stays text.
"""

from __future__ import annotations

from tests.support.drawn import drawn_pdf, fragments, tables

PARAMETERS = [("pspec", ["GParamSpec*", "A property description.", "The data is owned by the caller of the function."]),
              ("value", ["GValue*", "Return location for the property value.", "The argument will be set by the function.",
                         "The data is owned by the caller of the function."])]
TERMS = [("pspec", ["The property whose value is read: its name, its type and the flags that",
                    "say whether it may be read and written, which the caller keeps and which",
                    "the function neither copies nor frees."]),
         ("value", ["Where the value goes: a GValue initialised to the property's type or to",
                    "a type it can be converted to, which the function sets and the caller",
                    "unsets once done with it."])]


def _listed(items: list[tuple[str, list[str]]], pitch: float, top: float = 700.0) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 11)
        y = top
        for name, lines in items:
            c.drawString(77, y, name)
            for line in lines:
                c.drawString(202, y, line)
                y -= pitch
            y -= 2
    return drawn_pdf(draw)


def test_names_beside_stacks_of_rows_set_apart_are_a_table_a_row_each() -> None:
    got = tables(_listed(PARAMETERS, 24.0))
    assert got == [[[name if k == 0 else "", line] for name, lines in PARAMETERS for k, line in enumerate(lines)]]


def test_the_first_row_in_the_top_margin_with_the_stack_hung_under_its_type_is_the_table_s() -> None:
    # (the page's first line, 36 pt from its top edge; the stack under the type, then the next name)
    got = tables(_listed(PARAMETERS, 24.0, top=792 - 44))
    assert got == [[[name if k == 0 else "", line] for name, lines in PARAMETERS for k, line in enumerate(lines)]]


BOXED = [("gboxed_type", ["GType", "A boxed type."]), ("node_type", ["JsonNodeType", "A node type."]),
         ("deserialize_function", ["JsonBoxedDeserializeFunc", "Deserialization function."])]


def test_long_names_beside_short_stacks_are_a_table_too() -> None:
    """The names three quarters as wide as what stands beside them (JSON-GLib's boxed types): one
    table, each name on its type's row. (The last name's description is read into its type's
    cell: the table's last row is taken as wrapped.)"""
    got = tables(_listed(BOXED, 24.0))
    assert len(got) == 1
    named = [row for row in got[0] if row[0]]
    assert [row[0] for row in named] == [name for name, _ in BOXED]
    assert all(row[1].startswith(lines[0]) for row, (_, lines) in zip(named, BOXED, strict=True))


def test_terms_beside_paragraphs_at_their_leading_stay_text() -> None:
    data = _listed(TERMS, 13.5)
    assert tables(data) == []
    assert any(f.content.get("content", "").startswith("The property whose value") for f in fragments(data))
