"""Where a page's ruled tables are: regions drawn with rules, grown by the rows and columns
that line up with them.

* grids: clusters of touching horizontal and vertical rules with three or more distinct rows
  or columns of rules (a single ruled box around text is a frame, not a table), as wide as
  their vertical rules unless two or more rules of one span run past them on both sides (a
  grid drawn with its inner borders only);
* header-ruled tables (booktabs): a stack of three or more horizontal rules, the top and the
  bottom one of the same span;
* a region grows by the lines just above or below it that line up with its columns, and by a
  column just beside it whose words sit on its rows (a grid drawn without its outer frame);
  pieces of one grid's rules left as regions of their own are dropped.

The cells are read by ``tables.read_region``; this module only says where tables are.
"""

from __future__ import annotations

import statistics

from pipelines.stages import row_bands
from pipelines.stages.band_rules import FIG_CAPTION, TABLE_CAPTION
from pipelines.stages.geometry import Box, Rule, Word, inside, union
from pipelines.stages.layout import group_lines

# a table's head between its top rule and the next holds a few lines (heads wrapped): five or
# more there are blocks of text over the head
HEAD_LINES = 5


def _touch(a: Rule, b: Rule, tol: float = 2.5) -> bool:
    return (a.x1 - tol <= b.x2 and b.x1 - tol <= a.x2 and a.y1 - tol <= b.y2 and b.y1 - tol <= a.y2)


def _positions(values: list[float], tol: float = 3.0) -> int:
    """How many distinct positions ``values`` hold (clustered within ``tol``)."""
    n, last = 0, None
    for v in sorted(values):
        if last is None or v - last > tol:
            n += 1
        last = v
    return n


def ruled_regions(rules: list[Rule], words: list[Word]) -> list[Box]:
    """Table regions drawn with rules, holding at least two words:

    * grids: clusters of touching horizontal and vertical rules with at least three distinct
      rows or columns of rules (a single ruled box around text is a frame, not a table);
    * header-ruled tables (booktabs): a stack of at least three horizontal rules, the top and
      the bottom one of the same span, the ones between them (``\\midrule``, ``\\cmidrule``)
      no wider; rules drawn as thin filled rectangles count the same (``pdf_text``).
    """
    lines = [r for r in rules if r.horizontal or r.vertical]
    parent = list(range(len(lines)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = sorted(range(len(lines)), key=lambda i: lines[i].x1)
    for a, i in enumerate(order):  # sweep in x: only rules that can touch are compared
        ri = lines[i]
        for j in order[a + 1:]:
            if lines[j].x1 - 2.5 > ri.x2:
                break
            if _touch(ri, lines[j]):
                parent[find(i)] = find(j)
    groups: dict[int, list[Rule]] = {}
    for i, r in enumerate(lines):
        groups.setdefault(find(i), []).append(r)
    regions: list[Box] = []
    for g in groups.values():
        hs = [r for r in g if r.horizontal]
        vs = [r for r in g if r.vertical]
        if len(hs) >= 2 and len(vs) >= 2:
            rows = _positions([(r.y1 + r.y2) / 2 for r in hs])
            cols = _positions([(r.x1 + r.x2) / 2 for r in vs])
            if rows >= 3 or cols >= 3:
                # the grid's width is that of its vertical rules: a rule running on past them
                # (under a caption in the margin) is not part of the table
                left, right = min(r.x1 for r in vs) - 3, max(r.x2 for r in vs) + 3
                past = [r for r in g if not (r.x1 >= left - 6 and r.x2 <= right + 6)]
                # (unless they are the table's rows: two or more of one span, past the vertical
                # rules on both sides, as a grid drawn with its inner borders only)
                if not (len(past) >= 2 and all(r.horizontal and r.x1 < left and r.x2 > right
                                               and abs(r.x1 - past[0].x1) < 2 and abs(r.x2 - past[0].x2) < 2
                                               for r in past)):
                    g = [r for r in g if r.x1 >= left - 6 and r.x2 <= right + 6]
                # without the rules running past it (another float's, touching its edge), a box
                # may be left with only its four sides: a frame, not a grid
                rows = _positions([(r.y1 + r.y2) / 2 for r in g if r.horizontal])
                if rows >= 3 or cols >= 3:
                    regions.append(union([(r.x1, r.y1, r.x2, r.y2) for r in g]))
    free = sorted((r for r in row_bands.joined([r for r in lines if r.horizontal]) if r.x2 - r.x1 >= 30
                   and not any(inside((r.x1, r.y1, r.x2, r.y2), reg, 3) for reg in regions)),
                  key=lambda r: r.y1)
    used: set[int] = set()
    borders = _junctions([r for r in lines if r.horizontal])
    body = statistics.median(w.size for w in words) if words else 10.0
    for i, top in enumerate(free):
        if i in used:
            continue
        members = [i]
        bottom = None
        for j in range(i + 1, len(free)):
            r = free[j]
            if r.x1 > top.x2 or r.x2 < top.x1:
                continue  # beside the table (another table next to it)
            if r.x1 < top.x1 - 6 or r.x2 > top.x2 + 6:
                break  # a wider rule: the stack ends
            if _caption_between(words, top.x1, top.x2, free[members[-1]].y2, r.y1, body, borders):
                break  # the next table's caption: this stack ended before it
            members.append(j)
            if abs(r.x1 - top.x1) < 6 and abs(r.x2 - top.x2) < 6:
                bottom = len(members)
        if bottom is None or bottom < 3:
            continue
        members = _after_letterhead(free, members[:bottom], words)
        if len(members) < 3:
            continue
        used.update(members)
        box = union([(free[k].x1, free[k].y1, free[k].x2, free[k].y2) for k in members])
        if (head := _head_top(free, members, words)) is not None:
            box = (box[0], head, box[2], box[3])
        regions.append(box)
    regions = [reg for reg in regions
               if sum(1 for w in words if inside((w.x1, w.y1, w.x2, w.y2), reg)) >= 2]
    grown = [_grow(reg, words) for reg in regions]
    wide = [_widen(reg, words, [o for j, o in enumerate(grown) if j != k and _area(_overlap(reg, o)) == 0])
            for k, reg in enumerate(grown)]
    # a grid drawn without its outer frame may leave pieces of its rules as regions of their own,
    # inside the columns it widened over (boxes drawn inside other boxes, as on forms, stay)
    return [reg for k, reg in enumerate(wide)
            if not any(j != k and w != grown[j] and _area(w) > _area(reg) and _area(_overlap(reg, w)) > 0.5 * _area(reg)
                       for j, w in enumerate(wide))]


def _after_letterhead(free: list[Rule], members: list[int], words: list[Word]) -> list[int]:
    """A stack of rules without the ones above a wide gap of text when those are no table's top
    (a rule under a letterhead and a short one under the sender's line, then the letter down to
    the items' table): the table starts at the first rule after the gap. A booktabs head (top
    rule and mid rule of one span) over a long body stays whole."""
    unit = statistics.median([w.h for w in words]) if words else 10.0
    gaps = [(free[members[k + 1]].y1 - free[members[k]].y2, k) for k in range(len(members) - 1)]
    gap, k = max(gaps)
    if gap <= 6 * unit:
        return members
    head, rest = members[:k + 1], members[k + 1:]
    top = free[head[0]]
    if any(abs(free[m].x1 - top.x1) < 6 and abs(free[m].x2 - top.x2) < 6 for m in head[1:]) or len(rest) < 3:
        return members
    first, last = free[rest[0]], free[rest[-1]]
    return rest if abs(first.x1 - last.x1) < 6 and abs(first.x2 - last.x2) < 6 else members


def _head_top(free: list[Rule], members: list[int], words: list[Word]) -> float | None:
    """Where the table starts when its top rule stands over more lines than a table's head holds
    (``HEAD_LINES``: a separator over the buyer's block and the invoice's details, the items'
    head on the next rule under them): just above the lines under the widest gap between them.
    ``None``: at the top rule."""
    a, b = free[members[0]], free[members[1]]
    lines = group_lines([w for w in words if a.y2 < w.cy < b.y1 and a.x1 - 2 <= w.x1 and w.x2 <= a.x2 + 2])
    if len(lines) < HEAD_LINES or b.y1 - max(w.y2 for w in lines[-1]) > max(w.h for w in lines[-1]):
        return None  # (a head stands on the rule under it)
    tops = [min(w.y1 for w in ln) for ln in lines]
    gap, k = max((tops[k + 1] - max(w.y2 for w in lines[k]), k) for k in range(len(lines) - 1))
    return tops[k + 1] - min(1.0, gap / 2)


def _area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _overlap(a: Box, b: Box) -> Box:
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def _grow(region: Box, words: list[Word]) -> Box:
    """A ruled region grown by the rows just above or below it that line up with its columns
    (a table whose rules start at its third row, ``\\rowcolors[\\hline]{3}``; a header over the
    first rule): every phrase of such a line starts where a word of the table starts, and it is
    no further away than a row."""
    mine = [w for w in words if inside((w.x1, w.y1, w.x2, w.y2), region)]
    lines = group_lines(mine)
    if len(lines) < 2:
        return _under_header(region, lines[0], words) if lines else region
    starts = [w.x1 for w in mine]
    pitch = statistics.median(statistics.fmean(w.cy for w in b) - statistics.fmean(w.cy for w in a)
                              for a, b in zip(lines, lines[1:]))
    x1, y1, x2, y2 = region
    near = group_lines([w for w in words if x1 - 2 <= w.x1 and w.x2 <= x2 + 2
                        and not inside((w.x1, w.y1, w.x2, w.y2), region)
                        and (y1 - 3 * pitch < w.cy < y1 or y2 < w.cy < y2 + 3 * pitch)])
    above = sorted((ln for ln in near if ln[0].cy < y1), key=lambda ln: -ln[0].cy)
    below = sorted((ln for ln in near if ln[0].cy > y2), key=lambda ln: ln[0].cy)
    edge = statistics.fmean(w.cy for w in lines[0])
    for line in above:
        cy = statistics.fmean(w.cy for w in line)
        # (a header standing on the first rule is close enough however far apart the lines of
        # the table's cells are set)
        near = edge - cy <= 1.3 * pitch or y1 - max(w.y2 for w in line) <= 0.5 * max(w.h for w in line)
        if not near or len(line) < 2 or not _starts_on(line, starts):
            break
        y1, edge = min(y1, min(w.y1 for w in line) - 1), cy
    edge = statistics.fmean(w.cy for w in lines[-1])
    for line in below:
        cy = statistics.fmean(w.cy for w in line)
        if cy - edge > 1.3 * pitch or len(line) < 2 or not _starts_on(line, starts):
            break
        y2, edge = max(y2, max(w.y2 for w in line) + 1), cy
    return (x1, y1, x2, y2)


def _under_header(region: Box, head: list[Word], words: list[Word]) -> Box:
    """A header row ruled on its own (its cells boxed) grown down over the rows without rules
    under it: each line at most a line's height below the one above, its phrases starting where
    the first row's do (a cell wrapped onto the next line: at one of them but the first), and
    those within half a line of the header's (a header cell has its own padding); two rows at
    least, or the box stays as it was."""
    heads = [w.x1 for w in _phrases(head)]
    x1, y1, x2, y2 = region
    h = max(w.h for w in head)
    below = group_lines([w for w in words if x1 - 2 <= w.x1 and w.x2 <= x2 + 2 and y2 < w.cy < y2 + 40 * h])
    starts = [w.x1 for w in _phrases(below[0])] if below else []
    if len(starts) != len(heads) or any(abs(a - b) > h / 2 for a, b in zip(starts, heads)):
        return region
    rows, bottom, edge = 0, y2, y2
    for line in below:
        if min(w.y1 for w in line) - edge > h:
            break
        full = _starts_on(line, starts)
        if not (full or rows and all(any(abs(w.x1 - s) < 1.5 for s in starts[1:]) for w in _phrases(line))):
            break
        rows += full
        bottom = edge = max(w.y2 for w in line)
    return (x1, y1, x2, bottom + 1) if rows >= 2 and len(starts) >= 2 else region


def _phrases(line: list[Word]) -> list[Word]:
    """The first word of each phrase of the line (words a word space apart)."""
    return [line[0], *(b for a, b in zip(line, line[1:]) if b.x1 - a.x2 >= 0.5 * a.size)]


def _starts_on(line: list[Word], starts: list[float]) -> bool:
    """Does every phrase of the line, two at least, start at one of ``starts``?"""
    firsts = _phrases(line)
    return len(firsts) >= 2 and all(any(abs(w.x1 - s) < 1.5 for s in starts) for w in firsts)


def _widen(region: Box, words: list[Word], others: list[Box]) -> Box:
    """A ruled region widened by a column just beside it whose words sit on the table's rows (a
    grid drawn without its outer frame: the row labels left of the first column rule, the last
    column right of the last one). Most of the table's rows must have a word there and nearly
    every word there must sit on a row, so running text beside a table stays out; words inside
    ``others`` (the next ruled box of a form, apart from this one) are not a column of this one."""
    words = [w for w in words if not any(inside((w.x1, w.y1, w.x2, w.y2), o) for o in others)]
    x1, y1, x2, y2 = region
    lines = group_lines([w for w in words if inside((w.x1, w.y1, w.x2, w.y2), region)])
    if len(lines) < 4:
        return region
    unit = statistics.median(w.h for ln in lines for w in ln)
    rows = [statistics.fmean(w.cy for w in ln) for ln in lines]
    for side in (-1, 1):
        near = [w for w in words if y1 <= w.cy <= y2 and not inside((w.x1, w.y1, w.x2, w.y2), region)
                and (x1 - 40 * unit <= w.x1 and w.x2 <= x1 + 1 if side < 0 else x2 - 1 <= w.x1 and w.x2 <= x2 + 40 * unit)]
        beside = _next_column(near, side, x1 if side < 0 else x2, unit)
        if not beside:
            continue
        on_row = [w for w in beside if min(abs(w.cy - r) for r in rows) < 0.3 * unit]
        hit = sum(1 for r in rows if any(abs(w.cy - r) < 0.3 * unit for w in beside))
        if len(on_row) >= 0.9 * len(beside) and hit >= 0.6 * len(rows):
            if side < 0:
                x1 = min(w.x1 for w in beside) - 1
            else:
                x2 = max(w.x2 for w in beside) + 1
    return (x1, y1, x2, y2)


def _next_column(words: list[Word], side: int, edge: float, unit: float) -> list[Word]:
    """The words of the column next to ``edge`` on ``side``: the x-extents of ``words`` joined
    where they overlap or nearly touch, the run nearest the edge (empty when it is more than
    three text heights away)."""
    runs: list[list[Word]] = []
    for w in sorted(words, key=lambda w: -w.x2 if side < 0 else w.x1):
        if runs and (min(v.x1 for v in runs[-1]) - w.x2 < unit if side < 0 else w.x1 - max(v.x2 for v in runs[-1]) < unit):
            runs[-1].append(w)
        else:
            runs.append([w])
    if not runs:
        return []
    gap = edge - max(w.x2 for w in runs[0]) if side < 0 else min(w.x1 for w in runs[0]) - edge
    return runs[0] if gap <= 3 * unit else []


def _junctions(hs: list[Rule]) -> list[float]:
    """Where horizontal rules drawn cell by cell meet end to end, on two rows or more (a browser
    draws a border under each cell): the borders between the columns of a table that has no
    vertical rule."""
    rows: dict[int, list[Rule]] = {}
    for r in hs:
        rows.setdefault(round((r.y1 + r.y2) / 2), []).append(r)
    seen: list[float] = []
    for row in rows.values():
        # (end to end: touching, or overlapping by a stroke's width)
        seen += list({round((a.x2 + b.x1) / 2) for a in row for b in row
                      if a is not b and a.x1 < b.x1 and -2.0 <= b.x1 - a.x2 <= 1.0})
    return [x for x in row_bands.cluster(seen, 1.5) if sum(1 for v in seen if abs(v - x) <= 1.5) >= 2]


def _caption_between(words: list[Word], x1: float, x2: float, y1: float, y2: float, body: float,
                     borders: tuple[float, ...] | list[float] = ()) -> bool:
    """Whether something between ``y1`` and ``y2`` ends a stack of rules: a line that starts a
    table or figure caption, a line of text running past both ends of the rules (prose
    between two tables of the same width), or a heading alone between two rules, at their left
    end, in a font a quarter larger than the page's ``body`` size (API references rule each section's member
    table under its heading: ``Functions``, ``Variables``)."""
    band = [w for w in words if y1 < w.cy < y2]
    lines = group_lines(band)
    if len(lines) == 1 and min(w.size for w in lines[0]) >= 1.25 * body and abs(lines[0][0].x1 - x1) <= body \
            and lines[0][-1].x2 <= x2 + 6 and all(b.x1 - a.x2 < 0.5 * a.size for a, b in zip(lines[0], lines[0][1:])):
        return True  # (one phrase, set at the rules' left end)
    for line in lines:
        gap = max((b.x1 - a.x2 for a, b in zip(line, line[1:])), default=0.0)
        h = statistics.median(w.h for w in line)
        if line[0].x1 < x1 - 6 and line[-1].x2 > x2 + 6 and gap < 1.2 * h:
            return True  # running text across the rules' span
        if len(line) >= 6 and line[-1].x2 - line[0].x1 >= 0.8 * (x2 - x1) and gap < 1.0 * h \
                and line[0].x1 < x1 + 0.1 * (x2 - x1) \
                and not any(a.x2 < x < b.x1 for x in borders for a, b in zip(line, line[1:])):
            # a line of prose as wide as the rules (between two ruled boxes), not a cell's (the
            # rules drawn cell by cell part the line where their pieces meet: a row)
            return True
        inner = [w for w in line if x1 - 6 <= (w.x1 + w.x2) / 2 <= x2 + 6]
        head = " ".join(w.text for w in inner[:3])
        if TABLE_CAPTION.match(head) or FIG_CAPTION.match(head) or head.startswith("Example"):
            return True
    return False


# ---------------------------------------------------------------- reading cells
