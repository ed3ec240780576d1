"""Tables as an office suite (or a browser) prints an HTML table without rules.

Generated PDFs (reportlab): (a) cells centred in their columns, set closer than a word space,
read as a table; (b) a table of definitions under a bold header row, values wrapped over up to
three lines, each label beside (or centred on) its value, read a row per definition with each
value whole; the same list without the header row stays text, each label before its value.
"""

from __future__ import annotations

import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth

from pipelines.stages import gutters
from pipelines.stages.geometry import Word
from pipelines.stages.tables import grid_from_columns
from tests.support.drawn import drawn_pdf, fragments, tables

BORDER = [("Bit", "plot", "splot"), ("1", "bottom", "bottom left front"), ("2", "left", "bottom left back"),
          ("4", "top", "bottom right front"), ("16", "no effect", "left vertical"),
          ("128", "no effect", "front vertical"), ("512", "no effect", "top right back"),
          ("1024", "no effect", "top left front"), ("4096", "polar", "no effect")]
FIELDS = [("name", ["File name/path for the zip file record."]),
          ("mode", ["UNIX mode, as returned by stat(2) for the zip file record (an integer). This",
                    "identifies the type of record (file, directory or symbolic link), and the",
                    "associated user/group/all permissions."]),
          ("mtime", ["UTC timestamp, in seconds since the UNIX epoch (an integer)."]),
          ("sz", ["Size of associated data in bytes after it has been uncompressed (an", "integer)."]),
          ("data", ["If the compression method of this record in the zip archive is either 0 or 8",
                    "(see below), then the uncompressed data associated with the zip file entry."])]


def test_cells_centred_in_columns_closer_than_a_word_space() -> None:
    widths = [max(stringWidth(r[k], "Times-Roman", 10) for r in BORDER) for k in range(3)]
    pad = 3.5  # between the widest cells of two columns; a space in 10 pt Times is 2.5 pt
    mids = [100 + widths[0] / 2, 100 + widths[0] + pad + widths[1] / 2,
            100 + widths[0] + widths[1] + 2 * pad + widths[2] / 2]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Times-Roman", 10)
        c.drawCentredString(mids[1], 720, "Graph Border Encoding")
        for k, row in enumerate(BORDER):
            for mid, text in zip(mids, row):
                c.drawCentredString(mid, 706 - 13 * k, text)
    assert tables(drawn_pdf(draw)) == [[list(r) for r in BORDER]]


def test_a_cells_line_stays_one_line_whatever_its_letters_heights() -> None:
    # ``front``'s ``f`` reaches higher than ``bottom right``: its centre sits 0.3 pt higher
    words = [Word("bottom", 0, 100.4, 30, 110.0), Word("right", 33, 100.4, 55, 110.0), Word("front", 58, 99.8, 80, 110.0),
             Word("left", 0, 112.0, 20, 121.8)]
    assert [[text for text, _ in row] for row in grid_from_columns([words[:3], words[3:]], 10.0)] == \
        [["bottom right front", ""], ["", "left"]]


def _definitions(header: bool, centred: bool) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        y = 700.0
        if header:
            c.setFont("Helvetica-Bold", 9)
            c.drawString(72, y, "Column Name")
            c.drawString(150, y, "Contents")
            y -= 16
        c.setFont("Helvetica", 9)
        for label, lines in FIELDS:
            at = y - (len(lines) - 1) * 5.5 if centred else y  # an office suite centres a cell's text
            c.drawString(72, at, label)
            for k, line in enumerate(lines):
                c.drawString(150, y - 11 * k, line)
            y -= 11 * len(lines) + 7  # the cells' padding
    return drawn_pdf(draw)


@pytest.mark.parametrize("centred", [False, True])
def test_definitions_under_a_bold_header_are_a_table_with_each_value_whole(centred: bool) -> None:
    assert tables(_definitions(True, centred)) == [[["Column Name", "Contents"], *[[label, " ".join(lines)] for label, lines in FIELDS]]]


def test_definitions_without_a_header_stay_text_each_label_before_its_value() -> None:
    frags = fragments(_definitions(False, False))
    assert not [f for f in frags if f.fragment_type == "table"]
    text = " ".join(" ".join(str(f.content.get("content", "")).split()) for f in frags)
    at = [text.find(f"{label} {lines[0]}") for label, lines in FIELDS]  # each label, then its value
    assert -1 not in at and at == sorted(at), at


CODES = [("Control", "Example", "Result", "Explanation"), ("^", "a^x", "6#6", "superscript"),
         ("_", "a_x", "7#7", "subscript"), ("@", "a@^b_{cd}", "8#8", "phantom box (occupies no width)"),
         ("&", "d&{space}b", "d b", "inserts space of specified length"),
         ("~", "~a{.8-}", "9#9", "overprints '-' on 'a', raised by .8 times the current fontsize"),
         ("", "{/Times abc}", "abc", "print abc in font Times at current size"),
         ("\\U+", "\\U+221E", "10#10", "Unicode point U+221E INFINITY")]


def test_a_centred_column_tight_beside_its_examples_then_a_wide_gap_is_one_table() -> None:
    # signs centred in a column 4.5 pt from the examples; a 7 pt gap; results 4 pt from their
    # explanations, one of which wraps; a title over it all hides the wide gap
    ends = [max(stringWidth(r[k], "Courier" if k == 1 else "Times-Roman", 10) for r in CODES) for k in range(3)]
    mid = 72 + ends[0] / 2
    xs = [72 + ends[0] + 4.5]
    xs += [xs[0] + ends[1] + 7, xs[0] + ends[1] + 7 + ends[2] + 4]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Times-Roman", 10)
        c.drawCentredString(200, 730, "Enhanced Text Control Codes")
        y = 716.0
        for row in CODES:
            c.drawCentredString(mid, y, row[0])
            c.setFont("Courier", 10)
            c.drawString(xs[0], y, row[1])
            c.setFont("Times-Roman", 10)
            c.drawString(xs[1], y, row[2])
            first, _, rest = row[3].partition(" times")  # the explanations' column is narrow
            c.drawString(xs[2], y, first)
            if rest:
                y -= 14
                c.drawString(xs[2], y, "times" + rest)
            y -= 14
    got = tables(drawn_pdf(draw))
    assert got == [[list(r) for r in CODES]]
    assert "Enhanced Text Control Codes" in [f.content.get("content") for f in fragments(drawn_pdf(draw))]


def test_lines_sharing_both_edges_are_no_centred_cells() -> None:
    # the lines of a justified paragraph start and end together, so their middles line up too;
    # cells centred in a column are of many widths
    def lines(spans: list[tuple[float, float]]) -> list[list[Word]]:
        return [[Word(f"x{k}", 60, 100 + 12 * k, 90, 109 + 12 * k), Word(f"y{k}", a, 100 + 12 * k, b, 109 + 12 * k)]
                for k, (a, b) in enumerate(spans)]
    gaps = [(90.0, 95.0)]
    assert not gutters._centred(lines([(95.2, 400.0), (95.0, 400.1), (95.4, 399.8), (95.1, 400.0)]), gaps, 0)
    assert gutters._centred(lines([(95.2, 140.0), (105.0, 130.2), (110.1, 125.1), (100.0, 135.2)]), gaps, 0)


def test_a_bold_header_row_at_the_top_of_the_page_stays_the_tables() -> None:
    rows = [("format", "size", "avg entry"), ("$GIT_DIR/logs", "173 M", "1209 bytes"), ("reftable", "5 M", "37 bytes"),
            ("packed-refs", "62 M", "480 bytes")]

    def draw(c):  # type: ignore[no-untyped-def]
        for k, row in enumerate(rows):
            c.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 9)
            y = 780 - 20 * min(k, 1) - 13 * max(k - 1, 0)  # the header row in the top margin, set apart
            c.drawString(60, y, row[0])
            c.drawRightString(400, y, row[1])
            c.drawRightString(564, y, row[2])
    assert tables(drawn_pdf(draw)) == [[list(r) for r in rows]]
    plain = drawn_pdf(lambda c: (c.setFont("Helvetica", 9), c.drawString(60, 780, "Git Manual"),
                                 c.drawRightString(564, 780, "Page 4"),
                                 *(c.drawString(60, 740 - 12 * k, f"Line {k} of the running text of the page.")
                                   for k in range(5))))
    assert fragments(plain)[0].fragment_type == "page_header"  # a running head, not bold, stays one


REFS = [("Reference syntax", "Example", "Scope"), ("Module", "edoc_run", "Global"),
        ("Function/Arity", "file/2", "Within module"), ("Module:Function/Arity", "edoc:application/2", "Global"),
        ("Type()", "filename()", "Within module"), ("//Application", "edoc", "Global")]


def test_a_caption_under_a_table_across_one_of_its_gutters_is_cut_off_first() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        y = 700.0
        for k, row in enumerate(REFS):
            c.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 9)
            for x, cell in zip((92, 250, 400), row):
                c.drawString(x, y, cell)
            y -= 18
        c.setFont("Helvetica-Oblique", 9)
        c.drawString(160, y - 4, "Table 1.1: reference syntax")  # across the first gutter only
    assert tables(drawn_pdf(draw)) == [[list(r) for r in REFS]]
    assert "Table 1.1: reference syntax" in [f.content.get("content") for f in fragments(drawn_pdf(draw))]


def test_a_caption_whose_words_tops_differ_by_a_tenth_of_a_point_is_one() -> None:
    from pipelines.stages.band_rules import is_caption  # the rule itself: its tops come from glyph boxes
    words = [Word("Table", 239.5, 307.4, 268.4, 316.1), Word("8.1:", 271.5, 307.3, 290.8, 316.2),
             Word("Codec", 301.5, 307.3, 333.7, 316.1), Word("performance", 336.5, 307.4, 405.5, 318.9)]
    assert is_caption(words)  # type: ignore[arg-type]
    assert not is_caption([Word("Codec", 90, 300, 120, 309), Word("Table", 125, 300, 150, 309)])  # type: ignore[arg-type]
