"""Words → lines: the text layer's words grouped by height, and an OCR engine's lines kept whole.

Split from ``xycut``, which cuts regions of these lines into columns and bands; the table
finder (``grid``) and the layout read lines the same way.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pipelines.stages.geometry import Box, Word

BULLETS = frozenset("•◦▪▫‣∙·-–—*●○■□➢►✓¢«°")  # ¢ « °: how OCR often reads a bullet
ENUM = re.compile(r"^(\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)])$", re.I)


def list_marker(text: str) -> bool:
    """Does a line that starts with ``text`` start a list item (a bullet, ``3.``, ``b)``, ``iv.``)?"""
    return text in BULLETS or bool(ENUM.match(text))


STAGGER = 0.12  # of a word's height: cells of one row set this far into each other's height
SIZES = 1.5  # and their heights this close (a brace or a bracket over several rows is no cell)


# Lines already grouped, by the words' identities in order, while one page is laid out: the cut
# asks again for the lines of the same band at each of its tests (three calls in four repeat).
_KEPT: ContextVar[dict[tuple[Any, ...], tuple[list[Word], list[list[Word]]]] | None] = \
    ContextVar("lines_kept", default=None)


@contextmanager
def lines_kept() -> Iterator[None]:
    """Within this block ``group_lines`` answers a list of words it has grouped before from what
    it found then (the words must not move meanwhile: one page's layout, after its words are
    read and placed)."""
    token = _KEPT.set({})
    try:
        yield
    finally:
        _KEPT.reset(token)


def group_lines(words: list[Word], stagger: bool = False) -> list[list[Word]]:
    """Words → lines (top to bottom), each sorted left to right. With ``stagger`` (a table's
    rows, looked for across its gutters) a line beside the one above (``staggered``) joins it:
    an office suite centres a row's cells on the row, so a cell whose text sits in a paragraph
    with a margin under it is set a little higher than its neighbour's. Lines of text set with
    tight leading meet as much, so text is read without it."""
    kept = _KEPT.get()
    if kept is None:
        return _group(words, stagger)
    key = (stagger, *map(id, words))
    hit = kept.get(key)
    if hit is None:  # (the entry holds the words, so no id in its key is reused while it lives)
        hit = kept[key] = (list(words), _group(words, stagger))
    return [list(line) for line in hit[1]]


def _group(words: list[Word], stagger: bool) -> list[list[Word]]:
    if words and all(w.line >= 0 for w in words):
        return _engine_lines(words)
    lines: list[list[Word]] = []
    spans: list[tuple[float, float]] = []  # each line's vertical extent, kept as it grows
    ly1 = ly2 = 0.0
    # (top to bottom by centre, then left to right; the comparisons written out: this runs for
    # every band the cut tests)
    for w in sorted(words, key=lambda w: (w.y1 + w.y2, w.x1)):
        y1, y2 = w.y1, w.y2
        if lines:
            ov = (ly2 if ly2 < y2 else y2) - (ly1 if ly1 > y1 else y1)
            if ov > 0.5 * (ly2 - ly1 if ly2 - ly1 < y2 - y1 else y2 - y1):
                lines[-1].append(w)
                if y1 < ly1:
                    ly1 = y1
                if y2 > ly2:
                    ly2 = y2
                continue
            spans.append((ly1, ly2))
        lines.append([w])
        ly1, ly2 = y1, y2
    if lines:
        spans.append((ly1, ly2))
    for line in lines:
        line.sort(key=_left)
    return _rows(lines, spans) if stagger else lines


def _left(w: Word) -> float:
    return w.x1


def row_lines(words: list[Word]) -> list[list[Word]]:
    """Lines as a table's rows: ``group_lines`` with a row's cells set apart in height joined."""
    return group_lines(words, stagger=True)


def _rows(lines: list[list[Word]], spans: list[tuple[float, float]]) -> list[list[Word]]:
    """Each line joined to the row above when it is set apart in height from that row's first
    line (``staggered``) and clear of every line joined to it (two lines side by side do not
    interleave, and a row does not reach down line by line)."""
    rows: list[list[Word]] = []
    pieces: list[Box] = []  # the last row's lines' boxes
    first: tuple[list[Word], float, float] | None = None  # the last row's first line and its height
    for line, (y1, y2) in zip(lines, spans, strict=True):
        # (heights first, the cheap test before the full one: lines of text do not meet)
        if first is not None and y1 < first[2] and _meet(first[1], first[2], y1, y2):
            if not pieces:
                pieces.append((first[0][0].x1, first[1], max(w.x2 for w in first[0]), first[2]))
            box = (line[0].x1, y1, max(w.x2 for w in line), y2)
            if all(_apart(piece, box) for piece in pieces):
                pieces.append(box)
                rows[-1] += line
                continue
        rows.append(list(line))
        first, pieces = (line, y1, y2), []
    for row in rows:
        row.sort(key=lambda w: w.x1)
    return rows


def _meet(a1: float, a2: float, b1: float, b2: float) -> bool:
    """Do two lines' heights meet by more than ``STAGGER`` of the lower, being alike?"""
    ha, hb = a2 - a1, b2 - b1
    return min(a2, b2) - max(a1, b1) > STAGGER * min(ha, hb) and max(ha, hb) <= SIZES * min(ha, hb)


def _extent(line: list[Word]) -> Box:
    return (min(w.x1 for w in line), min(w.y1 for w in line), max(w.x2 for w in line), max(w.y2 for w in line))


def _apart(a: Box, b: Box) -> bool:
    """Is one box left of the other by a word space (a quarter of the lower's height) at least?"""
    gap = 0.25 * min(a[3] - a[1], b[3] - b[1])
    return b[0] - a[2] >= gap or a[0] - b[2] >= gap


def _staggered(a: Box, b: Box) -> bool:
    return _meet(a[1], a[3], b[1], b[3]) and _apart(a, b)


def staggered(a: list[Word], b: list[Word]) -> bool:
    """Are two lines cells of one row set apart in height (``group_lines``): one left of the
    other, of like heights, meeting by more than ``STAGGER`` of the lower?"""
    return _staggered(_extent(a), _extent(b))


def _engine_lines(words: list[Word]) -> list[list[Word]]:
    """OCR words → lines: each line the engine found stays whole, however skewed (grouping its
    words by height alone runs the lines of a tilted photo together), and engine lines side by
    side on one row (a label and its amount, read apart) are joined when they do not overlap in
    x and the one's baseline, carried across the gap at the slope of the lines around it, meets
    the other."""
    pieces: dict[int, list[Word]] = {}
    for w in words:
        pieces.setdefault(w.line, []).append(w)
    ordered = sorted(pieces.values(), key=lambda p: statistics.fmean(w.cy for w in p))
    for piece in ordered:
        piece.sort(key=lambda w: w.x1)
    tilt = _tilt(ordered)
    rows: list[list[list[Word]]] = []
    for piece in ordered:
        slope = _slope(piece)
        if slope is None:
            slope = tilt(statistics.fmean(w.cy for w in piece))
        fits = [(miss, row) for row in rows[-4:] if (miss := _beside(row, piece, slope)) is not None]
        if fits:
            min(fits, key=lambda t: t[0])[1].append(piece)
        else:
            rows.append([piece])
    return [sorted((w for p in row for w in p), key=lambda w: w.x1) for row in rows]


def _tilt(pieces: list[list[Word]]) -> Any:
    """The baseline slope at a height of the page, fitted to the long lines' slopes: a photo taken
    at an angle tilts its top and bottom lines differently, and a short line (a lone amount) has
    no slope of its own."""
    known = [(statistics.fmean(w.cy for w in p), s) for p in pieces if (s := _slope(p)) is not None]
    if len(known) < 2 or max(y for y, _ in known) - min(y for y, _ in known) < 1e-6:
        flat = known[0][1] if known else 0.0
        return lambda y: flat
    my = statistics.fmean(y for y, _ in known)
    ms = statistics.fmean(s for _, s in known)
    b = sum((y - my) * (s - ms) for y, s in known) / sum((y - my) ** 2 for y, _ in known)
    return lambda y: max(-0.2, min(0.2, ms + b * (y - my)))


def _slope(piece: list[Word]) -> float | None:
    """dy/dx of an engine line's baseline, from its end words; ``None`` for a short line."""
    a, b = piece[0], piece[-1]
    if b.x1 + b.x2 - a.x1 - a.x2 < 8 * a.h:
        return None
    return (b.cy - a.cy) / ((b.x1 + b.x2 - a.x1 - a.x2) / 2)


def _beside(row: list[list[Word]], piece: list[Word], slope: float) -> float | None:
    """How far the piece's facing end sits from the row's baseline carried to it, or ``None``
    when it is not on the row."""
    for other in row:
        if min(other[-1].x2, piece[-1].x2) - max(other[0].x1, piece[0].x1) > 0.5 * piece[0].h:
            return None  # overlapping in x (more than the engine's boxes touch): one above the other
    # the row's word nearest the piece, the piece's end that faces it, and the gap between
    gap, near, end = min(((piece[0].x1 - w.x2, w, piece[0]) if w.x1 + w.x2 <= piece[0].x1 + piece[0].x2 else
                          (w.x1 - piece[-1].x2, w, piece[-1]) for p in row for w in p), key=lambda t: t[0])
    miss = abs(near.cy + slope * ((end.x1 + end.x2) - (near.x1 + near.x2)) / 2 - end.cy)
    return miss if miss < 0.5 * min(near.h, end.h) else None
