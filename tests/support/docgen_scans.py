"""Scans made from the generated PDFs: a page rendered to an image, skewed and noised as a scanner
would, and put back into an image-only PDF or one with an invisible OCR text layer. Import them
through tests/support/docgen.py."""

from __future__ import annotations

import io

from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfgen import canvas

from tests.support.docgen_core import FONT, MARGIN, PAGE_H, PAGE_W, Doc
from tests.support.docgen_pdf import text_pdf


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
