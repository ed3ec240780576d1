"""Right-to-left and bidirectional text: words and lines in logical order (the order typed).

Why a module of its own: the layout builds lines from boxes, left to right by x, which reads an
Arabic or Hebrew line backwards; and PDFium, which already gives each right-to-left word's
letters in logical order, reverses a ligature's letters with it ("إلى" reads "إىل"). The rules
here are a word-level subset of UAX #9 (the Unicode bidi algorithm) working from the visual
order of the page back to the logical one, with the standard library only:

* a line's base direction is right to left when its strong right-to-left letters (bidi class
  R or AL) are at least as many as its strong left-to-right ones (L), or when its paragraph's do (a line of
  a right-to-left paragraph that opens with a Latin word is still read right to left);
* in base order (right to left by x for an RTL line) a run of words of the other direction,
  with the numbers and punctuation between them, is read the other way (an English name in an
  Arabic line keeps its words left to right, and an Arabic phrase in an English line its);
Not done: a number joined by "-" right after Arabic text is an Arabic number (UAX #9 W2) shown
with its groups right to left, "2024-03-12" as "12-03-2024"; PDFium's page text has it so, and
it is the coverage check's reference, so the word stays as the text layer has it.

A line without right-to-left letters is left exactly as it was.

The PDF reader's first step lives here too, as the one place that knows in which order
PDFium's characters come: ``page_text`` maps PDFium's character indices to its page text, and
``fix_ligatures`` puts the letters of right-to-left ligatures back in order (moved out of
``pdf_text``, which keeps the words and their boxes).
"""

from __future__ import annotations

import ctypes
import re
import struct
import unicodedata
from collections.abc import Callable, Sequence

import pypdfium2 as pdfium
import pypdfium2.raw as raw

from pipelines.stages.geometry import Word

# the right-to-left blocks: Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic
# Extended, and the presentation forms (Hebrew, Arabic A and B); a cheap test before any other
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def has_rtl(text: str) -> bool:
    return _RTL.search(text) is not None


def strong(text: str) -> str:
    """The direction of the first strong character: "L", "R" (classes R and AL), "AL" for an
    Arabic letter, or "" when there is none (numbers, punctuation)."""
    for ch in text:
        c = unicodedata.bidirectional(ch)
        if c in ("L", "R", "AL"):
            return c
    return ""


def balance(words: Sequence[Word]) -> int:
    """Strong right-to-left letters minus strong left-to-right ones."""
    n = 0
    for w in words:
        if not has_rtl(w.text):
            n -= sum(1 for ch in w.text if ch.isalpha())
            continue
        for ch in w.text:
            c = unicodedata.bidirectional(ch)
            n += 1 if c in ("R", "AL") else -1 if c == "L" else 0
    return n


def paragraph_rtl(words: Sequence[Word]) -> bool:
    """Whether the paragraph (a block) reads right to left: more strong RTL letters than LTR."""
    return any(has_rtl(w.text) for w in words) and balance(words) >= 0


def logical_order(line: Sequence[Word], rtl: bool | None = None) -> list[Word]:
    """The words of one line in logical order. ``rtl``: the paragraph's direction (None:
    decided from this line). A line without right-to-left letters keeps its order by x."""
    words = sorted(line, key=lambda w: w.x1)
    if not any(has_rtl(w.text) for w in words):
        return words
    base_rtl = rtl if rtl is not None else balance(words) >= 0
    if base_rtl:
        words.reverse()
    kinds = ["R" if k == "AL" else k for k in (strong(w.text) for w in words)]
    other = "L" if base_rtl else "R"
    out: list[Word] = []
    i = 0
    while i < len(words):
        if kinds[i] != other:
            out.append(words[i])
            i += 1
            continue
        j = last = i  # the run of the other direction: to its last strong word of that kind
        while j + 1 < len(words) and kinds[j + 1] != ("R" if other == "L" else "L"):
            j += 1
            if kinds[j] == other:
                last = j
        out += words[i: last + 1][::-1]
        i = last + 1
    return out


def line_text(line: Sequence[Word], rtl: bool | None = None) -> str:
    """A line's text in logical order (see ``logical_order``)."""
    if not any(has_rtl(w.text) for w in line):
        return " ".join(w.text for w in sorted(line, key=lambda w: w.x1))
    return " ".join(w.text for w in logical_order(line, rtl))


def fix_ligatures(text: str, box: Callable[[int], tuple[float, float]]) -> str:
    """PDFium's page text with the letters of each right-to-left ligature glyph put back in
    order. PDFium reverses a right-to-left run character by character, so a lam-alef ligature
    whose ToUnicode says "لا" comes out "ال"; its letters share one box (``box(i)``: the left
    and right edge of character ``i``), which is how they are found."""
    if not has_rtl(text):
        return text
    chars = list(text)
    letter = [unicodedata.bidirectional(ch) in ("R", "AL") for ch in chars]
    changed = False
    i = 0
    while i < len(chars) - 1:
        if not (letter[i] and letter[i + 1]):
            i += 1
            continue
        b, j = box(i), i
        while j + 1 < len(chars) and letter[j + 1] and box(j + 1) == b:
            j += 1
        if j > i:
            chars[i: j + 1] = chars[i: j + 1][::-1]
            changed = True
        i = j + 1
    return "".join(chars) if changed else text


def mend_ltr_word(text: list[str], i: int, last: int, box: Callable[[int], tuple[float, float]],
                  x1: float, x2: float) -> tuple[float, float]:
    """A word without right-to-left letters on a page with some: PDFium may give its pieces
    in the wrong order ("report.pdf" read "pdf.report", the "." taken for a break in the run).
    Its characters (``text[i: last + 1]``, changed in place) are put in order by x, left to
    right; returns its left and right edge over all of them (not only the first and last)."""
    if any(_RTL.match(ch) for ch in text[i: last + 1]):
        return x1, x2
    ks = [k for k in range(i, last + 1) if text[k]]
    edges = {k: box(k) for k in ks}
    order = sorted(ks, key=lambda k: edges[k][0])
    if order != ks:
        chars = [text[k] for k in order]
        for k, ch in zip(ks, chars):
            text[k] = ch
    return min(e[0] for e in edges.values()), max(e[1] for e in edges.values())


def char_x(tp: pdfium.PdfTextPage, k: int, r: raw.FS_RECTF) -> tuple[float, float]:
    """The left and right edge of character ``k`` (``r``: a scratch rectangle)."""
    raw.FPDFText_GetLooseCharBox(tp, k, r)
    return r.left, r.right


def page_text(tp: pdfium.PdfTextPage, n: int) -> tuple[str | list[str], str]:
    """(the page's characters, one entry per PDFium character index; the page text itself).

    The page text (``FPDFText_GetText``, ``get_text_range``) leaves out what PDFium takes for
    control codes (a maths font's bracket pieces mapped to U+0002, …), shifting its indices off
    the boxes: each index is mapped to its place in the text, one left out reads "" (nothing,
    not a space). A character outside the BMP takes two indices: it is at the first, then ""."""
    buf = ctypes.create_string_buffer((n + 1) * 2)
    got = max(0, raw.FPDFText_GetText(tp, 0, n, ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort))) - 1)
    whole = buf.raw[: got * 2].decode("utf-16-le", errors="replace")
    if got == n and len(whole) == n:
        return whole, whole
    units = list(struct.unpack(f"<{got}H", buf.raw[: got * 2]))  # UTF-16 code units, as indexed
    if got != n:
        units = [units[k] if 0 <= k < got else -1
                 for k in (raw.FPDFText_GetTextIndexFromCharIndex(tp, i) for i in range(n))]
    out: list[str] = []
    i = 0
    while i < n:
        u = units[i]
        if 0xD800 <= u < 0xDC00 and i + 1 < n and 0xDC00 <= units[i + 1] < 0xE000:
            out += [chr(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)), ""]
            i += 2
            continue
        out.append("" if u < 0 else "\ufffd" if 0xD800 <= u < 0xE000 else chr(u))
        i += 1
    return out, whole
