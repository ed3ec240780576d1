"""Tables: find them, read their cells, render them, merge the ones split across pages.

* Ruled tables are found from the page's ruling lines (``table_regions``) and read by
  ``grid.rule_grid`` from those rules and the words between them.
* Whitespace tables are found by the XY-cut (three or more aligned narrow columns, or a narrow
  column of labels beside their values, see ``xycut``) and read from the cut's own columns
  (``grid_from_columns``), else from the word gaps (``grid.whitespace_grid``), for digital and
  OCR'd pages alike.
* A reader whose cells miss a word of the region is not used; when none holds every word, the
  region is read as text (``read_region``).
* Every table fragment carries ``content`` (HTML or Markdown per ``table_output_mode``),
  ``html`` (with ``rowspan``/``colspan``), ``markdown`` and ``cells``: each cell once, with its
  row, column, spans and bounding box (``table_cells``; ``table_cell_grounding``).
* ``merge_tables``: a table that ends a page and one that starts the next page with the same
  number of columns are one table; the repeated header row is dropped (wire ``merged_tables``).
"""

from __future__ import annotations

import bisect
import statistics
from typing import Any

from pipelines.core.models import Fragment
from pipelines.stages import grid, row_bands, table_cells
from pipelines.stages.geometry import Box, Word, inside, union
from pipelines.stages.lines_of_words import group_lines, staggered
from pipelines.stages.text import render_html_table, render_markdown_table, table_fragment

Cell = tuple[str, Box | None]

# ---------------------------------------------------------------- reading tables


def grid_from_columns(columns: list[list[Word]], unit: float) -> list[list[Cell]]:
    """Rows × columns from the XY-cut's columns: rows are clusters of line centres, and a row
    joins the one above when a cell of it is set apart in height from a cell there
    (``staggered``), as a cell centred on its row is, so long as one column at most then has
    several lines in it (two tables side by side, set at different pitches, make no one row)."""
    lines = sorted(((statistics.fmean(w.cy for w in line), k, line) for k, col in enumerate(columns)
                    for line in group_lines(col)), key=lambda t: t[0])
    clusters: list[list[tuple[float, int, list[Word]]]] = []
    for t in lines:
        if clusters and t[0] - clusters[-1][-1][0] < 0.6 * unit:
            clusters[-1].append(t)
        else:
            clusters.append([t])
    rows: list[list[tuple[float, int, list[Word]]]] = []
    for cl in clusters:
        if rows:
            both = rows[-1] + cl
            tall = sum(1 for k in {c for _, c, _ in both} if sum(1 for _, c, _ in both if c == k) > 1)
            if tall <= 1 and any(staggered(a, b) for _, _, a in rows[-1] for _, _, b in cl):
                rows[-1] = both
                continue
        rows.append(cl)
    ys = [statistics.fmean(y for y, _, _ in r) for r in rows]
    grid: list[list[list[Word]]] = [[[] for _ in columns] for _ in ys]
    for c, col in enumerate(columns):
        for w in col:
            k = bisect.bisect_left(ys, w.cy)  # the nearest row centre (ys is sorted)
            r = min((j for j in (k - 1, k) if 0 <= j < len(ys)), key=lambda j: abs(ys[j] - w.cy))
            grid[r][c].append(w)
    out: list[list[Cell]] = []
    for row in grid:
        cells: list[Cell] = []
        for ws in row:
            box = union([(w.x1, w.y1, w.x2, w.y2) for w in ws]) if ws else None
            # a cell keeps its lines (grouped by overlap: a taller ``f`` moves a word's centre)
            cells.append(("\n".join(" ".join(w.text for w in ln) for ln in group_lines(ws)), box))
        out.append(cells)
    return out


# ---------------------------------------------------------------- fragments


def fragment(rows: list[list[Cell]], mode: str, scale: float = 1.0) -> Fragment:
    """A table fragment in the wire shape: ``cells`` lists every cell once with its spans and
    box (scaled to page units), and the HTML carries the spans (``table_cells``)."""
    kept = [r for r in rows if any(t.strip() for t, _ in r)]
    width = max((len(r) for r in kept), default=0)
    kept = [list(r) + [("", None)] * (width - len(r)) for r in kept]
    spans = table_cells.declared_spans(kept)
    if not spans:
        kept, spans = table_cells.col_spans(kept)
        width = len(kept[0]) if kept else 0
    frag = table_fragment([[t for t, _ in r] for r in kept] or [[t for t, _ in r] for r in rows], mode)
    frag.content["cells"] = table_cells.cell_list(kept, spans, scale)
    if spans:
        html = table_cells.render_html([[t for t, _ in r] for r in kept], spans)
        frag.content["html"] = html
        if mode != "markdown":
            frag.content["content"] = html
    frag.content["rows"] = len(kept)
    frag.content["columns"] = width
    return frag


def table_rows(frag: Fragment) -> list[list[str]]:
    """The table as rows of texts, a spanning cell's text in its first slot."""
    n, m = int(frag.content.get("rows", 0)), int(frag.content.get("columns", 0))
    cells = frag.content.get("cells", [])
    if not m:
        return []
    if cells and all("row" in c and "column" in c for c in cells):
        out = [[""] * m for _ in range(n)]
        for c in cells:
            if c["row"] < n and c["column"] < m:
                out[c["row"]][c["column"]] = c["text"]
        return out
    texts = [c["text"] for c in cells]
    return [texts[i * m:(i + 1) * m] for i in range(n)]


# ---------------------------------------------------------------- merging across pages

_HEADERS = ("page_header", "page_footer", "page_number")


def merge_tables(pages: list[tuple[int, list[Fragment]]], mode: str) -> list[dict[str, Any]]:
    """Join tables continued on the next page; returns wire ``merged_tables`` entries.

    ``pages`` is ``(page_number, fragments)`` in page order. A table merges with the next page's
    first table when it is the last body fragment of its page, the other is the first body
    fragment of the following page, and both have the same number of columns.
    """
    merged: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for (n, frags), nxt in zip(pages, [*pages[1:], None]):
        body = [f for f in frags if f.fragment_type not in _HEADERS]
        if nxt is None or not body or body[-1].fragment_type != "table":
            current = _close(current, merged, mode)
            continue
        n2, frags2 = nxt
        body2 = [f for f in frags2 if f.fragment_type not in _HEADERS]
        a = body[-1] if current is None else None
        if (n2 != n + 1 or not body2 or body2[0].fragment_type != "table"
                or body2[0].content.get("columns") != body[-1].content.get("columns")):
            current = _close(current, merged, mode)
            continue
        if current is None:
            assert a is not None
            current = {"rows": table_rows(a), "pages": [n], "columns": a.content.get("columns")}
        rows2 = table_rows(body2[0])
        if rows2 and current["rows"] and rows2[0] == current["rows"][0]:
            rows2 = rows2[1:]  # header repeated on the continuation page
        current["rows"] += rows2
        current["pages"].append(n2)
        # the continuation table may itself continue: keep going only if it is the last body
        # fragment of its page (checked on the next iteration)
        if len(body2) > 1:
            current = _close(current, merged, mode)
    _close(current, merged, mode)
    return merged


def _close(current: dict[str, Any] | None, merged: list[dict[str, Any]], mode: str) -> None:
    if current is None:
        return None
    rows = current["rows"]
    merged.append({
        "merged_table_id": f"merged_table_{len(merged) + 1}",
        "merged_table_html": render_html_table(rows),
        "merged_table_markdown": render_markdown_table(rows),
        "start_page": current["pages"][0],
        "end_page": current["pages"][-1],
        "pages_merged": len(current["pages"]),
        "merge_actions": {"pages": current["pages"], "target_columns": current["columns"]},
    })
    return None


# ---------------------------------------------------------------- choosing a reader


def _complete(rows: list[list[Cell]], words: list[Word]) -> bool:
    """Whether the cells hold every word of the region (characters as a multiset: a reader may
    split a word at a cell boundary, but may not leave one out)."""
    from pipelines.stages.coverage import chars

    have = chars(t for r in rows for t, _ in r)
    want = chars(w.text for w in words)
    return all(have.get(ch, 0) >= n for ch, n in want.items())


def _shape_ok(rows: list[list[Cell]]) -> bool:
    return len(rows) >= 2 and max((sum(1 for t, _ in r if t.strip()) for r in rows), default=0) >= 2


def read_region(block: Any, words: list[Word], columns: list | None, unit: float) -> list[list[Cell]] | None:
    """Cells of a table region from the first reader whose cells hold every word of the region
    and that finds at least two rows and two columns; ``None`` when no reader does (the region
    is then read as text). The readers work from the page's own words and rules: no second
    parse of the page (pdfplumber's, which cost more than everything else on a page)."""
    ruled = block.kind == "table"
    tries: list[Any] = []
    if ruled:
        rules = block.data.pop("rules", [])
        tries.append(lambda: grid.rule_grid(block.box, rules, words, unit))
    if ruled:
        # without vertical rules inside the box the columns come from alignment alone: rules
        # that only separate a page's sections (a letterhead, address blocks side by side, a
        # footer) leave cells that hold several columns of text, and that is no table
        x1, _, x2, _ = block.box
        aligned = not any(r.vertical and x1 + 3 < (r.x1 + r.x2) / 2 < x2 - 3 for r in rules)
        for attempt in tries:
            rows = attempt()
            if aligned and rows and _gapped(rows, words, unit):
                return None
            if rows and _shape_ok(rows) and _complete(rows, words):
                if _banded(rows, words):  # rules around groups of rows, not between rows
                    lined = grid.whitespace_grid(words, unit)
                    if lined and len(lined) > len(rows) and _shape_ok(lined) and _complete(lined, words):
                        return _continued(lined)
                return rows
        return None
    # a whitespace table: the XY-cut's columns, or the word gaps across the rows, whichever
    # finds more columns (a header wider than its column closes the cut's full-height gutter)
    good = []
    if columns:
        good.append(grid_from_columns([[w for w in c if isinstance(w, Word)] for c in columns], unit))
    good.append(grid.whitespace_grid(words, unit))
    good = [r for r in good if r and _shape_ok(r) and _complete(r, words)]
    if not good:
        return None
    rows = _spaced(max(good, key=_dense_columns), unit)
    bands = block.data.pop("bands", None)  # (label_rules.row_bands, through the cut's region)
    return _continued(_centred_labels(row_bands.in_bands(rows, bands) if bands else rows))


def _spaced(rows: list[list[Cell]], unit: float) -> list[list[Cell]]:
    """A table whose rows are set apart by gaps of a line or more (cells with padding), most of
    them: lines closer than that are one row, its wrapped and vertically centred cells whole."""
    spans = [(min(b[1] for _, b in r if b), max(b[3] for _, b in r if b)) if any(b for _, b in r) else None
             for r in rows]
    if any(s is None for s in spans) or len(rows) < 4:
        return rows
    gaps = [b[0] - a[1] for a, b in zip(spans, spans[1:])]  # type: ignore[index]
    tight = _row_gap(gaps, unit)
    if tight is None:
        return rows
    out = [list(rows[0])]
    for g, row in zip(gaps, rows[1:]):
        above = {k for k, (t, _) in enumerate(out[-1]) if t.strip()}
        here = {k for k, (t, _) in enumerate(row) if t.strip()}
        # (a line that goes on with the row above fills other columns, or fewer: two lines with
        # a label and a value each are two rows however close, unless they reach into each
        # other's height: a cell centred on the row beside a taller one)
        if g >= tight or g >= 0 and not (above.isdisjoint(here) or 2 * len(here) <= len(above)
                                         or 2 * len(above) <= len(here)):
            out.append(list(row))
            continue
        out[-1] = [(f"{t1}\n{t2}".strip("\n"), union([b for b in (b1, b2) if b]) if (b1 or b2) else None)
                   for (t1, b1), (t2, b2) in zip(out[-1], row)]
    return out


def _row_gap(gaps: list[float], unit: float) -> float | None:
    """The gap under which two lines are one row: 0.4 of a line when most gaps are of a line
    or more; else, when the gaps fall in two clear sizes (a paragraph's leading inside its cell,
    and the cells' padding between rows: 4–5 pt against 7–10 pt), the middle between the two;
    None when the rows are not set apart."""
    wide = sum(1 for g in gaps if g >= 0.8 * unit)
    if wide >= 2 and wide >= 0.5 * len(gaps) and any(g < 0.4 * unit for g in gaps):
        return 0.4 * unit
    ordered = sorted(g for g in gaps if g >= 0)  # (lines that overlap go on with their row anyway)
    if len(ordered) < 5:
        return None
    k = max(range(1, len(ordered) - 3), key=lambda j: ordered[j + 1] - ordered[j])
    lo, hi = ordered[k], ordered[k + 1]  # the widest step: two gaps or more under it, three over
    # (the gaps over it are of one size: rows' padding, not a table's distance to the text
    # around it)
    if hi - lo >= max(0.15 * unit, lo - ordered[0]) and hi >= 1.3 * lo and hi >= 0.4 * unit \
            and ordered[-1] <= 2 * hi:
        return (lo + hi) / 2
    return None


def _continued(rows: list[list[Cell]]) -> list[list[Cell]]:
    """Labels and values: a line with a value and no label goes on with the value above it
    (``Description: Generation of … according to user-`` / ``specified criteria``) when that
    value was wrapped: its last line runs to the column's right edge and ends in a letter, a
    comma or a hyphen, not a phrase's stop, a figure or a rule of dashes (a total under an address
    line is a row of its own). With more columns than two, the value is the last column's and
    the line must start mid-sentence (``times the current fontsize``) or follow a comma or a
    hyphen."""
    if len(rows[0]) < 2:
        return rows
    last = len(rows[0]) - 1
    boxes = [r[last][1] for r in rows if r[last][1] is not None]
    if not boxes:
        return rows
    left, edge = min(b[0] for b in boxes), max(b[2] for b in boxes)
    out = [rows[0]]
    for row in rows[1:]:
        (value, vbox), (prior, pbox) = row[last], out[-1][last]
        if not any(t.strip() for t, _ in row[:last]) and value.strip() and prior.strip() and pbox and vbox \
                and any(t.strip() for t, _ in out[-1][:last]) and pbox[2] >= edge - 0.2 * (edge - left) \
                and (prior[-1] == "," or prior[-1] == "-" and prior[-2:-1].isalpha() or _goes_on(value)
                     or last == 1 and prior[-1].isalpha()):
            out[-1] = [*out[-1][:last], (f"{prior}\n{value}", union([pbox, vbox]))]
            continue
        out.append(row)
    return out


def _centred_labels(rows: list[list[Cell]]) -> list[list[Cell]]:
    """A label set halfway between its value's two lines (LibreOffice centres a row's cells): a
    row with only its first cell, between two rows without one, is one row with them."""
    def first_only(row: list[Cell]) -> bool:
        return bool(row[0][0].strip()) and row[0][1] is not None and not any(t.strip() for t, _ in row[1:])

    def rest_only(row: list[Cell]) -> bool:
        return not row[0][0].strip() and any(t.strip() and b for t, b in row[1:])

    def middle(row: list[Cell]) -> float:
        boxes = [b for t, b in row if b and t.strip()]
        return (min(b[1] for b in boxes) + max(b[3] for b in boxes)) / 2

    out: list[list[Cell]] = []
    k = 0
    while k < len(rows):
        row = rows[k]
        if 0 < k < len(rows) - 1 and first_only(row) and rest_only(rows[k - 1]) and rest_only(rows[k + 1]) \
                and out and out[-1] is rows[k - 1] and row[0][1] is not None:
            box, above, below = row[0][1], middle(rows[k - 1]), middle(rows[k + 1])
            if abs((box[1] + box[3]) / 2 - (above + below) / 2) <= 0.25 * (box[3] - box[1]):
                out[-1] = [(row[0][0], box), *[_joined(a, b) for a, b in zip(rows[k - 1][1:], rows[k + 1][1:])]]
                k += 2
                continue
        out.append(row)
        k += 1
    return out


def _joined(a: Cell, b: Cell) -> Cell:
    text = "\n".join(t for t, _ in (a, b) if t.strip())
    boxes = [x for _, x in (a, b) if x is not None]
    return text, union(boxes) if boxes else None


def _goes_on(value: str) -> bool:
    """Does a line start in the middle of a sentence (``the zip file entry``, ``(see below),``)?"""
    return value[:1].islower() or value[:1] == "(" and value[1:2].islower()


BANDED_LINES = 5  # lines in one ruled cell from which it holds several rows' figures


def _banded(rows: list[list[Cell]], words: list[Word]) -> bool:
    """Do the rules only close bands of rows (a statistics table ruled above and below its header
    and at its foot)? Then some ruled row has three cells or more that each hold
    ``BANDED_LINES`` text lines or more, about as many in each (the figures of the same rows,
    column by column); an invoice's item band, a description over five lines beside prices
    over one to three, is a real row. Or only the header is ruled, and every cell of the one
    row under it holds three lines or more (the rows of a header boxed on its own)."""
    heights = sorted(w.y2 - w.y1 for w in words)
    line = heights[len(heights) // 2] if heights else 0.0
    for row in rows:
        boxes = [box for _, box in row if box is not None]
        if len(boxes) < 2 or max(b[3] for b in boxes) - min(b[1] for b in boxes) < 2 * line:
            continue  # (too few cells, or too low to hold three lines: most rows, and quickly)
        top, bottom = min(b[1] for b in boxes) - 1, max(b[3] for b in boxes) + 1
        band = [w for w in words if top <= (w.y1 + w.y2) / 2 <= bottom]
        counts = [len(group_lines([w for w in band if inside((w.x1, w.y1, w.x2, w.y2), box)])) for box in boxes]
        stacked = [n for n in counts if n >= BANDED_LINES]
        if len(stacked) >= 3 and max(stacked) <= 1.25 * min(stacked):
            return True
        if len(rows) == 2 and row is rows[1] and len(boxes) == len(row) and min(counts) >= 3:
            return True  # (only the header ruled, every cell under it three lines or more: rows)
    return False


def _gapped(rows: list[list[Cell]], words: list[Word], unit: float) -> bool:
    """Do two rows or more, and a fifth of the rows at least, hold a cell with a gutter inside (a
    gap of three text heights between two words of one line)? A table's cells hold one phrase
    per line; a page's sections read as one table leave its columns inside the cells."""
    hit = filled = 0
    for row in rows:
        boxes = [box for t, box in row if box is not None and t.strip()]
        if not boxes:
            continue
        filled += 1
        for box in boxes:
            mine = [w for w in words if inside((w.x1, w.y1, w.x2, w.y2), box)]
            if any(b.x1 - a.x2 > 3 * unit for ln in group_lines(mine)
                   for a, b in zip(ln, ln[1:])):
                hit += 1
                break
    return hit >= max(2, filled / 5)


def _dense_columns(rows: list[list[Cell]]) -> int:
    """Columns with text in at least half of the rows (a stray split of one row's cell adds a
    column, never a dense one); ties keep the first reading."""
    width = max(len(r) for r in rows)
    return sum(1 for k in range(width)
               if sum(1 for r in rows if k < len(r) and r[k][0].strip()) >= 0.5 * len(rows))
