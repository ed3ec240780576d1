"""Which order the XY-cut's leaves are read in: the text layer's own, unless geometry proves it wrong.

Why: the producer of a digital PDF usually writes its text in reading order, and a geometric
order re-derived from boxes alone gets more pages wrong than it fixes (staggered blocks of a
letter, a heading beside its paragraph, unevenly spaced single-column text). Measured on real
PDFs, reading the XY-cut's order did worse than the content stream's on most documents.

So the XY-cut still decides the blocks (its leaves), but their order is the stream's:

* Each leaf gets the stream ranks of its words (the order PDFium gives them, char index order).
  Leaves the stream reads one after the other are ordered by the first rank of their words.
* Leaves the stream keeps jumping between (it goes back and forth between them three times or
  more) are *interleaved*: the stream has no order for them. When they are two or more proven
  columns (side by side over most of their height, each wide, with lines of running text, and a
  clear gutter) or a stack of bands, they are read in the XY-cut's order (column by column, top
  to bottom). Otherwise (rows the cut split at a chance gutter) they are merged into one leaf,
  read line by line.
  Groups whose rank spans still overlap are interleaved too (a zig-zag over paragraphs of two
  columns whose breaks do not line up).
* Leaves with no text of their own (pictures, ruled tables) go before the first leaf read after
  them that lies below them in their own x range (so a figure stays in its column), or else
  after the last one above them; failing both, after the leaf the XY-cut reads before them.

No producer or file is special-cased; without a stream (OCR words, margins) the XY-cut's order
stands as it is.
"""

from __future__ import annotations

from typing import Any

from pipelines.stages.geometry import Word

Path = tuple[tuple[int, int], ...]  # a leaf's column cuts: (cut id, column index) from the top

INTERLEAVED = 3  # back-and-forth switches of the stream between two leaves that link them
MERGE = False  # rows split at a chance gutter: merging them measured no better (bench.reading_order)


def _words(leaf: list[Any]) -> list[Word]:
    out: list[Word] = []
    for it in leaf:
        if isinstance(it, Word):
            out.append(it)
        else:  # a whitespace table keeps its words in its columns
            for col in it.data.get("columns", ()):
                out += _words(col)
    return out


class _Ranks:
    """Stream rank of a word: its index in the text layer; a bullet glued to the word after it
    (layout.glue_markers) takes that word's rank."""

    def __init__(self, stream: list[Word]) -> None:
        self.by_id = {id(w): k for k, w in enumerate(stream)}
        self.by_end = {(round(w.x2, 2), round(w.y2, 1), w.text): k for k, w in enumerate(stream)}

    def __call__(self, w: Word) -> int | None:
        k = self.by_id.get(id(w))
        if k is None:
            k = self.by_end.get((round(w.x2, 2), round(w.y2, 1), w.text.rsplit(" ", 1)[-1]))
        return k


def _groups(ranked: dict[int, list[int]]) -> list[list[int]]:
    """Leaves linked by the stream's switching back and forth between them (union-find)."""
    seq = sorted((r, i) for i, rs in ranked.items() for r in rs)
    runs = [i for k, (_, i) in enumerate(seq) if k == 0 or seq[k - 1][1] != i]
    switches: dict[tuple[int, int], int] = {}
    for a, b in zip(runs, runs[1:]):
        key = (min(a, b), max(a, b))
        switches[key] = switches.get(key, 0) + 1
    parent = {i: i for i in ranked}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for (a, b), n in switches.items():
        if n >= INTERLEAVED:
            parent[find(a)] = find(b)
    out: dict[int, list[int]] = {}
    for i in sorted(ranked):
        out.setdefault(find(i), []).append(i)
    # groups whose rank spans overlap (their outer tenths aside) are still interleaved
    spans = []
    for g in out.values():
        rs = sorted(r for i in g for r in ranked[i])
        spans.append((rs[len(rs) // 10], rs[-1 - len(rs) // 10], g))
    spans.sort(key=lambda t: t[0])
    merged: list[list] = []
    for lo, hi, g in spans:
        if merged and lo < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
            merged[-1][2] = merged[-1][2] + g
        else:
            merged.append([lo, hi, list(g)])
    return [sorted(m[2]) for m in merged]


def _box(items: list[Any]) -> tuple[float, float, float, float]:
    return (min(i.x1 for i in items), min(i.y1 for i in items),
            max(i.x2 for i in items), max(i.y2 for i in items))


def _x_clusters(leaves: list[list[Any]]) -> list[list[list[Any]]]:
    """Leaves grouped into parts that share no x range (columns, when there are several)."""
    boxes = sorted(((_box(leaf), leaf) for leaf in leaves if leaf), key=lambda t: t[0][0])
    parts: list[list[list[Any]]] = []
    right = float("-inf")
    for b, leaf in boxes:
        if parts and b[0] < right:
            parts[-1].append(leaf)
        else:
            parts.append([leaf])
        right = max(right, b[2])
    return parts


def proven_columns(leaves: list[list[Any]], unit: float) -> bool | None:
    """True: side-by-side columns of running text; None: a stack (one x range); False: parts side
    by side that are not text columns (rows split at a chance gutter, staggered blocks)."""
    parts = _x_clusters(leaves)
    if len(parts) < 2:
        return None
    boxes = [_box([i for leaf in p for i in leaf]) for p in parts]
    width = max(b[2] for b in boxes) - min(b[0] for b in boxes)
    for a, b in zip(boxes, boxes[1:]):
        if b[0] - a[2] < 0.8 * unit:
            return False  # a gutter no wider than a word space
        if min(a[3], b[3]) - max(a[1], b[1]) < 0.5 * min(a[3] - a[1], b[3] - b[1]):
            return False  # not side by side: staggered
    for p, b in zip(parts, boxes):
        words = [w for leaf in p for w in _words(leaf)]
        lines = _line_lengths(words, unit)
        long = sum(n for n in lines if n >= 4)  # words in lines of running text
        if b[2] - b[0] < 0.2 * width or len(lines) < 3 or long < 0.6 * sum(lines):
            return False
    return True


def _line_lengths(words: list[Word], unit: float) -> list[int]:
    """Words per printed line: words whose centres lie within half a line of the previous one."""
    counts: list[int] = []
    last = float("-inf")
    for cy in sorted(w.cy for w in words):
        if cy - last > 0.5 * unit or not counts:
            counts.append(0)
        counts[-1] += 1
        last = cy
    return counts


def settle(leaves: list[list[Any]], stream: list[Word], unit: float,
           paths: list[Path] | None = None) -> list[list[Any]]:
    """The XY-cut's ``leaves`` in the stream's order, but where it interleaves proven columns.
    ``paths``: each leaf's column cuts (``xycut``), to judge the stream per column cut."""
    if len(leaves) < 2:
        return leaves
    rank = _Ranks(stream)
    ranked: dict[int, list[int]] = {}
    for i, leaf in enumerate(leaves):
        rs = [r for r in (rank(w) for w in _words(leaf)) if r is not None]
        if rs:
            ranked[i] = rs
    if len(ranked) < 2:
        return leaves
    # leaves under a column cut whose columns the stream reads across, row by row, are one item
    items: dict[int, list[int]] = {i: [i] for i in ranked}
    for members in _across(leaves, paths or [() for _ in leaves], ranked, rank, unit):
        for i in members[1:]:
            items[members[0]] += items.pop(i)
    units: list[tuple[float, list[list[Any]]]] = []
    for group in _groups({k: [r for i in ms for r in ranked[i]] for k, ms in items.items()}):
        members = [leaves[i] for i in sorted(i for k in group for i in items[k])]
        if len(group) > 1 and proven_columns(members, unit) is False and MERGE:
            members = [[it for leaf in members for it in leaf]]  # one leaf, read by lines
        units.append((min(r for k in group for i in items[k] for r in ranked[i]), members))
    units.sort(key=lambda u: u[0])
    out = [leaf for _, members in units for leaf in members]
    for i, leaf in enumerate(leaves):
        if i not in ranked and leaf:
            _place(out, leaf, leaves[i - 1] if i else None)
    return out


def _across(leaves: list[list[Any]], paths: list[Path], ranked: dict[int, list[int]],
            rank: _Ranks, unit: float) -> list[list[int]]:
    """The ranked leaves under each outermost column cut that the stream reads across: it goes
    from one column to another on the same row at least ``INTERLEAVED`` times, and the columns
    are proven columns of running text (a form's labels and values are read by rows)."""
    taken: set[int] = set()
    out: list[list[int]] = []
    for node in sorted({step for p in paths for step in p}, key=lambda s: s[0]):
        if node[1] != 0:
            continue
        under = {i: p[[s[0] for s in p].index(node[0])][1] for i, p in enumerate(paths)
                 if i in ranked and i not in taken and node[0] in [s[0] for s in p]}
        if len(set(under.values())) < 2:
            continue
        seq = sorted((r, under[i], w.cy) for i in under for w in _words(leaves[i])
                     if (r := rank(w)) is not None)
        rows = sum(1 for a, b in zip(seq, seq[1:]) if a[1] != b[1] and abs(a[2] - b[2]) < unit)
        if rows >= INTERLEAVED and proven_columns([leaves[i] for i in under], unit):
            members = sorted(under)
            taken.update(members)
            out.append(members)
    return out


def _place(out: list[list[Any]], leaf: list[Any], before: list[Any] | None) -> None:
    """Put a leaf without text where it sits among the leaves read (see the module's note)."""
    x1, y1, x2, y2 = _box(leaf)

    def beside(b: tuple[float, float, float, float]) -> bool:
        return min(x2, b[2]) - max(x1, b[0]) > 0

    boxes = [_box(o) if o else None for o in out]
    below = [k for k, b in enumerate(boxes) if b and b[1] >= y2 - 1 and beside(b)]
    if below:
        out.insert(below[0], leaf)
        return
    above = [k for k, b in enumerate(boxes) if b and b[3] <= y1 + 1 and beside(b)]
    if above:
        out.insert(above[-1] + 1, leaf)
        return
    at = next((k for k, o in enumerate(out) if o is before), None)
    out.insert(0 if at is None else at + 1, leaf)
