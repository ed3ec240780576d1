"""Narrow gutters: the columns of a borderless table set as tightly as its words.

The XY-cut (``xycut``) only cuts at gutters clearly wider than a word space, since word spaces
line up across a few lines of running text now and then. A table printed without rules by a
browser or an office suite is often set tighter than that: the cells' padding leaves 2–4 pt
between its columns, less than the space between two words of a cell (``0 NILSXP NULL``,
``Module Identifier:  proxy_wstunnel_module``). Width alone cannot tell such a gutter from a
word space; what can is that it runs down many lines that have words on both of its sides, and
that the words on one of its sides line up on it (cells start, or end, at the same place),
which spaces between the words of running text never do.

``whole_lines`` joins again the parts of a cut where one is a piece of a single line set larger.

This module only proposes the narrow cut. The caller keeps it only where the parts then read as a
table (``tabular`` or ``labelled``), so a narrow gutter never changes the reading order of text
that is not a table (code set in a fixed-width font, for one).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from typing import Any

from pipelines.stages.geometry import Word
from pipelines.stages.lines_of_words import row_lines

LEAST_GAP = 0.12  # of the line height: narrower gaps are the space inside a word's kerning
LINES = 4  # lines with words on both sides of the gutter, at least
CROSSED = 0.6  # and this share of the region's lines
ALIGNED = 0.75  # of those lines, the share whose words beside the gutter start (or end) together
_NUMBER = re.compile(r"[\d.,:]*\d[\d.,:]*")
_BULLET = re.compile(r"[•◦▪‣∙·*–—-]|\(?\w{1,3}[.)]$")
TOL = 0.3  # points: the same start or end (a cell's; a paragraph's words come near by chance)
WIDER = 3.0  # points: centred cells this much wider than others line up on their centres only


def _gaps(items: list[Any], least: float, wide: float) -> list[tuple[float, float]]:
    """The free x ranges of the items' projection at least ``least`` and less than ``wide`` wide."""
    spans = sorted((i.x1, i.x2) for i in items)
    out, right = [], spans[0][1]
    for x1, x2 in spans[1:]:
        if least <= x1 - right < wide:
            out.append((right, x1))
        if x2 > right:
            right = x2
    return out


def has_gap(items: list[Any], least: float) -> bool:
    """Is there a gap at least ``least`` wide between the items, across their whole height?"""
    return bool(_gaps(items, least, math.inf))


def _worded(w: Word) -> bool:
    """A word, not a dot of a leader or a lone mark: the dots of a contents list line up too."""
    return any(ch.isalnum() for ch in w.text)


def _pointer(w: Word, line: list[Word], unit: float) -> bool:
    """A C type's pointer or reference mark (``SoupSocket *``) a word space after its name."""
    k = line.index(w)
    return w.text in ("*", "**", "&") and k > 0 and _worded(line[k - 1]) and w.x1 - line[k - 1].x2 < 0.5 * unit


def _lined_up(values: list[float], edge: float) -> int:
    """How many of ``values`` share the most common position (within ``TOL``); 0 unless that
    position is the gutter's ``edge`` (a line of running text that narrows a wide gutter at one
    of its word spaces makes no column)."""
    counts = Counter(round(v / TOL) for v in values)
    if not counts:
        return 0
    at = max(counts, key=lambda k: (counts[k] + counts[k - 1] + counts[k + 1], -k))
    return counts[at] + counts[at - 1] + counts[at + 1] if abs(at * TOL - edge) <= 2 * TOL else 0


def narrow_columns(items: list[Any], unit: float, wide: float) -> list[list[Any]] | None:
    """The items cut at every narrow gutter (narrower than ``wide``) that runs down at least
    ``LINES`` lines with words on both sides, ``CROSSED`` of the region's lines, and on which the
    words of ``ALIGNED`` of them line up; None when there is no such gutter."""
    gaps = _gaps(items, LEAST_GAP * unit, wide) if items else []
    if not gaps:
        return None  # (no gutter to test: the lines are not grouped)
    words = [i for i in items if isinstance(i, Word)]
    lines = row_lines(words)  # (a row's cells set apart in height cross the gutter)
    if len(lines) < LINES or len(words) < 2 * LINES:
        # three lines are enough when the gutter has both edges: cells set flush right, then
        # cells set flush left (return types beside function names)
        cut = _flush_pair(lines, gaps) if len(lines) == LINES - 1 else None
        return _parts(items, [cut]) if cut is not None else None
    cuts = []
    for g, (a, b) in enumerate(gaps):
        crossing: dict[str, tuple[float, float]] = {}  # a line's text: its words' end and start
        sizes: set[tuple[int, int]] = set()  # the widths of the words beside the gutter
        alone: dict[str, float] = {}  # lines with words right of the gutter only: their start
        both = 0  # lines with anything on both sides (a centred ``^`` is no word, but a cell)
        for line in lines:
            left = max((w for w in line if w.x2 <= a + 0.01), key=lambda w: w.x2, default=None)
            right = min((w for w in line if w.x1 >= b - 0.01), key=lambda w: w.x1, default=None)
            both += bool(left and right)
            if left and right and (_worded(left) or _pointer(left, line, unit)) and _worded(right):
                # (copies of one line count once: their spaces line up and prove nothing)
                crossing[" ".join(w.text for w in line)] = (left.x2, right.x1)
                sizes.add((round(left.x2 - left.x1), round(right.x2 - right.x1)))
            elif right and not left and _worded(right):
                alone[" ".join(w.text for w in line)] = right.x1
        n = len(crossing)
        starts = [s for _, s in crossing.values()]
        # words of one size on both sides down the lines (``int alpha;`` in a fixed-width font,
        # lines made from one pattern) line up whatever they are: no evidence either
        # (on as few lines as the least, every one of them: three ends of four meet by chance)
        if n >= LINES and n >= CROSSED * len(lines) and len(sizes) >= n / 2 and \
                max(_lined_up([e for e, _ in crossing.values()], a), _lined_up(starts, b)) >= (n if n == LINES else ALIGNED * n):
            cuts.append((a + b) / 2)
        # values wrapped under themselves (a label centred on its value's lines) start at the
        # gutter too: three lines across it are enough when those make up the count
        elif n >= LINES - 1 and len(sizes) >= n / 2 and n + len(alone) >= max(LINES, CROSSED * len(lines)) \
                and _lined_up([*starts, *alone.values()], b) >= ALIGNED * (n + len(alone)):
            cuts.append((a + b) / 2)
        # centred cells: their centres lining up is evidence enough for half the lines
        elif both >= LINES and both >= 0.5 * len(lines) and _centred(lines, gaps, g):
            cuts.append((a + b) / 2)
    return _parts(items, cuts) if cuts else None


def _flush_pair(lines: list[list[Word]], gaps: list[tuple[float, float]]) -> float | None:
    """The middle of a gap that every line crosses, the words before it ending together (within
    a point) from two starts or more, or each a label ending in a colon (``ctxt:``, ``Returns:``),
    or each one word of a proportional font starting together and ending at two places or more
    (``SIGHUP``, ``SIGTERM``: the next word of running text would start wherever the first
    ends), or the first line a bold header over two plain rows, the words on each side starting
    together; the words after it starting together; no line a list's item (its marker before
    it)."""
    for a, b in gaps:
        lefts = [[w for w in line if w.x2 <= a + 0.01] for line in lines]
        rights = [[w for w in line if w.x1 >= b - 0.01] for line in lines]
        if not all(lefts) or not all(rights) or any(_BULLET.match(ws[0].text) for ws in lefts):
            continue
        starts = [ws[0].x1 for ws in rights]
        labels = all(len(ws) <= 2 and ws[-1].text.endswith(":") for ws in lefts)
        names = all(len(ws) == 1 for ws in lefts) and max(ws[0].x1 for ws in lefts) - min(ws[0].x1 for ws in lefts) <= 0.5 \
            and max(ws[0].x2 for ws in lefts) - min(ws[0].x2 for ws in lefts) > 1.0 and not fixed_width(lines)
        # (or a bold header row over two rows in another weight, each part starting together)
        headed = all(w.bold for w in lines[0]) and not any(w.bold for line in lines[1:] for w in line) \
            and max(ws[0].x1 for ws in lefts) - min(ws[0].x1 for ws in lefts) <= 0.5
        if (flush_right(lefts) or labels or names or headed) and max(starts) - min(starts) <= 1.0:
            return (a + b) / 2
    return None


def _parts(items: list[Any], cuts: list[float]) -> list[list[Any]] | None:
    """The items cut at ``cuts``; None when the parts are a listing's line numbers or code."""
    parts: list[list[Any]] = [[] for _ in range(len(cuts) + 1)]
    for it in items:
        parts[sum(1 for c in cuts if (it.x1 + it.x2) / 2 > c)].append(it)
    parts = [p for p in parts if p]
    if len(parts) == 2 and all(isinstance(i, Word) and _NUMBER.fullmatch(i.text) for i in parts[0]):
        return None  # numbers beside lines of text: a listing's line numbers, not a table's labels
    if len(parts) == 2 and any(_mostly_one(p) and not flush_right(_lines(p)) for p in parts) \
            and fixed_width([line for p in parts for line in _lines(p)]):
        return None  # one word down most lines beside the rest (``text_box 'F.', …``): code
    return parts


def flush_right(lines: list[list[Word]]) -> bool:
    """Do the lines end together but start at two places or more (set flush right, as an API
    reference sets return types: ``void`` down most lines is no code then)?"""
    ends = [line[-1].x2 for line in lines]
    return bool(lines) and max(ends) - min(ends) <= 1.0 and len({round(line[0].x1) for line in lines}) >= 2


def fixed_width(lines: list[list[Word]]) -> bool:
    """Do the words of two letters or more all take the same width per letter (within 3 %)?"""
    pitch = [(w.x2 - w.x1) / len(w.text) for line in lines for w in line if len(w.text) >= 2]
    return bool(pitch) and max(pitch) <= 1.03 * min(pitch)


def _lines(part: list[Any]) -> list[list[Word]]:
    return row_lines([i for i in part if isinstance(i, Word)])


def _centred(lines: list[list[Word]], gaps: list[tuple[float, float]], g: int) -> bool:
    """Are the cells on one side of gap ``g`` centred in their column (an office suite's or a
    browser's ``align=center``)? A cell is a line's words between the gaps on either side; its
    centre lies at the same place, within ``TOL``, on ``ALIGNED`` of the lines that have one,
    counting each distinct cell once and needing ``LINES`` of them (identical cells line up
    whatever they are)."""
    a, b = gaps[g]
    lo = gaps[g - 1][1] if g else float("-inf")
    hi = gaps[g + 1][0] if g + 1 < len(gaps) else float("inf")
    for left, right in ((lo, a), (b, hi)):
        cells: dict[str, tuple[float, float]] = {}  # a cell's text: its centre and its width
        for line in lines:
            cell = [w for w in line if w.x1 >= left - 0.01 and w.x2 <= right + 0.01]
            if cell:
                cells[" ".join(w.text for w in cell)] = ((cell[0].x1 + cell[-1].x2) / 2, cell[-1].x2 - cell[0].x1)
        if len(cells) < LINES:
            continue
        at = max((m for m, _ in cells.values()), key=lambda m: sum(abs(m - c) <= TOL for c, _ in cells.values()))
        widths = [w for c, w in cells.values() if abs(at - c) <= TOL]
        # (cells of about one width share their centre when they share both edges: the lines
        # of a justified paragraph; centred cells are of many widths)
        if len(widths) >= ALIGNED * len(cells) and max(widths) - min(widths) >= WIDER:
            return True
    return False


def _mostly_one(part: list[Any]) -> bool:
    texts = [" ".join(w.text for w in line) for line in row_lines([i for i in part if isinstance(i, Word)])]
    return len(texts) >= LINES and Counter(texts).most_common(1)[0][1] >= 0.75 * len(texts)


def whole_lines(parts: list[list[Any]]) -> list[list[Any]]:
    """Parts of a cut joined again where one is a piece of a single line that goes on across the
    gutter at a word space of its own size: a heading set in larger type over narrow code stops
    the code's gutter at ``colour  and  LATEX``, which is not three columns."""
    out = [parts[0]]
    for part in parts[1:]:
        prev = out[-1]
        if _larger_line(prev, part) or _larger_line(part, prev):
            left = [w for w in prev if isinstance(w, Word)]
            right = [w for w in part if isinstance(w, Word)]
            if any(0 <= b.x1 - a.x2 < 0.75 * max(a.y2 - a.y1, b.y2 - b.y1) and abs(a.cy - b.cy) < 0.3 * (a.y2 - a.y1)
                   for a in left for b in right):
                out[-1] = prev + part
                continue
        out.append(part)
    return out


def _larger_line(part: list[Any], other: list[Any]) -> bool:
    """Is ``part`` one line set clearly larger than the words of ``other`` (a heading's piece
    beside the smaller text it stands over; pieces of a line of the same size, a label's
    ``vom 03.06.2026``, stay parts)?"""
    words = [w for w in other if isinstance(w, Word)]
    return _one_line(part) and bool(words) and \
        statistics.median(w.y2 - w.y1 for w in part) >= 1.15 * statistics.median(w.y2 - w.y1 for w in words)


def _one_line(part: list[Any]) -> bool:
    words = [w for w in part if isinstance(w, Word)]
    return len(words) == len(part) and max(w.y2 for w in words) - min(w.y1 for w in words) \
        < 1.5 * statistics.median(w.y2 - w.y1 for w in words)
