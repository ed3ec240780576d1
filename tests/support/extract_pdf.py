"""One-page PDFs drawn line by line, and the extraction a user gets from them: the extraction
tests' way to lay out a document (x, y from the top, text, size) without a generator."""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.core.requests import StructuredExtractionOptions
from pipelines.engine.document import convert
from pipelines.stages import extract

# the amounts at the foot of an invoice, as a user would ask for them
TOTALS_SCHEMA = {"type": "object", "properties": {
    "subtotal": {"type": "number", "description": "Total before tax."},
    "tax_amount": {"type": "number", "description": "Total tax."},
    "total_amount": {"type": "number", "description": "Total amount due, tax included."}}}

RECEIPT_SCHEMA = {"type": "object", "properties": {
    "company": {"type": "string", "description": "Name of the business that issued the receipt (the seller), "
                                                 "as printed, including any legal suffix."},
    "date": {"type": "string", "description": "Date of the purchase, copied as printed."},
    "address": {"type": "string", "description": "The seller's address as printed, lines joined by spaces."},
    "total": {"type": "string", "description": "Total amount paid (the final total including tax and rounding), "
                                               "copied as printed."},
    "tax": {"type": "number", "description": "The tax charged."},
}}


def pdf(lines: list[tuple[float, float, str, float]]) -> bytes:
    """A one-page PDF with each (x, y from the top, text, size) drawn in Helvetica."""
    return pages_pdf([lines])


def pages_pdf(pages: list[list[tuple[float, float, str, float]]]) -> bytes:
    """A PDF of several pages, each line (x, y from the top, text, size) drawn in Helvetica."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    h = A4[1]
    for lines in pages:
        for x, y, text, size in lines:
            c.setFont("Helvetica-Bold" if size > 12 else "Helvetica", size)
            c.drawString(x, h - y, text)
        c.showPage()
    c.save()
    return buf.getvalue()


def drawn_pdf(texts: list[tuple], rules: list[tuple[float, float, float]] = (),
              shades: list[tuple[float, float, float, float]] = (),
              uprights: list[tuple[float, float, float]] = ()) -> bytes:
    """A one-page PDF as office and invoicing software draw one: texts (x, y from the top, text,
    size, and a style: "R" sets the text's right edge at x, "B" bold), horizontal rules (x1, x2, y),
    grey boxes (x, y, width, height) behind the text and vertical rules (x, y1, y2)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    h = A4[1]
    c.setFillGray(0.88)
    for x, y, w, hh in shades:
        c.rect(x, h - y - hh, w, hh, stroke=0, fill=1)
    c.setFillGray(0)
    for x1, x2, y in rules:
        c.line(x1, h - y, x2, h - y)
    for x, y1, y2 in uprights:
        c.line(x, h - y1, x, h - y2)
    for x, y, text, size, *style in texts:
        c.setFont("Helvetica-Bold" if size > 12 or "B" in "".join(style) else "Helvetica", size)
        (c.drawRightString if "R" in "".join(style) else c.drawString)(x, h - y, text)
    c.save()
    return buf.getvalue()


def run(data: bytes, schema: dict) -> dict:
    pages = convert(DocumentInput(data=data)).pages
    return extract.extract_pages(pages, StructuredExtractionOptions(schema_name="s", json_schema=schema,
                                                                    provide_citations=True)).model_dump()
