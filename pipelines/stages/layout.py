"""Heuristic layout from geometry: words → blocks in reading order, with block types.

Reading order comes from the XY-cut in ``xycut``; each of its leaves is split into blocks at
changes of font style and at list markers. Words in the top and bottom margin bands, set off by
whitespace, are taken out first: they become page headers, footers and page numbers.

Block types: section headers (font clearly larger than the body, or a short bold line), list
items (a bullet or an enumerator first), figure/table captions ("Figure 3", "Table 2: …"),
page number, header and footer. Header levels are assigned later, from the font sizes of the
whole document or of each page (``assign_levels``).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from pipelines.stages import bidi
from pipelines.stages.band_rules import FIG_CAPTION, TABLE_CAPTION
from pipelines.stages.geometry import Box, Word, union
from pipelines.stages.lines_of_words import BULLETS, group_lines, lines_kept
from pipelines.stages.lines_of_words import ENUM as _ENUM
from pipelines.stages.margin_rows import table_head
from pipelines.stages.xycut import (
    Region,
    _box,
    line_gap,
    reading_order,
)

__all__ = ["Block", "Region", "group_lines", "layout_page", "line_text", "reading_order"]

PAGE_NUMBER = re.compile(r"^(page\s*)?(\d{1,4}|[ivxlc]{1,6})(\s*(of|/)\s*\d{1,4})?$|^[-–]\s*\d{1,4}\s*[-–]$",
                          re.I)
_TOC_LINE = re.compile(r"(\.\s?){4,}\s*[\divxlc]{1,5}$|\s{2,}[\divxlc]{1,5}$", re.I)
_LEADER = re.compile(r"^[.·…_]+$")
_LEAD_GLYPHS = frozenset(".·…_")
_PAGE_REF = re.compile(r"^([\d]{1,4}|[ivxlc]{1,6})$", re.I)
MARGIN_BAND = 0.075  # share of the page height treated as header / footer zone
FOOT_SHARE = 0.85  # the body's font size is measured above this share of the page height


@dataclass
class Block:
    kind: str
    box: Box
    text: str = ""
    size: float = 0.0
    bold: bool = False
    words: list[Word] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def line_text(line: list[Word]) -> str:
    """A line's text in logical order: left to right, or right to left for Arabic and Hebrew
    with embedded Latin words and numbers kept left to right (``bidi``)."""
    return bidi.line_text(line)


def _lines_text(lines: list[list[Word]]) -> str:
    """A paragraph's lines: one with right-to-left text reads in the paragraph's direction."""
    ws = [w for line in lines for w in line]
    if not any(bidi.has_rtl(w.text) for w in ws):
        return "\n".join(line_text(line) for line in lines)
    rtl = bidi.paragraph_rtl(ws)
    return "\n".join(bidi.line_text(line, rtl) for line in lines)


# ---------------------------------------------------------------- blocks


def body_size(words: list[Word]) -> float:
    """The most common font size, weighted by characters."""
    weights: dict[float, int] = {}
    for w in words:
        k = round(w.size * 2) / 2
        weights[k] = weights.get(k, 0) + len(w.text)
    return max(weights, key=weights.__getitem__) if weights else 10.0


def _style(line: list[Word]) -> tuple[float, bool]:
    chars = sum(len(w.text) for w in line) or 1
    size = sum(w.size * len(w.text) for w in line) / chars
    bold = sum(len(w.text) for w in line if w.bold) > chars / 2
    return round(size * 2) / 2, bold


def _same_style(a: tuple[float, bool], b: tuple[float, bool]) -> bool:
    """Lines of one paragraph: sizes within 12% (inline code, sub/superscripts shift the mean)
    and the same weight."""
    return abs(a[0] - b[0]) <= 0.12 * max(a[0], b[0]) and a[1] == b[1]


def _starts_item(line: list[Word]) -> bool:
    first = line[0].text.split(" ", 1)[0]  # a glued marker: "• Budget"
    return first in BULLETS or bool(_ENUM.match(first))


def leaf_blocks(words: list[Word], body: float) -> list[Block]:
    """One XY-cut leaf → blocks: a new block at a change of style or at a list bullet."""
    out: list[Block] = []
    cur: list[list[Word]] = []

    def flush() -> None:
        if cur:
            ws = [w for line in cur for w in line]
            size, bold = _style(ws)
            out.append(Block("text", union([(w.x1, w.y1, w.x2, w.y2) for w in ws]),
                             _lines_text(cur), size, bold, ws))
            cur.clear()

    for line in group_lines(words):
        if cur and (not _same_style(_style(line), _style(cur[-1])) or _starts_item(line)):
            flush()
        cur.append(line)
    flush()
    for b in out:
        b.kind = classify(b, body)
    return out


def classify(b: Block, body: float) -> str:
    text = b.text.strip()
    first = text.split(maxsplit=1)[0] if text else ""
    lines = text.split("\n")
    nlines = len(lines)
    if sum(1 for ln in lines if _TOC_LINE.search(ln)) >= max(1, 0.6 * nlines):
        return "document_index"
    if FIG_CAPTION.match(text):
        return "figure_caption"
    if TABLE_CAPTION.match(text):
        return "table_caption"
    short = len(text) <= 150 and nlines <= 3
    # (an address set large, an invoice's window: lines under the first that hold numbers are
    # a street and a postcode, not a heading's words; a British postcode has no two figures together)
    address = nlines >= 2 and any(re.search(r"\d{2}|\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b", ln) for ln in lines[1:])
    if short and b.size >= body * 1.15 and any(c.isalpha() for c in text) and not address:
        return "section_header"
    if short and nlines == 1 and b.bold and not text.endswith((".", ":", ",", ";")) and len(text) <= 90:
        return "section_header"
    if first in BULLETS or _ENUM.match(first):
        return "list_item"
    return "text"


def strip_bullet(text: str) -> str:
    head, _, rest = text.partition(" ")
    if rest and (head in BULLETS or _ENUM.match(head)):
        return rest
    return text


def split_margins(words: list[Word], height: float,
                  unit: float = 10.0) -> tuple[list[Word], list[Word], list[Word]]:
    """(header words, body words, footer words). Header and footer lie in the top and bottom
    margin bands *and* are set off from the body by whitespace; a page filled to its edges
    (a dense table, a form) has neither."""
    spans: list[list[float]] = []
    for w in sorted(words, key=lambda w: w.y1):
        if spans and w.y1 <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], w.y2)
        else:
            spans.append([w.y1, w.y2])
    top_lim, bottom_lim = height * MARGIN_BAND, height * (1 - MARGIN_BAND)
    gap = 0.8 * unit
    head_cut, foot_cut = float("-inf"), float("inf")
    for a, b in zip(spans, spans[1:]):
        if a[1] <= top_lim and b[0] - a[1] >= gap:
            head_cut = a[1]
        if b[0] >= bottom_lim and b[0] - a[1] >= gap and foot_cut == float("inf"):
            foot_cut = b[0]
    head = [w for w in words if w.y2 <= head_cut]
    foot = [w for w in words if w.y1 >= foot_cut]
    body = [w for w in words if w.y2 > head_cut and w.y1 < foot_cut]
    if head and table_head(head, body, unit):
        return [], head + body, foot
    return head, body, foot


def margin_blocks(words: list[Word], kind: str, unit: float) -> list[Block]:
    """Header or footer words → blocks (split at wide gaps), typed page_number when they are."""
    blocks = []
    for leaf in reading_order(list(words), unit):
        ws = [w for w in leaf if isinstance(w, Word)]
        if not ws:
            continue
        text = _lines_text(group_lines(ws))
        k = "page_number" if PAGE_NUMBER.match(text.strip()) else kind
        size, bold = _style(ws)
        blocks.append(Block(k, union([(w.x1, w.y1, w.x2, w.y2) for w in ws]), text, size, bold, ws))
    return blocks


def glue_markers(words: list[Word], unit: float) -> list[Word]:
    """A bullet or enumerator set apart from its text (hanging indent) becomes part of the
    first word after it; otherwise the XY-cut would read all bullets as a column of their own.

    A marker starts its line or its column, and does not end a column: a dash ending a sentence
    at the left column's edge, or an equation's number there, is not glued across the gutter."""
    lines = group_lines(words)
    out: list[Word] = []
    for at, line in enumerate(lines):
        k = 0
        while k < len(line):
            w = line[k]
            gap = line[k + 1].x1 - w.x2 if k + 1 < len(line) else -1.0
            starts = k == 0 or w.x1 - line[k - 1].x2 > 2 * unit
            # (the cheap tests first: this runs for every word of the page)
            marker = (starts and 0 <= gap <= 4 * unit and (w.text in BULLETS or _ENUM.match(w.text))
                      and not _ends_column(w, lines, at, unit))
            # a dot leader and the page number it leads to (tables of contents)
            leader = (0 <= gap <= 30 * unit and w.text[0] in _LEAD_GLYPHS and _LEADER.match(w.text)
                      and _PAGE_REF.match(line[k + 1].text) is not None)
            if marker or leader:
                n = line[k + 1]
                out.append(Word(f"{w.text} {n.text}", w.x1, min(w.y1, n.y1), n.x2, max(w.y2, n.y2),
                                n.size, n.bold, n.line))
                k += 2
                continue
            out.append(w)
            k += 1
    return out


def _ends_column(w: Word, lines: list[list[Word]], at: int, unit: float) -> bool:
    """A line of the eight above or below ends a run of text (not another marker) where ``w``
    ends: ``w`` sits at a column's right edge (justified or right-aligned text), not before its
    text."""
    for line in lines[max(0, at - 8):at] + lines[at + 1:at + 9]:
        for k, o in enumerate(line):
            last = k + 1 == len(line) or line[k + 1].x1 - o.x2 > 1.5 * unit
            if (last and abs(o.x2 - w.x2) <= 0.5 * unit and o.text not in BULLETS
                    and not _ENUM.match(o.text)):
                return True
    return False


def layout_page(words: list[Word], regions: list[Region], height: float,
                body: float | None = None, text_layer: bool = False) -> list[Block]:
    """All blocks of one page in reading order: header, body (with regions), footer.

    ``text_layer``: ``words`` are in the text layer's own order, which the body's blocks then
    keep unless it interleaves proven columns (``reading_order.settle``); OCR words have none."""
    if not words and not regions:
        return []
    with lines_kept():
        return _layout_page(words, regions, height, body, text_layer)


def _layout_page(words: list[Word], regions: list[Region], height: float,
                 body: float | None, text_layer: bool) -> list[Block]:
    unit = statistics.median([w.h for w in words]) if words else 10.0
    words = glue_markers(words, unit)
    head, main, foot = split_margins(words, height, unit)
    # (the foot of the page left out: an invoice's legal and bank lines in small print there
    # can outnumber the words of a short page)
    body = body or body_size([w for w in main if w.y1 < FOOT_SHARE * height] or main or words)
    blocks = margin_blocks(head, "page_header", unit)
    stream = main if text_layer else None
    for leaf in reading_order([*main, *regions], unit, line_gap(main, unit), stream, scanned=not text_layer):
        region = next((i for i in leaf if isinstance(i, Region)), None)
        if region is not None and len(leaf) == 1:
            blocks.append(Block(region.kind, _box(region), data=region.data))
            continue
        ws = [w for w in leaf if isinstance(w, Word)]
        mixed = leaf_blocks(ws, body) + [Block(r.kind, _box(r), data=r.data)
                                         for r in leaf if isinstance(r, Region)]
        blocks += _rows_first(mixed)  # a region among words: by rows, left to right
    blocks += margin_blocks(foot, "page_footer", unit)
    return blocks


def _rows_first(blocks: list[Block]) -> list[Block]:
    """Top to bottom; blocks whose vertical spans overlap by half the smaller one form a row,
    read left to right (a form field beside its label), or right to left in a row of mostly
    right-to-left text."""
    rows: list[list[Block]] = []
    for b in sorted(blocks, key=lambda b: (b.box[1] + b.box[3]) / 2):
        if rows:
            r = rows[-1]
            top, bottom = min(x.box[1] for x in r), max(x.box[3] for x in r)
            ov = min(bottom, b.box[3]) - max(top, b.box[1])
            if ov > 0.5 * min(bottom - top, b.box[3] - b.box[1]):
                r.append(b)
                continue
        rows.append([b])
    return [b for r in rows for b in (sorted(r, key=lambda b: -b.box[2]) if _rtl_row(r)
                                      else sorted(r, key=lambda b: b.box[0]))]


def _rtl_row(row: list[Block]) -> bool:
    return len(row) > 1 and bidi.paragraph_rtl([w for b in row for w in b.words])


def assign_levels(pages: list[list[Block]], document_wide: bool) -> None:
    """Header levels from font size: 1 for the largest header size, 2 for the next, …

    ``document_wide`` ranks sizes over the whole document (``cross_page_header_detection``), so
    a page holding only sub-sections still gets level 2; otherwise each page is ranked alone.
    """
    def rank(blocks: list[Block]) -> dict[tuple[float, bool], int]:
        styles = sorted({(b.size, b.bold) for b in blocks if b.kind == "section_header"},
                        key=lambda s: (-s[0], not s[1]))
        return {s: i + 1 for i, s in enumerate(styles)}

    if document_wide:
        table = rank([b for p in pages for b in p])
        for p in pages:
            for b in p:
                if b.kind == "section_header":
                    b.data["level"] = table[(b.size, b.bold)]
    else:
        for p in pages:
            table = rank(p)
            for b in p:
                if b.kind == "section_header":
                    b.data["level"] = table[(b.size, b.bold)]
