"""Label/value lists without rules, for the XY-cut (``xycut``): a column of short labels beside
their values, read as a two-column table (``labelled``), or, where the values run to paragraphs,
cut above each label so each is read before its value (``label_bands``), unless each value is
a stack of lines set apart as rows are (``stacked``); a slip's labels and
amounts (``valued``); a column of labels ending in colons beside a block (``label_column``); a
strip of values down the right edge, each the last cell of a row beside it, read in those rows
(``values_across``).

A mixin of the cutter: the rules need its line height (``self.unit``) and ``split_y``.
"""

from __future__ import annotations

import statistics
from typing import Any

from pipelines.stages.geometry import Word
from pipelines.stages.gutters import fixed_width, flush_right
from pipelines.stages.lines_of_words import row_lines, staggered


class LabelRules:
    unit: float

    def label_column(self, cols: list[list[Any]]) -> int | None:
        """The index (not the first) of a column of labels that end in a colon (``Fee Note No:``,
        ``Date:``, ``Our Ref:``): it and the values right of it are one label/value list, and the
        columns left of it (an address beside the list) are no part of a table with it."""
        for k, col in enumerate(cols[1:], 1):
            words = [w for w in col if isinstance(w, Word)]
            lines = row_lines(words)
            if len(lines) >= 2 and len(words) == len(col) and \
                    sum(line[-1].text.endswith(":") for line in lines) >= 0.6 * len(lines):
                return k
        return None

    def labelled(self, cols: list[list[Any]]) -> bool:
        """Two parts, the left one a narrow column of short labels, each on the line of a short
        value to its right: a borderless label/value list (a definition list, a form printed
        without rules). It is read as a two-column table, so each label stays with its value."""
        if len(cols) != 2 or any(not isinstance(i, Word) for c in cols for i in c):
            return False
        left, right = (row_lines([w for w in c if isinstance(w, Word)]) for c in cols)
        # values that run to paragraphs: label_bands reads them instead; labels set flush right
        # beside values wrapped in a narrow column (struct members) are a table's, not a margin's
        # notes beside a page's paragraphs
        narrow = flush_right(left) and len(right) <= 3 * len(left) and _width(right) <= 3 * _width(left)
        if len(left) < 2 or not len(left) <= 1.25 * len(right) or len(right) > 1.5 * len(left) and not narrow:
            return False
        # (the labels' width: most of them when there are many, all words: one long type name
        # among short ones is no column of text)
        wide = _width(left)
        if len(left) >= 8 and sum(any(ch.isalpha() for w in line for ch in w.text) for line in left) >= 0.8 * len(left):
            wide = statistics.median(line[-1].x2 - line[0].x1 for line in left)
        if wide > 0.6 * _width(right) or statistics.median(len(line) for line in left) > 3 or \
                _repeated(left, right) and not flush_right(left):
            return False
        ys = [statistics.fmean(w.cy for w in line) for line in right]
        ls = [statistics.fmean(w.cy for w in line) for line in left]
        # (a label in the middle of its value's two lines, as a browser centres a cell, pairs;
        # so do a label's two lines with a value in the middle of them)
        mids = [(a + b) / 2 for a, b in zip(ys, ys[1:]) if b - a < 2.2 * self.unit]
        paired = {k for k, y in enumerate(ls) if any(abs(y - v) < d * self.unit
                                                     for vs, d in ((ys, 0.4), (mids, 0.25)) for v in vs)}
        paired |= {j for k in range(len(ls) - 1) if ls[k + 1] - ls[k] < 2.2 * self.unit
                   and any(abs((ls[k] + ls[k + 1]) / 2 - v) < 0.25 * self.unit for v in ys) for j in (k, k + 1)}
        # (a long list of labels ending in colons may leave one or two without a value: a
        # parameter nobody described)
        return len(paired) == len(left) or len(left) >= 8 and 0 in paired and \
            len(left) - len(paired) <= len(left) // 8 and all(line[-1].text.endswith(":") for line in left)

    def stacked(self, cols: list[list[Any]]) -> bool:
        """Two parts, the left one short labels, each on the first line of a stack of lines to its
        right set apart as rows are (one and a half lines or more from line to line; a line
        that wraps runs on closer): a parameter table as gtk-doc prints it, a name beside its
        type, its description and its notes, each a row of its own. A definition's paragraph
        is set at its leading: ``label_bands`` reads it."""
        if len(cols) != 2 or any(not isinstance(i, Word) for c in cols for i in c):
            return False
        left, right = (row_lines([w for w in c if isinstance(w, Word)]) for c in cols)
        if len(left) < 2 or len(right) < 2 * len(left) or max(len(line) for line in left) > 3 \
                or _width(left) > 0.8 * _width(right):
            return False
        tops = [statistics.fmean(w.cy for w in line) for line in right]
        starts = [k for k in range(len(right)) if k == 0 or tops[k] - tops[k - 1] >= 1.5 * self.unit]
        wraps = [k for k in range(1, len(right)) if tops[k] - tops[k - 1] < 1.25 * self.unit]
        if len(starts) + len(wraps) != len(right) or len(wraps) > 0.25 * len(right):
            return False  # (lines at a paragraph's leading, or between the two: no rows)
        return all(any(abs(statistics.fmean(w.cy for w in line) - tops[k]) < 0.4 * self.unit for k in starts)
                   for line in left)

    def headed(self, cols: list[list[Any]]) -> bool:
        """Two parts under a header row set in bold (``Column Name | Contents``), the left one
        short labels, the right one values that may run to paragraphs: a table of definitions,
        read as a table. Without the bold header above both parts it is a definition list, which
        ``label_bands`` reads as text. A header cell may wrap where the other does not (an office
        suite centres the shorter one on the row: ``Support`` / ``type`` beside ``Versions``)."""
        if len(cols) != 2 or any(not isinstance(i, Word) for c in cols for i in c):
            return False
        left, right = (row_lines([w for w in c if isinstance(w, Word)]) for c in cols)
        if len(left) < 3 or len(right) < 2:
            return False
        hl, hr = _bold_lead(left), _bold_lead(right)
        if not hl or not hr or min(w.y1 for line in (*left[:hl], *right[:hr]) for w in line) > \
                min(w.y1 for c in cols for w in c) + 0.5:
            return False
        # (the header's cells on one row: centred on each other, or the shorter inside the other)
        top, bottom = _span(left[:hl]), _span(right[:hr])
        if hl == hr and any(abs(a[0].cy - b[0].cy) > 0.4 * self.unit for a, b in zip(left[:hl], right[:hr])) \
                or hl != hr and not (top[0] <= statistics.fmean(bottom) <= top[1] or bottom[0] <= statistics.fmean(top) <= bottom[1]):
            return False
        body, values = left[hl:], right[hr:]
        if not body or not values or any(all(w.bold for w in line) for line in values) or \
                sum(all(w.bold for w in line) for line in body) > 0.5 * len(body):
            return False  # (bold labels down a list, or bold paragraphs: no header row)
        rows = self._rows_of(left, right)
        # (a header cell ending in a colon labels a block: two address blocks under ``Bill To:``)
        blocks = not any(line[-1].text.endswith(":") for line in (left[hl - 1], right[hr - 1])) \
            and self._blocks_paired(body, values) is not None
        if len(values) < len(body) and not (rows or blocks or self._side_by_side(left, right)):
            return False
        short = statistics.median(len(line) for line in body) <= 3
        # (labels as wide as their values or wider, when they are names that start rows: long
        # names beside descriptions wrapped in a narrow column; a name may wrap too)
        mates = sum(self._mates([line], values) is not None for line in body)
        named = all(len(line) == 1 for line in body) and self._mates(body[:1], values) is not None \
            and mates >= 2 / 3 * len(body)
        return short and (_width(left) <= 0.6 * _width(right) or named or blocks or self._side_by_side(left, right)) or rows

    def row_bands(self, cols: list[list[Any]]) -> list[tuple[float, float]] | None:
        """The heights (top, bottom) of the header and of each row of a ``headed`` table whose
        rows ``_blocks_paired`` found, or of each row of a ``centred`` one, for the table reader
        to keep each row's lines together (rows apart by little more than the lines of a cell);
        None for other tables."""
        if len(cols) != 2:
            return None
        left, right = (row_lines([w for w in c if isinstance(w, Word)]) for c in cols)
        if not self.headed(cols):
            return self._blocks_paired(left, right) if self.centred(cols) else None
        hl, hr = _bold_lead(left), _bold_lead(right)
        bands = self._blocks_paired(left[hl:], right[hr:])
        return [_span([*left[:hl], *right[:hr]]), *bands] if bands else None

    def _blocks_paired(self, left: list[list[Word]], right: list[list[Word]]) -> list[tuple[float, float]] | None:
        """Do both parts' lines fall into blocks (a cell's lines, set at the parts' line pitch)
        that pair off one to one, each left block's height overlapping its right block's and no
        other's? Rows of cells of several lines, each centred on its row (two rows at least).
        The rows' heights, or None."""
        found = self._cells(left, right)
        if found is None:
            return None
        sides, own = found
        return self._overlapping(sides) or next(
            (bands for k, rows in enumerate(sides) if (bands := self._centred_on(rows, (left, right)[1 - k], own))),
            None)

    def _cells(self, left: list[list[Word]], right: list[list[Word]]) -> tuple[list[list[list[Word]]], float] | None:
        """Both parts' lines in blocks, a cell's lines each (set at the parts' closest line
        pitch), and that pitch; None when no part has a block of two lines."""
        ys = [[statistics.fmean(w.cy for w in line) for line in side] for side in (left, right)]
        own = [b - a for side in ys for a, b in zip(side, side[1:]) if b - a > 0.5 * self.unit]
        if not own:
            return None
        pitch = 1.35 * min(own)  # (the closest lines of either part: two lines of one cell)
        sides = [_blocks(side, pitch) for side in (left, right)]
        if all(len(b) == 1 for side in sides for b in side):
            return None
        return sides, min(own)

    def centred(self, cols: list[list[Any]]) -> bool:
        """Two parts of three rows or more whose cells pair off one to one (``_overlapping``),
        each left cell, short names, centred on the right one within 0.4 of a line's height, and
        two right cells of two lines or more: a table whose cells a browser or an office suite
        centres on their rows (gtk-doc's enum values beside descriptions wrapped in a column
        narrower than they are). A term beside its paragraph sits on the paragraph's first line."""
        if len(cols) != 2 or any(not isinstance(i, Word) for c in cols for i in c):
            return False
        left, right = (row_lines([w for w in c if isinstance(w, Word)]) for c in cols)
        found = self._cells(left, right) if len(left) >= 3 and max(len(line) for line in left) <= 3 else None
        if found is None or len(found[0][0]) < 3 or self._overlapping(found[0]) is None:
            return False
        names, cells = found[0]
        worded = all(any(ch.isalnum() for line in c for w in line for ch in w.text) for c in cells)  # (not colons)
        return worded and sum(len(c) >= 2 for c in cells) >= 2 and all(
            abs(sum(_span(a)) / 2 - sum(_span(b)) / 2) < 0.4 * self.unit for a, b in zip(names, cells, strict=True))

    @staticmethod
    def _overlapping(sides: list[list[list[list[Word]]]]) -> list[tuple[float, float]] | None:
        if len(sides[0]) != len(sides[1]) or len(sides[0]) < 2:
            return None
        spans = [[_span(b) for b in side] for side in sides]
        for k, (a, b) in enumerate(zip(*spans, strict=True)):
            if min(a[1], b[1]) <= max(a[0], b[0]):
                return None
            if any(min(a[1], o[1]) > max(a[0], o[0]) for j, o in enumerate(spans[1]) if j != k):
                return None
        return [(min(a[0], b[0]), max(a[1], b[1])) for a, b in zip(*spans, strict=True)]

    @staticmethod
    def _centred_on(rows: list[list[list[Word]]], others: list[list[Word]], pitch: float) -> list[tuple[float, float]] | None:
        """Or one part's blocks are the rows, the other part's lines set so close that its
        rows do not part by the pitch: each line taken by the row nearest it, every row takes
        some, and their middle is the row's within half a line pitch (three rows at least)."""
        if len(rows) < 3:
            return None
        mids = [(statistics.fmean(w.cy for w in b[0]) + statistics.fmean(w.cy for w in b[-1])) / 2 for b in rows]
        taken: list[list[list[Word]]] = [[] for _ in rows]
        for line in others:
            y = statistics.fmean(w.cy for w in line)
            taken[min(range(len(mids)), key=lambda k: abs(mids[k] - y))].append(line)
        if not all(t and abs((statistics.fmean(w.cy for w in t[0]) + statistics.fmean(w.cy for w in t[-1])) / 2 - m)
                   <= 0.5 * pitch for t, m in zip(taken, mids, strict=True)):
            return None
        return [_span([*b, *t]) for b, t in zip(rows, taken, strict=True)]

    def contrasted(self, cols: list[list[Any]]) -> bool:
        """Two parts of three lines or more, each line one short cell (three words at most) in
        each part, on one line, the cells of one part all bold and the other's all not: names
        beside values set in another weight (a property's flags, ``Readable  yes``). Two lists of
        names side by side share one weight."""
        if len(cols) != 2 or any(not isinstance(i, Word) for c in cols for i in c):
            return False
        left, right = (row_lines([w for w in c if isinstance(w, Word)]) for c in cols)
        if len(left) < 3 or len(left) != len(right) or max(len(line) for line in left + right) > 3 or \
                self._mates(left, right) is None:
            return False
        bold = [all(w.bold for w in line) for line in left], [all(w.bold for w in line) for line in right]
        plain = [not any(w.bold for w in line) for line in left], [not any(w.bold for w in line) for line in right]
        return all(bold[0]) and all(plain[1]) or all(plain[0]) and all(bold[1])

    def _rows_of(self, left: list[list[Word]], right: list[list[Word]]) -> bool:
        """One short value (three words at most, the values' column half as wide as the other at
        most) on the line of each of five rows or more, the rest of the left part's lines a row's
        wrapped text (``Entry | Convention``: paths beside ``W``): a two-column table."""
        if len(right) < 5 or max(len(line) for line in right) > 3 or len(left) - len(right) > 0.25 * len(right) \
                or _width(right) > 0.5 * _width(left):
            return False  # (two address blocks side by side under bold labels are no table)
        ls = [statistics.fmean(w.cy for w in line) for line in left]
        mates = set()
        for line in right:  # (a value set in the middle of a wrapped row's two lines pairs with it)
            y = statistics.fmean(w.cy for w in line)
            mate = next((k for k, v in enumerate(ls) if abs(v - y) < 0.4 * self.unit), None)
            if mate is None:
                mate = next((k for k in range(len(ls) - 1) if ls[k + 1] - ls[k] < 2.2 * self.unit
                             and abs((ls[k] + ls[k + 1]) / 2 - y) < 0.25 * self.unit), None)
            if mate is None or mate in mates:
                return False
            mates.add(mate)
        return True

    def valued(self, cols: list[list[Any]]) -> tuple[float, float] | None:
        """Two parts, the right one a column of short values (``25.23``, ``9HQJXVUFDR``), each on
        the line of a short label to its left, which has more lines (labels without a value, a
        heading above): a slip's labels and amounts. The span (top, bottom) of the labels with
        values, read as a two-column table so each amount stays with its label; None otherwise."""
        if len(cols) != 2 or any(not isinstance(i, Word) for c in cols for i in c):
            return None
        left, right = (row_lines([w for w in c if isinstance(w, Word)]) for c in cols)
        if len(right) < 2 or len(left) < len(right) or max(len(line) for line in right) > 2 \
                or statistics.median(len(line) for line in left) > 5:
            return None
        ends = [max(w.x2 for w in line) for line in right]  # amounts set flush right, most with figures
        if max(ends) - min(ends) > 1.5 * self.unit or \
                sum(any(ch.isdigit() for w in line for ch in w.text) for line in right) < 0.5 * len(right):
            return None
        mates = self._mates(right, left)
        if mates is None:
            return None
        both = [*right, *mates]
        top, bottom = min(w.y1 for ln in both for w in ln), max(w.y2 for ln in both for w in ln)
        inside = sum(1 for ln in left if top <= statistics.fmean(w.cy for w in ln) <= bottom)
        return (top, bottom) if inside <= 2 * len(right) else None  # most labels have their value

    def _mates(self, lines: list[list[Word]], others: list[list[Word]]) -> list[list[Word]] | None:
        """For each of ``lines`` the first of ``others`` on its line (centres within 0.4 of a
        line's height); None when one has none."""
        out = []
        for line in lines:
            cy = statistics.fmean(w.cy for w in line)
            mate = next((o for o in others if abs(d := statistics.fmean(w.cy for w in o) - cy) < 0.4 * self.unit
                         or abs(d) < 2 * self.unit and staggered(line, o)), None)
            if mate is None:
                return None
            out.append(mate)
        return out

    def _side_by_side(self, left: list[list[Word]], right: list[list[Word]]) -> bool:
        """Short cells on both sides under a header line, three in four of each side's lines on a
        line of the other side's: a table of two columns as wide as each other. Two columns of
        text share lines too, but not short; two address blocks under labels ending in colons
        (``Bill To:``) are no table."""
        return len(right) > 1 and statistics.median(len(line) for line in right[1:]) <= 6 and \
            not any(line[-1].text.endswith(":") for line in (left[0], right[0])) and \
            min(self._share(left[1:], right[1:]), self._share(right[1:], left[1:])) >= 0.75

    def _share(self, lines: list[list[Word]], others: list[list[Word]]) -> float:
        """The share of ``lines`` with one of ``others`` on their line (``_mates``)."""
        return sum(self._mates([line], others) is not None for line in lines) / max(1, len(lines))

    def _labels(self, cols: list[list[Any]]) -> list[tuple[float, float]] | None:
        """(centre, top) of each line of a narrow left column of short labels that each sit
        on a line of the part to their right; None when ``cols`` is not that."""
        if len(cols) != 2 or any(not isinstance(i, Word) for i in cols[0]):
            return None
        left = row_lines([w for w in cols[0] if isinstance(w, Word)])
        right = row_lines([w for w in cols[1] if isinstance(w, Word)])
        if not left or not right or statistics.median(len(line) for line in left) > 3:
            return None
        if _width(left) > 0.6 * (max(i.x2 for i in cols[1]) - min(i.x1 for i in cols[1])):
            return None
        mates = self._mates(left, right)
        if mates is None:
            return None
        return [(statistics.fmean(w.cy for w in line), min(min(w.y1 for w in line), min(w.y1 for w in mate)))
                for line, mate in zip(left, mates, strict=True)]

    def label_bands(self, cols: list[list[Any]]) -> list[list[Any]]:
        """Labels in a margin beside long values (a definition list whose values run to
        paragraphs, code, boxes): the region cut above each label, so each label is read just
        before its value and not all labels first."""
        labels = self._labels(cols)
        if not labels or len(labels) < 2 and labels[0][1] <= min(i.y1 for i in cols[1]) + 1:
            return []
        cuts = sorted(top for _, top in labels)
        bands: list[list[Any]] = [[] for _ in range(len(cuts) + 1)]
        for it in (*cols[0], *cols[1]):
            cy = (it.y1 + it.y2) / 2
            bands[sum(1 for c in cuts if cy >= c)].append(it)
        return [b for b in bands if b]


    def values_across(self, items: list[Any], cols: list[list[Any]]) -> list[list[Any]] | None:
        """A narrow strip of short values down the right edge (dates beside their labels, an
        item's amount, the total under it), each on a line of the part to its left, spread over
        three or more of the bands the whole region breaks into: the last cells of those rows,
        not a column of their own. The region's bands then, each read on its own (the strip's
        whitespace runs down the page only because nothing else reaches that far right)."""
        if len(cols) < 2 or any(not isinstance(i, Word) for i in cols[-1]):
            return None
        left = row_lines([w for col in cols[:-1] for w in col if isinstance(w, Word)])
        right = row_lines(cols[-1])  # type: ignore[arg-type]
        width = max(i.x2 for i in items) - min(i.x1 for i in items)
        if not right or _width(right) > 0.25 * width or max(len(line) for line in right) > 4 \
                or sum(1 for line in right if not any(ch.isdigit() for w in line for ch in w.text)) > 1:
            return None  # (values: figures, under one head at most)
        if self._mates(right, left) is None:
            return None
        bands = self.split_y(items)
        mine = {id(w) for w in cols[-1]}
        held = sum(1 for band in bands if any(id(i) in mine for i in band))
        return bands if held >= 3 else None


def _repeated(left: list[list[Word]], right: list[list[Word]]) -> bool:
    """Labels that name few different things, half as many as lines: ``int`` down the lines of
    code set in a fixed-width font, bullets down a list. Words in a proportional font (``void``
    and ``gboolean`` before function names, ``enum`` before every type's), are labels."""
    names = {" ".join(w.text for w in line) for line in left}
    if len(names) >= 0.5 * len(left):
        return False
    return not all(any(ch.isalpha() for ch in n) for n in names) or fixed_width(left + right)


def _bold_lead(lines: list[list[Word]]) -> int:
    """How many of the first lines (three at most) are set all in bold: a header cell's."""
    return next((k for k, line in enumerate(lines[:3]) if not all(w.bold for w in line)), min(3, len(lines)))


def _span(lines: list[list[Word]]) -> tuple[float, float]:
    return min(w.y1 for line in lines for w in line), max(w.y2 for line in lines for w in line)


def _blocks(lines: list[list[Word]], pitch: float) -> list[list[list[Word]]]:
    """The lines in blocks: a line farther than ``pitch`` below the one above starts a block."""
    out: list[list[list[Word]]] = []
    for line in lines:
        if out and statistics.fmean(w.cy for w in line) - statistics.fmean(w.cy for w in out[-1][-1]) <= pitch:
            out[-1].append(line)
        else:
            out.append([line])
    return out


def _width(lines: list[list[Word]]) -> float:
    """How wide a part's lines run, from the leftmost start to the rightmost end."""
    return max(w.x2 for line in lines for w in line) - min(w.x1 for line in lines for w in line)
