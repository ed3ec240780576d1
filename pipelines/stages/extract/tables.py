"""Tables as extraction sees them: rows of cell texts with boxes, key/value rows, header rows
with the columns under them (``Section``), which line items are read from."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.core.models import Fragment, PageResult
from pipelines.stages.extract.items import KINDS, header_text
from pipelines.stages.extract.lexicon import item_gloss
from pipelines.stages.extract.lines import Box, Candidate, Line, _is_short_label, _line_box, split_pairs
from pipelines.stages.extract.roles import DATE_WORD
from pipelines.stages.tables import table_rows


def _table_rows(f: Fragment) -> list[list[str]]:
    """The table as rows of cell texts: from the parser's own cells (``stages.tables.table_rows``,
    the one reader of them; a spanning cell's text in its first slot), else from rows given as
    lists of texts (a model's table), else from its markdown."""
    rows = f.content.get("rows")
    if isinstance(rows, list) and rows and all(isinstance(r, list) for r in rows):
        return [[str(c or "").strip() for c in r] for r in rows]
    if isinstance(rows, int) and f.content.get("cells"):
        return _heads_over_values([[" ".join(c.split()) for c in r] for r in table_rows(f)])
    md = f.content.get("markdown")
    if isinstance(md, str):
        out = []
        for ln in md.splitlines():
            if ln.strip().startswith("|") and not re.match(r"^\|[\s:|-]+\|$", ln.strip()):
                out.append([c.strip() for c in ln.strip().strip("|").split("|")])
        return _heads_over_values(out)
    return []


def _heads_over_values(rows: list[list[str]]) -> list[list[str]]:
    """A column head spanning two slots (``Quantity`` over ``4,000 Nos`` set in the second) moved
    over its values: its own slot is empty in every row under it, the next one has no head and
    holds the values."""
    for h, head in enumerate(rows):
        if not _labelish_row(head):
            continue
        body = [r for r in rows[h + 1:] if len(r) == len(head)]
        for c in range(len(head) - 1):
            if head[c] and not head[c + 1] and body and not any(r[c] for r in body) \
                    and sum(1 for r in body if r[c + 1]) >= 2:
                head[c], head[c + 1] = "", head[c]
    return rows


def _cell_boxes(f: Fragment, rows: list[list[str]]) -> list[list[Box | None]]:
    """Each cell's box where the fragment lists ``cells`` in row order, else the table's rows."""
    cells = f.content.get("cells")
    flat = [c for r in rows for c in r]
    if isinstance(cells, list) and len(cells) == len(flat):
        it = iter(cells)
        return [[(next(it) or {}).get("bounding_box") for _ in r] for r in rows]
    return [[_line_box(f.bbox, i, len(rows)) for _ in r] for i, r in enumerate(rows)]


def _labelish_row(row: list[str]) -> bool:
    filled = [c for c in row if c]
    return len(filled) >= 3 and all(_is_short_label(c) and not any(ch.isdigit() for ch in c) for c in filled)


def _pair_columns(rows: list[list[str]]) -> list[int]:
    """Columns of labels with each one's value in the next column, beside other columns (the
    buyer's address left of ``Room 214`` / ``Arrival 03/06/2024`` / ``Folio No. 88172``): three
    or more distinct labels without figures (two, when each ends in a colon), values mostly with figures, and the first row one
    of the pairs (not a header over item rows)."""
    out = []
    for c in range(max(map(len, rows)) - 1):
        pairs = [(r[c], r[c + 1]) for r in rows if c + 1 < len(r) and r[c] and r[c + 1]]
        least = 2 if all(a.rstrip().endswith(":") for a, _ in pairs) else 3  # labels that say so
        if len(pairs) < least or not (len(rows[0]) > c + 1 and any(ch.isdigit() for ch in rows[0][c + 1])):
            continue
        if all(_is_short_label(a) and not any(ch.isdigit() for ch in a) for a, _ in pairs) \
                and len({a.lower() for a, _ in pairs}) == len(pairs) \
                and 2 * sum(any(ch.isdigit() for ch in b) for _, b in pairs) >= len(pairs):
            out.append(c)
    return out


@dataclass
class Section:
    """A header row of a table and the rows under it (up to the next header row)."""

    page: int
    header: list[str]
    rows: list[list[tuple[str, Box | None]]]


def _sections(page: PageResult, rows: list[list[str]], boxes: list[list[Box | None]]) -> list[Section]:
    heads = [r for r, row in enumerate(rows) if r == 0 or _labelish_row(row)]
    out = []
    for h in heads:
        if h - 1 in heads:
            continue  # the second line of a header set over two rows (read with the first)
        top = h
        while h + 1 in heads:  # "Menge" over "", "Preis/" over "Einheit": one header, cell by cell
            h += 1
        header = [" ".join(rows[r][c] for r in range(top, h + 1) if c < len(rows[r]) and rows[r][c]).strip()
                  for c in range(max(len(rows[r]) for r in range(top, h + 1)))]
        end = next((k for k in heads if k > h), len(rows))
        body = [[(cell, boxes[r][c]) for c, cell in enumerate(rows[r])] for r in range(h + 1, end)]
        out.append(Section(page.page_number, *_unmerged(header, body)))
    return out


FIGURE = re.compile(r"[$€£]?\d[\d.,'’]*")


def _two_figures(text: str) -> list[str] | None:
    parts = text.split()
    return parts if len(parts) == 2 and all(FIGURE.fullmatch(x) for x in parts) else None


def _unmerged(header: list[str], body: list[list[tuple[str, Box | None]]]
              ) -> tuple[list[str], list[list[tuple[str, Box | None]]]]:
    """Two item columns the grid ran together, parted again: a head naming two kinds of column
    ("Unit cost QTY": a unit price, a quantity) over cells of two figures each ("100 2")."""
    for c, head in enumerate(header):
        words = head.split()
        cut = next((k for k in range(1, len(words)) if (a := KINDS.get(item_gloss(" ".join(words[:k]))))
                    and (b := KINDS.get(item_gloss(" ".join(words[k:])))) and a != b), None)
        # (its figures always come in twos; labels of a totals block under the items may share it)
        cells = [row[c][0] for row in body if c < len(row) and all(FIGURE.fullmatch(x) for x in row[c][0].split() or ["-"])]
        if cut is None or len(cells) < 2 or any(_two_figures(t) is None for t in cells):
            continue
        header = [*header[:c], " ".join(words[:cut]), " ".join(words[cut:]), *header[c + 1:]]
        body = [[*row[:c], *[(t, row[c][1]) for t in (_two_figures(row[c][0]) or [row[c][0], ""])], *row[c + 1:]]
                if c < len(row) else row for row in body]
        return header, body
    return header, body


def _value_cell(text: str) -> bool:
    return bool(re.search(r"\w", text)) and not text.endswith(":")


def sections_of(page: PageResult) -> list[Section]:
    out: list[Section] = []
    for f in page.fragments:
        if f.fragment_type == "table" and (rows := _table_rows(f)):
            out += _sections(page, rows, _cell_boxes(f, rows))
    return out


def _sum_cell(col: list[tuple[str, Box | None]]) -> tuple[str, Box | None] | None:
    """The last cell of a column of amounts when it is the sum of those above it (a totals
    table's sum row under one row per tax rate): the column's value is the sum."""
    from pipelines.stages.extract.values import parse_number

    if len(col) < 3:
        return None
    nums = [parse_number(text) for text, _ in col]
    if any(n is None for n in nums):
        return None
    return col[-1] if abs(sum(nums[:-1]) - nums[-1]) <= 0.011 * len(nums) else None  # type: ignore[arg-type]


def table_candidates(page: PageResult) -> tuple[list[Candidate], list[Line]]:
    """Candidates from tables, and the cells that are labels waiting for a value outside the
    table (``Subtotal:`` in the last column, its amount printed beside the table)."""
    out: list[Candidate] = []
    loose: list[Line] = []
    for fi, f in enumerate(page.fragments):
        if f.fragment_type != "table":
            continue
        rows = _table_rows(f)
        if not rows:
            continue
        boxes = _cell_boxes(f, rows)
        for r, row in enumerate(rows):  # key/value rows: exactly two non-empty cells
            filled = [(c, boxes[r][i]) for i, c in enumerate(row) if c]
            for cell, box in filled:  # "Label: value" inside one cell
                out += [Candidate(lab, val, page.page_number, box, "inline") for lab, val in split_pairs(cell) if val]
            if len(filled) == 2 and _is_short_label(filled[0][0]):
                out.append(Candidate(filled[0][0], filled[1][0], page.page_number, filled[1][1], "table-row"))
            if len(filled) == 1 and filled[0][0].endswith(":") and filled[0][1]:
                loose.append(Line(page.page_number, filled[0][0], filled[0][1], -1 - fi, r, len(rows)))
        for c in _pair_columns(rows):  # a column of labels beside their values, beside other text
            out += [Candidate(row[c], row[c + 1], page.page_number, boxes[r][c + 1], "table-row")
                    for r, row in enumerate(rows) if c + 1 < len(row) and row[c] and row[c + 1]
                    and len([x for x in row if x]) > 2]
        # header rows (the first, or a row of labels inside the table) → their columns below
        for sec in _sections(page, rows, boxes):
            items = header_text("  ".join(h for h in sec.header if h))
            for c, head in enumerate(sec.header):
                if not head or split_pairs(head):
                    continue
                col = [row[c] for row in sec.rows if c < len(row) and _value_cell(row[c][0])]
                if col and items and DATE_WORD.search(head):
                    continue  # the items' dates ("Date" over each item's) are not the document's date
                if col:
                    first = _sum_cell(col) or col[0]
                    out.append(Candidate(head, first[0], page.page_number, first[1], "table-column", col))
                if len(col) == 1:  # a label row above a value row (boxes of a form read as a table)
                    out.append(Candidate(head, col[0][0], page.page_number, col[0][1], "below"))
    return out, loose
