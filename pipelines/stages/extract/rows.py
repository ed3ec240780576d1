"""A page's lines as visual rows: what every finder reads.

Lines whose vertical extents overlap by half share a row; a table's rows come in as one line each
(their cells joined by two spaces). Kept apart from ``roles`` (the words of labels and the kinds
of field), which only reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.core.models import PageResult
from pipelines.stages.extract.lines import Box, Line, _line_box, header_lines, lines_of, per_page, union_box
from pipelines.stages.tables import table_rows as cell_rows


@dataclass
class Row:
    page: int
    lines: list[Line]

    @property
    def text(self) -> str:  # two spaces between lines: no number's digit groups span two of them
        return "  ".join(ln.text for ln in self.lines)

    @property
    def box(self) -> Box | None:
        return union_box([ln.box for ln in self.lines])


def table_lines(page: PageResult) -> list[Line]:
    """Each row of each table as one line (its cells joined by spaces), boxed by its cells."""
    from pipelines.stages.extract.tables import _cell_boxes, _table_rows

    out = []
    for fi, f in enumerate(page.fragments):
        if f.fragment_type != "table" or not (rows := _table_rows(f)):
            continue
        boxes = _cell_boxes(f, rows)
        raw = cell_rows(f) if isinstance(f.content.get("rows"), int) and f.content.get("cells") else []
        for r, row in enumerate(rows):
            box = union_box(boxes[r])
            # a ruled row whose cells hold as many lines each ("Subtotal / VAT (20%) / TOTAL" beside
            # their three amounts): the rows its rules left out, line by line
            cells = raw[r] if r < len(raw) and len(raw[r]) == len(row) else row
            parts = [[ln for ln in c.split("\n") if ln.strip()] for c in cells if c.strip()]
            n = len(parts[0]) if parts and len({len(p) for p in parts}) == 1 and len(parts) > 1 else 1
            for k in range(n):
                text = "  ".join(p[k].strip() for p in parts) if n > 1 else "  ".join(c for c in row if c)
                if text and box:  # ("19" "345.10" are two cells, not 19 345.10)
                    out.append(Line(page.page_number, text, _line_box(box, k, n), -1 - fi, r, len(rows)))
    return out


_ROWS: list[tuple[PageResult, list[Row]]] = []  # the last few pages' rows: every finder reads them


def rows_of(page: PageResult) -> list[Row]:
    """The page's lines (table rows included) as visual rows: lines whose vertical extents overlap
    by half share a row. Remembered while one extraction runs (``lines.per_page``)."""
    return per_page(_ROWS, page, _rows_of)


def _rows_of(page: PageResult) -> list[Row]:
    return group_rows(page.page_number, [*lines_of(page), *header_lines(page), *table_lines(page)])


def group_rows(page_number: int, lines: list[Line]) -> list[Row]:
    """``lines`` as visual rows: lines whose vertical extents overlap by half share a row."""
    lines = sorted((ln for ln in lines if ln.box), key=lambda ln: (ln.box["y1"], ln.box["x1"]))  # type: ignore[index]
    rows: list[list[Line]] = []
    for ln in lines:
        b = ln.box
        assert b is not None
        for row in reversed(rows[-3:]):
            r = row[0].box
            assert r is not None
            inter = min(r["y2"], b["y2"]) - max(r["y1"], b["y1"])
            if inter >= 0.5 * min(r["y2"] - r["y1"], b["y2"] - b["y1"]):
                row.append(ln)
                break
        else:
            rows.append([ln])
    return [Row(page_number, sorted(r, key=lambda ln: ln.box["x1"])) for r in rows]  # type: ignore[index]
