"""Ruled tables as office suites and documentation tools draw them.

Generated PDFs (reportlab): (a) LibreOffice's HTML table with a border and cell spacing: a black
box with a white box per row laid over it, no line drawn at all, and a header cell centred
beside two lines; (b) a ruled grid whose cells hold words boxed as keys and menu items, and a
link underlined across most of a cell; (c) a ruled grid whose cells all wrap onto two lines;
(d) an API reference's member tables as Doxygen prints them: a heading over each section with a
rule under it, a rule under each member, the return type set flush right beside the member's
name, its description on a line of its own under the name; (e) a grid drawn with its inner
borders only (PostGIS's tables as LibreOffice prints them): rules between the rows running the
table's width, the column rules from the header's top to the last row's bottom; (f) a grid
whose cells have no padding, so that the text layer runs the words of neighbouring cells into
one (LibreOffice's help as Chromium prints it: ``NameRead-only``); (g) a grid whose rows
mostly hold cells of different heights, one row of cells that all wrap alike among them; (h) a
table whose only rules are each cell's bottom border, drawn cell by cell, its rows as wide as
the rules and set tight (the Developer's Reference as Chromium prints it).
"""

from __future__ import annotations

from reportlab.pdfbase.pdfmetrics import stringWidth

from tests.support.drawn import drawn_pdf, grid_rules, tables, wrapped

CALLS = [("local_call", "1.00"), ("external_call", "1.08"), ("fun_call", "2.79"), ("apply_fun", "3.54"),
         ("apply_mfa_implicit", "7.76"), ("apply_mfa_explicit", "8.21")]


def test_rows_laid_white_over_a_black_box_are_a_ruled_table() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        top, left, right, head, row = 760.0, 57.0, 228.0, 32.5, 18.5
        bottom = top - head - row * len(CALLS) - 2.8
        c.setFillColorRGB(0, 0, 0)
        c.rect(left, bottom, right - left, top - bottom, fill=1, stroke=0)  # the border's colour
        c.setFillColorRGB(1, 1, 1)
        y = top - 1.4
        for height in [head] + [row] * len(CALLS):
            c.rect(left + 1.4, y - height, right - left - 5.8, height, fill=1, stroke=0)
            y -= height
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Times-Roman", 9)
        c.drawString(60, top - 20, "Test")  # centred on its row, beside a cell of two lines
        c.drawString(168, top - 14.5, "5.4")
        c.drawString(168, top - 25.5, "BEAM")
        for k, (name, ratio) in enumerate(CALLS):
            base = top - 1.4 - head - row * k - 12.5
            c.drawString(60, base, name)
            c.drawString(168, base, ratio)
    assert tables(drawn_pdf(draw)) == [[["Test", "5.4 BEAM"], *[list(r) for r in CALLS]]]


MENU = [("Menu Item", "Accelerator", "Description"),
        ("Options...", "Ctrl + K", "Shows the Capture Options dialog box, which allows you to configure interfaces"),
        ("Start", "Shift + E", "Immediately starts capturing packets with the same settings as the last time."),
        ("Refresh", "F5", "Clear and recreate the interface list.")]


def test_words_boxed_as_keys_and_links_underlined_in_cells_divide_nothing() -> None:
    xs, top, height = [21.0, 104.0, 174.0, 590.0], 740.0, 40.0

    def draw(c):  # type: ignore[no-untyped-def]
        c.setLineWidth(0.8)
        for k in range(len(MENU) + 1):
            for a, b in zip(xs, xs[1:]):  # each row's rule drawn cell by cell
                c.line(a, top - k * height, b, top - k * height)
        for x in xs:
            c.line(x, top, x, top - len(MENU) * height)
        c.setFont("Helvetica", 9)
        for k, row in enumerate(MENU):
            base = top - k * height - 16
            for j, text in enumerate(row):
                x = xs[j] + 6
                if k and j < 2:  # keys and menu items each in a box of their own
                    for word in text.split(" "):
                        w = stringWidth(word, "Helvetica", 9)
                        if word != "+":
                            c.setLineWidth(0.5)
                            c.rect(x - 2, base - 4, w + 4, 14, fill=0, stroke=1)
                        c.drawString(x, base, word)
                        x += w + 4.5
                else:
                    c.drawString(x, base, text)
                    if k == 1 and j == 2:  # a link, underlined across most of its cell
                        c.line(x, base - 1.5, x + stringWidth(text, "Helvetica", 9), base - 1.5)
    assert tables(drawn_pdf(draw)) == [[list(r) for r in MENU]]


MODULES = [("compiler 8.2.3", "A byte code compiler for Erlang which produces highly compact code"),
           ("erts 13.1.5", "Functionality necessary to run the Erlang System itself"),
           ("sasl 4.2", "The System Architecture Support Libraries is a set of tools for release upgrades")]


def test_a_ruled_row_whose_cells_all_wrap_is_one_row() -> None:
    xs, top, height = [40.0, 100.0, 330.0], 740.0, 30.0

    def draw(c):  # type: ignore[no-untyped-def]
        grid_rules(c, xs, top, height, len(MODULES), 0.8)
        c.setFont("Helvetica", 9)
        for k, row in enumerate(MODULES):
            for j, text in enumerate(row):
                for n, ln in enumerate(wrapped(text, "Helvetica", 9, xs[j + 1] - xs[j] - 8)):
                    c.drawString(xs[j] + 4, top - k * height - 12 - 11 * n, ln)
    assert tables(drawn_pdf(draw)) == [[list(r) for r in MODULES]]


FUNCTIONS = [("int", "open (const char *, int)", "Opens a file descriptor. More..."),
             ("int", "close (int)", "Closes the file descriptor fd. More..."),
             ("size_t", "write (int, const char *, size_t)", "Writes count bytes from buf to the descriptor fd."),
             ("int", "read (int, char *, size_t)", "Read bytes from a file descriptor. More...")]
VARIABLES = [("int", "errno", "Contains the last error code."),
             ("const char *", "progname", "The name the program was started with.")]


def test_member_tables_under_their_headings_are_a_table_each_and_a_description_a_row() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        y = 740.0
        for title, members in (("Functions", FUNCTIONS), ("Variables", VARIABLES)):
            c.setFont("Helvetica", 15)
            c.drawString(40, y, title)
            c.setLineWidth(0.7)
            c.line(40, y - 5, 560, y - 5)
            y -= 5
            split = 46 + max(stringWidth(t, "Helvetica", 9) for t, _, _ in members)
            for kind, name, text in members:
                c.setFont("Helvetica", 9)
                c.drawRightString(split, y - 14, kind)
                c.drawString(split + 8, y - 14, name)
                c.drawString(split + 8, y - 27, text)
                c.setLineWidth(0.5)
                c.line(40, y - 34, 560, y - 34)
                y -= 34
            y -= 30

    def rows(members):  # type: ignore[no-untyped-def]
        return [r for kind, name, text in members for r in ([kind, name], ["", text])]

    assert tables(drawn_pdf(draw)) == [rows(FUNCTIONS), rows(VARIABLES)]


def test_an_item_whose_tasks_run_down_lines_beside_its_figures_stays_one_row() -> None:
    items = [("2/2 - 2/28", ["Regular Meetings", "LIMS Implementation", "Magnum Data Ingestion"], "131", "15000.00"),
             ("3/1 - 3/31", ["Regular Meetings", "Solidworks PDM Implementation"], "96", "11000.00")]
    xs = [40.0, 130.0, 380.0, 450.0]

    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 9)
        y = 740.0
        for k, cells in enumerate([("Period", ["Description"], "Hours", "Amount (USD)"), *items]):
            period, tasks, hours, amount = cells
            c.drawString(xs[0] + 4, y - 12, period)
            for n, task in enumerate(tasks):
                c.drawString(xs[1] + 4, y - 12 - 11 * n, task)
            c.drawRightString(xs[3] - 6, y - 12, hours)
            c.drawRightString(xs[3] + 80, y - 12, amount)
            y -= 11 * len(tasks) + 8
            c.setLineWidth(0.6)
            c.line(xs[0], y, xs[3] + 86, y)
            if k == 0:
                c.line(xs[0], 740, xs[3] + 86, 740)
    rows = tables(drawn_pdf(draw))
    assert rows == [[["Period", "Description", "Hours", "Amount (USD)"],
                     *[[p, " ".join(t), h, a] for p, t, h, a in items]]]


X3D = [["PostGIS Type", "2D X3D Type", "3D X3D Type"], ["LINESTRING", "not yet implemented - will be PolyLine2D", "LineSet"],
       ["MULTIPOINT", "Polypoint2D", "PointSet"], ["POINT", "outputs the space delimited coordinates", "outputs the coordinates"],
       ["TIN", "TriangleSet2D (Not Yet Implemented)", "IndexedTriangleSet"]]


def test_a_grid_of_inner_borders_only_keeps_its_first_and_last_rows() -> None:
    """The table starts the page, its header in the top margin, and its cells wrap: the rows
    between the rules are set as far apart as a cell's lines."""
    def draw(c):  # type: ignore[no-untyped-def]
        top, xs, heights = 764.0, (57.0, 230.0, 367.0, 567.0), (15.6, 29.4, 15.4, 29.4, 29.4)
        c.setLineWidth(0.2)
        edges = [top - sum(heights[:k]) for k in range(len(heights) + 1)]
        for y in edges[1:-1]:  # between the rows only, as wide as the table
            c.line(xs[0], y, xs[-1], y)
        for x in xs[1:-1]:  # between the columns only, over every row
            c.line(x, edges[0], x, edges[-1])
        for k, cells in enumerate(X3D):
            c.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 10)
            for x, text in zip(xs, cells, strict=False):
                lines = wrapped(text, "Helvetica", 10, 125)
                first = (edges[k] + edges[k + 1]) / 2 - 3.5 + 6.5 * (len(lines) - 1)
                for n, line in enumerate(lines):
                    c.drawString(x + 3, first - 13 * n, line)
    assert tables(drawn_pdf(draw)) == [X3D]


PROPERTIES = [["Name", "Read-only", "Type"], ["Count", "Yes", "Long"], ["Items", "Yes", "Array"], ["Keys", "No", "Strings"]]


def test_a_cell_border_between_two_glyphs_parts_the_words_it_runs_between() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        xs, top, row = [34.5, 72.0, 132.8, 228.0], 760.0, 42.0
        grid_rules(c, xs, top, row, len(PROPERTIES))
        for k, cells in enumerate(PROPERTIES):
            font = "Helvetica-Bold" if k == 0 else "Helvetica"
            c.setFont(font, 12)
            y = top - k * row - 26
            # the first cell set against its right border, the second against its left one:
            # 1.6 pt between their glyphs, no space in the text layer
            c.drawString(xs[1] - 0.9 - stringWidth(cells[0], font, 12), y, cells[0])
            c.drawString(xs[1] + 0.7, y, cells[1])
            c.drawString(xs[2] + 3, y, cells[2])
    assert tables(drawn_pdf(draw)) == [PROPERTIES]


SERVICES = [[["Category"], ["Services"], [""], [""]],
            [["LibreOffice Basic"], ["Array", "Dictionary"], ["Exception", "FileSystem"], ["String", "TextStream"]],
            [["Document", "Content"], ["Base", "Calc"], ["Chart", "Database"], ["Document", "Writer"]],
            [["User Interface"], ["Dialog", "DialogControl", "Form"], ["FormControl", "Menu"], ["PopupMenu", "UI"]],
            [["Utilities"], ["Basic", "L10N", "Platform"], ["Region", "Services", "Session"], ["Timer", "UnitTest"]]]


def test_a_row_of_cells_that_all_wrap_alike_among_rows_of_uneven_cells_is_one_row() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        xs, top, heights = [56.0, 174.0, 263.0, 346.0, 422.0], 760.0, [32.0, 45.0, 45.0, 59.0, 59.0]
        edges = [top - sum(heights[:k]) for k in range(len(heights) + 1)]
        c.setLineWidth(0.8)
        for y in edges:
            c.line(xs[0], y, xs[-1], y)
        for k, x in enumerate(xs):
            c.line(x, top if k in (0, 1, len(xs) - 1) else edges[1], x, edges[-1])  # the header spans
        for k, row in enumerate(SERVICES):
            c.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 11)
            mid = (edges[k] + edges[k + 1]) / 2
            for x, lines in zip(xs, row, strict=False):
                for n, line in enumerate(lines):  # (centred on the row)
                    c.drawString(x + 2, mid - 4 + 7 * (len(lines) - 1) - 14 * n, line)
    got = tables(drawn_pdf(draw))
    assert [[" ".join(lines) for lines in row] for row in SERVICES[1:]] == got[0][1:]


DEPENDS = [["", "testing", "unstable"], ["a", "1; depends: b=1", "2; depends: b=2"], ["b", "1; depends: a=1", "2; depends: a=2"]]


def test_rows_between_borders_drawn_cell_by_cell_are_rows_not_prose() -> None:
    def draw(c):  # type: ignore[no-untyped-def]
        xs, top, row = [207.8, 224.2, 314.2, 404.2], 726.5, 18.8
        c.setFont("Helvetica", 11)
        c.drawString(50, 753, "An example of this is:")
        c.setLineWidth(0.8)
        for k, cells in enumerate(DEPENDS):
            y = top - k * row
            c.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 11)
            for x, text in zip((211.3, 227.7, 317.9), cells, strict=True):
                c.drawString(x, y, text)
            for a, b in zip(xs, xs[1:]):  # (the bottom border of each cell of the row)
                c.line(a, y - 5, b, y - 5)
        c.setFont("Helvetica", 11)
        c.drawString(50, top - 3 * row - 10, "Neither package a nor package b is considered for update.")
    assert tables(drawn_pdf(draw)) == [DEPENDS]
