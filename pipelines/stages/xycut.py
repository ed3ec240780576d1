"""Reading order by recursive XY-cut over word boxes (and fixed regions).

* A region is first cut at vertical whitespace gutters that run through its whole height
  (columns, read left to right). The narrowest gutter that counts shrinks as the region grows
  taller, since word spaces line up across two or three lines now and then, never across many.
* Failing that, it is cut at horizontal gaps wider than about half a line (bands, read top to
  bottom). Adjacent bands whose union still has a gutter are merged first, so two columns whose
  paragraph breaks happen to line up are still read column by column (``band_rules``).
* A region with neither cut is a leaf (a block). A cut into three or more narrow parts whose
  lines line up across the parts is a whitespace table, not columns (a ``text_table`` region);
  labels in a margin, or values down the right edge, beside the lines they belong to are read
  with them, band by band (``label_rules``).

Pictures, ruled tables and other fixed regions take part in the cut as single items, so they land
in the reading order where they sit on the page. Given the text layer's own order, the leaves are
read in that order instead wherever it is coherent (``reading_order``).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from pipelines.stages.band_rules import BandRules, is_caption, running_line
from pipelines.stages.geometry import Box, Word, union
from pipelines.stages.gutters import LEAST_GAP, has_gap, narrow_columns, whole_lines
from pipelines.stages.label_rules import LabelRules
from pipelines.stages.lines_of_words import row_lines, staggered
from pipelines.stages.reading_order import Path, settle


@dataclass
class Region:
    """A fixed item that takes part in the reading order as a whole (table, picture, …)."""

    kind: str
    x1: float
    y1: float
    x2: float
    y2: float
    data: dict[str, Any] = field(default_factory=dict)


Item = Word | Region

_x1, _x2, _y1, _y2 = attrgetter("x1"), attrgetter("x2"), attrgetter("y1"), attrgetter("y2")
PARAGRAPH_OVER = 4  # lines of a paragraph set tight over a table, at most, that are looked under


def _box(it: Item) -> Box:
    return (it.x1, it.y1, it.x2, it.y2)


def line_text(line: list[Word]) -> str:
    return " ".join(w.text for w in line)


# ---------------------------------------------------------------- XY-cut


class _Cutter(BandRules, LabelRules):
    def __init__(self, unit: float, line_gap: float = 0.0, slips: bool = False) -> None:
        self.unit = max(unit, 1.0)  # median word height: every threshold is relative to it
        self.slips = slips  # a scanned page: labels and amounts set apart are rows (``valued``)
        # a band break is a gap clearly wider than the usual gap between the lines of a
        # paragraph (loose leading leaves 4 pt between 9 pt boxes)
        self.band_gap = max(0.45 * self.unit, line_gap + 0.25 * self.unit)
        self.nodes = 0  # column cuts made so far (their ids)
        self.paths: list[Path] = []
        # each band's columns (and narrow table, and whether it is a row's band or joinable),
        # by its items' identities in order: the cut and its tests ask again for the same
        # band's (the entry holds the items, so no id is reused meanwhile)
        self._kept: dict[tuple[Any, ...], tuple[list[Item], Any]] = {}

    def split_x(self, items: list[Item], min_gap: float) -> list[list[Item]]:
        items = sorted(items, key=_x1)
        parts, cur, right = [], [items[0]], items[0].x2
        for it in items[1:]:
            if it.x1 - right >= min_gap:
                parts.append(cur)
                cur = []
            cur.append(it)
            if it.x2 > right:
                right = it.x2
        parts.append(cur)
        return parts

    def split_y(self, items: list[Item]) -> list[list[Item]]:
        """Bands at gaps wider than ``band_gap``; a table or figure across the region's width is
        a band of its own however close the lines over and under it (a form's fields set tight
        over an item table: they keep their columns)."""
        items = sorted(items, key=_y1)
        width = max(map(_x2, items)) - min(map(_x1, items))
        wide = {id(i) for i in items if isinstance(i, Region) and i.kind in ("table", "figure") and i.x2 - i.x1 >= 0.9 * width}
        parts, cur, bottom, edge = [], [items[0]], items[0].y2, id(items[0]) in wide
        for it in items[1:]:
            if it.y1 - bottom > self.band_gap or ((edge or id(it) in wide) and it.y1 >= bottom - 1.0):
                parts.append(cur)
                cur = []
            cur.append(it)
            if it.y2 > bottom:
                bottom, edge = it.y2, id(it) in wide
        parts.append(cur)
        return parts

    def x_gap(self, items: list[Item]) -> float:
        """The narrowest gutter that cuts a region. Word spaces (about a quarter of the line
        height) line up across two or three lines now and then, never across many, so taller
        regions accept narrower gutters (LaTeX's two-column gap is 10 pt)."""
        lines = (max(map(_y2, items)) - min(map(_y1, items))) / (1.2 * self.unit)
        if lines >= 4:
            return self.unit * 0.5
        return self.unit * (1.1 if lines > 1.4 else 2.5)

    def kept(self, find: Callable[[list[Item]], Any], items: list[Item]) -> Any:
        """``find(items)``, found once per band (``find`` a method of this cutter)."""
        key = (find.__name__, *map(id, items))
        if (hit := self._kept.get(key)) is None:
            hit = self._kept[key] = (list(items), find(items))
        return hit[1]

    def columns(self, items: list[Item]) -> list[list[Item]]:
        return [list(col) for col in self.kept(self._find_columns, items)]

    def _find_columns(self, items: list[Item]) -> list[list[Item]]:
        cols = whole_lines(self.split_x(items, self.x_gap(items)))
        if len(cols) == 1 and (headed := self.header_columns(items)) is not None:
            return headed
        if len(cols) > 1 and any(all(isinstance(i, Region) and i.kind == "key_value_region"
                                     for i in col) for col in cols):
            return [items]  # a column of form fields beside their labels: read row by row
        return self.centred_headers(cols)

    def has_gutter(self, items: list[Item]) -> bool:
        return len(self.columns(items)) > 1

    def cut(self, items: list[Item], out: list[list[Item]], path: Path = ()) -> None:
        """Leaves into ``out``; each leaf's ``path`` (the column cuts above it) into ``paths``."""
        if len(items) <= 1:
            self.emit(items, out, path)
            return
        cols = self.columns(items)
        if (parts := self.caption_apart(items, len(cols))) is not None:  # it hid some of the gutters
            for part in parts:
                self.cut(part, out, path)
            return
        if len(cols) == 1 and (narrow := self.narrow_table(items)):  # (set as tightly as its words)
            head = self.heading_lines(items) or set()
            rest = [i for i in items if id(i) not in head]
            if head and len(self.columns(rest)) > 1:  # a title over the table hides its wide gutters
                self.cut([i for i in items if id(i) in head], out, path)
                self.cut(rest, out, path)
                return
            self.emit([Region("text_table", *union([_box(i) for i in items]), data={"columns": narrow})], out, path)
            return
        if len(cols) >= 3 and (k := self.label_column(cols)) is not None:
            cols = [*cols[:k], [i for col in cols[k:] for i in col]]  # a block beside a list of labels and values
        if len(cols) > 1:
            if self.slips and (span := self.valued(cols)) is not None:
                top, bottom = span  # the labels and values; the lines above and below them read on their own
                parts = [[i for i in items if (i.y1 + i.y2) / 2 < top], [i for i in items if top <= (i.y1 + i.y2) / 2 <= bottom],
                         [i for i in items if (i.y1 + i.y2) / 2 > bottom]]
                for k, part in enumerate(parts):
                    if k == 1:
                        box, mine = union([_box(i) for i in part]), {id(i) for i in part}
                        self.emit([Region("text_table", *box, data={"columns": [[i for i in c if id(i) in mine] for c in cols]})],
                                  out, path)
                    elif part:
                        self.cut(part, out, path)
                return
            if (k := self.prose_side(cols)) is not None:  # text beside a table (contents beside an abstract)
                node = self.nodes = self.nodes + 1
                for n, side in enumerate([cols[:k], cols[k:]]):  # each read on its own, left to right
                    mine, where = [i for c in side for i in c], (*path, (node, n))
                    if len(side) >= 2 and self.tabular(side, least=2):
                        self.emit([Region("text_table", *union([_box(i) for i in mine]), data={"columns": side})], out, where)
                    else:
                        self.cut(mine, out, where)
                return
            if (title := self.title_over(items)) is not None:  # a title over a table's bold header
                self.cut([i for i in items if id(i) in title], out, path)
                self.cut([i for i in items if id(i) not in title], out, path)
                return
            parts = cols if self.tabular(cols) or self.labelled(cols) or self.headed(cols) or self.paired_lines(cols) \
                or self.contrasted(cols) or self.stacked(cols) or self.centred(cols) else self.refined(cols)
            if parts:
                box = union([_box(i) for i in items])
                data: dict[str, Any] = {"columns": parts}
                if len(parts) == 2 and (bands := self.row_bands(parts)):
                    data["bands"] = bands  # (rows apart by little more than a cell's lines)
                self.emit([Region("text_table", *box, data=data)], out, path)
                return
            bands = self.label_bands(cols) or self.values_across(items, cols) or []
            if len(bands) > 1:
                for band in bands:
                    self.cut(band, out, path)
                return
            self.nodes += 1
            node = self.nodes
            for k, col in enumerate(cols):
                self.cut(col, out, (*path, (node, k)))
            return
        bands = self.split_y(items)
        if len(bands) > 1:
            bands = self.spaced_rows(self.merge_bands(bands))
        if len(bands) > 1:
            for band in bands:
                self.cut(band, out, path)
            return
        if (head := self.heading_lines(items)) is not None:
            self.cut([i for i in items if id(i) in head], out, path)
            self.cut([i for i in items if id(i) not in head], out, path)
            return
        if (tail := self.text_under(items)) is not None:
            self.cut([i for i in items if id(i) not in tail], out, path)
            self.cut([i for i in items if id(i) in tail], out, path)
            return
        self.emit(items, out, path)

    def caption_apart(self, items: list[Item], n: int) -> list[list[Item]] | None:
        """The region's first or last line cut off, in reading order, when it is a caption
        (``Table 1.1: reference syntax``) that runs across gutters of the table it names, which
        then shows more columns than ``n``."""
        if any(isinstance(i, Region) for i in items):
            return None
        lines = row_lines(items)  # type: ignore[arg-type]
        if len(lines) < 4:
            return None
        for cap, top in ((lines[-1], False), (lines[0], True)):
            mine = {id(w) for w in cap}
            rest = [i for i in items if id(i) not in mine]
            if is_caption(cap) and len(self.columns(rest)) > n:
                return [list(cap), rest] if top else [rest, list(cap)]
        return None

    def heading_lines(self, items: list[Item]) -> set[int] | None:
        """The first line (or two) over a whitespace table set without a gap under it, when it
        spans the table's gutters (a title, a header cell over two columns) and so hides them,
        or a paragraph of more lines (its first line running text, every line's words a word
        space apart): the ids of their words, when the lines below make a table."""
        if len(items) < 10 or any(isinstance(i, Region) for i in items):
            return None
        lines = row_lines(items)  # type: ignore[arg-type]
        width = max(i.x2 for i in items) - min(i.x1 for i in items)
        for k in range(1, min(len(lines) - 3, PARAGRAPH_OVER + 1)):
            rest = [w for line in lines[k:] for w in line]
            if k > 2 and not (running_line(lines[0], width, self.unit) and all(
                    b.x1 - a.x2 < self.unit for ln in lines[1:k] for a, b in zip(ln, ln[1:]))):
                return None
            if k > 2 and not all(w.bold for w in lines[k]) and not has_gap(rest, LEAST_GAP * self.unit):
                continue  # (no gutter through the lines below, nor a bold header hiding one: no table)
            cols = self.columns(rest)
            if self.tabular(cols) or len(cols) == 1 and self.narrow_table(rest) or self.refined(cols):
                return {id(w) for line in lines[:k] for w in line}
        return None

    def title_over(self, items: list[Item]) -> set[int] | None:
        """A short plain line (four words at most) over a bold header row of two cells or more,
        when the lines from the header down make a table: a title, no row of the table (in its
        first column it may also keep the table from being one, that column's lines then
        outnumbering the others'). The ids of its words."""
        if any(isinstance(i, Region) for i in items):
            return None
        lines = row_lines(items)  # type: ignore[arg-type]
        if len(lines) < 4 or len(lines[0]) > 4 or any(w.bold for w in lines[0]) or len(lines[1]) < 2 \
                or not all(w.bold for w in lines[1]):
            return None
        rest = [w for line in lines[1:] for w in line]
        cols = self.columns(rest)
        if len(cols) > 1 and (self.tabular(cols) or self.labelled(cols) or self.headed(cols)):
            return {id(w) for w in lines[0]}
        return None

    def text_under(self, items: list[Item]) -> set[int] | None:
        """A paragraph set with no gap under a whitespace table's last row (its first line five
        words or more across most of the region, every line's words a word space apart), which
        runs across the table's gutters and so hides them: the ids of its words, when the three
        lines or more above it make a table."""
        if len(items) < 10 or any(isinstance(i, Region) for i in items):
            return None
        lines = row_lines(items)  # type: ignore[arg-type]
        width = max(i.x2 for i in items) - min(i.x1 for i in items)
        spaced = [all(b.x1 - a.x2 < self.unit for a, b in zip(ln, ln[1:])) for ln in lines]
        for j in range(3, len(lines)):
            if running_line(lines[j], width, self.unit) and all(spaced[j:]):
                rest = [w for line in lines[:j] for w in line]
                cols = self.columns(rest)
                # (labels and values, or a narrow table: three parts or more that line up over
                # three lines may be a justified paragraph's widest word spaces, four or more
                # over four lines are not)
                table = self.labelled(cols) or self.headed(cols) or len(cols) == 1 and self.narrow_table(rest) \
                    or j >= 4 and len(cols) >= 4 and self.tabular(cols)
                return {id(w) for line in lines[j:] for w in line} if table else None
        return None

    def narrow_table(self, items: list[Item]) -> list[list[Item]] | None:
        """The parts of a table set as tightly as its words (``gutters``): two parts or more of
        short lines that line up, or labels and their values."""
        cols = self.kept(self._narrow_table, items)
        return [list(col) for col in cols] if cols else None

    def _narrow_table(self, items: list[Item]) -> list[list[Item]] | None:
        cols = narrow_columns(items, self.unit, self.x_gap(items))
        return cols if cols and (self.tabular(cols, least=2) or self.labelled(cols)) else None

    def refined(self, cols: list[list[Item]]) -> list[list[Item]] | None:
        """Parts of a whitespace table some of whose gutters are narrow (``gutters``): each part
        cut again at its own narrow gutters, when that makes more parts and they read as a table
        (a column of centred signs tight beside its examples, a wide gap, then results beside
        their explanations)."""
        parts: list[list[Item]] = []
        for col in cols:
            parts += (narrow_columns(col, self.unit, self.x_gap(col)) if len(col) > 1 else None) or [col]
        return parts if len(parts) > len(cols) and self.tabular(parts) else None

    def emit(self, leaf: list[Item], out: list[list[Item]], path: Path) -> None:
        out.append(leaf)
        self.paths.append(path)

    def prose_side(self, cols: list[list[Item]]) -> int | None:
        """Where parts that make a whitespace table have running text (``_prose``) as their first
        or last part, and only there: the index that parts the text from the table."""
        if not self.tabular(cols):
            return None
        prose = [_prose(c) for c in cols]
        if sum(prose) == 1 and (prose[0] or prose[-1]):
            return 1 if prose[0] else len(cols) - 1
        return None

    def tabular(self, cols: list[list[Item]], least: int = 3) -> bool:
        """Three (``least``) or more narrow parts whose rows line up: a whitespace table, not text
        columns."""
        if len(cols) < least or any(isinstance(i, Region) for c in cols for i in c):
            return False
        rows_per_col = [row_lines([w for w in c if isinstance(w, Word)]) for c in cols]
        words_per_line = [len(line) for rows in rows_per_col for line in rows]
        if statistics.median(words_per_line) > 4:
            return False
        centres = [[statistics.fmean(w.cy for w in line) for line in rows] for rows in rows_per_col]
        first = centres[0]
        if len(first) < 2:
            return False
        aligned = {k for k, (y, line) in enumerate(zip(first, rows_per_col[0], strict=True))
                   if sum(any(abs(y - y2) < 0.5 * self.unit or abs(y - y2) < 2 * self.unit and staggered(line, ln)
                              for y2, ln in zip(cy, rs, strict=True))
                          for cy, rs in zip(centres[1:], rows_per_col[1:], strict=True)) >= len(cols) // 2}
        # a cell over two lines with its row's other cells centred on them (HTML's middle
        # alignment): the others' lines sit halfway between the two
        for k in range(len(first) - 1):
            mid = (first[k] + first[k + 1]) / 2
            if first[k + 1] - first[k] < 2.2 * self.unit and \
                    sum(any(abs(mid - y2) < 0.25 * self.unit for y2 in cy) for cy in centres[1:]) >= len(cols) // 2:
                aligned |= {k, k + 1}
        return len(aligned) >= max(2, 0.6 * len(first))


def _prose(col: list[Item]) -> bool:
    """Running text: eight lines or more of six words or more (the median), hardly a figure."""
    words = [w for w in col if isinstance(w, Word)]
    lines = row_lines(words)
    return len(lines) >= 8 and statistics.median(len(line) for line in lines) >= 6 and \
        sum(any(ch.isdigit() for ch in w.text) for w in words) <= 0.1 * len(words)


def line_gap(words: list[Word], unit: float) -> float:
    """The whitespace between two lines of a paragraph: the smallest gap between consecutive
    lines (gaps between paragraphs, list items and table rows are the larger ones; a page with
    any tightly set text falls back to the default threshold)."""
    lines = row_lines(words)
    gaps = []
    for a, b in zip(lines, lines[1:]):
        g = min(w.y1 for w in b) - max(w.y2 for w in a)
        if 0 <= g < unit:
            gaps.append(g)
    return min(gaps) if gaps else 0.0


def reading_order(items: list[Item], unit: float, gap: float = 0.0,
                  stream: list[Word] | None = None, scanned: bool = False) -> list[list[Item]]:
    """Leaves of the XY-cut, in reading order (``gap``: the usual gap between lines). With
    ``stream`` (the page's words in text-layer order) the leaves keep the stream's order unless
    it interleaves proven columns (``reading_order.settle``). ``scanned``: OCR words, whose
    slips' labels and amounts far apart are read as rows (a text layer keeps its own lines)."""
    if not items:
        return []
    out: list[list[Item]] = []
    cutter = _Cutter(unit, gap, slips=scanned)
    cutter.cut(items, out)
    return settle(out, stream, unit, cutter.paths) if stream else out
