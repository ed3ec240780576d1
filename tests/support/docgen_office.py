"""Office documents (DOCX, PPTX, XLSX) with their ground truth: headings, list items, tables and a
picture. Import them through tests/support/docgen.py."""

from __future__ import annotations

import io
import random

from tests.support.docgen_core import Doc, paragraph, sentence, table_rows, words
from tests.support.docgen_scans import image_bytes


def _png_chart() -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (120, 60), "white")
    ImageDraw.Draw(img).rectangle([10, 20, 40, 58], fill=(40, 90, 200))
    return image_bytes(img)


def docx_doc(seed: int = 6) -> Doc:
    import docx
    from docx.enum.text import WD_BREAK

    rng = random.Random(seed)
    d = docx.Document()
    d.add_heading("Project Charter", level=1)
    p1 = paragraph(rng, 2)
    d.add_paragraph(p1)
    d.add_heading("Goals", level=2)
    items = [sentence(rng, 4) for _ in range(2)]
    for it in items:
        d.add_paragraph(it, style="List Bullet")
    rows = table_rows(rng, 2, 3)
    t = d.add_table(rows=len(rows), cols=3)
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            t.cell(i, j).text = v
    d.add_picture(io.BytesIO(_png_chart()), width=docx.shared.Inches(2))
    d.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    p2 = paragraph(rng, 2)
    d.add_paragraph(p2)
    buf = io.BytesIO()
    d.save(buf)
    return Doc(buf.getvalue(), [p1, p2], [rows], {"items": items})


def pptx_doc(seed: int = 7) -> Doc:
    from pptx import Presentation
    from pptx.util import Inches

    rng = random.Random(seed)
    prs = Presentation()
    titles, bodies = [], []
    for _ in range(2):
        s = prs.slides.add_slide(prs.slide_layouts[1])
        t, b = words(rng, 3).title(), sentence(rng, 6)
        s.shapes.title.text = t
        s.placeholders[1].text = b
        titles.append(t)
        bodies.append(b)
    rows = table_rows(rng, 2, 3)
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Figures"
    tbl = s.shapes.add_table(len(rows), 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    s.shapes.add_picture(io.BytesIO(_png_chart()), Inches(1), Inches(4.5), Inches(2))
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            tbl.cell(i, j).text = v
    buf = io.BytesIO()
    prs.save(buf)
    return Doc(buf.getvalue(), [], [rows], {"titles": titles, "bodies": bodies})


def xlsx_doc(seed: int = 8) -> Doc:
    import openpyxl

    rng = random.Random(seed)
    wb = openpyxl.Workbook()
    tables = []
    for i in range(2):
        ws = wb.active if i == 0 else wb.create_sheet()
        ws.title = f"Sheet{i + 1}"
        rows = table_rows(rng, 3, 3)
        for r in rows:
            ws.append(r)
        tables.append(rows)
    buf = io.BytesIO()
    wb.save(buf)
    return Doc(buf.getvalue(), [], tables)
