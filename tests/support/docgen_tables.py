"""PDF tables with their cells as ground truth: ruled and unruled, split over two pages, dense from
edge to edge, wide with tight columns, ruled with filled boxes and zebra rows, and set sideways.
Import them through tests/support/docgen.py."""

from __future__ import annotations

import io
import random

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from tests.support.docgen_core import (
    _WORDS,
    FONT,
    MARGIN,
    PAGE_H,
    PAGE_W,
    Doc,
    _draw_table,
    _wrap,
    paragraph,
    table_rows,
)


def tables_pdf(seed: int = 2) -> Doc:
    """One page with a ruled table, then a paragraph, then an unruled (whitespace) table."""
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    intro = paragraph(rng, 2)
    y = _wrap(c, intro, MARGIN, PAGE_H - 60, PAGE_W - 2 * MARGIN) - 10
    c.setFont(FONT, 9)
    c.drawString(MARGIN, y, "Table 1: Ruled figures")
    t1 = table_rows(rng, 5, 4)
    y = _draw_table(c, t1, MARGIN, y - 8, [150, 100, 100, 100], ruled=True) - 24
    mid = paragraph(rng, 2)
    y = _wrap(c, mid, MARGIN, y, PAGE_W - 2 * MARGIN) - 10
    c.setFont(FONT, 9)
    c.drawString(MARGIN, y, "Table 2: Plain figures")
    t2 = table_rows(rng, 6, 4)
    _draw_table(c, t2, MARGIN, y - 8, [150, 100, 100, 100], ruled=False)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [t1, t2])


def split_table_pdf(seed: int = 3) -> Doc:
    """A ruled table that starts at the bottom of page 1 and continues on page 2 (header repeated)."""
    rng = random.Random(seed)
    rows = table_rows(rng, 45, 3)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    y = _wrap(c, paragraph(rng, 3), MARGIN, PAGE_H - 60, PAGE_W - 2 * MARGIN) - 12
    widths = [160, 120, 120]
    first = int((y - 60) // 18) - 1
    _draw_table(c, rows[: first + 1], MARGIN, y, widths, ruled=True)
    c.showPage()
    rest = [rows[0], *rows[first + 1:]]
    y = _draw_table(c, rest, MARGIN, PAGE_H - 60, widths, ruled=True) - 20
    _wrap(c, paragraph(rng, 2), MARGIN, y, PAGE_W - 2 * MARGIN)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [rows], {"first_page_rows": first})


def dense_table_pdf(seed: int = 12, rows: int = 90, cols: int = 10) -> Doc:
    """A whitespace table filling the page from edge to edge (no margins, no header/footer)."""
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    c.setFont(FONT, 6)
    data = [[f"{rng.randint(0, 99999)} {rng.choice(_WORDS)[:3]}" for _ in range(cols)] for _ in range(rows)]
    for r, row in enumerate(data):
        for k, cell in enumerate(row):
            c.drawString(30 + k * 56, PAGE_H - 22 - r * 8.4, cell)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [data])


def wide_table_pdf(seed: int = 15, cols: int = 10, rows: int = 12, gap: float = 9, size: float = 8) -> Doc:
    """A paragraph, a whitespace table of ``cols`` tight columns (right-aligned numbers, some
    headers wider than their column, centred over it and reaching into the gutters), a paragraph."""
    rng = random.Random(seed)
    head = ["Region"] + [f"Total {2010 + k}" if k % 3 == 0 else f"{2010 + k}" for k in range(cols - 1)]
    body = [[rng.choice(["North", "South East", "West", "Central", "Far North"])]
            + [f"{rng.randint(1, 99999):,}" for _ in range(cols - 1)] for _ in range(rows)]
    widths = [max(stringWidth(r[k], FONT, size) for r in body) for k in range(cols)]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    y = _wrap(c, paragraph(rng, 3), MARGIN, PAGE_H - 52, PAGE_W - 2 * MARGIN) - 20
    c.setFont(FONT, size)
    for r in [head, *body]:
        x = MARGIN
        for k, cell in enumerate(r):
            if k == 0:
                c.drawString(x, y, cell)
            elif r is head:
                c.drawCentredString(x + widths[k] / 2, y, cell)
            else:
                c.drawRightString(x + widths[k], y, cell)
            x += widths[k] + gap
        y -= size * 1.5
    _wrap(c, paragraph(rng, 3), MARGIN, y - 20, PAGE_W - 2 * MARGIN)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [[head, *body]])


def drawn_rules_table_pdf(seed: int = 16, cols: int = 8, rows: int = 10, zebra: bool = True) -> Doc:
    """A paragraph, then a table whose rules are thin filled rectangles (top, under the header,
    bottom: the booktabs style as many report generators draw it) and, with ``zebra``, every
    other row shaded by a filled box behind its words; then a paragraph."""
    rng = random.Random(seed)
    size = 9
    head = [w.title() for w in rng.sample(_WORDS, cols)]
    body = [[f"{rng.choice(_WORDS)}"] + [f"{rng.randint(10, 9999):,}" for _ in range(cols - 1)]
            for _ in range(rows)]
    widths = [max(stringWidth(r[k], FONT, size) for r in [head, *body]) + 14 for k in range(cols)]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    y = _wrap(c, paragraph(rng, 3), MARGIN, PAGE_H - 52, PAGE_W - 2 * MARGIN) - 16
    x0, width, pitch = MARGIN, sum(widths), size * 1.8

    def rule(yy: float, thick: float) -> None:
        c.setFillColorRGB(0, 0, 0)
        c.rect(x0, yy, width, thick, stroke=0, fill=1)

    rule(y, 1.0)
    y -= pitch
    for i, r in enumerate([head, *body]):
        if zebra and i and i % 2 == 0:
            c.setFillColorRGB(0.88, 0.9, 0.95)
            c.rect(x0, y - 4, width, pitch, stroke=0, fill=1)
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica-Bold" if i == 0 else FONT, size)
        x = x0
        for k, cell in enumerate(r):
            c.drawString(x + 4, y + 2, cell)
            x += widths[k]
        if i == 0:
            rule(y - 4.5, 0.6)
        y -= pitch
    rule(y + pitch - 5, 1.0)
    _wrap(c, paragraph(rng, 3), MARGIN, y - 10, PAGE_W - 2 * MARGIN)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [[head, *body]])


def sideways_table_pdf(seed: int = 17, angle: int = 90, rows: int = 8) -> Doc:
    """An upright page (no /Rotate) holding only a whitespace table set sideways: turned by
    ``angle`` degrees counter-clockwise (90: it reads upwards, -90: downwards)."""
    rng = random.Random(seed)
    head = [w.title() for w in rng.sample(_WORDS, 4)]
    body = [[rng.choice(_WORDS)] + [f"{rng.randint(10, 9999):,}" for _ in range(3)] for _ in range(rows)]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    c.translate(PAGE_W / 2, PAGE_H / 2)
    c.rotate(angle)
    c.translate(-PAGE_H / 2 + MARGIN, -PAGE_W / 2 + MARGIN)
    for i, r in enumerate([head, *body]):
        c.setFont("Helvetica-Bold" if i == 0 else FONT, 10)
        for k, cell in enumerate(r):
            c.drawString(k * 110, PAGE_W - 2 * MARGIN - 20 - i * 18, cell)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [[head, *body]])
