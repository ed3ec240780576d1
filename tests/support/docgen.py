"""Generate test documents together with their ground truth (no fixture files in the repo).

Every generator returns the document bytes plus what a perfect parser would read from it:
the page text in reading order, table cells, barcode values, and so on. Text comes from a
seeded word list, so documents are reproducible and never match a hard-coded answer by luck.
"""

from __future__ import annotations

import io
import random
import re
import unicodedata
from dataclasses import dataclass, field

from reportlab.graphics import renderPDF
from reportlab.graphics.barcode import createBarcodeDrawing
from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

PAGE_W, PAGE_H = 612, 792  # US letter, points
MARGIN = 54
FONT = "Helvetica"

_WORDS = (
    "data report system market value growth policy water energy model result method analysis "
    "change region public annual budget total review service quality network design process "
    "source figure level common project risk account order level health income trade sample "
    "capital record program standard survey measure factor period office return client "
    "payment invoice summary detail transport storage balance credit volume margin forecast"
).split()


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def sentence(rng: random.Random, n: int) -> str:
    s = words(rng, n)
    return s[0].upper() + s[1:] + "."


def paragraph(rng: random.Random, sentences: int = 4) -> str:
    return " ".join(sentence(rng, rng.randint(6, 12)) for _ in range(sentences))


def normalize(text: str) -> str:
    """NFKC, whitespace collapsed: the text both sides of a CER comparison go through."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def cer(hyp: str, ref: str) -> float:
    """Character error rate in reading order (Levenshtein / len(ref))."""
    from rapidfuzz.distance import Levenshtein

    h, r = normalize(hyp), normalize(ref)
    return Levenshtein.distance(h, r) / max(1, len(r))


@dataclass
class Doc:
    data: bytes
    pages: list[str] = field(default_factory=list)  # reference text per page, reading order
    tables: list[list[list[str]]] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


# ---------------------------------------------------------------- PDF helpers


def _wrap(c: canvas.Canvas, text: str, x: float, y: float, width: float, size: float = 10,
          leading: float | None = None, font: str = FONT) -> float:
    """Draw ``text`` wrapped into ``width``; returns the y below the last line."""
    leading = leading or size * 1.2
    c.setFont(font, size)
    for line in simpleSplit(text, font, size, width):
        c.drawString(x, y, line)
        y -= leading
    return y


def _header_footer(c: canvas.Canvas, title: str, n: int, top: float = 30) -> tuple[str, str]:
    c.setFont(FONT, 8)
    c.drawString(MARGIN, PAGE_H - top, title)
    c.drawRightString(PAGE_W - MARGIN, 28, f"Page {n}")
    return title, f"Page {n}"


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


def _draw_table(c: canvas.Canvas, rows: list[list[str]], x: float, y: float,
                widths: list[float], ruled: bool, size: float = 9) -> float:
    h = size * 2
    c.setFont(FONT, size)
    for i, row in enumerate(rows):
        cx = x
        c.setFont("Helvetica-Bold" if i == 0 else FONT, size)
        for w, cell in zip(widths, row):
            c.drawString(cx + 4, y - h + 6, cell)
            cx += w
        if ruled:
            c.line(x, y, x + sum(widths), y)
        y -= h
    if ruled:
        c.line(x, y, x + sum(widths), y)
        cx = x
        top = y + h * len(rows)
        for w in [0, *widths]:
            cx += w
            c.line(cx, top, cx, y)
    return y


def table_rows(rng: random.Random, n_rows: int, n_cols: int) -> list[list[str]]:
    head = [w.title() for w in rng.sample(_WORDS, n_cols)]
    rows = [head]
    for r in range(n_rows):
        rows.append([f"{rng.choice(_WORDS)} {r + 1}"] +
                    [f"{rng.randint(10, 9999):,}" for _ in range(n_cols - 1)])
    return rows


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


# ---------------------------------------------------------------- scans


def render_png(pdf: bytes, page: int = 0, dpi: int = 200):
    """A PIL image of one PDF page (what a scanner would see before skew and noise)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        return doc[page].render(scale=dpi / 72, grayscale=True).to_pil()
    finally:
        doc.close()


def scanify(img, skew_deg: float, noise: float = 0.04, seed: int = 0):
    """Rotate by ``skew_deg`` (counter-clockwise), add salt-and-pepper noise and a little blur."""
    import numpy as np
    from PIL import Image, ImageFilter

    img = img.convert("L").rotate(skew_deg, resample=Image.BICUBIC, expand=True, fillcolor=255)
    arr = np.asarray(img.filter(ImageFilter.GaussianBlur(0.6)), dtype=np.int16)
    rng = np.random.default_rng(seed)
    arr = arr + rng.normal(0, 12, arr.shape)
    mask = rng.random(arr.shape)
    arr[mask < noise / 20] = 0
    arr[mask > 1 - noise / 4] = 255
    return Image.fromarray(arr.clip(0, 255).astype("uint8"))


def image_bytes(img, fmt: str = "PNG", **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def images_pdf(images, dpi: int = 200) -> bytes:
    """A scanned PDF: each image fills one page."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    for img in images:
        w, h = img.size[0] * 72 / dpi, img.size[1] * 72 / dpi
        c.setPageSize((w, h))
        c.drawImage(ImageReader(img), 0, 0, w, h)
        c.showPage()
    c.save()
    return buf.getvalue()


# ---------------------------------------------------------------- office


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


def cell_accuracy(hyp: list[list[str]], ref: list[list[str]]) -> float:
    """Share of reference cells found at the same row and column (whitespace-normalised)."""
    total = sum(len(r) for r in ref)
    ok = 0
    for i, row in enumerate(ref):
        for j, cell in enumerate(row):
            if i < len(hyp) and j < len(hyp[i]) and normalize(hyp[i][j]) == normalize(cell):
                ok += 1
    return ok / max(1, total)


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


def searchable_scan_pdf(seed: int = 13) -> Doc:
    """A scanned page with an invisible OCR text layer on top (what OCR software produces)."""
    src = text_pdf(seed=seed, pages=1)
    img = scanify(render_png(src.data, 0), 0.0, noise=0.01, seed=seed)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H))
    c.drawImage(ImageReader(img), 0, 0, PAGE_W, PAGE_H)
    # the same text, invisible (render mode 3), where the scan shows it
    t = c.beginText()
    t.setTextRenderMode(3)
    t.setFont(FONT, 8)
    t.setTextOrigin(MARGIN, PAGE_H - 30)
    t.textLine("Field Notes")
    c.drawText(t)
    y = PAGE_H - 80
    paras = src.pages[0].split("\n")[1:-1]
    for p in paras:
        t = c.beginText()
        t.setTextRenderMode(3)
        t.setFont(FONT, 10)
        for line in simpleSplit(p, FONT, 10, PAGE_W - 2 * MARGIN):
            t.setTextOrigin(MARGIN, y)
            t.textLine(line)
            y -= 12
        c.drawText(t)
        y -= 10
    c.showPage()
    c.save()
    return Doc(buf.getvalue(), ["\n".join(paras)])


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
