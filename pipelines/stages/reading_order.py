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
* Leaves with no text of their own (pictures, ruled tables) keep their place after the leaf the
  XY-cut reads before them.

No producer or file is special-cased; without a stream (OCR words, margins) the XY-cut's order
stands as it is.
"""

from __future__ import annotations

import statistics
from typing import Any

from pipelines.stages.geometry import Word

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
        if b[2] - b[0] < 0.2 * width or len(lines) < 3 or statistics.median(lines) < 4:
            return False
    return True


def _line_lengths(words: list[Word], unit: float) -> list[int]:
    counts: dict[int, int] = {}
    for w in words:
        k = round(w.cy / (0.6 * unit))
        counts[k] = counts.get(k, 0) + 1
    return list(counts.values())


def settle(leaves: list[list[Any]], stream: list[Word], unit: float) -> list[list[Any]]:
    """The XY-cut's ``leaves`` in the stream's order, but where it interleaves proven columns."""
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
    # leaves without text follow the leaf the XY-cut reads before them
    follow: dict[int, list[int]] = {i: [] for i in ranked}
    lead: list[int] = []
    prev = None
    for i in range(len(leaves)):
        if i in ranked:
            prev = i
        elif prev is None:
            lead.append(i)
        else:
            follow[prev].append(i)
    units: list[tuple[float, list[list[Any]]]] = []
    for group in _groups(ranked):
        key = min(r for i in group for r in ranked[i])
        members = [leaves[j] for i in group for j in (i, *follow[i])]
        if len(group) > 1 and proven_columns([leaves[i] for i in group], unit) is False and MERGE:
            members = [[it for leaf in members for it in leaf]]  # one leaf, read by lines
        units.append((key, members))
    units.sort(key=lambda u: u[0])
    out = [leaves[i] for i in lead]
    for _, members in units:
        out += members
    return out
