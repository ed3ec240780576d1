"""One-page PDFs drawn with reportlab's canvas for the parsing tests, and what the engine reads
from them: each test draws just the layout it is about (a table set one way, a line kerned
another) instead of going through a document generator."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert
from pipelines.stages.tables import table_rows

W, H = 612, 792  # US Letter, in points


def drawn_pdf(draw: Callable[[canvas.Canvas], Any]) -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(W, H))
    draw(c)
    c.showPage()
    c.save()
    return buf.getvalue()


def fragments(data: bytes) -> list[Any]:
    return [f for p in convert(DocumentInput(data=data)).pages for f in p.fragments]


def tables(data: bytes) -> list[list[list[str]]]:
    """Every table's rows, each cell's text with its lines and spaces joined by one space."""
    return [[[" ".join(c.split()) for c in row] for row in table_rows(f)]
            for f in fragments(data) if f.fragment_type == "table"]


def grid_rules(c: canvas.Canvas, xs: list[float], top: float, height: float, rows: int, width: float = 0.75) -> None:
    """The rules of a full grid: columns at ``xs``, ``rows`` rows of ``height`` down from ``top``."""
    c.setLineWidth(width)
    for k in range(rows + 1):
        c.line(xs[0], top - k * height, xs[-1], top - k * height)
    for x in xs:
        c.line(x, top, x, top - rows * height)


def wrapped(text: str, font: str, size: float, width: float) -> list[str]:
    """``text``'s lines wrapped at word spaces to ``width`` points, as a browser fills a cell."""
    line, lines = "", []
    for w in text.split():
        if line and stringWidth(f"{line} {w}", font, size) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return [*lines, line]


def label_rows(c: canvas.Canvas, rows: list[tuple[str, list[str]]], xs: tuple[float, float], top: float,
               pitch: float, gap: float, centred: bool = False) -> float:
    """Each label at ``xs[0]`` beside its value's lines at ``xs[1]``, ``pitch`` apart, rows
    ``gap`` more; the label on the value's first line, or halfway down its lines (``centred``,
    as LibreOffice sets a row's cells). The baseline under the last row."""
    y = top
    for label, lines in rows:
        c.drawString(xs[0], y - (pitch * (len(lines) - 1) / 2 if centred else 0), label)
        for k, ln in enumerate(lines):
            c.drawString(xs[1], y - pitch * k, ln)
        y -= pitch * len(lines) + gap
    return y
