"""Bands of the XY-cut (``xycut``): the horizontal slices a region is cut into when it has no
gutter, joined again where they belong to one table or one set of columns.

A short band may be too low to show a gutter on its own, so adjacent bands whose union has one
are merged (``merge_bands``); a table whose rows its padding sets apart leaves each row a band,
joined again when the rows make a table (``spaced_rows``); a paragraph set with no gap under a
table's last row is parted from it (``prose_under``); a bold header row that hides its
columns' gutter is given to them (``header_columns``), and a header cell centred right of its
column's narrow cells joins that column (``centred_headers``).

A mixin of the cutter: the rules need its line height (``self.unit``), its band gap and its
column tests (``columns``, ``has_gutter``, ``tabular``, ``labelled``, ``headed``,
``narrow_table``).
"""

from __future__ import annotations

import re
from typing import Any

from pipelines.stages.geometry import Word
from pipelines.stages.gutters import whole_lines
from pipelines.stages.lines_of_words import list_marker, row_lines
from pipelines.stages.reading_order import proven_columns

FIG_CAPTION = re.compile(r"^(Figure|FIGURE|Fig\.|Chart|Image|Photo|Exhibit)\s*\d+(?:[.:\s]|$)")
TABLE_CAPTION = re.compile(r"^(Table|TABLE)\s*\d+(?:[.:\s]|$)")
_CAPTION_WORDS = ("Figure", "FIGURE", "Fig.", "Chart", "Image", "Photo", "Exhibit", "Table", "TABLE")  # how those start
_SECTION = re.compile(r"^\(?\d{1,3}(\.\d{1,3})+[.)]$")  # 2.5.3. heads a numbered heading

Item = Any  # a word, or a fixed region of the cutter's


class BandRules:
    unit: float
    band_gap: float

    def header_columns(self, items: list[Item]) -> list[list[Item]] | None:
        """The columns under a bold header row that hides their gutter (a header cell centred
        over a narrow column runs into it): each header word joins the column under its centre,
        when it stays clear of the next column, every column gets one, and the header's words
        part at each gutter by more than a word space (a bold title's words make no header)."""
        if len(items) < 6 or any(not isinstance(i, Word) for i in items) or not any(w.bold for w in items):
            return None
        if all(w.line < 0 for w in items) and not min(items, key=lambda w: (w.y1 + w.y2, w.x1)).bold:
            return None  # (the text layer's first word, which starts the first line, is plain: the lines cost more)
        lines = row_lines(items)  # type: ignore[arg-type]
        n = 2 if len(lines) > 3 and all(w.bold for w in lines[1]) else 1  # (a header row of two lines)
        head = [w for line in lines[:n] for w in line]
        if len(lines) < 3 or len(head) > 8 or not all(w.bold for w in head):
            return None
        rest = [i for line in lines[n:] for i in line]
        cols = whole_lines(self.split_x(rest, self.x_gap(rest)))
        if len(cols) < 2:
            return None
        starts = [min(i.x1 for i in c) for c in cols[1:]]
        out = [list(c) for c in cols]
        where: dict[int, int] = {}
        for w in head:
            k = where[id(w)] = sum(1 for s in starts if (w.x1 + w.x2) / 2 >= s)
            if k < len(starts) and w.x2 > starts[k]:
                return None
            out[k].append(w)
        for line in lines[:n]:  # (each line's words part at a gutter by more than a word space)
            if any(where[id(b)] != where[id(a)] and b.x1 - a.x2 < self.unit for a, b in zip(line, line[1:])):
                return None
        return out if len(set(where.values())) == len(cols) else None

    def centred_headers(self, cols: list[list[Item]]) -> list[list[Item]]:
        """Columns that hold nothing but bold words of the band's top line, each right of a column
        with nothing on that line and cells under it, joined to that column: HTML centres a
        header cell over its column, and cells narrower than it, set from the column's left edge,
        leave it standing apart on their right (LibreOffice's prints of short values)."""
        if len(cols) < 3 or any(not isinstance(i, Word) for c in cols for i in c):
            return cols
        top = min(i.y1 for c in cols for i in c)
        first = min((i for c in cols for i in c if i.y1 < top + 0.5 * self.unit), key=lambda w: w.y2).y2

        def on_top(w: Word) -> bool:
            return w.y1 < first - 0.25 * self.unit
        out = [cols[0]]
        for col in cols[1:]:
            left = out[-1]
            if all(on_top(w) and w.bold for w in col) and not any(on_top(w) for w in left) \
                    and len(left) >= 2 and min(w.x1 for w in col) > min(w.x1 for w in left):
                out[-1] = left + col
            else:
                out.append(col)
        return out

    def merge_bands(self, bands: list[list[Item]]) -> list[list[Item]]:
        merged = [bands[0]]
        k = 1
        while k < len(bands):
            band, prev = bands[k], merged[-1]
            # the union is judged: a short band may be too low to show the gutter on its own.
            # A single line without a gutter (a caption, a heading over a table) stays apart,
            # unless columns go on below it with the same gutter: it is then a line of one
            # column (a heading inside a column, a line set apart by tight leading)
            if self.joinable(prev) and self.joinable(band) and self.has_gutter(prev + band):
                merged[-1] = prev + band
            elif (k + 1 < len(bands) and not is_caption(band) and self.joinable(prev)
                  and self.joinable(bands[k + 1]) and self.has_gutter(prev) and self.has_gutter(bands[k + 1])
                  and self.has_gutter(prev + band + bands[k + 1])):
                merged[-1] = prev + band + bands[k + 1]
                k += 1
            elif (not is_caption(band) and self.has_gutter(prev + band)
                  and proven_columns(self.columns(prev), self.unit)):
                merged[-1] = prev + band  # goes on in one column of the text columns above
            elif (split := self.prose_under(prev, band)) is not None:
                merged[-1] = prev + split[0]  # the columns' last lines, then a paragraph set tight under them
                merged.append(split[1])
            else:
                merged.append(band)
            k += 1
        return merged

    def prose_under(self, prev: list[Item], band: list[Item]) -> tuple[list[Item], list[Item]] | None:
        """``band`` parted where a line of running text (five words or more, a word space apart)
        runs across the gutters of the table above it, over most of its width: the lines before,
        with cells in two columns at least, go on in the table's columns (its last row), the rest
        is a paragraph set tight under it."""
        if any(not isinstance(i, Word) for i in prev + band) or len(row_lines(prev)) < 3:  # type: ignore[arg-type]
            return None  # (a running head's gutter is no column's)
        n = len(self.columns(prev))
        if n < 2:
            return None
        lines = row_lines(band)  # type: ignore[arg-type]
        for j in range(1, len(lines)):
            top, line = [w for ln in lines[:j] for w in ln], lines[j]
            cols = self.columns(prev + top)
            if len(cols) != n or not (self.tabular(cols) or self.labelled(cols) or self.headed(cols)):
                return None
            where = column_of(cols)
            if len({where[id(w)] for w in top}) < 2:
                continue  # (a row has cells in two columns at least: a heading's line is no row)
            if line[0].x1 < max(i.x2 for i in cols[0]) and line[-1].x2 > min(i.x1 for i in cols[-1]) \
                    and running_line(line, max(i.x2 for i in prev) - min(i.x1 for i in prev), self.unit):
                return top, [w for ln in lines[j:] for w in ln]
        return None

    def spaced_rows(self, bands: list[list[Item]]) -> list[list[Item]]:
        """Runs of bands of a line or two each (or already a table) that together make a
        whitespace table, joined: a table whose rows are set apart by more than a line's gap
        (cells with padding) leaves every row a band of its own, too low to show its gutters."""
        out: list[list[Item]] = []
        k = 0
        while k < len(bands):
            end = k
            while end < len(bands) and self._row_band(bands[end]):
                end += 1
            # (the run may end in a line or two of text under the table: up to three left off)
            stop = next((e for e in range(end, max(k + 2, end - 3) - 1, -1) if self._joins(bands[k:e])),
                        None) if end - k >= 2 else None
            if stop is not None:
                out.append([i for band in bands[k:stop] for i in band])
                k = stop
                continue
            out.append(bands[k])
            k += 1
        return out

    def _joins(self, bands: list[list[Item]]) -> bool:
        """Do the bands make one table: three or more, or two whose lines are evenly spaced
        rows (a header over them), or a table and a row whose cells start where its columns do
        (under it or over it),
        or a bold header row and a row over another (``_bold_head``);
        a band that is already a table keeps its columns (rows of one line each above a slip's
        labels and amounts are no rows of theirs)?"""
        items = [i for band in bands for i in band]
        cols = self.columns(items)
        n = len(cols) if len(cols) > 1 else len(self.narrow_table(items) or cols)
        if any(len(row_lines(b)) > 3 and len(self.columns(b)) != n for b in bands):  # type: ignore[arg-type]
            return False
        return self._table_of(bands) and (len(bands) >= 3 or self.paired_lines(cols) or self._fits(bands, cols)
                                          or _bold_head(bands))

    def _fits(self, bands: list[list[Item]], cols: list[list[Item]]) -> bool:
        """Two bands, one a table of three lines or more, the other a row whose words each start
        a column's cells or follow the word before by a word space: a last row under the table,
        or a plain header row over it (rows set apart by their padding leave each a band)."""
        if len(bands) != 2 or len(cols) < 2:
            return False
        table, row = bands if len(row_lines(bands[0])) >= 3 else bands[::-1]  # type: ignore[arg-type]
        if len(row_lines(table)) < 3:  # type: ignore[arg-type]
            return False
        starts = [min(i.x1 for i in col) for col in cols]
        for line in row_lines(row):  # type: ignore[arg-type]
            firsts = [line[0], *(b for a, b in zip(line, line[1:]) if b.x1 - a.x2 >= 0.5 * self.unit)]
            if len(firsts) < 2 or not all(any(abs(w.x1 - x) <= 1.0 for x in starts) for w in firsts):
                return False
        return True

    def _row_band(self, band: list[Item]) -> bool:
        """A row's band: up to three lines (a wrapped cell, a label centred on it), or rows already
        joined as a table; not a list item or a numbered heading (``•``, ``2.5.3.``): lists."""
        return self.kept(self._is_row_band, band)

    def _is_row_band(self, band: list[Item]) -> bool:
        if not all(isinstance(i, Word) for i in band) or is_caption(band):
            return False
        lines = row_lines(band)  # type: ignore[arg-type]
        first = lines[0][0].text.split()[0]
        return not (list_marker(first) or _SECTION.match(first)) and (len(lines) <= 3 or self._table_of([band]))

    def _table_of(self, bands: list[list[Item]]) -> bool:
        """Do the bands make one table, each of them with cells in two of its columns or more?"""
        items = [i for band in bands for i in band]
        cols = self.columns(items)
        if len(cols) == 1:
            cols = self.narrow_table(items) or cols
        elif not (self.tabular(cols) or self.labelled(cols) or self.headed(cols) or self.paired_lines(cols)):
            return False
        # (a column of one repeated sign, ``=`` down ``key = value`` lines, is code, not a table)
        if len(cols) == 1 or any(len({w.text for w in col if isinstance(w, Word)}) == 1 for col in cols):
            return False
        where = column_of(cols)
        return all(len({where[id(i)] for i in band}) >= 2 for band in bands)

    def paired_lines(self, cols: list[list[Item]]) -> bool:
        """Parts of four short lines or more (eight words at most), each line with words in every
        part, the cells of each part starting (or ending) together, the lines set apart by more
        than a paragraph's leading, evenly: a table whose rows its padding sets apart. A bold
        header row may sit apart from the cells' edges (centred lines line up nowhere)."""
        if len(cols) < 2 or any(not isinstance(i, Word) for c in cols for i in c):
            return False
        where = column_of(cols)
        lines = row_lines([i for col in cols for i in col])  # type: ignore[misc]
        if len(lines) < 4 or any(len(line) > 8 or len({where[id(w)] for w in line}) != len(cols) for line in lines):
            return False
        gaps = [min(w.y1 for w in b) - max(w.y2 for w in a) for a, b in zip(lines, lines[1:])]
        body = lines[1:] if all(w.bold for w in lines[0]) else lines
        for k in range(len(cols)):
            cells = [[w for w in line if where[id(w)] == k] for line in body]
            if all(max(v) - min(v) > 0.3 * self.unit for v in ([c[0].x1 for c in cells], [c[-1].x2 for c in cells])):
                return False
        return min(gaps) > self.band_gap and max(gaps) <= 1.25 * min(gaps)  # (the same padding on every row)

    def joinable(self, band: list[Item]) -> bool:
        return self.kept(self._joinable, band)

    def _joinable(self, band: list[Item]) -> bool:
        if is_caption(band):
            return False
        tall = (max(i.y2 for i in band) - min(i.y1 for i in band)) > 1.6 * self.unit
        return tall or self.has_gutter(band)


def _bold_head(bands: list[list[Item]]) -> bool:
    """Three rows or more whose first is all bold and the rest not (a header over its rows)."""
    lines = row_lines([i for band in bands for i in band if isinstance(i, Word)])
    return len(lines) >= 3 and all(w.bold for w in lines[0]) and not any(w.bold for ln in lines[1:] for w in ln)


def column_of(cols: list[list[Item]]) -> dict[int, int]:
    """Each item's part: the index of its column, by the item's id."""
    return {id(i): k for k, col in enumerate(cols) for i in col}


def running_line(line: list[Word], width: float, unit: float) -> bool:
    """A line of running text: five words or more, each a word space from the next (no gutter),
    across most of ``width``."""
    return len(line) >= 5 and line[-1].x2 - line[0].x1 >= 0.6 * width and \
        all(b.x1 - a.x2 < unit for a, b in zip(line, line[1:]))


def is_caption(items: list[Item]) -> bool:
    words = [i for i in items if isinstance(i, Word)]
    if not any(w.text.startswith(_CAPTION_WORDS) for w in words):
        return False  # (no word could start one: the lines are not grouped)
    # (the first line's first words: sorting by top alone shuffles a line whose glyphs' tops
    # differ by a tenth of a point, ``8.1: Codec Table``)
    lines = row_lines(words)
    head = " ".join(w.text for w in lines[0][:3]) if lines else ""
    return bool(FIG_CAPTION.match(head) or TABLE_CAPTION.match(head))
