"""Borderless tables of HTML manuals as LibreOffice Writer (and Chromium) print them.

Generated PDFs (reportlab), each the shape of a table of a Debian documentation package as
Writer sets it: (a) one type name (``enum``) down the left column, far from the names; (b)
labels ending in colons, one of them without a value; (c) rows its padding sets far apart,
evenly, and a gutter two word spaces wide; (d) a bold header centred over a narrow column of
labels, descriptions wrapped beside them and a paragraph set tight under the last row; (e) long
names beside descriptions wrapped in a narrower column; (f) a header of two bold lines; (g) a
table whose first row sits in the page's top margin; (h) a heading under a table. And as
Chromium prints gi-docgen's pages: (i) names beside values in another weight; (j) rows without
rules under a header whose cells are boxed; and BIND's manual: (k) three names a word space from
text that starts together; (l) a label halfway between its value's two lines, and a last row in
a band of its own; and Octave's manual: (m) two columns as wide as each other under a bold
header, some left cells over two lines (and, against it, two address blocks under labels).
"""

from __future__ import annotations

from reportlab.pdfbase.pdfmetrics import stringWidth

from pipelines.stages.geometry import Word
from tests.support.drawn import drawn_pdf, fragments, label_rows, tables, wrapped

ENUMS = ["GtkBaselinePosition", "GtkDeleteType", "GtkDirectionType", "GtkJustification", "GtkMovementStep",
         "GtkOrientation", "GtkPackType", "GtkPositionType"]


def test_one_word_down_a_column_set_flush_left_far_from_the_names_is_a_table_s_column() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(58, 760, "Standard Enumerations")
        for k, name in enumerate(ENUMS):
            c.drawString(58, 730 - 19 * k, "enum")
            c.drawString(309, 730 - 19 * k, name)
    assert tables(drawn_pdf(draw)) == [[["enum", name] for name in ENUMS]]


LINK = [("ctx:", "user data pointer"), ("node:", "the node carrying the link"),
        ("nbLocators:", "the number of locators detected on the link"), ("hrefs:", "pointer to the array of locator hrefs"),
        ("roles:", "pointer to the array of locator roles"), ("nbArcs:", "the number of arcs detected on the link"),
        ("from:", "pointer to the array of source roles found on the arcs"),
        ("to:", "pointer to the array of target roles found on the arcs"), ("nbTitles:", "the number of titles"),
        ("titles:", ""), ("langs:", "array of xml:lang values for the titles")]


def test_labels_ending_in_colons_keep_one_without_a_value_in_their_table() -> None:
    # libxml2's callback parameters: one of them nobody described
    def draw(c):  # type: ignore[no-untyped-def]
        for k, (label, text) in enumerate(LINK):
            c.setFont("Courier-Oblique", 10)
            c.drawString(68, 740 - 19 * k, label)
            c.setFont("Helvetica", 10)
            c.drawString(151, 740 - 19 * k, text)
    assert tables(drawn_pdf(draw)) == [[list(r) for r in LINK]]


LANGUAGES = [("Language", "Code"), ("English", "en"), ("German", "de"), ("Spanish", "es"), ("French", "fr"),
             ("Swedish", "sv"), ("Hungarian", "hu"), ("Italian", "it")]


def _spaced(rows: list[tuple[str, str]], pitches: list[float]) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(86, 700, "The default stopwords plist contains stopwords for the following languages:")
        y = 670.0
        for k, (name, code) in enumerate(rows):
            c.drawString(86, y, name)
            # (the gutter two word spaces wide: the widest cell's padding)
            c.drawString(86 + stringWidth("Hungarian", "Helvetica", 10) + 8, y, code)
            y -= pitches[k % len(pitches)]
        c.drawString(86, y - 4, "Defaults to language, or if that is not set, to en.")
    return drawn_pdf(draw)


def test_rows_set_far_apart_by_their_padding_are_one_table_with_their_header() -> None:
    assert tables(_spaced(LANGUAGES, [33.0])) == [[list(r) for r in LANGUAGES]]


def test_rows_apart_by_different_gaps_share_no_padding() -> None:
    # the rule itself: an invoice's labels and values, and its items' header far below them,
    # are no rows of one table
    from pipelines.stages.xycut import _Cutter

    def cols(tops: list[float]) -> list[list[Word]]:
        return [[Word("Label", 86, t, 130, t + 11) for t in tops], [Word("value", 140, t, 170, t + 11) for t in tops]]
    cutter = _Cutter(11.0)
    assert cutter.paired_lines(cols([100, 133, 166, 199, 232]))
    assert not cutter.paired_lines(cols([100, 122, 144, 166, 215]))


LEVELS = [("DEBUG", "Development-related messages that will be ignored (or removed) in a production deployment"),
          ("INFO", "Informational messages for the user"),
          ("SUCCESS", "An action was successful, e.g. “Your profile was updated successfully”"),
          ("WARNING", "A failure did not occur but may be imminent"),
          ("ERROR", "An action was not successful or some other failure occurred")]
AFTER = ("The MESSAGE_LEVEL setting can be used to change the minimum recorded level (or it can be changed "
         "per request). Attempts to add messages of a level less than this will be ignored.")


def _narrow(rows: list[tuple[str, str]], head: tuple[str, str], left: float, width: float) -> bytes:
    """Writer's print of a Sphinx table: the bold header centred over each column, each label on
    the first line of its description, wrapped in a column ``width`` wide, the next paragraph
    set tight under the last row."""
    x2 = 58 + left + 7

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(57, 660, "The built-in levels, which can be imported directly, are:")
        c.setFont("Helvetica-Bold", 12)  # (set larger, it runs to the values' edge but a point or two)
        c.drawCentredString(58 + (left + 7) / 2, 635, head[0])
        c.drawCentredString(x2 + width / 2, 635, head[1])
        c.setFont("Helvetica", 10)  # (lines 15 pt apart, rows 4 pt more)
        y = label_rows(c, [(label, wrapped(text, "Helvetica", 10, width)) for label, text in rows], (58, x2), 619, 15, 4)
        for k, ln in enumerate(wrapped(AFTER, "Helvetica", 10, 460)):
            c.drawString(57, y + 2 - 15 * k, ln)  # (2 pt less than a row's padding)
    return drawn_pdf(draw)


def test_a_bold_header_over_a_narrow_column_of_labels_and_a_paragraph_tight_under_the_last_row() -> None:
    data = _narrow(LEVELS, ("Constant", "Purpose"), 50, 120)
    assert tables(data) == [[["Constant", "Purpose"], *[list(r) for r in LEVELS]]]
    texts = [f.content.get("content", "") for f in fragments(data) if f.fragment_type == "text"]
    assert any(t.startswith("The MESSAGE_LEVEL setting") for t in texts)


LOOP = [("forloop.counter", "The current iteration of the loop (1-indexed)"),
        ("forloop.counter0", "The current iteration of the loop (0-indexed)"),
        ("forloop.revcounter", "The number of iterations from the end of the loop (1-indexed)"),
        ("forloop.first", "True if this is the first time through the loop"),
        ("forloop.parentloop", "For nested loops, this is the loop surrounding the current one")]


def test_long_names_beside_descriptions_wrapped_in_a_narrower_column_under_a_bold_header() -> None:
    data = _narrow(LOOP, ("Variable", "Description"), 120, 75)
    assert tables(data) == [[["Variable", "Description"], *[list(r) for r in LOOP]]]


def test_a_header_of_two_bold_lines_hiding_the_gutter_heads_its_columns() -> None:
    rows = [("Models", ":model:`Model`"), ("Views", ":view:`view`"), ("Templates", ":template:`path`"),
            ("Filters", ":filter:`filter`")]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(57, 760, "The following special markup can be used in your docstrings:")
        c.setFont("Helvetica-Bold", 12)
        for y, (a, b) in ((735, ("Django", "reStructuredText")), (720, ("Component", "roles"))):
            c.drawCentredString(108, y, a)  # (``Component`` runs to the values' edge but 3 pt)
            c.drawCentredString(210, y, b)
        c.setFont("Helvetica", 10)
        for k, (label, value) in enumerate(rows):
            c.drawString(58, 704 - 17 * k, label)
            c.drawString(142, 704 - 17 * k, value)
    rows_read = tables(drawn_pdf(draw))
    assert len(rows_read) == 1 and rows_read[0][-len(rows):] == [list(r) for r in rows]
    assert " ".join(" ".join(r) for r in rows_read[0][:-len(rows)]).split() == \
        ["Django", "reStructuredText", "Component", "roles"]


FUNCS = [("#define", "CAIRO_VERSION_ENCODE()"), ("#define", "CAIRO_VERSION_STRINGIZE()"),
         ("int", "cairo_version ()"), ("const char *", "cairo_version_string ()")]


def test_a_table_whose_first_row_sits_in_the_top_margin_keeps_it() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        for k, (kind, name) in enumerate(FUNCS):  # (rows set apart by the cells' padding)
            c.drawString(58, 745 - 24 * k, kind)
            c.drawString(160, 745 - 24 * k, name)
        c.drawString(58, 640, "The version of cairo available at compile time, as a string and as a number.")
    assert tables(drawn_pdf(draw)) == [[list(r) for r in FUNCS]]


def test_a_running_head_with_its_page_number_stays_a_page_header() -> None:
    text = "The configuration of the server is read from the files named below, in this order, at start. " * 6

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 9)
        c.drawString(58, 770, "Chapter 3 Configuration")
        c.drawRightString(554, 770, "41")
        c.setFont("Helvetica", 10)
        for k, ln in enumerate(wrapped(text, "Helvetica", 10, 496)):
            c.drawString(58, 745 - 14 * k, ln)
    kinds = {f.fragment_type for f in fragments(drawn_pdf(draw))}
    assert "table" not in kinds and kinds & {"page_header", "page_number"}


def test_a_heading_under_a_table_with_its_text_tight_under_it_is_no_row_of_the_table() -> None:
    # a font's manual: a feature's table, then the next feature's name and the characters it affects
    rows = [("Feature", "Sample", "Feature setting"), ("Standard", "H", "cv28=0"), ("Vertical stroke", "H", "cv28=1")]
    affects = "Affects: U+0069 U+00EC U+00ED U+00EE U+00EF U+0129 U+012B U+012D U+012F U+0131 U+01D0"

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        for k, ln in enumerate(wrapped("The stroke of H is set horizontally by default, vertically with cv28. " * 3,
                                       "Helvetica", 10, 480)):
            c.drawString(58, 745 - 13 * k, ln)
        for k, row in enumerate(rows):
            for x, text in zip((70, 290, 450), row):
                c.drawString(x, 700 - 30 * k, text)
        c.drawString(70, 620, "i")
        c.drawString(70, 607, affects)
        for k, ln in enumerate(wrapped("The dotless forms follow the same rules as the dotted ones. " * 4, "Helvetica", 10, 480)):
            c.drawString(58, 580 - 13 * k, ln)
    assert tables(drawn_pdf(draw)) == [[list(r) for r in rows]]


FLAGS = [("Readable", "yes"), ("Writable", "yes"), ("Construct", "no"), ("Construct only", "yes")]


def _flags(value_font: str) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        for k, (name, value) in enumerate(FLAGS):  # (gi-docgen's property flags, as Chromium prints them)
            c.setFont("Helvetica", 11)
            c.drawString(73, 700 - 24 * k, name)
            c.setFont(value_font, 11)
            c.drawString(159, 700 - 24 * k, value)
    return drawn_pdf(draw)


def test_names_beside_values_set_in_another_weight_are_a_table() -> None:
    assert tables(_flags("Helvetica-Bold")) == [[list(r) for r in FLAGS]]


def test_two_short_lists_side_by_side_in_one_weight_stay_text() -> None:
    assert tables(_flags("Helvetica")) == []


CONSTANTS = [("FORMAT_WRITABLE", "The module can write out images in the format."),
             ("FORMAT_SCALABLE", "The image format is scalable."),
             ("FORMAT_THREADSAFE", "The module is threadsafe. It ignores modules that are not marked as threadsafe")]


def test_rows_without_rules_under_a_header_whose_cells_are_boxed_are_its_table() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setLineWidth(0.75)
        for x1, x2 in ((74, 302), (302, 538)):  # (each header cell boxed on its own)
            c.rect(x1, 720, x2 - x1, 19.5)
        c.setFont("Helvetica-Bold", 11)
        c.drawString(78.5, 726, "Name")
        c.drawString(304.5, 726, "Description")
        c.setFont("Helvetica", 11)
        label_rows(c, [(name, wrapped(text, "Helvetica", 11, 230)) for name, text in CONSTANTS], (82, 304.5), 705, 14, 5)
    assert tables(drawn_pdf(draw)) == [[["Name", "Description"], *[list(r) for r in CONSTANTS]]]


OPTIONS = [("--bindir", "Change prefix-dir/bin/ for user programs"), ("--libexecdir", "Change prefix-dir/libexec/ for helpers"),
           ("--localstatedir", "Change prefix-dir/var/ for state files"), ("--sbindir", "Change prefix-dir/sbin/ for daemons"),
           ("--sysconfdir", "Change prefix-dir/etc/ for configuration")]


def test_a_paragraph_in_the_same_band_as_the_table_above_it_is_text() -> None:
    # ProFTPD's configure options as Writer prints them: no gap between the rows, none under them
    def draw(c):  # type: ignore[no-untyped-def]
        y = 700.0
        for name, text in OPTIONS:
            c.setFont("Courier", 10)
            c.drawString(58, y, name)
            c.setFont("Helvetica", 10)
            c.drawString(177, y, text)
            y -= 12
        for ln in ("Thus to place the configuration file in /etc/ and the runtime state files in",
                   "/var/proftpd/, you would use:"):
            c.drawString(57, y, ln)
            y -= 12
    data = drawn_pdf(draw)
    assert tables(data) == [[list(r) for r in OPTIONS]]
    assert any(f.content.get("content", "").startswith("Thus to place") for f in fragments(data) if f.fragment_type == "text")


SIGNALS = [("SIGHUP", "Causes the server to read named.conf and reload the database."),
           ("SIGTERM", "Causes the server to clean up and exit."), ("SIGINT", "Causes the server to clean up and exit.")]


def _signals(font: str) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 11)
        c.drawString(34, 740, "Certain Unix signals cause the name server to take specific actions, as described")
        c.drawString(34, 726, "in the following table. These signals can be sent using the kill command.")
        c.setFont(font, 11)
        x = 36 + max(stringWidth(name, font, 11) for name, _ in SIGNALS) + 3  # (a word space from the widest)
        for k, (name, text) in enumerate(SIGNALS):  # (BIND's manual as Chromium prints it: rows far apart)
            c.drawString(36, 690 - 43 * k, name)
            c.drawString(x, 690 - 43 * k, text)
    return drawn_pdf(draw)


def test_three_names_a_word_space_from_text_that_starts_together_are_a_table() -> None:
    assert tables(_signals("Helvetica")) == [[list(r) for r in SIGNALS]]


def test_three_lines_of_a_fixed_width_font_stay_text() -> None:
    assert tables(_signals("Courier")) == []


BUILD = [("CC", ["The C compiler to use. configure tries to figure out the right one for", "supported systems."]),
         ("CFLAGS", ["The C compiler flags. Defaults to include -g and/or -O2 as supported by",
                     "the compiler. Please include -g if CFLAGS needs to be set."]),
         ("LDFLAGS", ["The linker flags. Defaults to an empty string."])]


def test_a_label_set_halfway_between_its_value_s_two_lines_is_one_row_with_them() -> None:
    # BIND's build variables as Writer prints them: it centres a row's cells on each other
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 10)
        c.drawString(57, 740, "Several environment variables affect compilation, and they can be set before")
        c.drawString(57, 726, "running configure. The most significant ones are:")
        c.setFont("Helvetica-Bold", 10)
        c.drawCentredString(86, 700, "Variable")
        c.drawCentredString(330, 700, "Description")
        c.setFont("Times-Roman", 12)  # (its lines' boxes overlap, as DejaVu Serif's do in Writer's print)
        label_rows(c, BUILD, (58, 119), 676, 13, 17, centred=True)
    assert tables(drawn_pdf(draw)) == [[["Variable", "Description"], *[[label, " ".join(lines)] for label, lines in BUILD]]]


def test_a_label_row_halfway_between_two_value_rows_joins_them() -> None:
    # the rule itself, on the rows the whitespace reader makes of Writer's print of BIND's table
    from pipelines.stages.tables import _centred_labels
    rows = [[("CC", None), ("", None)],  # (a row of its own above: left as it is)
            [("", None), ("The C compiler to use. configure tries to figure out the right one for", (119, 100, 540, 115))],
            [("CFLAGS", (58, 107, 102, 122)), ("", None)],
            [("", None), ("supported systems.", (119, 114, 237, 129))],
            [("LDFLAGS", (58, 150, 108, 165)), ("The linker flags.", (119, 150, 230, 165))]]
    out = _centred_labels(rows)  # type: ignore[arg-type]
    assert [[t for t, _ in r] for r in out] == [
        ["CC", ""], ["CFLAGS", "The C compiler to use. configure tries to figure out the right one for\nsupported systems."],
        ["LDFLAGS", "The linker flags."]]
    assert not _centred_labels([rows[1], [("CFLAGS", (58, 140, 102, 155)), ("", None)], rows[3]])[0][0][0]  # type: ignore[arg-type]


CONVERSIONS = [("logical scalar", "Boolean"), ("logical vector", "Array of Boolean, reshaped to row vector"),
               ("numeric scalar", "Number"), ("NaN, NA, Inf, -Inf | when ConvertInfAndNaN = true", "null"),
               ("empty array", "[]"), ("character vector", "String"), ("cell array", "Array, flattened to row vector"),
               ("struct scalar", "Object"), ("NaN, NA, Inf, -Inf | when ConvertInfAndNaN = false", "NaN")]


def test_two_columns_as_wide_as_each_other_under_a_bold_header_are_a_table() -> None:
    # Octave's conversions as Writer prints them: the left cells as wide as the right ones,
    # two of them over two lines (so that column has more lines), each value in the middle
    from pipelines.stages.xycut import _Cutter

    def words(text: str, x: float, top: float, bold: bool = False) -> list[Word]:
        out, at = [], x
        for t in text.split():
            out.append(Word(t, at, top, at + 5.5 * len(t), top + 9, bold=bold))
            at += 5.5 * len(t) + 3
        return out

    def cols(head: tuple[str, str]) -> list[list[Word]]:
        left, right, y = words(head[0], 58, 60, True), words(head[1], 250, 60, True), 78.0
        for name, value in CONVERSIONS:
            parts = name.split(" | ")
            for k, part in enumerate(parts):
                left += words(part, 58, y + 13 * k)
            right += words(value, 250, y + 6.5 * (len(parts) - 1))
            y += 13 * len(parts)
        return [left, right]
    cutter = _Cutter(9.0)
    assert cutter.headed(cols(("Octave data type", "JSON data type")))
    assert not cutter.headed(cols(("Octave data type:", "JSON data type:")))


def test_two_address_blocks_under_labels_ending_in_colons_are_no_table() -> None:
    blocks = [(58, "Service Provider:", ["DblFuzzr LLC", "2 Old Cart Path", "Acton, MA 01720", "United States",
                                         "EIN: 45-286-3754"]),
              (300, "Bill To:", ["Arsenale Bioyards", "Via Durini 18", "20122 Milano, Italy", "VAT No: IT12990250966"])]

    def draw(c):  # type: ignore[no-untyped-def]
        for x, label, lines in blocks:
            c.setFont("Helvetica-Bold", 10)
            c.drawString(x, 720, label)
            c.setFont("Helvetica", 10)
            for k, line in enumerate(lines):
                c.drawString(x, 706 - 12 * k, line)
    assert tables(drawn_pdf(draw)) == []
