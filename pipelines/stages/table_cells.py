"""Table cells as the wire lists them: one entry per cell, its spans and its box.

Why a module of its own: the readers (``grid``, ``tables.grid_from_columns``) produce rows ×
columns of ``(text, box)`` slots; a cell that spans several slots (a header over two columns, a
ruled cell whose inner borders are missing) is its top-left slot plus the empty slots it
covers. This module turns that into what a caller needs:

* ``SpanCell``: a ``(text, box)`` slot that knows it spans ``rows`` × ``cols`` slots, set by a
  reader that saw the structure (``grid.rule_grid``: missing inner rules);
* ``col_spans``: the spans a reader without rules leaves implicit: a cell whose words cover at
  least half of the next column's usual extent, that column's slot being empty in its row,
  spans it; a header centred over two columns that got a column of its own spans them;
* ``cell_list``: the wire ``cells`` (``text`` and ``bounding_box``, the spec's names, plus
  ``row``, ``column``, ``row_span``, ``column_span``), each box the union of the cell's words
  and of its rows' and columns' extents, so an empty cell has a box too (cell grounding);
* ``render_html``: the HTML table with ``rowspan``/``colspan``.

Boxes are in PDF points with a top-left origin, like fragments' ``bbox``.
"""

from __future__ import annotations

import html as html_lib
import statistics
from typing import Any

from pipelines.stages.geometry import Box

Slot = tuple[str, Box | None]
Spans = dict[tuple[int, int], tuple[int, int]]


class SpanCell(tuple):
    """A ``(text, box)`` slot spanning ``rows`` × ``cols`` slots from its own (top-left)."""

    rows: int
    cols: int

    def __new__(cls, text: str, box: Box | None, rows: int = 1, cols: int = 1) -> SpanCell:
        obj = super().__new__(cls, (text, box))
        obj.rows, obj.cols = rows, cols
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (SpanCell, (self[0], self[1], self.rows, self.cols))


def declared_spans(rows: list[list[Slot]]) -> Spans:
    """The spans readers set on their slots (``SpanCell``), clipped to the table."""
    out: Spans = {}
    for i, r in enumerate(rows):
        for k, c in enumerate(r):
            if isinstance(c, SpanCell) and (c.rows > 1 or c.cols > 1):
                out[(i, k)] = (max(1, min(c.rows, len(rows) - i)), max(1, min(c.cols, len(r) - k)))
    return out


def _extents(rows: list[list[Slot]], width: int) -> list[tuple[float, float] | None]:
    """Each column's usual x range: the medians of its cells' left and right edges."""
    out: list[tuple[float, float] | None] = []
    for k in range(width):
        boxes = [r[k][1] for r in rows if r[k][1] is not None and r[k][0].strip()]
        out.append((statistics.median(b[0] for b in boxes), statistics.median(b[2] for b in boxes))
                   if boxes else None)
    return out


def col_spans(rows: list[list[Slot]]) -> tuple[list[list[Slot]], Spans]:
    """Column spans from geometry alone (rows of equal length in, rows and spans out):

    * a cell whose words reach over the next columns, each covered for at least half of its
      usual extent and empty in this row, spans them;
    * a cell in a column of its own (a gutter finder gave a header centred over two columns
      the gap between them; text in at most a fifth of the rows) that is centred over the
      nearest filled columns on both sides, empty in its row, spans them; the column it
      stood in is dropped when nothing else is in it."""
    width = len(rows[0]) if rows else 0
    out = [list(r) for r in rows]
    ext = _extents(out, width)
    filled = [sum(1 for r in out if r[k][0].strip()) for k in range(width)]
    sparse = [0 < n <= max(1, len(out) // 5) and len(out) >= 4 for n in filled]
    spans: Spans = {}
    for i, r in enumerate(out):
        for k in range(width):
            text, box = r[k]
            if box is None or not text.strip() or not sparse[k]:
                continue
            left = next((j for j in range(k - 1, -1, -1) if not sparse[j]), None)
            right = next((j for j in range(k + 1, width) if not sparse[j]), None)
            if left is None or right is None or any(r[j][0].strip() for j in range(left, right + 1) if j != k):
                continue
            ea, eb = ext[left], ext[right]
            if ea is None or eb is None:
                continue
            mid, centre = (box[0] + box[2]) / 2, (ea[0] + eb[1]) / 2
            if abs(mid - centre) <= 0.2 * (eb[1] - ea[0]) and box[0] >= ea[0] - 2 and box[2] <= eb[1] + 2:
                r[left], r[k] = r[k], ("", None)
                spans[(i, left)] = (1, right - left + 1)
    keep = [k for k in range(width) if any(r[k][0].strip() for r in out)]
    if len(keep) < width:
        index = {k: n for n, k in enumerate(keep)}
        spans = {(i, index[k]): (1, sum(1 for j in keep if k <= j < k + cs)) for (i, k), (_, cs) in spans.items()}
        out = [[r[k] for k in keep] for r in out]
        ext = [ext[k] for k in keep]
    for i, r in enumerate(out):
        for k, (text, box) in enumerate(r):
            if box is None or not text.strip() or (i, k) in spans:
                continue
            n = 1
            while k + n < len(r) and not r[k + n][0].strip() and (e := ext[k + n]) is not None:
                if min(box[2], e[1]) - max(box[0], e[0]) < 0.5 * max(e[1] - e[0], 1.0):
                    break
                n += 1
            if n > 1:
                spans[(i, k)] = (1, n)
    return out, {key: v for key, v in spans.items() if v[1] > 1}


def covered(spans: Spans) -> set[tuple[int, int]]:
    """The slots a span hides (all but its top-left one)."""
    return {(i + a, k + b) for (i, k), (rs, cs) in spans.items()
            for a in range(rs) for b in range(cs) if a or b}


def _extent(values: list[tuple[float, float]]) -> tuple[float, float] | None:
    return (min(a for a, _ in values), max(b for _, b in values)) if values else None


def cell_list(rows: list[list[Slot]], spans: Spans, scale: float = 1.0) -> list[dict[str, Any]]:
    """The wire ``cells``: every slot not hidden by a span, in row order, with its box."""
    hidden = covered(spans)
    width = max((len(r) for r in rows), default=0)

    def slot(i: int, k: int) -> Slot:
        return rows[i][k] if k < len(rows[i]) else ("", None)

    ys = [_extent([(b[1], b[3]) for k in range(width) if (b := slot(i, k)[1])
                   and spans.get((i, k), (1, 1))[0] == 1]) for i in range(len(rows))]
    xs = [_extent([(b[0], b[2]) for i in range(len(rows)) if (b := slot(i, k)[1])
                   and spans.get((i, k), (1, 1))[1] == 1]) for k in range(width)]
    out = []
    for i in range(len(rows)):
        for k in range(width):
            if (i, k) in hidden:
                continue
            text, box = slot(i, k)
            rs, cs = spans.get((i, k), (1, 1))
            parts = [box] if box else []
            ry = _extent([y for y in ys[i:i + rs] if y])
            cx = _extent([x for x in xs[k:k + cs] if x])
            if ry and cx:
                parts.append((cx[0], ry[0], cx[1], ry[1]))
            bb: dict[str, float] = {}
            if parts:
                x1, y1 = min(p[0] for p in parts), min(p[1] for p in parts)
                x2, y2 = max(p[2] for p in parts), max(p[3] for p in parts)
                bb = {"x1": round(x1 * scale, 2), "y1": round(y1 * scale, 2),
                      "x2": round(x2 * scale, 2), "y2": round(y2 * scale, 2)}
            out.append({"text": text.strip(), "bounding_box": bb, "row": i, "column": k,
                        "row_span": rs, "column_span": cs})
    return out


def render_html(texts: list[list[str]], spans: Spans) -> str:
    """An HTML table with ``rowspan``/``colspan``; the header (``thead``) is the first row and
    the rows its cells span down into."""
    if not texts:
        return "<table></table>"
    hidden = covered(spans)
    head_rows = 1 + max((spans.get((0, k), (1, 1))[0] - 1 for k in range(len(texts[0]))), default=0)

    def row(i: int, tag: str) -> str:
        cells = []
        for k, t in enumerate(texts[i]):
            if (i, k) in hidden:
                continue
            rs, cs = spans.get((i, k), (1, 1))
            attrs = (f' rowspan="{rs}"' if rs > 1 else "") + (f' colspan="{cs}"' if cs > 1 else "")
            cells.append(f"<{tag}{attrs}>{html_lib.escape(t.strip())}</{tag}>")
        return "<tr>" + "".join(cells) + "</tr>"

    head = "".join(row(i, "th") for i in range(head_rows))
    body = "".join(row(i, "td") for i in range(head_rows, len(texts)))
    return f"<table><thead>{head}</thead><tbody>{body}</tbody></table>"


def _union(slots: list[Slot]) -> Slot:
    texts = [t for t, _ in slots if t.strip()]
    boxes = [b for _, b in slots if b]
    box = (min(b[0] for b in boxes), min(b[1] for b in boxes),
           max(b[2] for b in boxes), max(b[3] for b in boxes)) if boxes else None
    return (" ".join(texts), box)


def ruled_spans(rows: list[list[Slot]], bands: list[tuple[int, float, float]], xs: list[float],
                drawn: list[bool], vs: list[Any], hs: list[Any]) -> list[list[Slot]]:
    """Spans of a ruled grid: a cell whose inner borders are not drawn spans the slots they
    would separate. ``bands``: ``(row index, top, bottom)`` of each band between horizontal
    rules that is one row; ``xs``: the column edges (table's left, inner bounds, right);
    ``drawn[k]``: whether inner bound ``k`` is a vertical rule (a whitespace gutter inside a
    ruled column separates its slots always). A border drawn in fewer than half of the places
    it could be is not evidence (rules under a header only). At most one slot of a merged
    group may hold text, which moves to the group's top-left slot."""
    out = [list(r) for r in rows]
    width = len(xs) - 1
    if not bands or width < 1:
        return out

    def v_drawn(k: int, top: float, bottom: float) -> bool:
        mid, q = (top + bottom) / 2, 0.25 * (bottom - top)
        return any(abs((v.x1 + v.x2) / 2 - xs[k + 1]) <= 3 and v.y1 <= mid - q and v.y2 >= mid + q
                   for v in vs)

    def h_drawn(k: int, y: float) -> bool:
        mid, q = (xs[k] + xs[k + 1]) / 2, 0.25 * (xs[k + 1] - xs[k])
        return any(abs((h.y1 + h.y2) / 2 - y) <= 2 and h.x1 <= mid - q and h.x2 >= mid + q for h in hs)

    vmap = {(i, k): v_drawn(k, top, bottom) for i, top, bottom in bands
            for k in range(width - 1) if drawn[k]}
    trust_v = {k for k in range(width - 1) if drawn[k]
               and sum(vmap[(i, k)] for i, _, _ in bands) >= 0.5 * len(bands)}
    spans: dict[tuple[int, int], list[int]] = {}
    for i, _, _ in bands:
        k = 0
        while k < width:
            n = 1
            while k + n < width and k + n - 1 in trust_v and not vmap[(i, k + n - 1)]:
                n += 1
            group = out[i][k:k + n]
            if n > 1 and sum(1 for t, _ in group if t.strip()) <= 1:
                out[i][k] = _union(group)
                out[i][k + 1:k + n] = [("", None)] * (n - 1)
                spans[(i, k)] = [1, n]
            k += n
    pairs = [(a, b) for a, b in zip(bands, bands[1:]) if b[0] == a[0] + 1]
    hmap = {(a[0], k): h_drawn(k, a[2]) for a, _ in pairs for k in range(width)}
    trust_h = {a[0] for a, _ in pairs if sum(hmap[(a[0], k)] for k in range(width)) >= 0.5 * width}
    taken = {(i, k + d) for (i, k), (_, n) in spans.items() for d in range(n)}
    for k in range(width):
        top, end = -1, -1  # the rows of the span being grown in this column
        for a, _ in pairs:
            i = a[0]
            if i not in trust_h or hmap[(i, k)] or (i, k) in taken or (i + 1, k) in taken:
                continue
            if end != i:
                top = i
            group = [out[j][k] for j in range(top, i + 2)]
            if sum(1 for t, _ in group if t.strip()) > 1:
                top = end = -1
                continue
            out[top][k] = _union(group)
            for j in range(top + 1, i + 2):
                out[j][k] = ("", None)
            spans[(top, k)] = [i + 2 - top, 1]
            end = i + 1
    for (i, k), (rs, cs) in spans.items():
        out[i][k] = SpanCell(out[i][k][0], out[i][k][1], rs, cs)
    return out
