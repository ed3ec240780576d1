"""Whether a table starts in the page's top margin, where a running head would be.

``layout.split_margins`` takes the words of the top margin band, set off from the body by
whitespace, for a page header. An office suite or a browser may set a table's first row there
(the page broke just above it): the row is then part of the body, and its table keeps it. The
tests here tell such a row from a running head by how it lines up with the lines under it.
"""

from __future__ import annotations

from pipelines.stages.geometry import Word
from pipelines.stages.lines_of_words import group_lines, row_lines
from pipelines.stages.xycut import Region, reading_order


def table_head(head: list[Word], body: list[Word], unit: float) -> bool:
    """Does a table start in the page's top margin? Its first rows, set apart by the cells'
    padding, can make up the margin, and read as a table by themselves; or the margin is one line
    set in bold, the header row: three pieces or more apart by wide gaps, two of them starting
    or ending where words of the first lines under it do (``format … size … avg entry`` over
    ``$GIT_DIR/logs … 173 M … 1209 bytes``)."""
    if any(isinstance(i, Region) for leaf in reading_order(list(head), unit) for i in leaf):
        return True
    lines = group_lines(head)
    if len(lines) != 1:
        return False
    pieces = _pieces(lines[0], 1.5 * unit)
    if not all(w.bold for w in lines[0]):
        return _first_row(lines[0], pieces, group_lines(body)[:3], unit)
    below = [w for line in group_lines(body)[:3] for w in line]
    # (three pieces at least: two bold labels over blocks side by side head those blocks, the
    # parties of an invoice, and a margin line keeps them apart from the blocks as it should)
    return len(pieces) >= 3 and sum(any(abs(w.x1 - p[0].x1) <= 1 or abs(w.x2 - p[-1].x2) <= 1 for w in below)
                                    for p in pieces) >= 2 or _centred_over(pieces, (rows := row_lines(body))[:3], unit) \
        or _centred_spans(pieces, rows[:6], unit)


def _centred_over(pieces: list[list[Word]], below: list[list[Word]], unit: float) -> bool:
    """Or the three rows under the bold line fall into as many pieces as it (parted by more than
    a word space), and each of its pieces is centred over the pieces of the rows under it: a table's
    header row over its columns, as office suites centre header cells (party labels are set
    flush left over their blocks)."""
    if len(pieces) < 2 or len(below) < 3:
        return False
    cols = [_pieces(line, 0.5 * unit) for line in below]  # (a cell's padding: more than a word space)
    if any(len(c) != len(pieces) for c in cols):
        return False
    for k, p in enumerate(pieces):
        left, right = min(c[k][0].x1 for c in cols), max(c[k][-1].x2 for c in cols)
        if abs((left + right) / 2 - (p[0].x1 + p[-1].x2) / 2) > 0.4 * unit:
            return False
    return True


def _centred_spans(pieces: list[list[Word]], below: list[list[Word]], unit: float) -> bool:
    """Or, where cells wrap or sit apart in height (the rows under it not each in as many
    pieces), the lines under it (six) fall into as many columns as it has pieces, apart by more
    than a word space where no word of them runs, each in two lines at least, and each piece is
    centred over its column."""
    spans: list[list[float]] = []  # [left, right, lines]
    for x1, x2, n in sorted((w.x1, w.x2, k) for k, line in enumerate(below) for w in line):
        if spans and x1 - spans[-1][1] <= 0.5 * unit:
            spans[-1][1] = max(spans[-1][1], x2)
            spans[-1][2].add(n)  # type: ignore[union-attr]
        else:
            spans.append([x1, x2, {n}])  # type: ignore[list-item]
    if len(spans) != len(pieces):
        return False
    # (centred over the cell, which is wider than the text it holds: a margin for that)
    return all(len(n) >= 2 and abs((a + b) / 2 - (p[0].x1 + p[-1].x2) / 2) <= 0.4 * unit + 0.05 * (b - a)
               for (a, b, n), p in zip(spans, pieces, strict=True))


def _pieces(line: list[Word], gap: float) -> list[list[Word]]:
    """A line's words parted where they are more than ``gap`` apart."""
    out: list[list[Word]] = [[line[0]]]
    for w in line[1:]:
        if w.x1 - out[-1][-1].x2 > gap:
            out.append([w])
        else:
            out[-1].append(w)
    return out


def _hung(line: list[Word], below: list[list[Word]], unit: float) -> bool:
    """Do the three lines under ``line`` start where a word of it starts, a cell's padding
    after the word before it, with nothing left of that (a row's last cell wraps under itself,
    or more cells stack under it, the first column empty there), the first line at least, the
    others there or where ``line`` starts with a word where the first one starts (the next row)?"""
    x = below[0][0].x1

    def at(w: Word, where: float) -> bool:
        return abs(w.x1 - where) <= 1
    return all(at(ln[0], x) or at(ln[0], line[0].x1) and any(at(w, x) for w in ln) for ln in below) and \
        any(at(b, x) and b.x1 - a.x2 > 0.5 * unit for a, b in zip(line, line[1:]))


def _first_row(line: list[Word], pieces: list[list[Word]], below: list[list[Word]], unit: float) -> bool:
    """Or the margin is one line of two pieces or more, each starting where a word of each of
    the three lines under it starts, or whose last cell the three lines hang under (``_hung``),
    set off from them as they are from each other: a table's first row, the cells' padding
    around it (a running head's page number lines up with no word of the text under it)."""
    if len(below) < 3:
        return False
    if not _hung(line, below, unit) and (len(pieces) < 2 or not all(
            any(abs(w.x1 - p[0].x1) <= 1 for w in ln) for p in pieces for ln in below)):
        return False
    gaps = [min(w.y1 for w in b) - max(w.y2 for w in a) for a, b in zip([line, *below], below)]
    return gaps[0] <= 1.5 * max(gaps[1:]) + 0.5
