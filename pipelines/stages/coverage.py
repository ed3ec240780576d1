"""No word of a page's text layer is ever dropped, cut in two or glued to another: the check at
the end of the layout stage.

Why words and not characters: a word cut by a stray space ("i nput fi le") or glued to its
neighbour still has all its characters, so a character count cannot see it; a reader, a search
index and an embedding all do. So ``claim`` compares the *words* of the page's text layer
(PDFium's page text, the reference: whitespace-split, in the form ``norm`` gives) with the words
of every block's text (text blocks, table cells, figure text, strike-throughs, headers and
footers), as multisets ("the" twice needs two). Only two cuts are the engine's on purpose, and
count as kept: a text-layer word the PDF reader split at a column gap (``split_words``, from
``pdf_text``), and a word whose pieces end one table cell and start the next one (a cell
boundary through "13.65" that the text layer had glued).

A word no block holds whole is lost. A lost word that the reader has as a ``Word`` comes back
as a plain text block placed in reading order where it sits, with a warning for the page; one
that is only there cut or glued cannot be put back, and is reported in the warning.

``MODE`` says what to do on a loss: ``"recover"`` (the default: rescue the words, warn) or
``"raise"`` (the test suite: a regression anywhere fails loudly). Set it with ``set_mode`` or,
for a block of code, ``strict()``; the stages never read the environment.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from pipelines.stages.geometry import Word

MODE = "recover"
_MODES = ("recover", "raise")
# left out of words: soft hyphens, zero-width space and no-break, word joiner; PDFium's page
# text: NUL and U+FFFF are not text (the reader splits words there), U+FFFE is a hyphen that
# breaks a word at the end of a line (the reader ends the word there, with "-")
_REPLACE = (("\u00ad", ""), ("\u200b", ""), ("\ufeff", ""), ("\u2060", ""), ("\x00", " "),
            ("\uffff", " "), ("\ufffe", "- "))


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
    """The form words are compared in: NFKC (ligatures and full-width forms expanded), no soft
    hyphens or zero-width characters, PDFium's line-end hyphen as "-" ending its word."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    for ch, by in _REPLACE:
        if ch in text:  # rare: far cheaper than a translate() of every page
            text = text.replace(ch, by)
    return text


def chars(texts: Iterable[str]) -> Counter[str]:
    """Non-space characters of ``texts`` (NFKC), as a multiset."""
    c: Counter[str] = Counter()
    for t in texts:
        c.update(ch for ch in norm(t) if not ch.isspace())
    return c


def tokens(texts: Iterable[str]) -> Counter[str]:
    """The whitespace-split words of ``texts`` (NFKC first: it may turn a character into two,
    or into a space), as a multiset."""
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


def reference(words: list[Word], text_layer: str | None = None,
              split_words: Sequence[tuple[str, list[str]]] = ()) -> Counter[str]:
    """The words the blocks must hold: the text layer's, with each word the reader split at a
    column gap counted as its parts; without a text layer (OCR), the reader's words."""
    if text_layer is None:
        return tokens(w.text for w in words)
    ref = tokens([text_layer])
    for whole, parts in split_words:
        ref.subtract(tokens([whole]))
        ref.update(tokens(parts))
    return +ref


def short(ref: Counter[str], blocks: list) -> Counter[str]:
    """The words of ``ref`` that no block holds whole (a multiset)."""
    lack = ref - tokens(t for b in blocks for t in block_texts(b))
    for b in blocks if lack else ():
        for row in b.data.get("rows") or []:
            _cell_joins([norm(c[0] if isinstance(c, tuple) else str(c)).split() for c in row], lack)
    return +lack


def _cell_joins(cells: list[list[str]], lack: Counter[str]) -> None:
    """Count as there the words a row cuts at cell boundaries: the last word of a cell joined
    with the first of the next ones (through cells of a single word)."""
    for a, cell in enumerate(cells):
        if not cell:
            continue
        word = cell[-1]
        for nxt in cells[a + 1:]:
            if not nxt:
                break
            word += nxt[0]
            if lack.get(word, 0) > 0:
                lack[word] -= 1
                break
            if len(nxt) > 1:
                break


def missing(words: list[Word], blocks: list, text_layer: str | None = None,
            split_words: Sequence[tuple[str, list[str]]] = ()) -> tuple[list[Word], Counter[str]]:
    """(the reader's words to add back, the text-layer words lost with no word to add back:
    cut in two or glued in the blocks' text, or never read)."""
    lack = short(reference(words, text_layer, split_words), blocks)
    if not lack:
        return [], lack
    placed = {id(w) for b in blocks for w in b.words}
    lost: list[Word] = []
    # the reader's words that no block placed (one that a block placed is there, only cut)
    for w in sorted((w for w in words if id(w) not in placed), key=lambda w: (w.y1, w.x1)):
        toks = tokens([w.text])
        if toks and all(lack.get(t, 0) >= k for t, k in toks.items()):
            lack.subtract(toks)
            lost.append(w)
    return lost, +lack


def claim(words: list[Word], blocks: list, unit: float, where: str = "", text_layer: str | None = None,
          split_words: Sequence[tuple[str, list[str]]] = ()) -> list[str]:
    """Make sure every word of the text layer (``text_layer``; else ``words``) is in some block
    whole; returns the page's warnings.

    Lost words that the reader has (``words``) become ``text`` blocks inserted in ``blocks``
    where they sit in the reading order (before the first body block that starts below them, in
    the same column); the others are only named in the warning.
    """
    from pipelines.stages import layout  # layout imports nothing from here

    lost, cut = missing(words, blocks, text_layer, split_words)
    if not lost and not cut:
        return []
    sample = " ".join([w.text for w in lost[:12]] + list(cut.elements())[:12 - min(12, len(lost))])
    n = len(lost) + sum(cut.values())
    lost_words = f"{n} word{'s' if n != 1 else ''} of the text layer"
    tail = f": {sample}{' …' if n > 12 else ''}"
    if MODE == "raise":
        raise TextLost(f"{where + ': ' if where else ''}{lost_words} not placed whole by the layout{tail}")
    messages = []
    if lost:
        k = len(lost)
        verb = "were" if k != 1 else "was"
        messages.append(f"{k} word{'s' if k != 1 else ''} of the text layer {verb} not placed by the layout "
                        f"and {verb} added as plain text: {' '.join(w.text for w in lost[:12])}"
                        f"{' …' if k > 12 else ''}")
    if cut:
        k = sum(cut.values())
        messages.append(f"{k} word{'s' if k != 1 else ''} of the text layer "
                        f"{'are' if k != 1 else 'is'} not whole in the output (cut or glued): "
                        f"{' '.join(list(cut.elements())[:12])}{' …' if k > 12 else ''}")
    body = layout.body_size(words)
    new: list = []
    for leaf in layout.reading_order(list(lost), unit) if lost else ():
        ws = [w for w in leaf if isinstance(w, Word)]
        for b in layout.leaf_blocks(ws, body):
            b.kind = "text" if b.kind in ("page_header", "page_footer", "page_number") else b.kind
            b.data["recovered"] = True
            new.append(b)
    for b in new:
        _insert(blocks, b)
    return messages


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


__all__ = ["MODE", "TextLost", "block_texts", "chars", "claim", "missing", "norm", "reference", "set_mode",
           "short", "strict", "tokens"]
