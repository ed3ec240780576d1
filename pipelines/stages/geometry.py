"""Words, boxes and the page content the layout stage works on, whatever the source.

Coordinates are in the page's own units with a top-left origin (points for PDF pages, pixels
for images): ``x1, y1`` is the top-left corner, ``x2, y2`` the bottom-right one. Digital PDF
text (``pdf_text``) and OCR output (``ocr``) are both turned into ``Word`` lists, so reading
order, block typing and table detection (``layout``) are the same code for both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Word:
    text: str
    x1: float
    y1: float
    x2: float
    y2: float
    size: float = 10.0  # font size (PDF) or line height (OCR)
    bold: bool = False
    # the OCR engine's text line, shared by its words (-1: none, as for PDF text): a line the
    # engine found along a skewed or curved baseline stays one line (``xycut.group_lines``)
    line: int = -1

    @property
    def cy(self) -> float:
        return (self.y1 + self.y2) / 2

    @property
    def h(self) -> float:
        return self.y2 - self.y1


Box = tuple[float, float, float, float]


def union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def word_box(w: Word) -> Box:
    return (w.x1, w.y1, w.x2, w.y2)


def inside(b: Box, region: Box, slack: float = 1.0) -> bool:
    """Whether the centre of ``b`` lies in ``region`` (grown by ``slack``)."""
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return region[0] - slack <= cx <= region[2] + slack and region[1] - slack <= cy <= region[3] + slack


def overlap(a: Box, b: Box) -> float:
    """Intersection area of two boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def bbox_dict(b: Box) -> dict[str, float]:
    return {"x1": round(b[0], 2), "y1": round(b[1], 2), "x2": round(b[2], 2), "y2": round(b[3], 2)}


@dataclass
class Rule:
    """A ruling line (or a thin filled rectangle) drawn on the page."""

    x1: float
    y1: float
    x2: float
    y2: float

    @property
    def horizontal(self) -> bool:
        return (self.x2 - self.x1) > 3 * max(self.y2 - self.y1, 0.5)

    @property
    def vertical(self) -> bool:
        return (self.y2 - self.y1) > 3 * max(self.x2 - self.x1, 0.5)


@dataclass
class PageContent:
    """Everything read off one page before layout: words, rules, picture regions."""

    number: int
    width: float
    height: float
    words: list[Word] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    pictures: list[Box] = field(default_factory=list)
    curves: list[Box] = field(default_factory=list)  # bounds of drawn, non-rule paths
    meta: dict[str, Any] = field(default_factory=dict)
