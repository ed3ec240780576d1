"""Table structure from the page's own geometry: words and ruling lines, no second PDF parser.

* Columns come from vertical rules when the table has them (a ruled grid), else from the
  whitespace between words across the table's rows (``gap_columns``): an x range that no word of
  any row covers is a column gutter. Rows whose words bridge a gutter that every other row
  leaves open are spanning cells (a header over two columns): they do not close the gutter, and
  their text goes to the first column they span.
* Rows come from horizontal rules in a ruled grid (a cell may hold several lines), else from the
  text lines (booktabs tables rule only above and below the header and at the bottom).
* Every word of the region lands in exactly one cell, so a table never loses a word.
* A ruled cell whose inner borders are not drawn spans the slots they would separate
  (``table_cells.ruled_spans``); spans of tables without rules come from the cells' geometry
  when the fragment is built (``table_cells.col_spans``).
"""

from __future__ import annotations

import re
import statistics
from bisect import bisect_left, bisect_right

from pipelines.stages import row_bands, table_cells
from pipelines.stages.geometry import Box, Rule, Word, union
from pipelines.stages.lines_of_words import group_lines, row_lines

Cell = tuple[str, Box | None]


class _Gaps:
    """A table's rows with what ``gutters`` asks of them sorted once: ``gap_columns`` asks again
    with each row left out in turn."""

    def __init__(self, rows: list[list[Word]]) -> None:
        self.rows = rows
        # each row's word ends and starts: the nearest word on either side of a gutter is a
        # bisection away, not a walk over the row
        self.ends = [sorted(w.x2 for w in line) for line in rows]
        self.starts = [sorted(w.x1 for w in line) for line in rows]
        self.spans = sorted((w.x1, w.x2, k) for k, line in enumerate(rows) for w in line)

    def gutters(self, unit: float, skip: frozenset[int] | set[int] = frozenset()) -> list[float]:
        """``_gutters`` of the rows but those in ``skip``."""
        keep = [k for k in range(len(self.rows)) if k not in skip]
        spans = [(a, b) for a, b, k in self.spans if k not in skip] if skip else self.spans
        return _gutters([self.rows[k] for k in keep], unit, [self.ends[k] for k in keep],
                        [self.starts[k] for k in keep], spans)


def _gutters(rows: list[list[Word]], unit: float, ends: list[list[float]], starts: list[list[float]],
             spans: list) -> list[float]:
    """Middles of the x ranges that no word of ``rows`` covers and that separate words in
    enough rows (see ``gap_columns``); ``ends``, ``starts`` and ``spans`` as ``_Gaps`` keeps them."""
    multi = sum(1 for line in rows if len(line) >= 2)
    if multi < 2:
        return []
    runs: list[tuple[float, float]] = []
    right = spans[0][1]
    for x1, x2, *_ in spans[1:]:
        if x1 > right:
            runs.append((right, x1))
        if x2 > right:
            right = x2
    wide, narrow = max(0.45 * unit, 2.0), max(0.15 * unit, 1.0)
    em = 0.0
    out = []
    for a, b in runs:
        if b - a < narrow:
            continue
        gaps, edged = [], []
        for xe, xs in zip(ends, starts):
            i, j = bisect_right(xe, a + 0.5), bisect_left(xs, b - 0.5)
            if i and j < len(xs):
                left, right = xe[i - 1], xs[j]
                gaps.append(right - left)
                if abs(left - a) <= 1.0 or abs(right - b) <= 1.0:
                    edged.append(gaps[-1])  # a gap at the gutter's own edge, not to a far column
        em = em or statistics.median(w.size for line in rows for w in line)
        if b - a < 0.45 * em and _grouped_number(rows, a, b):
            continue
        if b - a >= wide and len(gaps) >= 2:
            out.append((a + b) / 2)
        # a gap clearly wider than a word space (a third of an em) separates cells even when
        # only one row has words on both sides of it ("Style = Alternate" under "Feature")
        elif len(gaps) >= 1 and b - a >= 0.45 * em:
            out.append((a + b) / 2)
        # a narrow gutter is a column only where some row shows a real gap at its edge (a row
        # that leaves the gutter's whole width and more open, as "Petone" before a far column,
        # shows nothing): a word space at the same place in every row ("row 1", "row 2", …; an
        # address's "The Little | Fern Café") is not a column
        elif len(gaps) >= max(3, 0.5 * multi) and max(edged, default=0.0) >= wide and _edged(rows, a, b) >= max(3, 0.5 * multi):
            out.append((a + b) / 2)
    return out


# a number whose thousands a space groups: its first group, then three figures (and its decimals)
_LEAD_GROUP = re.compile(r"[-+(]?\d{1,3}")
_NEXT_GROUP = re.compile(r"\d{3}(?:[.,]\d+)?\)?")
_SIGN = re.compile(r"[€$£¥₹]|EUR|USD|GBP|CHF")
_FIGURES = re.compile(r"-?\d[\d.,' ]*\d|\d")


def _grouped_number(rows: list[list[Word]], a: float, b: float) -> bool:
    """Does a gutter as narrow as a word space run through a number in some row, between its
    first group of figures and the next ("2 | 932,50 $" over "760,00 $" set flush right), or
    between a currency's sign and its amount ("€ | 1.108,59")?"""
    for line in rows:
        left = [w for w in line if w.x2 <= a + 0.5]
        right = [w for w in line if w.x1 >= b - 0.5]
        if left and right:
            lw, rw = max(left, key=lambda w: w.x2), min(right, key=lambda w: w.x1)
            if rw.x1 - lw.x2 < 0.45 * lw.size and (_LEAD_GROUP.fullmatch(lw.text) and _NEXT_GROUP.fullmatch(rw.text)
                                                   or _SIGN.fullmatch(lw.text) and _FIGURES.fullmatch(rw.text)):
                return True
    return False


def _edged(rows: list[list[Word]], a: float, b: float) -> int:
    """Rows with a word ending right at ``a`` or starting right at ``b``: a column edge lines up
    there (the longest cell of a left-aligned column, the start of the next one). Copies of one
    word line up wherever they stand (``Yes`` before ``(PostgreSQL only)`` down a column of
    ``Yes``): a side whose words there are all one word shows no edge."""
    ends = [[w.text for w in line if abs(w.x2 - a) <= 1.0] for line in rows]
    starts = [[w.text for w in line if abs(w.x1 - b) <= 1.0] for line in rows]
    left = len({t for ts in ends for t in ts}) >= 2
    right = len({t for ts in starts for t in ts}) >= 2
    return sum(1 for e, s in zip(ends, starts) if e and left or s and right)


def gap_columns(lines: list[list[Word]], unit: float, x1: float, x2: float) -> list[float]:
    """Column boundaries (x of each gutter's middle) from the word gaps across ``lines``.

    A gutter is an x range that no word covers. A wide one needs words on both sides of it in
    two lines; a narrow one (tight columns leave gaps no wider than a word space) in at least
    three lines and half of the lines with two or more words, which aligned word spaces in
    running text never manage. A line whose words bridge gutters that all the other lines leave
    open is a spanning row (a header over several columns): up to a fifth of the lines may be
    set aside that way, one at a time, or all the one-phrase lines at once (a title repeated
    over each block of rows).
    """
    rows = [line for line in lines if line]
    gaps = _Gaps(rows)
    best = gaps.gutters(unit)
    if len(rows) > 80:
        return best
    out: list[int] = []
    # titles over several columns, repeated down the table (one per block of rows): each alone
    # hides the gutters the others hide too, so they are set aside together
    titles = [k for k, r in enumerate(rows) if len(r) >= 2 and _one_phrase(r, unit)]
    if 2 <= len(titles) <= len(rows) // 5:
        trial = gaps.gutters(unit, set(titles))
        if len(trial) > len(best):
            out, best = titles, trial
    for k in sorted(range(len(rows)), key=lambda k: -max((w.x2 - w.x1 for w in rows[k]), default=0)):
        if len(out) >= len(rows) // 5:
            break
        trial = gaps.gutters(unit, {k, *out})
        if len(trial) > len(best):
            out.append(k)
            best = trial
    return best


def _split_at(lines: list[list[Word]], xs: list[float]) -> list[list[Word]]:
    """Lines cut at the x positions ``xs`` (vertical rules): words on either side of a rule
    are never one phrase."""
    if not xs:
        return lines
    out: list[list[Word]] = []
    for line in lines:
        parts: dict[int, list[Word]] = {}
        for w in line:
            parts.setdefault(sum(1 for x in xs if w.x1 >= x), []).append(w)
        out += [parts[k] for k in sorted(parts)]
    return out


def _extents(lines: list[list[Word]], bounds: list[float]) -> list[tuple[float, float] | None]:
    """The x range of each column's words (those that stay between two boundaries)."""
    edges = [float("-inf"), *bounds, float("inf")]
    out: list[tuple[float, float] | None] = []
    for a, b in zip(edges, edges[1:]):
        ws = [w for line in lines for w in line if w.x1 >= a and w.x2 <= b]
        out.append((min(w.x1 for w in ws), max(w.x2 for w in ws)) if ws else None)
    return out


def _phrase_cells(line: list[Word], bounds: list[float], unit: float,
                  spans: list[tuple[float, float]] = (),  # type: ignore[assignment]
                  extents: list[tuple[float, float] | None] | None = None) -> list[list[Word]]:
    """The words of one line in columns: a phrase (words a word space apart) stays one cell.
    A phrase that crosses a column boundary goes to the first column whose words it covers
    for at least half their width (a header spanning columns), or, covering none, to the column
    under its middle (a long header centred over a narrow column); without ``extents``, to the
    column it starts in. ``spans``: the x ranges of partial rules right under this line
    (``\\cmidrule``): a phrase over one belongs to the first column the rule spans."""
    cells: list[list[Word]] = [[] for _ in range(len(bounds) + 1)]
    min_gap = max(0.45 * unit, 2.0)
    phrase: list[Word] = []

    def flush() -> None:
        if phrase:
            x, right = phrase[0].x1, phrase[-1].x2
            mid = (x + right) / 2
            k = sum(1 for b in bounds if x >= b)
            if any(a <= mid <= b for a, b in spans):
                a = next(a for a, b in spans if a <= mid <= b)
                k = sum(1 for b in bounds if a + 1 >= b)
            elif extents and any(x < b < right for b in bounds):
                covered = [j for j, e in enumerate(extents)
                           if e and min(right, e[1]) - max(x, e[0]) >= 0.5 * (e[1] - e[0])]
                k = covered[0] if covered else sum(1 for b in bounds if mid >= b)
            cells[k].extend(phrase)
            phrase.clear()

    for w in line:
        if phrase and (w.x1 - phrase[-1].x2 >= min_gap
                       or any(phrase[-1].x2 <= b <= w.x1 for b in bounds)):
            flush()
        phrase.append(w)
    flush()
    return cells


def _one_phrase(ws: list[Word], unit: float) -> bool:
    """Words a word space apart from each other, left to right (one cell's text)."""
    gap = max(0.45 * unit, 2.0)
    return bool(ws) and all(b.x1 - a.x2 < gap for a, b in zip(ws, ws[1:]))


def _text(ws: list[Word], unit: float) -> Cell:
    if not ws:
        return ("", None)
    lines = group_lines(ws)
    text = "\n".join(" ".join(w.text for w in line) for line in lines)  # a cell keeps its lines
    return (text, union([(w.x1, w.y1, w.x2, w.y2) for w in ws]))


def whitespace_grid(words: list[Word], unit: float, bounds: list[float] | None = None) -> list[list[Cell]]:
    """Rows × columns of a table without vertical rules: a row per text line, columns from the
    gaps between words (or ``bounds``); a row's cells set apart in height are one line."""
    lines = row_lines(words)
    if not lines:
        return []
    x1, x2 = min(w.x1 for w in words), max(w.x2 for w in words)
    if bounds is None:
        bounds = gap_columns(lines, unit, x1, x2)
    ext = _extents(lines, bounds)
    rows = [[_text(c, unit) for c in _phrase_cells(line, bounds, unit, (), ext)] for line in lines]
    # two gutters with only a spanning row's words between them leave a column no cell uses
    used = [k for k in range(len(bounds) + 1) if any(r[k][0] for r in rows)]
    return [[r[k] for k in used] for r in rows]


def rule_grid(region: Box, rules: list[Rule], words: list[Word], unit: float) -> list[list[Cell]]:
    """Rows × columns of a table with rules. Vertical rules give the columns (else the word
    gaps do); horizontal rules give the rows when every band between two of them holds cells of
    several lines (a multi-line cell), else each text line is a row."""
    if not words:
        return []
    rx1, ry1, rx2, ry2 = region
    hs = [r for r in rules if r.horizontal]
    vs = row_bands.column_rules([r for r in rules if r.vertical and (r.y2 - r.y1) >= 0.6 * unit], hs, region)
    xs = row_bands.cluster([(r.x1 + r.x2) / 2 for r in vs], 3.0)
    inner_x = [x for x in xs if rx1 + 3 < x < rx2 - 3]
    lines = group_lines(words)
    # columns: the vertical rules, and the whitespace gutters inside the ruled columns (a table
    # may rule some columns apart and leave others to alignment). Without vertical rules the
    # gutters come from the body: the lines between the first inner rule across the whole
    # table (under the header) and the last one (over notes under the table), when there are
    # two body lines or more; header and notes then take the columns they stand over.
    body = lines
    full: list[float] = []
    if not inner_x:
        full = row_bands.full_rules(hs, rx1, rx2, ry1, ry2)
        if full:
            low = full[-1] if len(full) > 1 else ry2
            inside = [ln for ln in lines if full[0] < statistics.fmean(w.cy for w in ln) < low]
            if sum(1 for ln in lines if statistics.fmean(w.cy for w in ln) > low) > 2:
                inside = [ln for ln in lines if statistics.fmean(w.cy for w in ln) > full[0]]
            body = inside if len(inside) >= 2 else lines
    bounds = sorted(inner_x + [g for g in gap_columns(_split_at(body, inner_x), unit, rx1, rx2)
                               if all(abs(g - x) > 4 for x in inner_x)])
    # (a row's rule runs across a ruled column at least: a link's underline, or its piece
    # under the space after the link's text, divides no row)
    slots = list(zip([rx1, *inner_x], [*inner_x, rx2]))
    across = [r for r in hs if not inner_x or any(r.x1 <= a + 3 and r.x2 >= b - 3 for a, b in slots)]
    ys = [y for y in row_bands.cluster([(r.y1 + r.y2) / 2 for r in across], 2.0) if ry1 + 2 < y < ry2 - 2]
    if not inner_x or not ys:
        # partial rules under a header line give the columns its cells span (in the body they
        # set off groups of rows instead)
        part = [r for r in hs if r.x2 - r.x1 < 0.9 * (rx2 - rx1)]
        head_end = full[0] if not inner_x and full else ry2
        cells: list[list[list[Word]]] = []
        ext = _extents(lines, bounds)
        for line in lines:
            bottom = max(w.y2 for w in line)
            spans = [(r.x1, r.x2) for r in part
                     if -1 <= r.y1 - bottom <= 0.8 * unit and r.y1 <= head_end + 2]
            # a rule under a header cell spans the columns of that cell only when the cell
            # is the one text over it (a rule above a total row has several cells over it)
            spans = [(a, b) for a, b in spans
                     if sum(1 for w in line if a <= (w.x1 + w.x2) / 2 <= b) == 1
                     or _one_phrase([w for w in line if a <= (w.x1 + w.x2) / 2 <= b], unit)]
            cells.append(_phrase_cells(line, bounds, unit, spans, ext))
        if not inner_x and len(full) >= 2:
            cells = row_bands.wrapped_rows(cells, lines, full)
        return [[_text(c, unit) for c in row] for row in cells]
    # a ruled grid: one row per band between horizontal rules, unless a band's cells all hold
    # the same number of lines (then the rules only set off groups of rows)
    ext = _extents(lines, bounds)
    bands: list[list[list[Word]]] = [[] for _ in range(len(ys) + 1)]
    for line in lines:
        cy = statistics.fmean(w.cy for w in line)
        bands[sum(1 for y in ys if cy > y)].append(line)
    rows: list[list[Cell]] = []
    edges = [ry1, *ys, ry2]
    single: list[tuple[int, float, float]] = []  # bands read as one row: (row, top, bottom)
    per_band = [[_phrase_cells(line, bounds, unit, (), ext) for line in band] for band in bands]
    counted = [{sum(1 for line in per_col if line[k]) for k in range(len(bounds) + 1)} - {0} for per_col in per_band]
    # (where more bands of several lines hold cells of different heights than of one height,
    # the rules are the rows', and a band whose cells all wrap alike is one row too)
    several = [c == {len(band)} for band, c in zip(bands, counted, strict=True) if len(band) > 1]
    rows_ruled = several.count(False) > several.count(True)
    for j, band in enumerate(bands):
        if not band:
            continue
        per_col, counts = per_band[j], counted[j]
        if len(band) > 1 and counts == {len(band)} and not rows_ruled and not row_bands.goes_on(per_col):
            rows += [[_text(c, unit) for c in line] for line in per_col]  # lines are rows
            continue
        if (split := row_bands.by_amounts(per_col)) is not None:
            rows += [[_text(c, unit) for c in line] for line in split]
            continue
        merged: list[list[Word]] = [[] for _ in range(len(bounds) + 1)]
        for line in per_col:
            for k, c in enumerate(line):
                merged[k].extend(c)
        single.append((len(rows), edges[j], edges[j + 1]))
        rows.append([_text(c, unit) for c in merged])
    # a cell whose inner borders are not drawn spans the slots they would separate
    drawn = [any(abs(b - x) <= 3 for x in inner_x) for b in bounds]
    return table_cells.ruled_spans(rows, single, [rx1, *bounds, rx2], drawn, vs, hs)
