"""Where one token of a PDF's text layer holds more than one word: the gaps between its glyphs.

PDFium puts a space in its page text where a gap is wide for the font, but not everywhere a
reader sees one: cells placed in a column without a space between them, and words some
producers set apart with character spacing on a string that spans two of them (Ghostscript
printing groff: "resolvethis"). ``split_on_gaps`` parts such a token, and leaves whole a word
whose own letter spacing, kerning or logo glyphs (the XeTeX logo's reversed E, set back over
the gap between X and T) make gaps of their own.
"""

from __future__ import annotations

import itertools
import unicodedata

import pypdfium2.raw as raw

HYPHEN = "\ufffe"  # PDFium: a hyphen breaking a word at the end of a line


# invisible marks some producers put between letters (Google Docs: "INVOICE\u200b: NO. 001"): no
# character of the word, and matching "INVOICE:" must see none
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u2060\ufeff"))


def token(chars: str | list[str]) -> str:
    out = "".join(chars).replace(HYPHEN, "-")
    if out.isascii():
        return out
    out = out.translate(INVISIBLE)
    if out.isascii():
        return out
    # ligatures and full-width forms expanded (NFKC); superscripts, subscripts, ordinals and
    # fractions kept as printed: "m²" is not "m2", "3º 2ª" not "3o 2a", "½" not "1⁄2"
    return "".join(run if kept else unicodedata.normalize("NFKC", run)
                   for kept, chars in itertools.groupby(out, key=lambda ch: unicodedata.decomposition(ch).startswith(KEPT))
                   for run in ["".join(chars)])


KEPT = ("<super>", "<sub>", "<fraction>")


WORD_GAP = 0.2  # ems: a gap this wide between two glyphs of one token is a word space the layer left out


def glyph_boxes(tp, text, i: int, last: int, r) -> tuple[range | list[int], list[float], list[float],
                                                        list[float], list[float]]:
    """The glyphs of the token ``text[i:last + 1]`` (the indices of those with a character) and
    their loose boxes' left, right, top and bottom edges in PDF space: one call a glyph, made
    once for both the token's box and its gaps."""
    ks = range(i, last + 1) if isinstance(text, str) else [k for k in range(i, last + 1) if text[k]]
    lefts, rights, tops, bottoms = [], [], [], []
    get = raw.FPDFText_GetLooseCharBox
    for k in ks:
        get(tp, k, r)
        lefts.append(r.left)
        rights.append(r.right)
        tops.append(r.top)
        bottoms.append(r.bottom)
    return ks, lefts, rights, tops, bottoms


def split_on_gaps(text, i: int, last: int, whole: str, x1: float, y1: float, x2: float, y2: float, size: float,
                  glyphs: tuple | None, left: float, walls: list[float] | None = None) -> list[tuple[str, float, float]]:
    """The words of the token ``text[i:last + 1]`` with their left and right edges. A token wider
    than its characters can be has no space in a column gap (cells placed without one, or letter
    spacing): split it where a gap is wider than 0.6 em and stands out from the token's letter
    spacing (a tracked "W I D E" stays whole). Any other token is split at a gap of a word space
    (``WORD_GAP``) that also stands out from its letter spacing. The em is the font size or, when
    the text matrix scales a unit-size font (Type 3 ones report size 1), the boxes' height.
    ``whole``: the token as read (``token``); ``glyphs``: its ``glyph_boxes`` (``None`` for one
    glyph). ``walls``: the x of vertical rules across the token's line, a cut wherever one runs
    between two glyphs."""
    em = max(size, y2 - y1)
    if last - i < 1:
        return [(whole, x1, x2)]
    wide = (x2 - x1) >= (last - i + 1) * em * 1.2
    assert glyphs is not None
    ks, lefts, rights, tops, bottoms = glyphs
    lefts = [a - left for a in lefts]
    rights = [a - left for a in rights]
    widest = max(0.0, max(a - b for a, b in zip(lefts[1:], rights))) if len(ks) > 1 else 0.0
    # a glyph drawn again a fraction of a point off itself (a browser's text shadow:
    # "ddoouubbllee") is one letter, as a reader sees it; the letters of a ligature ("ff") share
    # one box exactly, and those of a line set upright each have their own height: they stay
    twice = {m for m in range(1, len(ks)) if text[ks[m]] == text[ks[m - 1]] and ks[m] == ks[m - 1] + 1
             and abs(lefts[m] - lefts[m - 1]) < 0.25 * max(rights[m - 1] - lefts[m - 1], 0.1)
             and abs(tops[m] - tops[m - 1]) < 0.25 * max(tops[m - 1] - bottoms[m - 1], 0.1)
             and (abs(tops[m] - tops[m - 1]) > 0.05 or abs(lefts[m] - lefts[m - 1]) > 0.05)}
    # no gap between two glyphs as wide as a word space: no cut (no cut's gap is wider than the
    # two glyphs' own), unless a rule parts the token
    if not twice and not walls and widest <= WORD_GAP * em:
        return [(whole, x1, x2)]
    if twice:
        ks, lefts, rights = ([v[m] for m in range(len(ks)) if m not in twice] for v in (ks, lefts, rights))
        if len(ks) == 1:
            return [(token([text[ks[0]]]), x1, x2)]
    gaps = [lefts[m] - rights[m - 1] for m in range(1, len(ks))]
    usual = sorted(gaps)[(len(gaps) - 1) // 2] if len(gaps) >= 3 else 0.0  # its letter spacing
    if wide:
        cut = [m for m in range(1, len(ks)) if gaps[m - 1] > max(0.6 * em, usual + 0.4 * em)]
    else:  # words set without a space between them ("anyother"): a gap of a word space
        solid = [rights[m] - lefts[m] > 0.1 * em for m in range(len(ks))]  # a glyph with no box says no gap
        # the gap between everything before and everything after: a glyph set back over others
        # (the reversed E of the XeTeX logo, drawn after the T) closes it
        after = list(itertools.accumulate(reversed(lefts), min))[::-1]  # min left from m on
        before = list(itertools.accumulate(rights, max))  # max right up to m
        space = [after[m] - before[m - 1] for m in range(1, len(ks))]
        cut = [m for m in range(1, len(ks)) if space[m - 1] > max(WORD_GAP * em, usual + 0.15 * em)
               and solid[m - 1] and solid[m] and ks[m] == ks[m - 1] + 1]  # (a glyph left out fills a gap)
    if walls:  # a vertical rule between two glyphs: a cell's border, which no word crosses
        cut = sorted({*cut, *(m for m in range(1, len(ks))
                              if any(rights[m - 1] - 0.5 <= x <= lefts[m] + 0.5 for x in walls))})
    if not cut:
        return [(token([text[k] for k in ks]) if twice else whole, x1, x2)]
    if twice:
        return [(token([text[k] for k in ks[a:z]]), lefts[a], rights[z - 1]) for a, z in zip([0, *cut], [*cut, len(ks)])]
    return [(token(text[ks[a]: ks[z - 1] + 1]), lefts[a], rights[z - 1])
            for a, z in zip([0, *cut], [*cut, len(ks)])]
