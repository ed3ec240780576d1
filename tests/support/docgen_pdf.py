"""Born-digital PDFs with their ground truth: plain and two-column pages with running headers and
footers, headings with marks and barcodes, a chart, justified text, a table of contents, a form,
and broken or encrypted files. Import them through tests/support/docgen.py."""

from __future__ import annotations

import io
import random

from reportlab.graphics import renderPDF
from reportlab.graphics.barcode import createBarcodeDrawing
from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfgen import canvas

from tests.support.docgen_core import (
    _WORDS,
    FONT,
    MARGIN,
    PAGE_H,
    PAGE_W,
    Doc,
    _header_footer,
    _wrap,
    paragraph,
    sentence,
    words,
)


def two_column_pdf(seed: int = 1, pages: int = 2, interleave: bool = True, gutter: float = 24) -> Doc:
    """Pages with a running header, a full-width heading, two text columns and a page footer.

    With ``interleave`` (the default) the content stream draws the lines row by row across both
    columns, as many producers do, so content-stream order is *not* reading order.
    """
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    refs = []
    col_w = (PAGE_W - 2 * MARGIN - gutter) / 2
    for n in range(1, pages + 1):
        head, foot = _header_footer(c, "Quarterly Review of Operations", n)
        title = f"Section {n} " + words(rng, 3).title()
        c.setFont("Helvetica-Bold", 16)
        c.drawString(MARGIN, PAGE_H - 80, title)
        body, lines = [], []
        for col in range(2):
            x = MARGIN + col * (col_w + gutter)
            y = PAGE_H - 110
            while y > 140:
                p = paragraph(rng, rng.randint(2, 4))
                split = simpleSplit(p, FONT, 10, col_w)
                if y - len(split) * 12 < 60:
                    break
                for line in split:
                    lines.append((col, y, x, line))
                    y -= 12
                y -= 8
                body.append(p)
        order = sorted(lines, key=lambda t: (-t[1], t[0])) if interleave else lines
        c.setFont(FONT, 10)
        for _, y, x, line in order:
            c.drawString(x, y, line)
        refs.append("\n".join([head, title, *body, foot]))
        c.showPage()
    c.save()
    return Doc(buf.getvalue(), refs)


def structured_pdf(seed: int = 4) -> Doc:
    """Headings at two levels, list items, a figure with its caption, a struck sentence, a
    signature, a QR code and a Code128 barcode, on pages with running header and footer."""
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    width = PAGE_W - 2 * MARGIN
    struck = "This clause was withdrawn and must not appear."
    qr_value, code_value = f"DOCKLAKE-{rng.randint(1000, 9999)}", f"INV{rng.randint(100000, 999999)}"
    items = [sentence(rng, 5) for _ in range(3)]
    _header_footer(c, "Service Agreement", 1)
    c.setFont("Helvetica-Bold", 20)
    c.drawString(MARGIN, PAGE_H - 80, "Service Agreement Terms")
    c.setFont("Helvetica-Bold", 14)
    c.drawString(MARGIN, PAGE_H - 120, "1. Scope of work")
    y = _wrap(c, paragraph(rng, 3), MARGIN, PAGE_H - 142, width) - 8
    for it in items:
        c.setFont(FONT, 10)
        c.drawString(MARGIN + 10, y, "\u2022")
        c.drawString(MARGIN + 22, y, it)
        y -= 16
    y -= 10
    c.setFont(FONT, 10)
    c.drawString(MARGIN, y, struck)
    tw = c.stringWidth(struck, FONT, 10)
    c.setLineWidth(1)
    c.line(MARGIN - 1, y + 3.2, MARGIN + tw + 1, y + 3.2)
    y -= 30
    # a figure: a bitmap chart
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (300, 150), "white")
    d = ImageDraw.Draw(img)
    for i, hgt in enumerate([40, 90, 60, 120, 80]):
        d.rectangle([20 + i * 55, 140 - hgt, 60 + i * 55, 140], fill=(40, 90, 200))
    c.drawImage(ImageReader(img), MARGIN, y - 150, 300, 150)
    c.setFont(FONT, 9)
    c.drawString(MARGIN, y - 165, "Figure 1: Monthly volume by region")
    y -= 200
    c.setFont("Helvetica-Bold", 12)
    c.drawString(MARGIN, y, "1.1 Payment terms")
    y = _wrap(c, paragraph(rng, 2), MARGIN, y - 20, width) - 10
    # barcodes
    qr = createBarcodeDrawing("QR", value=qr_value, width=90, height=90)
    renderPDF.draw(qr, c, PAGE_W - MARGIN - 90, 70)
    bc = createBarcodeDrawing("Code128", value=code_value, barHeight=30, barWidth=1.0,
                              humanReadable=False)
    renderPDF.draw(bc, c, PAGE_W - MARGIN - 250, 60)
    # signature: a hand-drawn-looking curve over a line
    c.line(MARGIN, 80, MARGIN + 160, 80)
    p = c.beginPath()
    p.moveTo(MARGIN + 10, 90)
    p.curveTo(MARGIN + 30, 130, MARGIN + 40, 70, MARGIN + 60, 100)
    p.curveTo(MARGIN + 80, 130, MARGIN + 95, 75, MARGIN + 115, 98)
    p.curveTo(MARGIN + 125, 110, MARGIN + 135, 85, MARGIN + 150, 95)
    c.setLineWidth(1.6)
    c.drawPath(p, stroke=1, fill=0)
    c.setLineWidth(1)
    c.setFont(FONT, 8)
    c.drawString(MARGIN, 68, "Authorised signature")
    c.showPage()
    _header_footer(c, "Service Agreement", 2)
    c.setFont("Helvetica-Bold", 12)
    c.drawString(MARGIN, PAGE_H - 80, "1.2 Termination")
    _wrap(c, paragraph(rng, 4), MARGIN, PAGE_H - 100, width)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [], {"struck": struck, "qr": qr_value, "code128": code_value,
                                         "items": items})


def text_pdf(seed: int = 5, pages: int = 3, header_top: float = 30) -> Doc:
    """Plain single-column pages with a running header (``header_top`` points from the top edge)
    and a page-number footer."""
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    refs = []
    for n in range(1, pages + 1):
        head, foot = _header_footer(c, "Field Notes", n, header_top)
        paras = [paragraph(rng, 3) for _ in range(4)]
        y = PAGE_H - 50 - header_top
        for p in paras:
            y = _wrap(c, p, MARGIN, y, PAGE_W - 2 * MARGIN) - 10
        refs.append("\n".join([head, *paras, foot]))
        c.showPage()
    c.save()
    return Doc(buf.getvalue(), refs)


def encrypted_pdf() -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, encrypt="secret-pw")
    c.drawString(100, 700, "hidden")
    c.showPage()
    c.save()
    return buf.getvalue()


def zero_page_pdf() -> bytes:
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"])


def raw_pdf(objs: list[bytes]) -> bytes:
    """A PDF of these objects (object 1 is the catalog), with a correct cross-reference table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objs, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + o + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref))
    return out.getvalue()


def chart_pdf(seed: int = 9) -> Doc:
    """A paragraph, a vector bar chart (filled bars, axes, labels) with its caption, a paragraph."""
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    width = PAGE_W - 2 * MARGIN
    p1, p2 = paragraph(rng, 3), paragraph(rng, 3)
    y = _wrap(c, p1, MARGIN, PAGE_H - 70, width) - 20
    x0, base, labels = MARGIN + 30, y - 180, [w.title() for w in rng.sample(_WORDS, 5)]
    c.line(x0, base, x0 + 300, base)
    c.line(x0, base, x0, base + 170)
    for i, lab in enumerate(labels):
        c.setFillColorRGB(0.2, 0.4, 0.8)
        c.rect(x0 + 15 + i * 55, base, 35, rng.randint(40, 160), stroke=0, fill=1)
        c.setFillColorRGB(0, 0, 0)
        c.setFont(FONT, 7)
        c.drawString(x0 + 15 + i * 55, base - 10, lab)
    c.setFont(FONT, 9)
    caption = "Figure 2: Volume by product line"
    c.drawString(MARGIN, base - 30, caption)
    _wrap(c, p2, MARGIN, base - 60, width)
    c.showPage()
    c.save()
    chart_box = (x0, PAGE_H - (base + 170), x0 + 300, PAGE_H - base)
    return Doc(buf.getvalue(), [p1 + "\n" + caption + "\n" + p2], [],
               {"labels": labels, "caption": caption, "box": chart_box})


def justified_pdf(seed: int = 10, width: float = 220, leading: float = 12) -> Doc:
    """One narrow column of fully justified paragraphs (wide, uneven word spaces)."""
    from reportlab.lib.enums import TA_JUSTIFY
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Frame, Paragraph

    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    style = ParagraphStyle("j", fontName=FONT, fontSize=10, leading=leading, alignment=TA_JUSTIFY,
                           spaceAfter=leading)
    paras = [paragraph(rng, 4) for _ in range(5)]
    Frame(MARGIN, 80, width, PAGE_H - 160, showBoundary=0).addFromList(
        [Paragraph(p, style) for p in paras], c)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), ["\n".join(paras)])


def toc_and_list_pdf(seed: int = 11) -> Doc:
    """A table of contents with dot leaders, then a hanging-indent bullet list."""
    rng = random.Random(seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    c.setFont(FONT, 10)
    entries = [(words(rng, 3).title(), str(3 + 4 * i)) for i in range(4)]
    y = PAGE_H - 80
    for title, page in entries:
        dots = " ." * int((380 - c.stringWidth(title, FONT, 10)) / c.stringWidth(" .", FONT, 10))
        c.drawString(MARGIN, y, title + dots)
        c.drawRightString(MARGIN + 420, y, page)
        y -= 14
    y -= 30
    items = [paragraph(rng, 2) for _ in range(3)]
    for it in items:
        c.drawString(MARGIN + 6, y, "\u2022")
        y = _wrap(c, it, MARGIN + 24, y, 300) - 6
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [], {"entries": entries, "items": items})


def form_pdf(seed: int = 14) -> Doc:
    """A fill-in form: labels in the page text, values only in AcroForm fields."""
    rng = random.Random(seed)
    values = {"customer_name": f"{words(rng, 2).title()}", "invoice_no": f"INV-{rng.randint(1000, 9999)}"}
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    c.setFont(FONT, 10)
    y = PAGE_H - 100
    for key, val in values.items():
        c.drawString(MARGIN, y + 6, key.replace("_", " ").title() + ":")
        c.acroForm.textfield(name=key, value=val, x=MARGIN + 120, y=y, width=200, height=20)
        y -= 40
    c.drawString(MARGIN, y + 4, "I agree:")
    c.acroForm.checkbox(name="agree", checked=True, x=MARGIN + 120, y=y, size=14)
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), [], [], {"values": {**values, "agree": "checked"}})
