"""How the rules of a ruled table group its text lines into rows (``grid.rule_grid``).

Rules across the table may stand between its rows, or only set off groups of rows (a label over
a column of figures, an ERP's item band ruled in columns only); a band between two rules is one
row when its cells wrap or centre on it, else a row per line. Also which drawn vertical lines
divide columns at all: a box drawn around a word (a key, a button) divides nothing. And, for a
whitespace table, the rows the XY-cut found from cells centred on them (``in_bands``).
"""

from __future__ import annotations

import statistics
from typing import Any

from pipelines.stages.geometry import Rule, Word, union


def cluster(values: list[float], tol: float) -> list[float]:
    out: list[list[float]] = []
    for v in sorted(values):
        if out and v - out[-1][-1] <= tol:
            out[-1].append(v)
        else:
            out.append([v])
    return [statistics.fmean(c) for c in out]


def full_rules(hs: list[Rule], rx1: float, rx2: float, ry1: float, ry2: float) -> list[float]:
    """The y of each inner horizontal rule that runs across (nearly) the whole table, its
    segments taken together (a midrule drawn column by column)."""
    out = []
    for y in cluster([(r.y1 + r.y2) / 2 for r in hs], 2.0):
        if not ry1 + 2 < y < ry2 - 2:
            continue
        segs = sorted((r.x1, r.x2) for r in hs if abs((r.y1 + r.y2) / 2 - y) <= 2.0)
        covered, right = 0.0, float("-inf")
        for a, b in segs:
            a = max(a, right)
            if b > a:
                covered += b - a
            right = max(right, b)
        if covered >= 0.9 * (rx2 - rx1):
            out.append(y)
    return out


def wrapped_rows(cells: list[list[list[Word]]], lines: list[list[Word]], full: list[float]) -> list[list[list[Word]]]:
    """Rules across the table between its rows, no column rules: a band between two rules where
    one cell is a single line and others wrap over several lines of words is one row
    ("Parastratiosph- / ecomyiastratio-" beside "Says"); other bands (the rules set off groups
    of rows: a label over a column of figures) keep a row per line. When the band's first line
    fills every column the band uses, the cells' lines wrap only where the next line's first
    word would not have fitted in its column: a name over its description, each a line of its
    own, are two rows (an API reference's member table). A band with figures keeps the first
    reading (an item's list of tasks beside its hours, a total with its notes)."""
    out: list[list[list[Word]]] = []
    right = [max((w.x2 for line in cells for w in line[c]), default=0.0) for c in range(len(cells[0]))] if cells else []
    band_of = [sum(1 for y in full if statistics.fmean(w.cy for w in line) > y) for line in lines]
    k = 0
    while k < len(cells):
        j = k
        while j + 1 < len(cells) and band_of[j + 1] == band_of[k] and len(cells[j + 1]) == len(cells[k]):
            j += 1
        band = cells[k:j + 1]
        counts = [n for c in range(len(band[0])) if (n := sum(1 for line in band if line[c]))]
        tall = "".join(w.text for c in range(len(band[0])) if sum(1 for line in band if line[c]) > 1
                       for line in band for w in line[c])
        wrapped = sum(ch.isalpha() for ch in tall) > 3 * sum(ch.isdigit() for ch in tall) \
            and (not _heads(band) or _figured(band) or _full(band, right))
        if len(band) > 1 and counts and min(counts) == 1 < max(counts) and (wrapped or _centred_in(band)):
            out.append([[w for line in band for w in line[c]] for c in range(len(band[0]))])
        else:
            out += band
        k = j + 1
    return out


def _heads(band: list[list[list[Word]]]) -> bool:
    """Does the band's first line fill every column that its other lines fill?"""
    return all(band[0][c] for line in band[1:] for c in range(len(line)) if line[c])


def _figured(band: list[list[list[Word]]]) -> bool:
    """A cell of figures anywhere in the band (an item with its amounts, a total)?"""
    return any(_numeric(c) for line in band for c in line)


def _full(band: list[list[list[Word]]], right: list[float]) -> bool:
    """Does every line of the band's tall cells but the last run up to its column's right edge
    (``right``): the first word of the line under it would not fit beside it?"""
    for c in range(len(band[0])):
        parts = [line[c] for line in band if line[c]]
        for a, b in zip(parts, parts[1:]):
            space = max(0.25 * a[-1].size, 1.0)
            if a[-1].x2 + space + (b[0].x2 - b[0].x1) <= right[c] + 0.5:
                return False
    return True


def _centred_in(band: list[list[list[Word]]]) -> bool:
    """Is every one-line cell of the band centred between the lines of the taller ones (``Test``
    beside ``5.4`` / ``BEAM``)? A label over a column of figures stands on the first."""
    cols = [[ln[c] for ln in band if ln[c]] for c in range(len(band[0]))]
    lone = [statistics.fmean(w.cy for w in col[0]) for col in cols if len(col) == 1]
    tall = [statistics.fmean(w.cy for w in cell) for col in cols if len(col) > 1 for cell in col]
    if not lone or not tall:
        return False
    h = statistics.median(w.y2 - w.y1 for col in cols for cell in col for w in cell)
    return all(min(tall) < y < max(tall) and all(abs(y - t) > 0.3 * h for t in tall) for y in lone)


def _numeric(ws: list[Word]) -> bool:
    text = "".join(w.text for w in ws)
    return bool(text) and any(ch.isdigit() for ch in text) and all(ch.isdigit() or ch in ".,'()-−%₹$€£¥ " for ch in text)


def by_amounts(per_col: list[list[list[Word]]]) -> list[list[list[Word]]] | None:
    """A band between two rules that holds a whole list (columns ruled, rows not: an invoice's
    items as Tally prints them): a row per line of its amounts column (the column of figures
    with the most lines), each line without an amount going with the row above (a description
    that wraps). None when no column holds three figures or more (a cell of two amounts in two
    currencies is one row's)."""
    cols = range(len(per_col[0])) if per_col else range(0)
    numeric = [k for k in cols if sum(1 for line in per_col if line[k]) >= 3
               and all(_numeric(line[k]) for line in per_col if line[k])]
    stacked = [n for k in cols if (n := sum(1 for line in per_col if line[k])) >= 5]
    if len(per_col) < 3 or not numeric or len(stacked) >= 3 and max(stacked) <= 1.25 * min(stacked):
        return None  # (columns of figures as long as each other: rows of a statistics table, ``tables._banded``)
    anchor = max(numeric, key=lambda k: (sum(1 for line in per_col if line[k]), k))
    out: list[list[list[Word]]] = []
    for line in per_col:
        if line[anchor] or not out:
            out.append([list(c) for c in line])
        else:
            for k, c in enumerate(line):
                out[-1][k].extend(c)
    return out if len(out) >= 2 else None


def column_rules(vs: list[Rule], hs: list[Rule], region: tuple[float, float, float, float]) -> list[Rule]:
    """The vertical rules that divide columns: each as tall as most of the band between the
    rules across the table around it (long, and meeting a vertical rule or the table's side: a
    link's underline is neither). A box drawn around a word in a cell (a key, a button, a menu
    item) is only as tall as its line, and divides nothing."""
    rx1, ry1, rx2, ry2 = region
    xs = [rx1, rx2, *((v.x1 + v.x2) / 2 for v in vs)]
    edges = [ry1, ry2, *(y for y, a, b in _runs(hs) if b - a >= 0.3 * (rx2 - rx1)
                         and any(abs(a - x) <= 2 or abs(b - x) <= 2 for x in xs))]
    out = []
    for v in vs:
        mid = (v.y1 + v.y2) / 2
        top = max((e for e in edges if e <= mid), default=ry1)
        bottom = min((e for e in edges if e >= mid), default=ry2)
        if v.y2 - v.y1 >= 0.8 * (bottom - top):
            out.append(v)
    return out


def goes_on(per_col: list[list[list[Word]]]) -> bool:
    """Do the band's lines carry wrapped words, not rows of their own: mostly letters, and a line
    of some cell starting in the middle of a sentence (``compact code``)? Rules around a group of
    figures' rows, or of names, set off rows that each start afresh."""
    text = "".join(w.text for line in per_col for c in line for w in c)
    return sum(ch.isalpha() for ch in text) > 3 * sum(ch.isdigit() for ch in text) and \
        any(line[k] and line[k][0].text[:1].islower() for line in per_col[1:] for k in range(len(line)))


def _runs(hs: list[Rule]) -> list[tuple[float, float, float]]:
    """Horizontal rules as runs (y, x1, x2), a row's rule drawn cell by cell taken whole."""
    return [((r.y1 + r.y2) / 2, r.x1, r.x2) for r in joined(hs)]


def joined(hs: list[Rule]) -> list[Rule]:
    """Horizontal rules drawn cell by cell (a browser draws each cell's border), joined end to
    end into one rule per row: pieces on one line (within a point) that touch or overlap."""
    out: list[Rule] = []
    for r in sorted(hs, key=lambda r: (r.y1, r.x1)):
        for k in range(len(out) - 1, -1, -1):
            last = out[k]
            if r.y1 - last.y1 > 1.0:
                out.append(r)
                break
            if abs(r.y2 - last.y2) <= 1.0 and r.x1 - last.x2 <= 3.0 and last.x1 - r.x2 <= 3.0:
                out[k] = Rule(min(last.x1, r.x1), min(last.y1, r.y1), max(last.x2, r.x2), max(last.y2, r.y2))
                break
        else:
            out.append(r)
    return out


def _filled(row: list[Any]) -> int:
    return sum(1 for t, _ in row if t.strip())


def in_bands(rows: list[list[Any]], bands: list[tuple[float, float]]) -> list[list[Any]]:
    """The rows whose middles lie in one of ``bands`` (the XY-cut's rows of cells centred on
    them, ``label_rules.row_bands``) joined into one, a cell's lines kept; unchanged when a
    row lies in no band. In a table of more than two columns only a line with half its cells
    or fewer joins (a wrapped cell's); two full lines beside one cell centred on both are two
    rows under a cell that spans them (``4`` beside ``25-28 … 0xA`` and ``29-32 … 0x2``)."""
    out: list[list[Any]] = []
    last = None
    for row in rows:
        boxes = [b for _, b in row if b]
        if not boxes:
            return rows
        mid = (min(b[1] for b in boxes) + max(b[3] for b in boxes)) / 2
        k = next((k for k, (top, bottom) in enumerate(bands) if top <= mid <= bottom), None)
        if k is None:
            return rows
        if out and k == last and (len(row) == 2 or min(_filled(out[-1]), _filled(row)) <= len(row) // 2):
            out[-1] = [(f"{t1}\n{t2}".strip("\n"), union([b for b in (b1, b2) if b]) if (b1 or b2) else None)
                       for (t1, b1), (t2, b2) in zip(out[-1], row, strict=True)]
        else:
            out.append(list(row))
        last = k
    return out
