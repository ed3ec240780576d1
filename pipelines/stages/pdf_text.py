"""Digital PDF pages → words with boxes, ruling lines and picture regions (pypdfium2).

Words are the text layer's own, split at its spaces (and at a gap that has none: ``word_gaps``),
so they are the words the coverage check holds the layout to. Speed matters (≥ 20 pages/s/core
with layout and tables): the page text is read in one call, and each word's font is asked of its
first character only.

Boxes are in points with a top-left origin, relative to the crop box and turned by the page's
``/Rotate``, i.e. in the coordinates of the page as a viewer shows it (the PDF's y axis flipped).
"""

from __future__ import annotations

import bisect
import ctypes
import re
import threading

import pypdfium2 as pdfium
import pypdfium2.raw as raw

from pipelines.core.errors import CorruptDocument, EmptyDocument, EncryptedDocument
from pipelines.stages import bidi
from pipelines.stages.bidi import page_text as _page_text
from pipelines.stages.geometry import PageContent, Rule, Word
from pipelines.stages.word_gaps import HYPHEN as _HYPHEN
from pipelines.stages.word_gaps import glyph_boxes as _glyph_boxes
from pipelines.stages.word_gaps import split_on_gaps as _split_on_gaps
from pipelines.stages.word_gaps import token as _token

# PDFium is not thread-safe and jobs run in worker threads: every call into it holds this lock
# (OCR and layout run outside it).
PDFIUM_LOCK = threading.RLock()

_SPACES = frozenset(" \t\r\n\x00\xa0\u2002\u2003\u2009\uffff")


def open_pdf(data: bytes) -> pdfium.PdfDocument:
    """Open a PDF or raise a ``DocumentError`` that says what is wrong with it."""
    try:
        with PDFIUM_LOCK:
            doc = pdfium.PdfDocument(data)
            if len(doc) == 0:
                doc.close()
                raise EmptyDocument("the PDF has no pages")
            if doc.get_formtype() != raw.FORMTYPE_NONE:
                doc.init_forms()  # before any page is loaded: field values, rendered fields
    except pdfium.PdfiumError as exc:
        # PDFium opens files that only have an owner password; this one needs a user password.
        if "password" in str(exc).lower() and b"/Encrypt" in data:
            raise EncryptedDocument("the PDF is encrypted and needs a password") from exc
        if re.search(rb"/Count\s+0\b", data):
            raise EmptyDocument("the PDF has no pages") from exc
        raise CorruptDocument(f"the PDF is damaged or truncated and cannot be read ({exc})") from exc
    return doc


def read_words(page: pdfium.PdfPage, left: float, top: float, meta: dict | None = None,
               rules: list[Rule] | None = None) -> list[Word]:
    """Words in unrotated page space, top-left origin at (``left``, ``top``) of the crop box.

    A word runs between two spaces of the text layer (the producer's, and PDFium's where a gap
    is wide for the font); PDFium's hyphen breaking a word across lines (U+FFFE) ends it, as
    "-", and so does a vertical rule drawn between two of its glyphs (cells set without padding
    or a space: ``NameRead-only``). ``meta`` gets the page text (``text_layer``) and words cut
    at a column gap (``split_words``)."""
    walls = sorted(((r.x1 + r.x2) / 2, r.y1, r.y2) for r in rules or () if r.vertical and r.x2 - r.x1 <= 2)
    wall_xs = [w[0] for w in walls]
    tp = page.get_textpage()
    try:
        n = tp.count_chars()
        text, whole = _page_text(tp, n) if n > 0 else ("", "")
        r = raw.FS_RECTF()
        rtl = text is whole and bidi.has_rtl(whole)  # text is not whole: indices shifted, leave as is
        if rtl:  # RTL ligatures' letters back in order; LTR words among RTL ones mended below
            text = list(whole := bidi.fix_ligatures(whole, lambda k: bidi.char_x(tp, k, r)))
        if meta is not None:
            meta["text_layer"], meta["split_words"] = whole, []
        words: list[Word] = []
        name = ctypes.create_string_buffer(96)
        flags = ctypes.c_int()
        fonts: dict[str, bool] = {}
        tr, box = tp.raw, raw.FPDFText_GetLooseCharBox  # (the handle itself: each call is made per word)
        i = 0
        while i < n:
            if text[i] in _SPACES or not text[i]:
                i += 1
                continue
            j = i
            while j + 1 < n and text[j + 1] not in _SPACES and text[j] != _HYPHEN:
                j += 1
            last = j
            while not text[last]:
                last -= 1  # a character PDFium left out of the text: not part of the box
            if last != i:  # the box of the first and last glyphs, asked with the others' once
                glyphs = _glyph_boxes(tr, text, i, last, r)
                _, lefts, rights, tops, bottoms = glyphs
                x1, x2 = min(lefts[0], lefts[-1]), max(rights[0], rights[-1])
                t, b = max(tops[0], tops[-1]), min(bottoms[0], bottoms[-1])
                if rtl:
                    x1, x2 = bidi.mend_ltr_word(text, i, last, lambda k: bidi.char_x(tp, k, r), x1, x2)
            else:
                glyphs = None
                box(tr, i, r)
                x1, x2, t, b = r.left, r.right, r.top, r.bottom
            size = raw.FPDFText_GetFontSize(tr, i)
            raw.FPDFText_GetFontInfo(tr, i, name, 96, flags)
            fname = name.value.decode("latin-1", "replace")
            bold = fonts.get(fname)
            if bold is None:
                low = fname.lower()
                bold = fonts[fname] = "bold" in low or "black" in low or "heavy" in low
            mid = top - (t + b) / 2
            across = [x for x, y1, y2 in walls[bisect.bisect_right(wall_xs, x1 - left):bisect.bisect_left(wall_xs, x2 - left)]
                      if y1 < mid < y2] if walls and last != i else []
            whole = _token(text[i: last + 1])
            found = _split_on_gaps(text, i, last, whole, x1 - left, top - t, x2 - left, top - b, size, glyphs, left,
                                   across)
            if meta is not None and (len(found) > 1 or found[0][0] != whole):
                meta["split_words"].append((whole, [w[0] for w in found]))
            words += [Word(tok, a, top - t, z, top - b, size, bold) for tok, a, z in found if tok]
            i = j + 1
        if rtl and meta is not None:
            meta["text_layer"] = "".join(text)
        return _undoubled(words, meta)
    finally:
        tp.close()


def _undoubled(words: list[Word], meta: dict | None) -> list[Word]:
    """The words without their doubles: a word drawn again over itself (a box's content placed
    twice, poor man's bold), which PDFium keeps twice ("Datos del cliente Datos del cliente"),
    is one word, as a reader sees it. The coverage invariant is told (``split_words``: the
    double has no parts)."""
    out: list[Word] = []
    seen: dict[str, list[Word]] = {}
    for w in words:
        tol = 0.25 * max(w.size, w.y2 - w.y1, 1.0)
        same = seen.setdefault(w.text, [])
        if any(abs(o.x1 - w.x1) < tol and abs(o.y1 - w.y1) < tol for o in same):
            if meta is not None:
                meta["split_words"].append((_token(w.text), []))
            continue
        same.append(w)
        out.append(w)
    return out


def read_graphics(page: pdfium.PdfPage, left: float, top: float, content: PageContent) -> None:
    """Ruling lines, picture boxes and other drawn shapes (curves) of one page."""
    tones: list[tuple[float, tuple[float, float, float, float]]] = []  # filled boxes: lightness, box
    for obj in page.get_objects(filter=(raw.FPDF_PAGEOBJ_PATH, raw.FPDF_PAGEOBJ_IMAGE), max_depth=3):
        try:
            x0, y0, x1, y1 = _page_bounds(obj)
        except pdfium.PdfiumError:
            continue
        box = (x0 - left, top - y1, x1 - left, top - y0)
        w, h = x1 - x0, y1 - y0
        if obj.type == raw.FPDF_PAGEOBJ_IMAGE:
            if w >= 16 and h >= 16:
                content.pictures.append(box)
            continue
        if w <= 3 or h <= 3:
            content.rules.append(Rule(*box))
            continue
        nseg = raw.FPDFPath_CountSegments(obj)
        if nseg <= 5 and _is_rect(obj, nseg):
            fill, stroke = ctypes.c_int(), ctypes.c_int()
            raw.FPDFPath_GetDrawMode(obj, ctypes.byref(fill), ctypes.byref(stroke))
            if stroke.value:
                x1, y1, x2, y2 = box
                content.rules += [Rule(x1, y1, x2, y1), Rule(x1, y2, x2, y2),
                                  Rule(x1, y1, x1, y2), Rule(x2, y1, x2, y2)]
            elif w * h < 0.5 * content.width * content.height:  # not a page background
                content.curves.append(box)
                content.meta.setdefault("fills", []).append(box)  # shaded rows, listing backgrounds
                if fill.value:
                    tones.append((_lightness(obj), box))
            continue
        content.curves.append(box)
    content.rules += cell_edges(tones)


def _lightness(obj: pdfium.PdfObject) -> float:
    """0 for black, 1 for white; 0.5 (neither) when PDFium cannot tell the fill's colour."""
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    if not raw.FPDFPageObj_GetFillColor(obj, *(ctypes.byref(v) for v in (r, g, b, a))):
        return 0.5
    return (r.value + g.value + b.value) / 765


def cell_edges(tones: list[tuple[float, tuple[float, float, float, float]]]) -> list[Rule]:
    """The borders of cells drawn as boxes of the paper's colour laid over a dark box (how
    LibreOffice prints an HTML table with a border and cell spacing): the dark shows between
    them as lines, so each light box inside a dark one gives its four edges as rules."""
    dark = [b for t, b in tones if t < 0.4]
    out: list[Rule] = []
    for t, (x1, y1, x2, y2) in tones:
        if t > 0.9 and any(d[0] < x1 and d[1] < y1 and x2 < d[2] and y2 < d[3] for d in dark):
            out += [Rule(x1, y1, x2, y1), Rule(x1, y2, x2, y2), Rule(x1, y1, x1, y2), Rule(x2, y1, x2, y2)]
    return out


def _page_bounds(obj: pdfium.PdfObject) -> tuple[float, float, float, float]:
    """An object's bounds on the page: PDFium gives those of an object inside a form XObject in
    the form's own space, so each enclosing form's matrix is applied (a chart drawn as a form
    would otherwise land at the page's corner, as rules of a table that is not there)."""
    box = obj.get_bounds()
    form = obj.container
    while form is not None:
        box = form.get_matrix().on_rect(*box)
        form = form.container
    return box


def drawing_regions(content: PageContent, min_parts: int = 3, min_share: float = 0.01,
                    limit: int = 1500) -> list[tuple[float, float, float, float]]:
    """Vector figures: clusters of drawn shapes (curves, filled boxes, and the rules touching
    them, e.g. chart axes) that hold at least one shape that is not a rule and together cover
    at least ``min_share`` of the page."""
    items = [(b, True) for b in content.curves] + [((r.x1, r.y1, r.x2, r.y2), False) for r in content.rules]
    if not content.curves or len(items) > limit:
        return []
    gap = 6.0
    clusters = [[b, 1, int(shape)] for b, shape in items]  # [box, parts, shapes]
    merged = True
    while merged:
        merged = False
        out: list[list] = []
        for cl in clusters:
            b = cl[0]
            for o in out:
                u = o[0]
                if b[0] <= u[2] + gap and u[0] <= b[2] + gap and b[1] <= u[3] + gap and u[1] <= b[3] + gap:
                    o[0] = (min(u[0], b[0]), min(u[1], b[1]), max(u[2], b[2]), max(u[3], b[3]))
                    o[1] += cl[1]
                    o[2] += cl[2]
                    merged = True
                    break
            else:
                out.append(cl)
        clusters = out
    page = content.width * content.height
    return [u for u, parts, shapes in clusters
            if shapes and parts >= min_parts and (u[2] - u[0]) * (u[3] - u[1]) >= min_share * page]


def _is_rect(obj, nseg: int) -> bool:
    for k in range(nseg):
        seg = raw.FPDFPath_GetPathSegment(obj, k)
        if raw.FPDFPathSegment_GetType(seg) == raw.FPDF_SEGMENT_BEZIERTO:
            return False
    return True


def read_page(doc: pdfium.PdfDocument, index: int, graphics: bool = True, turn: bool = True) -> PageContent:
    """Words, rules and pictures of one page, as displayed (after ``/Rotate``); with
    ``turn=False`` in the page's own, unrotated space (``meta["rotation"]`` says how to turn a
    box from there to the display: ``(degrees, width, height)`` for ``turn_box``)."""
    with PDFIUM_LOCK:
        return _read_page(doc, index, graphics, turn)


def _read_page(doc: pdfium.PdfDocument, index: int, graphics: bool, turn: bool = True) -> PageContent:
    page = doc[index]
    try:
        width, height = page.get_size()  # as displayed, i.e. after /Rotate
        left, bottom, right, top = page.get_cropbox()
        content = PageContent(number=index + 1, width=width, height=height)
        if graphics:  # (first: a cell's border cuts a word the text layer ran across it)
            read_graphics(page, left, top, content)
        content.words = read_words(page, left, top, content.meta, content.rules)
        if doc.formenv is not None:
            content.meta["fields"] = read_fields(doc, page, left, top)
        rotation = page.get_rotation() % 360
        content.meta["rotation"] = (rotation, right - left, top - bottom)
        if rotation and turn:
            _rotate(content, rotation, right - left, top - bottom)
        elif rotation:
            content.width, content.height = right - left, top - bottom
        return content
    finally:
        page.close()


_CHECKABLE = (raw.FPDF_FORMFIELD_CHECKBOX, raw.FPDF_FORMFIELD_RADIOBUTTON)


def _wide(fn, *args) -> str:
    n = fn(*args, None, 0)
    if n <= 2:
        return ""
    buf = ctypes.create_string_buffer(n)
    fn(*args, ctypes.cast(buf, ctypes.POINTER(raw.FPDF_WCHAR)), n)
    return buf.raw[: n - 2].decode("utf-16-le", errors="replace")


def read_fields(doc: pdfium.PdfDocument, page: pdfium.PdfPage, left: float, top: float) -> list[dict]:
    """AcroForm widgets on the page: ``{"key", "value", "type", "box"}``. Their values live in
    the form, not in the page text. Checkboxes and radio buttons read "checked"/"unchecked"."""
    env = doc.formenv
    out = []
    for i in range(raw.FPDFPage_GetAnnotCount(page)):
        annot = raw.FPDFPage_GetAnnot(page, i)
        try:
            if raw.FPDFAnnot_GetSubtype(annot) != raw.FPDF_ANNOT_WIDGET:
                continue
            ftype = raw.FPDFAnnot_GetFormFieldType(env, annot)
            key = (_wide(raw.FPDFAnnot_GetFormFieldAlternateName, env, annot)
                   or _wide(raw.FPDFAnnot_GetFormFieldName, env, annot))
            if ftype in _CHECKABLE:
                value = "checked" if raw.FPDFAnnot_IsChecked(env, annot) else "unchecked"
            else:
                value = _wide(raw.FPDFAnnot_GetFormFieldValue, env, annot)
            r = raw.FS_RECTF()
            if not raw.FPDFAnnot_GetRect(annot, r):
                continue
            box = (min(r.left, r.right) - left, top - max(r.top, r.bottom),
                   max(r.left, r.right) - left, top - min(r.top, r.bottom))
            out.append({"key": key, "value": value, "type": int(ftype), "box": box})
        finally:
            raw.FPDFPage_CloseAnnot(annot)
    return out


def turn_box(b: tuple[float, float, float, float], rotation: int, w0: float, h0: float):
    """A box from unrotated page space to the page as displayed."""
    return _turn(b, rotation, w0, h0) if rotation else b


def text_turn(doc: pdfium.PdfDocument, index: int, sample: int = 60) -> int:
    """How far to turn the page clockwise (90 or 270) for its text to run left to right, from
    the angle of its characters (0 when most are upright or the angle is unclear)."""
    import math
    from collections import Counter

    with PDFIUM_LOCK:
        page = doc[index]
        try:
            tp = page.get_textpage()
            try:
                n = tp.count_chars()
                step = max(1, n // sample)
                angles = Counter(round(math.degrees(raw.FPDFText_GetCharAngle(tp, i)) / 90) % 4
                                 for i in range(0, n, step) if raw.FPDFText_GetUnicode(tp, i) > 32)
            finally:
                tp.close()
        finally:
            page.close()
    if not angles:
        return 0
    quarter, count = angles.most_common(1)[0]
    if count < 0.6 * sum(angles.values()):
        return 0
    return {3: 90, 1: 270}.get(quarter, 0)  # PDFium's angle 270: the text reads upwards


def turn_content(content: PageContent, rotation: int) -> None:
    """Turn everything on the page clockwise by ``rotation`` (90 or 270) in place."""
    _rotate(content, rotation, content.width, content.height)
    content.width, content.height = content.height, content.width


def sideways(words: list[Word]) -> bool:
    """Whether most of the text runs up or down the page (words taller than wide)."""
    long = [w for w in words if len(w.text) >= 3]
    return len(long) >= 5 and sum(1 for w in long if (w.y2 - w.y1) > 1.5 * (w.x2 - w.x1)) > 0.6 * len(long)


def _turn(b: tuple[float, float, float, float], rotation: int, w0: float, h0: float):
    """A box from unrotated page space to the page as displayed (``/Rotate`` is clockwise)."""
    x1, y1, x2, y2 = b
    if rotation == 90:
        return (h0 - y2, x1, h0 - y1, x2)
    if rotation == 180:
        return (w0 - x2, h0 - y2, w0 - x1, h0 - y1)
    return (y1, w0 - x2, y2, w0 - x1)  # 270


def _rotate(content: PageContent, rotation: int, w0: float, h0: float) -> None:
    for w in content.words:
        w.x1, w.y1, w.x2, w.y2 = _turn((w.x1, w.y1, w.x2, w.y2), rotation, w0, h0)
    for ru in content.rules:
        ru.x1, ru.y1, ru.x2, ru.y2 = _turn((ru.x1, ru.y1, ru.x2, ru.y2), rotation, w0, h0)
    content.pictures = [_turn(p, rotation, w0, h0) for p in content.pictures]
    content.curves = [_turn(p, rotation, w0, h0) for p in content.curves]
    if "fills" in content.meta:
        content.meta["fills"] = [_turn(p, rotation, w0, h0) for p in content.meta["fills"]]
    for f in content.meta.get("fields", []):
        f["box"] = _turn(f["box"], rotation, w0, h0)
