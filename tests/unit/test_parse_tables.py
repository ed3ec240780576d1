"""Tables in digital PDFs: ruled and whitespace tables, output modes, cell boxes, merging."""

from __future__ import annotations

from pipelines.core.models import DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert
from pipelines.stages.tables import table_rows
from tests.support.docgen import (
    cell_accuracy,
    dense_table_pdf,
    drawn_rules_table_pdf,
    sideways_table_pdf,
    split_table_pdf,
    tables_pdf,
    wide_table_pdf,
)


def run(data: bytes, **opts: object):
    return convert(DocumentInput(data=data, parsing=ParsingOptions(**opts)))


def tables_of(result) -> list:
    return [f for p in result.pages for f in p.fragments if f.fragment_type == "table"]


def test_ruled_and_whitespace_tables_cell_accuracy() -> None:
    doc = tables_pdf(seed=21)
    found = tables_of(run(doc.data))
    assert len(found) == 2
    ruled, plain = found
    assert ruled.content["ruled"] is True and plain.content["ruled"] is False
    assert cell_accuracy(table_rows(ruled), doc.tables[0]) >= 0.95
    assert cell_accuracy(table_rows(plain), doc.tables[1]) >= 0.95
    # the metric is not trivially satisfied: shifted rows score low
    assert cell_accuracy(table_rows(plain)[1:], doc.tables[1]) < 0.5


def test_table_reading_order_and_captions() -> None:
    r = run(tables_pdf(seed=22).data)
    kinds = [f.fragment_type for f in r.pages[0].fragments]
    assert kinds == ["text", "table_caption", "table", "text", "table_caption", "table"]


def test_table_output_modes_and_cell_boxes() -> None:
    doc = tables_pdf(seed=23)
    html = tables_of(run(doc.data))[0].content
    md = tables_of(run(doc.data, table_output_mode="markdown"))[0].content
    assert html["content"] == html["html"] and html["content"].startswith("<table>")
    assert md["content"] == md["markdown"] and md["content"].startswith("| ")
    head = doc.tables[0][0]
    assert [c["text"] for c in html["cells"][: len(head)]] == head
    for cell in html["cells"]:
        b = cell["bounding_box"]
        assert set(b) == {"x1", "y1", "x2", "y2"} and b["x1"] < b["x2"] and b["y1"] < b["y2"]
    # cells of one row share a top edge and go left to right
    first = html["cells"][: len(head)]
    assert len({round(c["bounding_box"]["y1"]) for c in first}) == 1
    assert [c["bounding_box"]["x1"] for c in first] == sorted(c["bounding_box"]["x1"] for c in first)


def test_table_merging_across_pages() -> None:
    doc = split_table_pdf(seed=24)
    plain = run(doc.data)
    assert plain.merged_tables is None
    assert len(tables_of(plain)) == 2
    r = run(doc.data, table_merging=True, table_output_mode="markdown")
    assert r.merged_tables is not None and len(r.merged_tables) == 1
    m = r.merged_tables[0]
    assert (m["start_page"], m["end_page"], m["pages_merged"]) == (1, 2, 2)
    assert m["merge_actions"] == {"pages": [1, 2], "target_columns": 3}
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in m["merged_table_markdown"].splitlines() if not line.startswith("|---")]
    assert cell_accuracy(rows, doc.tables[0]) >= 0.98
    assert rows.count(doc.tables[0][0]) == 1  # the repeated header row was dropped
    assert m["merged_table_html"].count("<tr>") == len(doc.tables[0])


def test_page_filling_table_has_no_header_or_footer() -> None:
    doc = dense_table_pdf(seed=25)
    frags = run(doc.data).pages[0].fragments
    assert [f.fragment_type for f in frags] == ["table"]
    assert cell_accuracy(table_rows(frags[0]), doc.tables[0]) >= 0.98


def test_wide_whitespace_table_keeps_all_its_columns() -> None:
    """Ten tight columns under headers wider than their columns: the headers close the
    full-height gutters, the gaps across the rows still give all ten columns."""
    for gap in (9, 12, 16):
        doc = wide_table_pdf(seed=26, gap=gap)
        found = tables_of(run(doc.data))
        assert len(found) == 1
        assert found[0].content["columns"] == 10
        assert cell_accuracy(table_rows(found[0]), doc.tables[0]) >= 0.98


def test_rules_drawn_as_filled_rectangles_and_zebra_rows() -> None:
    """Booktabs-style rules drawn as thin filled boxes make a table, not a figure; shaded rows
    behind the words are a background, not a grid of extra columns."""
    for zebra in (False, True):
        doc = drawn_rules_table_pdf(seed=27, zebra=zebra)
        frags = run(doc.data).pages[0].fragments
        assert not [f for f in frags if f.fragment_type == "figure"]
        found = [f for f in frags if f.fragment_type == "table"]
        assert len(found) == 1
        assert found[0].content["columns"] == len(doc.tables[0][0])
        assert cell_accuracy(table_rows(found[0]), doc.tables[0]) >= 0.98


def test_sideways_table_on_an_upright_page() -> None:
    """A table set sideways on a portrait page is read in its own orientation; its box is on
    the page as displayed (taller than wide)."""
    for angle in (90, -90):
        doc = sideways_table_pdf(seed=28, angle=angle)
        page = run(doc.data).pages[0]
        found = [f for f in page.fragments if f.fragment_type == "table"]
        assert len(found) == 1
        assert cell_accuracy(table_rows(found[0]), doc.tables[0]) >= 0.98
        b = found[0].bbox
        assert b["y2"] - b["y1"] > b["x2"] - b["x1"]
        assert 0 <= b["x1"] < b["x2"] <= page.width and 0 <= b["y1"] < b["y2"] <= page.height


def test_a_table_ruled_only_around_its_header_and_foot_has_a_row_per_line() -> None:
    """Statistics tables are often ruled above and below their header and at their foot only:
    the rules close bands of rows, and each printed line of the body is a row of its own."""
    import io

    from reportlab.pdfgen import canvas

    years = ["2014", "2013", "2012", "2011"]
    labels = ["Gross product", "Per capita", "Business sector", "Industry", "Construction", "Services", "Exports"]
    body = [[f"{(i * 7 + k * 3) % 50 / 10:.1f}" for k in range(len(years))] for i in range(len(labels))]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(595, 842))
    c.setFont("Helvetica", 9)
    top = 700
    c.line(60, top + 14, 500, top + 14)
    for k, y in enumerate(years):
        c.drawString(80 + 70 * k, top, y)
    c.line(60, top - 6, 500, top - 6)
    c.drawString(380, top - 22, "Product")  # a label over its group, with no figures
    for i, (label, row) in enumerate(zip(labels, body)):
        y = top - 35 - 13 * i
        for k, v in enumerate(row):
            c.drawString(80 + 70 * k, y, v)
        c.drawString(380, y, label)
    bottom = top - 35 - 13 * len(labels)
    c.line(60, bottom, 500, bottom)
    for x in (60, 500, 360):  # the frame, and the rule between the figures and the labels
        c.line(x, top + 14, x, bottom)
    for k in range(1, len(years)):  # the header's own column rules
        c.line(75 + 70 * k, top + 14, 75 + 70 * k, top - 6)
    c.save()
    (table,) = tables_of(run(buf.getvalue()))
    rows = [[cell for cell in r if cell] for r in table_rows(table)]
    assert rows[0] == years and rows[1] == ["Product"]
    assert rows[2:] == [[*r, label] for r, label in zip(body, labels)]


def test_a_title_repeated_over_each_block_of_rows_does_not_merge_the_columns_under_it() -> None:
    """Three blocks of rows, each under a title that spans the figure columns: each title alone
    hides the gutters between the figures, so the titles are set aside together."""
    import io

    from reportlab.pdfgen import canvas

    years = ["2007", "2008", "2009", "2010"]
    labels = ["Server closets", "Server rooms", "Data centres", "Enterprise"]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(595, 842))
    c.setFont("Helvetica", 9)
    y = 760
    want = []
    for b, title in enumerate(["Improved operation scenario", "Best practice scenario", "State-of-the-art scenario"]):
        c.drawString(190, y, title)
        want.append([title])
        y -= 13
        for i, label in enumerate(labels):
            row = [f"{1400 + 37 * b + 11 * i + 5 * k:,}" for k in range(len(years))]
            c.drawString(60, y, label)
            for k, v in enumerate(row):
                c.drawString(180 + 60 * k, y, v)
            want.append([label, *row])
            y -= 13
        y -= 6
    c.save()
    (table,) = tables_of(run(buf.getvalue()))
    assert [[cell for cell in r if cell] for r in table_rows(table)] == want


def test_rules_that_part_a_letterhead_from_address_blocks_are_no_table() -> None:
    """A printout set in a fixed-pitch font, each line one run of text padded with spaces, framed
    by a box with full-width rules between its sections (parties, items, totals, footer) and no
    column rules, is a page, not a table (its cells would hold both parties' addresses side by
    side): it is read as text."""
    import io

    from reportlab.pdfgen import canvas

    lines = [
        ("Supplier", "Customer", "I N V O I C E        Page 1"),
        ("Northwind Traders Ltd", "Contoso Supplies GmbH", "Invoice no : R87654321"),
        ("", "", "Invoice date : 06.08.2013"),
        ("12 Harbour Road", "Kundenweg 88", ""),
        ("Bristol BS1 4DJ", "40235 Duesseldorf", "Delivery date : 05.08.2013"),
        ("", "", "Order no : B123456789"),
        ("VAT no : GB123456789", "VAT no :", "Order date : 01.08.2013"),
        ("", "Customer no : 009420", ""),
        None,
        ("4123456000014  ZS997   100,0000 Stk.   1     1,0000    19,0", "", "100,00"),
        ("               Citric acid 100ml", "", ""),
        ("               Packing : bottle", "", ""),
        ("4123456000021  GZ250    50,0000 Stk.   1     1,4500     7,0", "", "72,50"),
        ("               Preserving sugar extra 250g", "", ""),
        ("               Item discount 1: 2,00%  Basis: 75,00 EUR  Discount: -0,03 EUR", "", ""),
        ("Important: orders placed before 19.12. are delivered by 23.12. at the latest, guaranteed.", "", ""),
        None,
        ("Goods    Surcharge   Freight   Net amount   VAT amount   VAT-%", "", "Total"),
        ("172,50    -8,10       3,00     167,40       18,62        19,0", "", "186,02"),
        None,
        ("Northwind Traders Ltd   Managing director: Max Mustermann   Register no 372876", "", ""),
    ]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(595, 842))
    c.setFont("Courier", 7.5)
    left, right, y = 35, 574, 790
    rules = [y + 12]
    for line in lines:
        if line is None:
            rules.append(y + 4)
            y -= 8
            continue
        a, b, d = line
        text = f"{a:<34}{b:<34}{d}" if (b or d) and len(a) < 34 else f"{a:<85}{d}"
        c.drawString(40, y, text.rstrip())
        y -= 11
    rules.append(y + 4)
    for r in rules:
        c.line(left, r, right, r)
    c.line(left, rules[0], left, rules[-1])  # the frame's sides only
    c.line(right, rules[0], right, rules[-1])
    c.save()
    pages = run(buf.getvalue()).pages
    texts = [f.content.get("content", "") for f in pages[0].fragments if f.fragment_type != "table"]
    assert not [f for f in pages[0].fragments if f.fragment_type == "table" and "Contoso" in f.content["content"]]
    text = "\n".join(texts)
    assert "Contoso Supplies GmbH" in text and "Kundenweg 88" in text and "186,02" in text


def test_a_table_ruled_between_its_rows_without_column_rules_keeps_wrapped_cells_whole() -> None:
    """Rules across the table between its rows and none between its columns: a long word
    wrapped over three lines beside one-line cells is one cell of one row; a band of figures
    under a one-line label keeps a row per line."""
    import io

    from reportlab.pdfgen import canvas

    rows = [(["Animal"], ["Action"], ["Result"]),
            (["Parastratiosph-", "ecomyiastratio-", "sphecomyioides"], ["Says"], ["bzzzzzzz"]),
            (["Fox"], ["Says"], ["Ring-dingding-", "dingeringeding"]),
            (["Donkey"], ["Says"], ["Hee-Haw"]), (["Counts"], ["1.5", "2.5", "3.5"], ["10", "20", "30"])]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(595, 842))
    c.setFont("Helvetica", 10)
    y = 760
    c.line(60, y + 14, 400, y + 14)
    for row in rows:
        height = max(len(cell) for cell in row)
        for x, cell in zip((64, 200, 300), row):
            for k, text in enumerate(cell):
                c.drawString(x, y - 13 * k, text)
        y -= 13 * height + 6
        c.line(60, y + 14, 400, y + 14)
    c.save()
    (table,) = tables_of(run(buf.getvalue()))
    got = [[" ".join(cell.split()) for cell in r] for r in table_rows(table)]
    assert got[:4] == [[" ".join(cell) for cell in row] for row in rows[:4]]
    assert got[4:] == [["Counts", "1.5", "10"], ["", "2.5", "20"], ["", "3.5", "30"]]


def test_a_grid_drawn_without_its_outer_frame_keeps_its_label_and_last_columns() -> None:
    """Column rules between the figures only, none at the table's sides: the row labels left of
    the first rule and the column right of the last one are cells of the table."""
    import io

    from reportlab.pdfgen import canvas

    labels = ["COTTON", "TOTAL PEANUT", "PEANUT 1ST CROP", "RICE", "TOTAL BEANS", "SUNFLOWER"]
    figures = [[f"{(i * 37 + k * 11) % 900 + 10},{k}" for k in range(4)] for i in range(len(labels))]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(595, 842))
    c.setFont("Helvetica", 9)
    top, pitch = 700, 15
    xs = [180, 250, 320, 390]  # the rules: after the labels and between the figures
    for i, (label, row) in enumerate(zip(labels, figures)):
        y = top - pitch * i
        c.drawString(100, y, label)
        for k, v in enumerate(row):
            c.drawRightString(xs[k] + 60 if k < 3 else 425, y, v)
    bottom = top - pitch * len(labels) + 10
    for x in xs:
        c.line(x, top + 12, x, bottom)
    for y in (top + 12, bottom):
        c.line(xs[0], y, xs[-1], y)
    c.save()
    (table,) = tables_of(run(buf.getvalue()))
    assert [[cell for cell in r if cell] for r in table_rows(table)] == [[lab, *row] for lab, row in zip(labels, figures)]


def test_amounts_whose_thousands_a_space_groups_stay_one_cell() -> None:
    """Amounts set flush right with a space between their thousands ("2 932,50 $", as French
    prints them) over shorter ones ("760,00 $"): the first group sticks out into a gap of its
    own, a word space wide, which is no column."""
    import io

    from reportlab.pdfgen import canvas

    rows = [("Description", "Qty", "Unit price", "Amount"), ("Cocktail reception", "85", "34,50 $", "2 932,50 $"),
            ("Open bar, 3 hours", "85", "22,00 $", "1 870,00 $"), ("Service staff", "20", "38,00 $", "760,00 $"),
            ("Linen rental", "1", "310,00 $", "310,00 $"), ("Delivery", "1", "75,00 $", "75,00 $")]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    c.setFont("Helvetica", 10)
    y = 600
    c.line(60, y + 14, 560, y + 14)
    for k, (desc, qty, price, amount) in enumerate(rows):
        c.drawString(64, y, desc)
        c.drawRightString(330, y, qty)
        c.drawRightString(440, y, price)
        c.drawRightString(555, y, amount)
        if k == 0:
            c.line(60, y - 5, 560, y - 5)
        y -= 18
    c.line(60, y + 12, 560, y + 12)
    c.save()
    (table,) = tables_of(run(buf.getvalue()))
    assert [[" ".join(cell.split()) for cell in r] for r in table_rows(table)] == [list(r) for r in rows]
