"""Rows whose cells are set apart in height, as LibreOffice Writer prints HTML tables.

Writer centres a row's cells on the row: a cell whose text sits in a paragraph with a margin
under it is set higher than the plain cell beside it, so the row's cells do not share a line
(Pango's enumerations, Node.js's version histories); a name wrapped over two lines sits in the
middle of a longer description (CMake's variables). Small tables of such rows come with a title
over a bold header, or start the page with the header in its top margin; a header cell may wrap
beside one that does not, and a row's lines may be set as far apart as the rows (Pango's
enumerations, SQLAlchemy's version tables), while a cell centred over two full rows of a wider
table spans them. These tests draw such tables and check the cells a reader gets,
and check the line rule itself: lines of text, two lines side by side and a brace over several
rows are not joined.
"""

from __future__ import annotations

from reportlab.pdfbase.pdfmetrics import stringWidth

from pipelines.stages.geometry import Word
from pipelines.stages.lines_of_words import group_lines, row_lines, staggered
from pipelines.stages.tables import grid_from_columns
from tests.support.drawn import drawn_pdf, tables

PARTS = [("PANGO_RENDER_PART_FOREGROUND", "The text itself."),
         ("PANGO_RENDER_PART_BACKGROUND", "The area behind the text."),
         ("PANGO_RENDER_PART_UNDERLINE", "Underlines."),
         ("PANGO_RENDER_PART_STRIKETHROUGH", "Strikethrough lines."),
         ("PANGO_RENDER_PART_OVERLINE", "Overlines.")]


def _offset_rows(rows: list[tuple[str, str]], head: tuple[str, str], xs: tuple[float, float], lift: float) -> bytes:
    """A bold header, then rows 33 pt apart whose right cell is set ``lift`` points higher."""
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 12)
        c.drawString(xs[0], 675, head[0])
        c.drawString(xs[1], 675, head[1])
        c.setFont("Helvetica", 12)
        y = 650.0
        for left, right in rows:
            c.drawString(xs[0], y, left)
            c.drawString(xs[1], y + lift, right)
            y -= 33
    return drawn_pdf(draw)


def test_long_names_beside_descriptions_set_higher_are_a_table() -> None:
    # Pango's enumerations as Writer prints them: names wider than their descriptions, each
    # description 7 pt above its name
    got = tables(_offset_rows(PARTS, ("Name", "Description"), (58, 330), 7.0))
    assert got == [[["Name", "Description"], *[list(r) for r in PARTS]]]


def test_the_same_cells_on_one_line_read_the_same() -> None:
    # the control: the rows set without the offset give the same table
    got = tables(_offset_rows(PARTS, ("Name", "Description"), (58, 330), 0.0))
    assert got == [[["Name", "Description"], *[list(r) for r in PARTS]]]


VARIABLES = [(["CMAKE_PREFIX_P", "ATH"], ["Path to search for dependent packages"]),
             (["CMAKE_MODULE_P", "ATH"], ["Path to search for additional CMake modules"]),
             (["CMAKE_BUILD_TY", "PE"], ["Build configuration, such as Debug or Release, determining",
                                         "debug/optimization flags. This is only relevant for single-",
                                         "configuration buildsystems such as Makefile and Ninja. Multi-",
                                         "configuration buildsystems such as those for Visual Studio and",
                                         "Xcode ignore this setting."]),
             (["CMAKE_INSTALL_", "PREFIX"], ["Location to install the software to with the install build target"])]


def test_a_wrapped_name_centred_beside_a_longer_description_is_one_row() -> None:
    # CMake's variables as Writer prints them: padded rows, each cell centred on its row, a
    # name broken over two lines in the middle of a description of five
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Times-Bold", 11)
        c.drawString(80, 700, "Variable")
        c.drawString(300, 700, "Meaning")
        top, lead = 680.0, 14.0
        for name, desc in VARIABLES:
            h = max(len(name), len(desc)) * lead
            for lines, x, font in ((name, 57, "Courier"), (desc, 160, "Times-Roman")):
                c.setFont(font, 10)
                for k, t in enumerate(lines):
                    c.drawString(x, top - (h - len(lines) * lead) / 2 - 10 - lead * k, t)
            top -= h + 20
    assert tables(drawn_pdf(draw)) == [[["Variable", "Meaning"], *[[" ".join(n), " ".join(d)] for n, d in VARIABLES]]]


def _words(text: str, x: float, top: float, h: float = 9.0) -> list[Word]:
    out, at = [], x
    for t in text.split():
        out.append(Word(t, at, top, at + 6 * len(t), top + h))
        at += 6 * len(t) + 3
    return out


def test_row_lines_join_an_offset_cell_that_text_lines_do_not() -> None:
    left, right = _words("v14.0.0", 58, 179.1), _words("End-of-Life.", 141, 172.2)
    assert [" ".join(w.text for w in ln) for ln in row_lines(left + right)] == ["v14.0.0 End-of-Life."]
    # running text is read as before: lines that meet a little stay two lines
    assert len(group_lines(left + right)) == 2


def test_row_lines_keep_interleaved_lines_and_a_tall_brace_apart() -> None:
    # two lines side by side whose words interleave in x (a large heading beside small text)
    upper = [Word("VOS", 100, 100, 130, 112), Word("AUTRES", 180, 100, 230, 112)]
    lower = [Word("frais", 140, 109, 170, 118), Word("achats", 240, 109, 280, 118)]
    assert len(row_lines(upper + lower)) == 2
    # a brace five rows tall beside a row is no cell of it
    assert staggered(_words("case 4", 120, 160), [Word("{", 100, 98, 108, 172)]) is False
    assert staggered(_words("case 4", 120, 160), _words("value", 200, 153)) is True


def test_two_tables_side_by_side_at_different_pitches_are_no_one_row() -> None:
    # a tax summary (two rows 14 pt apart) beside totals (four rows 13 pt apart), their lines
    # meeting a little all the way down: each table's rows stay apart
    columns = [
        [w for k, t in enumerate(["VAT rate", "21 %"]) for w in _words(t, 40, 386 + 14 * k)],
        [w for k, t in enumerate(["Total CZK", "97 296,10"]) for w in _words(t, 200, 386 + 14 * k)],
        [w for k, t in enumerate(["Total excl. VAT", "VAT 21 %", "Rounding", "TOTAL DUE"]) for w in _words(t, 350, 380 + 13 * k)],
        [w for k, t in enumerate(["80 410,00", "16 886,10", "-0,10", "97 296,00"]) for w in _words(t, 480, 380 + 13 * k)],
    ]
    rows = grid_from_columns(columns, 9.0)
    assert ["TOTAL DUE", "97 296,00"] in [[t for t, _ in r if t][-2:] for r in rows]
    assert all(sum(1 for t, _ in r[2:3] if "\n" in t) == 0 for r in rows)


def _history(rows: list[tuple[str, str]], gutter: float, title: bool) -> bytes:
    """Node.js's version histories as Writer prints them: maybe a title, a bold header, rows
    whose changes sit 7 pt above their versions, ``gutter`` points after the widest version."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    right = 58 + max(stringWidth("Version", "Helvetica-Bold", 12), *(stringWidth(v, "Helvetica", 12) for v, _ in rows)) \
        + gutter

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 12)
        if title:
            c.drawString(57, 700, "History")
        c.setFont("Helvetica-Bold", 12)
        c.drawString(58, 675, "Version")
        c.drawString(right, 675, "Changes")
        c.setFont("Helvetica", 12)
        for k, (version, change) in enumerate(rows):
            c.drawString(58, 650 - 33 * k, version)
            c.drawString(right, 657 - 33 * k, change)
    return drawn_pdf(draw)


TWO = [("v17.0.0", "Changed default value to verbatim."), ("v16.4.0, v14.18.0", "Added in: v16.4.0, v14.18.0")]
THREE = [("v10.0.0", "Add emitClose option to specify if 'close' is emitted on destroy."),
         ("v8.0.0", "The stream is destroyed on error."), ("v0.9.4", "Added in: v0.9.4")]


def test_a_bold_header_over_two_rows_a_word_space_apart_is_a_table() -> None:
    # a title, then three rows in all, the gutter narrower than a word space of the header's:
    # the header's weight and the cells starting together on both sides are the evidence
    assert tables(_history(TWO, 3.7, title=True)) == [[["Version", "Changes"], *[list(r) for r in TWO]]]


def test_a_title_over_a_bold_header_is_no_row_of_its_table() -> None:
    # "History" over the header sits in the first column: over two rows it gave that column a
    # line more than the other, and the table was read as text; over three it was read as a row
    for rows in (THREE[1:], THREE):
        assert tables(_history(rows, 11.0, title=True)) == [[["Version", "Changes"], *[list(r) for r in rows]]]


ALIGN = [("PANGO_ALIGN_LEFT", "Put all available space on the right."),
         ("PANGO_ALIGN_CENTER", "Center the line within the available space."),
         ("PANGO_ALIGN_RIGHT", "Put all available space on the left.")]


def test_a_header_centred_over_its_columns_in_the_top_margin_heads_the_table() -> None:
    # the table starts the page: its bold header, each cell centred over its column, sits in
    # the top margin, set off from the rows by the cells' padding like a running head
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from tests.support.drawn import H

    widest = max(stringWidth(n, "Helvetica", 12) for n, _ in ALIGN)
    right = 58 + widest + 8
    far = right + max(stringWidth(d, "Helvetica", 12) for _, d in ALIGN)

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 12)
        c.drawCentredString(58 + widest / 2, H - 42, "Name")
        c.drawCentredString((right + far) / 2, H - 42, "Description")
        c.setFont("Helvetica", 12)
        for k, (name, text) in enumerate(ALIGN):
            c.drawString(58, H - 75 - 40 * k, name)
            c.drawString(right, H - 68 - 40 * k, text)
    assert tables(drawn_pdf(draw)) == [[["Name", "Description"], *[list(r) for r in ALIGN]]]


SUPPORT = [(["Fully tested", "in CI"], ["9.6 to 14"]), (["Normal", "support"], ["9.6+"]),
           (["Best effort"], ["8+"])]


def _centred_cells(rows: list[tuple[list[str], list[str]]], head: tuple[list[str], list[str]]) -> bytes:
    """Writer's two-column table under a bold header: each cell's lines centred on its row, so
    a header cell over two lines sits beside one of one line, and a cell of two lines beside a
    cell of one (SQLAlchemy's supported versions)."""
    def cell(c, lines: list[str], x: float, mid: float) -> None:  # type: ignore[no-untyped-def]
        top = mid + 7 * (len(lines) - 1)
        for k, text in enumerate(lines):
            c.drawString(x, top - 14 * k, text)

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 11)
        c.drawString(94, 750, "Supported versions of the database")
        cell(c, head[0], 100, 700)
        cell(c, head[1], 240, 700)
        c.setFont("Helvetica", 11)
        for k, (left, right) in enumerate(rows):
            cell(c, left, 94, 660 - 44 * k)
            cell(c, right, 231, 660 - 44 * k)
        c.drawString(94, 500, "The dialect is tested on every version above.")
    return drawn_pdf(draw)


def test_cells_centred_on_their_rows_under_a_header_cell_over_two_lines_make_a_table() -> None:
    got = tables(_centred_cells(SUPPORT, (["Support", "type"], ["Versions"])))
    assert got == [[["Support type", "Versions"], *[[" ".join(a), " ".join(b)] for a, b in SUPPORT]]]
    # the same two parts without the bold header are a list of labels, read as text
    def plain(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 11)
        for k, (left, right) in enumerate(SUPPORT):
            for j, text in enumerate(left):
                c.drawString(94, 660 - 44 * k + 7 * (len(left) - 1) - 14 * j, text)
            for j, text in enumerate(right):
                c.drawString(231, 660 - 44 * k + 7 * (len(right) - 1) - 14 * j, text)
    assert tables(drawn_pdf(plain)) == []


GRAVITY = [(["PANGO_GRAVIT", "Y_HINT_NATUR", "AL"], ["Scripts take their natural gravity based on the", "base gravity and the script."]),
           (["PANGO_GRAVIT", "Y_HINT_STRON", "G"], ["Always use the base gravity set."]),
           (["PANGO_GRAVIT", "Y_HINT_LINE"], ["For scripts not in their natural direction, choose",
                                              "per-script gravity such that every script respects",
                                              "the line progression, top to bottom."])]


def _loose_rows(c, rows, xs: tuple[float, float], top: float, pitch: float, gap: float) -> None:  # type: ignore[no-untyped-def]
    """Each row's two cells centred on the row, lines ``pitch`` apart, rows ``gap`` more."""
    y = top
    for left, right in rows:
        n = max(len(left), len(right))
        for x, lines in zip(xs, (left, right), strict=True):
            first = y - pitch * (n - len(lines)) / 2
            for k, text in enumerate(lines):
                c.drawString(x, first - pitch * k, text)
        y -= pitch * n + gap


def test_a_header_in_the_top_margin_over_wrapped_cells_centred_on_loose_rows() -> None:
    """Writer's print of Pango's enumerations at the top of a page: the bold header in the
    margin, centred over its columns; names broken over three lines beside shorter or longer
    descriptions, each centred on its row, lines set as far apart as the rows."""
    spans = [max(stringWidth(t, "Helvetica", 9) for row in GRAVITY for t in row[k]) for k in (0, 1)]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 9)  # (each centred on its cell, a little wider than its text)
        c.drawCentredString(58 + spans[0] / 2 + 2, 750, "Name")
        c.drawCentredString(175 + spans[1] / 2 + 4, 750, "Description")
        c.setFont("Helvetica", 9)
        _loose_rows(c, GRAVITY, (58, 175), 725, 24.5, 4)
    got = tables(drawn_pdf(draw))
    assert got == [[["Name", "Description"], *[[" ".join(a), " ".join(b)] for a, b in GRAVITY]]]


def test_a_cell_centred_over_two_full_rows_of_a_wider_table_spans_them() -> None:
    """Two lines that fill every other column beside one cell centred on both are two rows
    under a cell that spans them (Python's version bytes), not one row's wrapped cells."""
    head = ["Bytes", "Bits (big endian order)", "Meaning", "Value for 3.4.1a2"]
    rows = [["1", "1-8", "PY_MAJOR_VERSION", "0x03"], ["2", "9-16", "PY_MINOR_VERSION", "0x04"],
            ["3", "17-24", "PY_MICRO_VERSION", "0x01"]]
    xs = (88, 131, 291.1, 423.5)

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 10)
        for x, t in zip((88.7, 131.5, 325.9, 426.0), head, strict=True):
            c.drawString(x, 700, t)
        c.setFont("Helvetica", 10)
        y = 669
        for row in rows:
            for x, t in zip(xs, row, strict=True):
                c.drawString(x, y, t)
            y -= 31
        c.drawString(xs[0], y - 15.5, "4")
        for k, rest in enumerate((["25-28", "PY_RELEASE_LEVEL", "0xA"], ["29-32", "PY_RELEASE_SERIAL", "0x2"])):
            for x, t in zip(xs[1:], rest, strict=True):
                c.drawString(x, y - 31 * k, t)
    got = tables(drawn_pdf(draw))
    assert len(got) == 1 and got[0][:4] == [head, *rows]
    assert [r[1:] for r in got[0][4:]] == [["25-28", "PY_RELEASE_LEVEL", "0xA"], ["29-32", "PY_RELEASE_SERIAL", "0x2"]]


def test_rows_in_one_band_join_unless_both_fill_a_wider_table() -> None:
    """The table reader's side of it (``row_bands.in_bands``): the lines of a row the cut found join;
    in a table of four columns a line with one cell joins (a wrapped cell), two full lines stay
    two rows under the cell centred on both."""
    from pipelines.stages.row_bands import in_bands

    def row(y: float, *texts: str) -> list:
        return [(t, (10.0 * k, y, 10.0 * k + 8, y + 9) if t else None) for k, t in enumerate(texts)]
    bands = [(0.0, 20.0), (30.0, 70.0)]
    wrapped_cell = [row(5, "Debian", "armel", "wheezy", "J. Ranke"), row(35, "", "", "lucid/", ""),
                    row(47, "Ubuntu", "i386", "", "M. Rutter"), row(59, "", "", "trusty", "")]
    assert [[t for t, _ in r] for r in in_bands(wrapped_cell, bands)] == \
        [["Debian", "armel", "wheezy", "J. Ranke"], ["Ubuntu", "i386", "lucid/\ntrusty", "M. Rutter"]]
    spanned = [row(5, "3", "17-24", "MICRO", "0x01"), row(35, "4", "25-28", "LEVEL", "0xA"), row(55, "", "29-32", "SERIAL", "0x2")]
    assert in_bands(spanned, bands) == spanned
    two = [row(5, "Name", "Description"), row(35, "PANGO_GRAVIT", "Scripts take"), row(55, "Y_HINT", "their gravity")]
    assert [[t for t, _ in r] for r in in_bands(two, bands)] == \
        [["Name", "Description"], ["PANGO_GRAVIT\nY_HINT", "Scripts take\ntheir gravity"]]


def test_lines_grouped_again_within_a_page_layout_are_the_same_and_a_callers_own() -> None:
    """``lines_kept`` answers a list of words grouped before from what it found then: the same
    lines as grouping afresh, in lists the caller may change without changing later answers."""
    from pipelines.stages.lines_of_words import lines_kept

    words = [Word("b", 60, 100, 80, 110), Word("a", 10, 101, 50, 111), Word("c", 10, 130, 50, 140),
             Word("d", 60, 124, 90, 134)]
    fresh = [[w.text for w in line] for line in row_lines(words)]
    with lines_kept():
        first = row_lines(words)
        assert [[w.text for w in line] for line in first] == fresh == [["a", "b"], ["c", "d"]]
        first[0].clear()
        first.append([])
        assert [[w.text for w in line] for line in row_lines(words)] == fresh
        assert [[w.text for w in line] for line in group_lines(words)] == [["a", "b"], ["d"], ["c"]]
        assert [[w.text for w in line] for line in row_lines(words[:3])] == [["a", "b"], ["c"]]


def test_header_cells_centred_right_of_short_values_and_values_centred_on_a_wrapped_stub() -> None:
    """HTML centres a header cell over its column and a row's cells on the row: a bold header
    cell wider than the values under it stands apart on their right, and the values of a row
    whose first cell wraps over two lines sit halfway between them (Octave's table of ``eig``'s
    flags, as LibreOffice prints it)."""
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 11)
        c.drawString(113, 720, "Use the Cholesky factorization of B. (default if A is symmetric (Hermitian) and B is")
        c.drawString(113, 690, "Use the QZ algorithm. (used whenever A or B are not symmetric)")
        c.setFont("Helvetica-Bold", 11)
        for x, t in ((272, "no flag"), (390, "chol"), (506, "qz")):
            c.drawString(x, 660, t)
        c.setFont("Helvetica", 10)
        for x, t in ((87, "both are symmetric"), (239, '"chol"'), (349, '"chol"'), (459, '"qz"')):
            c.drawString(x, 642, t)
        c.drawString(87, 623, "at least one is not")
        c.drawString(87, 606, "symmetric")
        for x in (239, 349, 459):
            c.drawString(x, 614.5, '"qz"')
        c.setFont("Helvetica", 11)
        c.drawString(85, 578, "The eigenvalues returned by eig are not ordered.")
    got = tables(drawn_pdf(draw))
    assert got == [[["", "no flag", "chol", "qz"], ["both are symmetric", '"chol"', '"chol"', '"qz"'],
                    ["at least one is not symmetric", '"qz"', '"qz"', '"qz"']]]
