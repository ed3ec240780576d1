"""No word of a page's text layer is ever dropped: the check at the end of the layout stage.

Every word that the page's text layer holds must come out in some block: a text block, a table
cell, the text of a figure, a strike-through, a header or footer. ``claim`` compares the text
layer with what the blocks say (as a multiset of tokens, so a word split into two cells, or two
words glued by a bullet, still count), and turns whatever no block holds into plain text blocks
placed in reading order where the words sit, with a warning for the page.

``MODE`` says what to do on a loss: ``"recover"`` (the default: rescue the words, warn) or
``"raise"`` (the test suite: a regression anywhere fails loudly). Set it with ``set_mode`` or,
for a block of code, ``strict()``; the stages never read the environment.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from pipelines.stages.geometry import Word

MODE = "recover"
_MODES = ("recover", "raise")


class TextLost(AssertionError):
    """Raised in ``"raise"`` mode when a page's blocks miss words of its text layer."""


def set_mode(mode: str) -> str:
    """Set the mode; returns the previous one."""
    global MODE
    if mode not in _MODES:
        raise ValueError(f"coverage mode must be one of {_MODES}, not {mode!r}")
    old, MODE = MODE, mode
    return old


@contextmanager
def strict() -> Iterator[None]:
    old = set_mode("raise")
    try:
        yield
    finally:
        set_mode(old)


def norm(text: str) -> str:
    """The form words are compared in: NFKC, no soft hyphens or zero-width characters."""
    text = unicodedata.normalize("NFKC", text)
    return text.replace("\u00ad", "").replace("\u200b", "").replace("\ufeff", "")


def chars(texts: Iterable[str]) -> Counter[str]:
    """Non-space characters of ``texts`` (NFKC), as a multiset."""
    c: Counter[str] = Counter()
    for t in texts:
        c.update(ch for ch in norm(t) if not ch.isspace())
    return c


def tokens(texts: Iterable[str]) -> Counter[str]:
    c: Counter[str] = Counter()
    for t in texts:
        c.update(norm(t).split())
    return c


def block_texts(block) -> list[str]:  # noqa: ANN001 - a layout.Block (no import cycle)
    """Every piece of text a block puts into its fragment."""
    out = [block.text] if block.text else []
    d = block.data
    for row in d.get("rows") or []:
        out += [cell[0] if isinstance(cell, tuple) else str(cell) for cell in row]
    if d.get("text"):
        out.append(d["text"])
    return out


def missing(words: list[Word], blocks: list) -> list[Word]:
    """The words of ``words`` that no block's text accounts for.

    Tokens are matched as a multiset; a token the blocks lack may still be there split (a cell
    boundary through "a|b") or glued ("•" + "Budget"): those count when their characters are all
    in the blocks' text beyond what the matched tokens used.
    """
    have = tokens(t for b in blocks for t in block_texts(b))
    want = Counter(norm(w.text) for w in words)
    short: dict[str, int] = {}
    for tok, n in want.items():
        k = n - have.get(tok, 0)
        if k > 0:
            short[tok] = k
    if not short:
        return []
    # characters left over once the matched tokens are taken out: split or glued words
    spare = chars(t for b in blocks for t in block_texts(b))
    for tok, n in want.items():
        used = min(n, have.get(tok, 0))
        for ch in tok:
            if not ch.isspace():
                spare[ch] -= used
    lost: list[Word] = []
    left = dict(short)
    # pick the words of each short token that lie outside every block saying that token
    for w in sorted(words, key=lambda w: (w.y1, w.x1)):
        tok = norm(w.text)
        if left.get(tok, 0) <= 0:
            continue
        need = Counter(ch for ch in tok if not ch.isspace())
        if all(spare[ch] >= k for ch, k in need.items()):
            spare.subtract(need)  # there, only split or glued
            left[tok] -= 1
            continue
        lost.append(w)
        left[tok] -= 1
    return lost


def claim(words: list[Word], blocks: list, unit: float, where: str = "") -> list[str]:
    """Make sure every word in ``words`` is in some block; returns the page's warnings.

    Lost words become ``text`` blocks inserted in ``blocks`` where they sit in the reading order
    (before the first body block that starts below them, in the same column).
    """
    from pipelines.stages import layout  # layout imports nothing from here

    lost = missing(words, blocks)
    if not lost:
        return []
    n = len(lost)
    sample = " ".join(w.text for w in lost[:12])
    lost_words = f"{n} word{'s' if n != 1 else ''} of the text layer"
    verb = "were" if n != 1 else "was"
    tail = f": {sample}{' …' if n > 12 else ''}"
    if MODE == "raise":
        raise TextLost(f"{where + ': ' if where else ''}{lost_words} not placed by the layout{tail}")
    message = f"{lost_words} {verb} not placed by the layout and {verb} added as plain text{tail}"
    body = layout.body_size(words)
    new: list = []
    for leaf in layout.reading_order(list(lost), unit):
        ws = [w for w in leaf if isinstance(w, Word)]
        for b in layout.leaf_blocks(ws, body):
            b.kind = "text" if b.kind in ("page_header", "page_footer", "page_number") else b.kind
            b.data["recovered"] = True
            new.append(b)
    for b in new:
        _insert(blocks, b)
    return [message]


_MARGINS = ("page_header", "page_footer", "page_number")


def _insert(blocks: list, b) -> None:  # noqa: ANN001
    """Put ``b`` before the first body block that lies below it and overlaps it horizontally
    (or, failing that, before the footer)."""
    x1, y1, x2, _ = b.box
    at = None
    for i, o in enumerate(blocks):
        if o.kind in _MARGINS:
            continue
        if o.box[1] >= y1 - 1 and min(x2, o.box[2]) > max(x1, o.box[0]):
            at = i
            break
    if at is None:
        at = next((i for i, o in enumerate(blocks) if o.kind in ("page_footer", "page_number")
                   and i > 0 and o.box[1] > y1), len(blocks))
    blocks.insert(at, b)


__all__ = ["MODE", "TextLost", "block_texts", "chars", "claim", "missing", "set_mode", "strict",
           "tokens"]
