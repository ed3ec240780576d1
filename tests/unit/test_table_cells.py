"""Table cells with spans and boxes (``table_cell_grounding``): a ruled table whose header cells
span (inner borders not drawn) and a whitespace table with a header centred over two columns.
Spans appear in the HTML and in the cell list; every cell box holds its text's glyphs; the
option is accepted by the API and the result carries the cells."""

from __future__ import annotations

import io
import re

from fastapi.testclient import TestClient
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert
from pipelines.stages.tables import table_rows
from tests.support.helpers import A

W, H = 612.0, 792.0
SIZE = 9.0
BODY = [["Berlin", "1,204", "1,388", "up"], ["Paris", "998", "1,020", "flat"],
        ["Madrid", "731", "802", "up"], ["Rome", "655", "610", "down"]]
WBODY = [["alpha", "12.5", "13.1", "25.6"], ["bravo", "7.2", "8.8", "16.0"],
         ["charlie", "3.9", "4.4", "8.3"], ["delta", "21.0", "19.5", "40.5"],
         ["echo", "5.5", "6.1", "11.6"]]


def _centred(c: canvas.Canvas, text: str, x1: float, x2: float, y: float) -> None:
    c.drawString((x1 + x2) / 2 - stringWidth(text, "Helvetica", SIZE) / 2, y, text)


def spans_pdf() -> tuple[bytes, dict[str, tuple[float, float, float, float]]]:
    """The page, and where each word was drawn (PDF points, top-left origin)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(W, H))
    c.setFont("Helvetica", SIZE)
    drawn: dict[str, tuple[float, float, float, float]] = {}

    def put(text: str, x: float, y: float) -> None:
        c.drawString(x, y, text)
        drawn[text] = (x, H - y - SIZE, x + stringWidth(text, "Helvetica", SIZE), H - y + 2)

    c.drawString(72, 740, "Cell grounding sample")
    # ruled table: "Region" and "Trend" span the two header rows, "Sales" the two year columns
    xs, top, rh = [72, 192, 282, 372, 462], 700.0, 20.0
    rows = 2 + len(BODY)
    ys = [top - i * rh for i in range(rows + 1)]
    for i, y in enumerate(ys):
        if i == 1:
            c.line(xs[1], y, xs[3], y)  # under "Sales" only
        else:
            c.line(xs[0], y, xs[-1], y)
    for k, x in enumerate(xs):
        if k == 2:
            c.line(x, ys[1], x, ys[-1])  # not through "Sales"
        else:
            c.line(x, ys[0], x, ys[-1])
    put("Region", xs[0] + 4, ys[1] - 3)  # centred on the missing border between the two rows
    _centred(c, "Sales", xs[1], xs[3], ys[0] - 14)
    drawn["Sales"] = ((xs[1] + xs[3]) / 2 - 11, H - ys[0] + 14 - SIZE, (xs[1] + xs[3]) / 2 + 11, H - ys[0] + 16)
    put("Trend", xs[3] + 4, ys[1] - 3)
    put("2023", xs[1] + 4, ys[1] - 14)
    put("2024", xs[2] + 4, ys[1] - 14)
    for i, row in enumerate(BODY):
        for k, cell in enumerate(row):
            c.drawString(xs[k] + 4, ys[2 + i] - 14, cell)
    # whitespace table: "Quarters" centred over Q1 and Q2
    wx, wy = [72, 190, 270, 350], 520.0
    c.drawString(wx[0], wy, "Item")
    _centred(c, "Quarters", wx[1], wx[2] + 30, wy)
    c.drawString(wx[3], wy, "Total")
    for k, t in enumerate(["", "Q1", "Q2", ""]):
        if t:
            c.drawString(wx[k], wy - 14, t)
    for i, row in enumerate(WBODY):
        for k, cell in enumerate(row):
            c.drawString(wx[k], wy - 28 - 14 * i, cell)
    c.drawString(72, 400, "A closing paragraph of ordinary prose follows the two tables here.")
    c.showPage()
    c.save()
    return buf.getvalue(), drawn


def tables_of(result) -> list:
    return [f for p in result.pages for f in p.fragments if f.fragment_type == "table"]


def _cell(frag, text: str) -> dict:
    return next(c for c in frag.content["cells"] if c["text"] == text)


def test_ruled_spans_in_html_and_cells() -> None:
    data, drawn = spans_pdf()
    ruled = tables_of(convert(DocumentInput(data=data, parsing=ParsingOptions())))[0]
    assert ruled.content["columns"] == 4
    assert table_rows(ruled)[0] == ["Region", "Sales", "", "Trend"]
    assert table_rows(ruled)[1] == ["", "2023", "2024", ""]
    head = ruled.content["html"].split("</thead>")[0]
    assert '<th rowspan="2">Region</th>' in head and '<th colspan="2">Sales</th>' in head
    assert '<th rowspan="2">Trend</th>' in head and "<th>2023</th><th>2024</th>" in head
    assert ruled.content["content"] == ruled.content["html"]
    spans = {c["text"]: (c["row"], c["column"], c["row_span"], c["column_span"]) for c in ruled.content["cells"]}
    assert spans["Region"] == (0, 0, 2, 1) and spans["Sales"] == (0, 1, 1, 2) and spans["Trend"] == (0, 3, 2, 1)
    assert spans["2024"] == (1, 2, 1, 1) and spans["flat"] == (3, 3, 1, 1)
    # one entry per cell: the slots a span hides are not listed
    assert len(ruled.content["cells"]) == 4 * 6 - 1 - 1 - 1
    for text, (x1, y1, x2, y2) in drawn.items():
        b = _cell(ruled, text)["bounding_box"]
        assert b["x1"] <= x1 + 1 and b["x2"] >= x2 - 1 and b["y1"] <= y1 + 2 and b["y2"] >= y2 - 3, text
    # a spanning cell's box covers the slots it spans; cells of one column line up
    assert _cell(ruled, "Sales")["bounding_box"]["x2"] >= _cell(ruled, "2024")["bounding_box"]["x2"]
    assert _cell(ruled, "Region")["bounding_box"]["y2"] >= _cell(ruled, "2023")["bounding_box"]["y2"]
    assert _cell(ruled, "Paris")["bounding_box"]["x1"] == _cell(ruled, "Rome")["bounding_box"]["x1"]


def test_whitespace_header_over_two_columns() -> None:
    data, _ = spans_pdf()
    found = tables_of(convert(DocumentInput(data=data, parsing=ParsingOptions())))
    assert len(found) == 2
    plain = found[1]
    assert table_rows(plain)[0] == ["Item", "Quarters", "", "Total"]
    assert table_rows(plain)[2] == WBODY[0]
    assert '<th colspan="2">Quarters</th>' in plain.content["html"]
    q = _cell(plain, "Quarters")
    assert (q["row"], q["column"], q["row_span"], q["column_span"]) == (0, 1, 1, 2)
    assert not any(c["row"] == 0 and c["column"] == 2 for c in plain.content["cells"])
    assert all(c["row_span"] == c["column_span"] == 1 for c in plain.content["cells"] if c["text"] != "Quarters")
    # every cell, empty ones too, has a box, and body cells do not span
    assert all(set(c["bounding_box"]) == {"x1", "y1", "x2", "y2"} for c in plain.content["cells"])
    md = convert(DocumentInput(data=data, parsing=ParsingOptions(table_output_mode="markdown")))
    assert tables_of(md)[1].content["content"].startswith("| Item | Quarters |")


def test_table_cell_grounding_round_trips_through_the_api(client: TestClient, run_jobs) -> None:
    data, _ = spans_pdf()
    fid = client.put("/documents/v2/files", files={"file": ("t.pdf", data, "application/pdf")},
                     headers=A).json()["file_id"]
    r = client.post("/documents/v2/parse", headers=A, json={
        "file_id": fid, "enrichment_options": {"table_cell_grounding": True}})
    assert r.status_code == 200, r.text
    pid = r.json()["parse_id"]
    assert run_jobs() == 1
    res = client.get(f"/documents/v2/parse/{pid}", params={"with_options": "true"}, headers=A).json()
    assert res["status"] == "successful", res
    assert res["options"]["enrichment_options"]["table_cell_grounding"] is True
    tables = [f for p in res["pages"] for f in p["page_fragments"] if f["fragment_type"] == "table"]
    assert len(tables) == 2
    for t in tables:
        assert t["content"]["cells"] and all(
            set(c) >= {"text", "bounding_box", "row", "column", "row_span", "column_span"}
            and set(c["bounding_box"]) == {"x1", "y1", "x2", "y2"} for c in t["content"]["cells"])
    assert re.search(r'<th colspan="2">Sales</th>', tables[0]["content"]["html"])
