"""What every document generator of tests/support/docgen.py shares: the page geometry, the seeded
word list and the text made from it, the ``Doc`` a generator returns, the drawing helpers, and the
metrics (CER, cell accuracy) that compare what a parser read with the ground truth."""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass, field

from reportlab.lib.utils import simpleSplit
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


def cell_accuracy(hyp: list[list[str]], ref: list[list[str]]) -> float:
    """Share of reference cells found at the same row and column (whitespace-normalised)."""
    total = sum(len(r) for r in ref)
    ok = 0
    for i, row in enumerate(ref):
        for j, cell in enumerate(row):
            if i < len(hyp) and j < len(hyp[i]) and normalize(hyp[i][j]) == normalize(cell):
                ok += 1
    return ok / max(1, total)


@dataclass
class Doc:
    data: bytes
    pages: list[str] = field(default_factory=list)  # reference text per page, reading order
    tables: list[list[list[str]]] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


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
