"""Tables of API references and Sphinx manuals, as browsers and office suites print them.

Generated PDFs (reportlab): (a) gtk-doc's function index: return types set flush right beside
function names, ``void`` down most lines; (b) the same printed by LibreOffice, the types set
flush left far from the names; (c) a three-row index; (d) Sphinx's tables: the header over the
first rule, every rule drawn cell by cell, a description wrapped over lines as wide as the
table; (e) a column of ``Yes`` with a note after some of them in the same cell; (f) libxml2's
three parameters, labels ending in a colon; (g) libsoup's index, most return types ending in a
pointer mark.
"""

from __future__ import annotations

import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth

from tests.support.drawn import drawn_pdf, tables, wrapped

FUNCTIONS = [("cairo_scaled_font_t *", "cairo_scaled_font_create ()"), ("void", "cairo_scaled_font_destroy ()"),
             ("cairo_status_t", "cairo_scaled_font_status ()"), ("void", "cairo_scaled_font_extents ()"),
             ("void", "cairo_scaled_font_text_extents ()"), ("void", "cairo_scaled_font_get_type ()"),
             ("void", "cairo_scaled_font_get_ctm ()"), ("void", "cairo_scaled_font_get_font_matrix ()")]


def _index(rows: list[tuple[str, str]], flush_right: bool, gap: float = 12.0) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(40, 760, "Functions")
        edge = 40 + max(stringWidth(t, "Helvetica", 10) for t, _ in rows)
        for k, (kind, name) in enumerate(rows):
            y = 730 - 16 * k
            if flush_right:
                c.drawRightString(edge, y, kind)
            else:
                c.drawString(40, y, kind)
            c.drawString(edge + gap, y, name)
        c.drawString(40, 700 - 16 * len(rows), "The functions below create and query scaled fonts.")
    return drawn_pdf(draw)


@pytest.mark.parametrize("gap", [12.0, 3.0])  # Chromium sets them a word space apart at times
def test_return_types_set_flush_right_beside_function_names_are_a_table(gap: float) -> None:
    assert tables(_index(FUNCTIONS, flush_right=True, gap=gap)) == [[list(r) for r in FUNCTIONS]]


def test_return_types_set_flush_left_far_from_the_names_are_a_table() -> None:
    # one type name as long as the names beside it, among short ones
    rows = [*FUNCTIONS, ("cairo_scaled_font_subpixel_order_t", "cairo_get_order ()")]
    assert tables(_index(rows, flush_right=False, gap=60.0)) == [[list(r) for r in rows]]


POINTERS = [("guint", "soup_server_get_port ()"), ("SoupSocket *", "soup_server_get_listener ()"),
            ("void", "soup_server_run ()"), ("GMainContext *", "soup_server_get_async_context ()"),
            ("SoupSocket *", "soup_client_context_get_socket ()"), ("SoupAddress *", "soup_client_context_get_address ()"),
            ("const char *", "soup_client_context_get_host ()"), ("void", "soup_server_quit ()")]


def test_return_types_ending_in_a_pointer_mark_beside_function_names_are_a_table() -> None:
    # libsoup's index as Chromium prints it: most types end in ``*``, a word space from the names
    assert tables(_index(POINTERS, flush_right=True, gap=3.0)) == [[list(r) for r in POINTERS]]


def test_a_three_row_index_is_a_table_when_both_sides_of_its_gutter_line_up() -> None:
    rows = [FUNCTIONS[0], FUNCTIONS[2], FUNCTIONS[5]]
    assert tables(_index(rows, flush_right=True)) == [[list(r) for r in rows]]


KEYS = [("Key", "Contents"), ("text", "The comment text."), ("username", "The username stored with the comment."),
        ("id", "The comment's unique identifier."),
        ("time", "A dict containing time information. It contains the following keys: year, month, day, hour, "
                 "minute, second, iso and delta."),
        ("rating", "The comment's current rating."), ("age", "The time in seconds since the comment was added."),
        ("node", "The id of the node that the comment is attached to.")]
POLICY = [("Date", "Ubuntu", "Python"), ("April 2021", "18.04 LTS", "3.6+"), ("April 2023", "20.04 LTS", "3.8+")]


def _sphinx_table(rows: list[tuple[str, ...]], right: float) -> bytes:
    """A Sphinx table as Chromium prints it: the header over the first rule, each cell's bottom
    border drawn on its own, columns as wide as their widest cell and its padding."""
    xs = [70.0]
    for k in range(len(rows[0]) - 1):
        xs.append(xs[-1] + max(stringWidth(r[k], "Helvetica-Bold", 10) for r in rows) + 9)
    xs.append(right)

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(70, 770, "Get the comments and source associated with a node, as a list of dicts.")
        y = 740.0
        for k, row in enumerate(rows):
            cells = [wrapped(text, "Helvetica", 10, xs[j + 1] - xs[j] - 8) for j, text in enumerate(row)]
            height = max(len(c) for c in cells)
            c.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 10)
            for j, lines in enumerate(cells):
                for n, ln in enumerate(lines):
                    c.drawString(xs[j] + 3, y - 12 - 6 * (height - len(lines)) - 12 * n, ln)
            y -= 12 * height + 6
            c.setLineWidth(0.7)
            for a, b in zip(xs, xs[1:]):  # each cell's own bottom border
                c.line(a, y, b, y)
        c.setFont("Helvetica", 10)
        c.drawString(70, y - 30, "Parameters: node_id, the id of the node to get comments for.")
    return drawn_pdf(draw)


def test_a_short_table_ruled_cell_by_cell_under_its_header_is_one_table_with_it() -> None:
    assert tables(_sphinx_table(POLICY, 330.0)) == [[list(r) for r in POLICY]]


def test_a_cell_wrapped_as_wide_as_the_table_does_not_end_it() -> None:
    assert tables(_sphinx_table(KEYS, 450.0)) == [[[k, " ".join(t.split())] for k, t in KEYS]]


LIBRARIES = [("Program", "Required", "Versions"), ("GEOS", "Yes", "3.9, 3.8, 3.7"),
             ("PROJ", "Yes (PostgreSQL and SQLite only)", "7.x, 6.x, 5.x"), ("GDAL", "Yes", "3.2, 3.1, 3.0"),
             ("GeoIP", "No", "2"), ("PostGIS", "Yes (PostgreSQL only)", "3.0, 2.5, 2.4"),
             ("SpatiaLite", "Yes (SQLite only)", "4.3")]


def test_a_note_after_a_repeated_word_in_its_cell_opens_no_column() -> None:
    xs = [40.0, 120.0, 300.0, 420.0]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 9)
        for k, row in enumerate(LIBRARIES):
            y = 740 - 18 * k
            for x, text in zip(xs, row):
                c.drawString(x + 4, y, text)
            c.setLineWidth(0.5)
            c.line(xs[0], y - 6, xs[-1], y - 6)
    assert tables(drawn_pdf(draw)) == [[list(r) for r in LIBRARIES]]


PARAMETERS = [("ctxt:", "a document saving context"), ("doc:", "a document"),
              ("Returns:", "the number of byte written or -1 in case of error")]


def test_three_parameters_labelled_with_colons_are_a_table() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(40, 760, "Write the document to the saving context.")
        x = 74 + stringWidth("Returns:", "Helvetica", 10) + 3
        for k, (label, text) in enumerate(PARAMETERS):
            c.drawString(74, 730 - 19 * k, label)
            c.drawString(x, 730 - 19 * k, text)
    assert tables(drawn_pdf(draw)) == [[list(r) for r in PARAMETERS]]


ENUMS = ["GtkBaselinePosition", "GtkDeleteType", "GtkDirectionType", "GtkJustification", "GtkMovementStep",
         "GtkOrientation", "GtkPackType", "GtkPositionType"]


def test_one_word_down_a_column_in_a_proportional_font_is_a_table_s_column() -> None:
    # gtk-doc's "Types and Values": ``enum`` beside each type, a word space apart; the same
    # shape in a fixed-width font is code (``test_tight_tables``)
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        for k, name in enumerate(ENUMS):
            c.drawRightString(147, 730 - 16 * k, "enum")
            c.drawString(150, 730 - 16 * k, name)
    assert tables(drawn_pdf(draw)) == [[["enum", name] for name in ENUMS]]


MEMBERS = [("int x;", ["X coordinate of the", "left side of the", "rectangle"]),
           ("int y;", ["Y coordinate of the", "top side of the", "rectangle"]),
           ("int width;", ["width of the", "rectangle"]), ("int height;", ["height of the", "rectangle"])]


def test_struct_members_flush_right_beside_descriptions_wrapped_in_a_narrow_column() -> None:
    # cairo's structs as gtk-doc sets them: the member flush right on its description's first line
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 11)
        y = 740.0
        for member, lines in MEMBERS:
            c.drawRightString(267, y, member)
            for k, ln in enumerate(lines):
                c.drawString(286, y - 16.5 * k, ln)
            y -= 16.5 * len(lines) + 10
    assert tables(drawn_pdf(draw)) == [[[m, " ".join(lines)] for m, lines in MEMBERS]]


def test_notes_set_flush_right_in_the_margin_beside_paragraphs_stay_text() -> None:
    # a LaTeX manual's margin notes (``addon``, ``deprecated``) beside its option descriptions
    text = ("determines the style for non-keywords, comments and strings. The last token can be a "
            "one-parameter command like textbf or underbar, and it is printed before each of them. ") * 2

    def draw(c):  # type: ignore[no-untyped-def]
        y = 740.0
        for note in ("addon", "deprecated", "bug"):
            c.setFont("Helvetica", 8)
            c.drawRightString(120, y, note)
            c.setFont("Helvetica", 10)
            for ln in wrapped(text, "Helvetica", 10, 340):
                c.drawString(130, y, ln)
                y -= 12
            y -= 10
    assert tables(drawn_pdf(draw)) == []


CONVENTIONS = [("<prefix>/", "W"), ("<prefix>/(cmake|CMake)/", "W"), ("<prefix>/<name>*/", "W"),
               ("<prefix>/(lib/<arch>|lib*|share)/cmake/<name>*/", "U"),
               ("<prefix>/<name>*/(lib/<arch>|lib*|share)/<name>*/(cmake|CMake)/", "W/U"),
               ("<prefix>/<name>.framework/Resources/", "A")]


def test_a_bold_headed_table_of_long_entries_beside_short_values_is_a_table() -> None:
    # LibreOffice's print of a Sphinx table: rows far apart, the header centred and bold, one
    # entry wrapped with its value in the middle of its two lines
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(72, 760, "Each entry is meant for installation trees following Windows, UNIX or Apple conventions.")
        c.setFont("Helvetica-Bold", 10)
        c.drawCentredString(200, 730, "Entry")
        c.drawCentredString(460, 730, "Convention")
        c.setFont("Helvetica", 10)
        y = 700.0
        for entry, value in CONVENTIONS:
            lines = wrapped(entry.replace("/", "/ "), "Helvetica", 10, 300)
            for k, ln in enumerate(lines):
                c.drawString(72, y - 12 * k, ln.replace("/ ", "/"))
            c.drawString(440, y - 6 * (len(lines) - 1), value)
            y -= 12 * (len(lines) - 1) + 30
    def cell(entry: str) -> str:  # (a cell's lines joined by a space)
        return " ".join(ln.replace("/ ", "/") for ln in wrapped(entry.replace("/", "/ "), "Helvetica", 10, 300))

    assert tables(drawn_pdf(draw)) == [[["Entry", "Convention"], *[[cell(e), v] for e, v in CONVENTIONS]]]


def test_two_address_blocks_under_bold_labels_are_no_table() -> None:
    left = ["DblFuzzr LLC", "2 Old Cart Path", "Acton, MA 01720", "United States", "EIN: 45-286-3754"]
    right = ["Arsenale Bioyards", "Via Durini 18", "20122 Milano, Italy", "Italy", "VAT No: IT12990250966"]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 10)
        c.drawString(72, 700, "Service Provider:")
        c.drawString(320, 700, "Bill To:")
        c.setFont("Helvetica", 10)
        for k, (a, b) in enumerate(zip(left, right)):
            c.drawString(72, 684 - 14 * k, a)
            c.drawString(320, 684 - 14 * k, b)
    assert tables(drawn_pdf(draw)) == []
