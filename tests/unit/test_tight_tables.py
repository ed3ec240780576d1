"""Tables as a browser prints them: columns set as tightly as the words, links underlined.

Generated PDFs (reportlab), drawn the way Chromium prints an HTML table: (a) a borderless table
whose cells are 3 pt apart, less than the space between two words of a cell, read as a table;
(b) code in a fixed-width font whose lines line up at one space, left as text in its order;
(c) a ruled grid whose cells hold two lines, the first a link drawn with its underline: one row
per ruled row, not one per line.
"""

from __future__ import annotations

import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth

from tests.support.drawn import drawn_pdf, fragments, grid_rules
from tests.support.drawn import tables as read_tables

ROWS = [("no", "SEXPTYPE", "Description"), ("0", "NILSXP", "NULL"), ("1", "SYMSXP", "symbols"),
        ("2", "LISTSXP", "pairlists"), ("3", "CLOSXP", "closures"), ("4", "ENVSXP", "environments"),
        ("5", "PROMSXP", "promises"), ("6", "LANGSXP", "language objects"),
        ("7", "SPECIALSXP", "special functions"), ("9", "CHARSXP", "internal character strings"),
        ("10", "LGLSXP", "logical vectors")]


def test_borderless_table_with_gutters_narrower_than_a_word_space() -> None:
    pad = 3.0  # between columns; a space in 10 pt Helvetica is 2.8 pt, and cells hold several words
    widths = [max(stringWidth(r[k], "Helvetica", 10) for r in ROWS) for k in range(3)]
    xs = [72.0, 72.0 + widths[0] + pad, 72.0 + widths[0] + widths[1] + 2 * pad]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(72, 720, "The types of the objects, with their numbers:")
        for k, row in enumerate(ROWS):
            for x, text in zip(xs, row):
                c.drawString(x, 690 - 13 * k, text)
    tables = read_tables(drawn_pdf(draw))
    assert len(tables) == 1
    assert [[" ".join(c.split()) for c in row] for row in tables[0]] == [list(r) for r in ROWS]


def test_code_lined_up_at_one_space_stays_text_in_its_order() -> None:
    code = [f"int {name};" for name in ("alpha", "bravo", "delta", "gamma", "kappa", "omega")]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Courier", 10)
        for k, line in enumerate(code):
            c.drawString(72, 700 - 12 * k, line)
    frags = fragments(drawn_pdf(draw))
    assert not [f for f in frags if f.fragment_type == "table"]
    text = " ".join(str(f.content.get("content", "")) for f in frags)
    assert " ".join(text.split()) == " ".join(code)


# a browser underlines the link; LibreOffice its trailing space too, at times as a piece of its own
@pytest.mark.parametrize("past, piece", [(0.0, False), (7.0, False), (7.0, True)])
def test_underlined_link_in_a_ruled_cell_does_not_split_its_row(past: float, piece: bool) -> None:
    cells = [("package", "popcon", "comment"), ("tar", "V:920, I:999", "the standard archiver"),
             ("cpio", "V:416, I:998", "Unix System V style archiver"),
             ("pax", "V:10, I:18", "new POSIX standard archiver")]
    xs, top, height = [72, 160, 260, 480], 700, 30

    def draw(c):  # type: ignore[no-untyped-def]
        grid_rules(c, xs, top, height, len(cells))
        c.setFont("Helvetica", 10)
        for k, row in enumerate(cells):
            base = top - k * height - 12
            for j, text in enumerate(row):
                if j == 1 and k:  # two lines, the first a link with its underline
                    first, second = text.split(" ")
                    c.drawString(xs[j] + 2, base, first)
                    end = xs[j] + 2 + stringWidth(first, "Helvetica", 10)
                    c.line(xs[j] + 2, base - 1.2, end if piece else end + past, base - 1.2)
                    if piece:
                        c.line(end, base - 1.2, end + past, base - 1.2)
                    c.drawString(xs[j] + 2, base - 12, second)
                else:
                    c.drawString(xs[j] + 2, base, text)
    tables = read_tables(drawn_pdf(draw))
    assert len(tables) == 1
    assert [[" ".join(c.split()) for c in row] for row in tables[0]] == [list(r) for r in cells]


def _labels_and_values(centred: bool) -> bytes:
    rows = [("Description:", ["Generation of Expires and Cache-Control HTTP headers according to user-",
                              "specified criteria"]),
            ("Status:", ["Extension"]), ("Module Identifier:", ["expires_module"]),
            ("Source File:", ["mod_expires.c"]), ("Compatibility:", ["Available in version 2.4 and later"])]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        y = 700.0
        for label, lines in rows:
            at = y - (len(lines) - 1) * 6 if centred else y  # a browser centres a cell's text
            c.drawString(72, at, label)
            for k, line in enumerate(lines):
                c.drawString(180, y - 12 * k, line)
            y -= 12 * len(lines) + 4
    return drawn_pdf(draw)


def test_a_wrapped_value_stays_in_its_labels_row() -> None:
    for centred in (False, True):
        tables = read_tables(_labels_and_values(centred))
        assert len(tables) == 1, centred
        assert [[" ".join(c.split()) for c in row] for row in tables[0]] == [
            ["Description:", "Generation of Expires and Cache-Control HTTP headers according to user- "
                             "specified criteria"],
            ["Status:", "Extension"], ["Module Identifier:", "expires_module"],
            ["Source File:", "mod_expires.c"], ["Compatibility:", "Available in version 2.4 and later"]], centred


def test_a_title_over_a_tight_table_does_not_hide_its_columns() -> None:
    # the title spans the gutter and sits as close as the rows: no gap to cut the table from it
    rows = [("Helvetica", "Hershey/Cartographic_Roman"), ("Helvetica Bold", "Hershey/Cartographic_Greek"),
            ("Helvetica Oblique", "Hershey/Simplex_Roman"), ("Helvetica Bold Oblique", "Hershey/Simplex_Greek"),
            ("Times Roman", "Hershey/Simplex_Script"), ("Times Bold", "Hershey/Complex_Roman"),
            ("Courier", "Hershey/Complex_Cyrillic"), ("Symbol", "Hershey/Gothic_German")]
    right = 72 + max(stringWidth(a, "Helvetica", 10) for a, _ in rows) + 3.8

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 10)
        c.drawCentredString(right - 10, 712, "CGM fonts")
        c.setFont("Helvetica", 10)
        for k, (a, b) in enumerate(rows):
            c.drawString(72, 700 - 12 * k, a)
            c.drawString(right, 700 - 12 * k, b)
    tables = read_tables(drawn_pdf(draw))
    assert len(tables) == 1
    assert [[" ".join(c.split()) for c in row] for row in tables[0]] == [list(r) for r in rows]


def test_rows_set_far_apart_are_still_one_table_and_a_spaced_list_is_not() -> None:
    rows = [("Field", "Contents"), ("magic word", "The four bytes .snd."),
            ("header size", "Size of the header, including info, in bytes."),
            ("data size", "Physical size of the data, in bytes."),
            ("encoding", "Indicates how the audio samples are encoded."), ("sample rate", "The sampling rate.")]
    items = [f"Level {k}: every command of kind {k} is logged." for k in range(5)]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(56, 740, "An audio file consists of a header followed by the data. The fields of the header are:")
        for k, (a, b) in enumerate(rows):  # cells with padding: a row's gap is more than a line's
            c.drawString(58, 712 - 24 * k, a)
            c.drawString(126, 712 - 24 * k, b)  # 15 pt after the longest label
        for k, text in enumerate(items):  # a bulleted list, spaced as loosely
            c.drawString(58, 500 - 24 * k, "•")
            c.drawString(70, 500 - 24 * k, text)
    tables = read_tables(drawn_pdf(draw))
    assert len(tables) == 1
    assert [[" ".join(c.split()) for c in row] for row in tables[0]] == [list(r) for r in rows]


BEFORE = ["For example, assuming three HTTP servers with network addresses of 10.0.0.1,",
          "10.0.0.2, and 10.0.0.3, a set of records such as the following means that clients will",
          "connect to each machine one-third of the time:"]
RECORDS = [("Name", "TTL", "CLASS", "TYPE", "Resource Record (RR) Data"), ("www", "600", "IN", "A", "10.0.0.1"),
           ("", "600", "IN", "A", "10.0.0.2"), ("", "600", "IN", "A", "10.0.0.3")]


def test_a_plain_header_row_over_rows_set_apart_heads_their_table() -> None:
    """BIND's zone records as LibreOffice prints them: the header's cells fill their narrow
    columns (no gutter as wide as the rows'), the rows set as far apart as the header is from
    them, so the rows make a table of their own and the header a band over it."""
    xs = (58.2, 100.3, 130.3, 178.3, 217.4)

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 12)
        for k, line in enumerate(BEFORE):
            c.drawString(57, 760 - 16.5 * k, line)
        for k, row in enumerate(RECORDS):
            for x, cell in zip(xs, row, strict=True):
                c.drawString(x, 702.7 - 31 * k, cell)
        c.drawString(57, 580.6, "When a resolver queries for these records, BIND rotates them and responds to the")
        c.drawString(57, 564.1, "query with the records in a random order.")
    assert read_tables(drawn_pdf(draw)) == [[list(r) for r in RECORDS]]


def test_a_wrapped_cell_of_a_table_with_spaced_rows_stays_in_its_row() -> None:
    rows = [("No", "Description", "Qty", "Amount"), ("1", "Base fare", "1", "3.90"),
            ("2", "City ride - 2.00 per|driven kilometre", "6", "13.00"), ("3", "Waiting time", "2", "1.20"),
            ("4", "Night|surcharge", "1", "2.50")]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        for k, row in enumerate(rows):
            y = 700 - 26 * k
            for x, text in zip((72, 110, 300, 360), row):
                for j, part in enumerate(text.split("|")):  # a wrapped cell: its lines 11 pt apart
                    c.drawString(x, y - 11 * j, part)
    tables = read_tables(drawn_pdf(draw))
    assert len(tables) == 1
    assert [[" ".join(c.split()) for c in row] for row in tables[0]] == \
        [[c.replace("|", " ") for c in r] for r in rows]


def test_labels_close_to_their_values_in_rows_set_apart() -> None:
    # an office suite's print: 4 pt between the longest label and the values, rows 20 pt apart,
    # a label set in the middle of its value's two lines
    rows = [("Description:", ["Generation of Expires and Cache-Control HTTP headers",
                              "according to user-specified criteria"]),
            ("Status:", ["Extension"]), ("Module Identifier:", ["expires_module"]),
            ("Source File:", ["mod_expires.c"])]
    x = 72 + stringWidth("Module Identifier:", "Helvetica-Bold", 10) + 4

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(72, 740, "Available Languages: en | fr | ja | ko")
        y = 710.0
        for label, lines in rows:
            c.setFont("Helvetica-Bold", 10)
            c.drawString(72, y - 7.5 * (len(lines) - 1), label)
            c.setFont("Helvetica", 10)
            for k, line in enumerate(lines):
                c.drawString(x, y - 15 * k, line)
            y -= 15 * (len(lines) - 1) + 22
    tables = read_tables(drawn_pdf(draw))
    assert len(tables) == 1
    assert [[" ".join(c.split()) for c in row] for row in tables[0]] == [
        [label, " ".join(lines)] for label, lines in rows]


def test_four_lines_whose_word_spaces_meet_by_chance_are_no_table() -> None:
    """A letter's address block: three of its four lines happen to end a word within 0.9 pt of
    one place, a word space before the next word. On as few lines as a narrow table needs,
    every one of them must line up: three of four is chance, and the block stays text."""
    lines = [(("Thompson,", "Baker", "and"), ("Ramos", "·", "499", "Miranda", "Mountains")), (("TN", "90888"), ()),
             (("Howell,", "Allison"), ("and", "Shannon")), (("0074", "Hamilton"), ("Place", "Suite", "361")),
             (("Haleyland,", "MP"), ("70246",))]
    ends, starts = [146.8, None, 146.3, 145.7, 146.3], [148.9, None, 149.7, 149.0, 149.7]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 9)
        space = stringWidth(" ", "Helvetica", 9)
        for k, ((left, right), end, start) in enumerate(zip(lines, ends, starts)):
            y = 700 - 14 * k
            x = 68.3
            if end is not None:  # the left part set so that its last word ends at ``end``
                x = end - stringWidth(" ".join(left), "Helvetica", 9)
            c.drawString(x, y, " ".join(left))
            x = start if start is not None else 0
            for w in right:
                c.drawString(x, y, w)
                x += stringWidth(w, "Helvetica", 9) + space
    assert read_tables(drawn_pdf(draw)) == []
