"""OCR engines: page image → words with boxes (pixels, top-left origin).

Two engines ship with docklake, both fully offline:

* **tesseract** through tesserocr (libtesseract bundled in the wheel; English model from the
  Debian package ``tesseract-ocr-eng``, in ``TESSDATA``). Fast (about 1 s a page at 200 dpi) and
  very accurate on deskewed Latin-script text. The default.
* **rapidocr** 3.x (PP-OCRv6 detection/recognition ONNX models shipped inside its wheel, run by
  onnxruntime). Slower (5–10 s a page) but reads Chinese and mixed scripts and rotated lines.

The SDK's ``ocr_model`` values map to engines as follows:

============  ==========  =====================================================================
ocr_model     engine      why
============  ==========  =====================================================================
(unset)       tesseract   the default
``model01``   tesseract   fast Latin-script OCR
``model02``   rapidocr    multilingual / CJK / rotated text
``model03``   rapidocr    (same; Tensorlake's third model is its heavier one)
``gemini3``   tesseract   no hosted VLM here: the most accurate local engine for English
============  ==========  =====================================================================

With ``skew_detection``, pages scanned sideways or upside down are turned upright first
(``orientation``), by Tesseract's orientation detector (``osd``: Debian ``tesseract-ocr-osd``,
in the same language data) checked by Tesseract's own reading of the page (``tesseract_reading``:
how many words read as sure, dictionary-like words), whichever engine then reads the page.

Reading order is *not* taken from the engine: words go back through ``layout`` (XY-cut), as
Tesseract's own order breaks on multi-column pages.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from pipelines.stages.geometry import Word

_TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata/", "/usr/share/tesseract-ocr/4.00/tessdata/",
                  "/usr/share/tessdata/")
# Where Debian's tesseract-ocr-* packages put the language data.
TESSDATA = next((d for d in _TESSDATA_DIRS if os.path.isdir(d)), _TESSDATA_DIRS[0])
_tessdata = TESSDATA  # use_tessdata() changes it for the document being converted
ENGINES = {None: "tesseract", "": "tesseract", "model01": "tesseract", "model02": "rapidocr",
           "model03": "rapidocr", "gemini3": "tesseract"}

_local = threading.local()
_rapid_lock = threading.Lock()  # one shared engine (its models take ~1 GB), one page at a time
_rapid = None


def engine_for(ocr_model: str | None) -> str:
    return ENGINES.get(ocr_model, "tesseract")


def use_tessdata(path: str | None) -> None:
    """Read Tesseract's language data from ``path`` (``None``: Debian's location)."""
    global _tessdata
    _tessdata = str(path) if path else TESSDATA


def _tess_api(attr: str, make):  # type: ignore[no-untyped-def]
    """The thread's Tesseract handle ``attr``, made again when the language data moved."""
    held = getattr(_local, attr, None)
    if held is None or held[0] != _tessdata:
        if not os.path.isdir(_tessdata):
            raise RuntimeError(f"Tesseract's language data is not at {_tessdata} (DOCKLAKE_OCR__TESSDATA_DIR; "
                               "Debian's tesseract-ocr-eng installs it)")
        held = (_tessdata, make())
        setattr(_local, attr, held)
    return held[1]


def _tess():
    return _tess_api("tess", _new_tess)


def _new_tess():  # type: ignore[no-untyped-def]
    import tesserocr

    # SPARSE_TEXT: find as much text as possible, in no particular order (order comes from
    # ``layout``); AUTO drops lone table cells. No inverted-text retries (about 20% faster).
    api = tesserocr.PyTessBaseAPI(path=_tessdata, lang="eng", psm=tesserocr.PSM.SPARSE_TEXT,
                                  oem=tesserocr.OEM.LSTM_ONLY)
    api.SetVariable("tessedit_do_invert", "0")
    return api


def _new_osd():  # type: ignore[no-untyped-def]
    import tesserocr

    api = tesserocr.PyTessBaseAPI(path=_tessdata, lang="osd", psm=tesserocr.PSM.OSD_ONLY)
    # OSD classifies up to 5× this many letters; most of its time goes there. Tesseract's 50:
    # 0.30 s a page, sure and right on 57 of 60 benchmark pages; 15: 0.12 s, 49 of 60 sure and
    # right, and its guess right on the other 11 too (the caller then checks it by reading)
    api.SetVariable("min_characters_to_try", "15")
    return api


def osd(img: Image.Image) -> tuple[int, float] | None:
    """``(turn, confidence)`` from Tesseract's orientation detector (Debian ``tesseract-ocr-osd``):
    how far the page's text is turned, counter-clockwise, in quarter turns (0, 90, 180, 270);
    ``None`` when it cannot tell (a blank page, too few letters). At a confidence of 2 and
    more it was never wrong on ``bench/orientation.py``'s pages.

    Give it the page before any median filter, at full resolution: on a 150 dpi scan the filter
    thins the strokes enough to make it unsure or wrong (11 of the 60 pages, against 3
    unfiltered, at Tesseract's default settings); scaling the page down to 1000 pixels loses
    most of its sure answers and saves a fifth of its time.

    Without ``osd.traineddata`` in the language data (a ``DOCKLAKE_OCR__TESSDATA_DIR`` holding
    ``eng`` alone) it cannot tell either, and the page's reading decides alone."""
    try:
        api = _tess_api("osd", _new_osd)
    except RuntimeError:  # "Failed to init API": no osd.traineddata there
        return None
    api.SetImage(img)
    try:
        res = api.DetectOrientationScript()
    except RuntimeError:  # "Couldn't detect orientation": not enough text
        return None
    if not res:
        return None
    # orient_deg is how far to turn the page counter-clockwise to make it upright
    return (360 - int(res["orient_deg"])) % 360, float(res.get("orient_conf", 0.0))


@dataclass
class Reading:
    """Tesseract's words for a page, and how many of them are ``sure``: read with confidence
    80 or more and shaped like a dictionary word (three letters or more, lower case after the
    first, or all capitals). Upright text reads mostly as sure words (a quarter to all of them
    on the benchmark pages); text turned sideways or upside down as almost none (at most one
    in seven), which is how ``orientation`` tells a page that needs turning."""

    words: list[Word] = field(default_factory=list)
    sure: int = 0
    confidence: float = 100.0  # Tesseract's mean text confidence (0-100) for the page


_PUNCT = ".,;:!?()[]{}\"'‘’“”«»-–—"


def _wordlike(text: str) -> bool:
    core = text.strip(_PUNCT)
    return len(core) >= 3 and core.isalpha() and (core[1:].islower() or core.isupper())


def tesseract_reading(img: Image.Image) -> Reading:
    """Words with boxes; each word takes its text line's height, so lines look like PDF lines."""
    import tesserocr

    api = _tess()
    api.SetImage(img)
    api.Recognize()
    it = api.GetIterator()
    out = Reading(confidence=float(api.MeanTextConf()))
    if it is None:
        return out
    line_box = None
    line = -1
    level = tesserocr.RIL.WORD
    while True:
        if it.IsAtBeginningOf(tesserocr.RIL.TEXTLINE):
            line_box = it.BoundingBox(tesserocr.RIL.TEXTLINE)
            line += 1
        # ruling lines read as "|" (table borders on scans) are not text
        try:
            text = (it.GetUTF8Text(level) or "").strip().strip("|¦").strip()
        except RuntimeError:  # "No text returned": an empty element, as on a blank page
            text = ""
        box = it.BoundingBox(level)
        conf = it.Confidence(level)
        if text and box and conf > 20:
            x1, y1, x2, y2 = box
            if line_box:
                y1, y2 = min(y1, line_box[1]), max(y2, line_box[3])
            out.words.append(Word(text, float(x1), float(y1), float(x2), float(y2), float(y2 - y1), line=line))
            out.sure += conf >= 80 and _wordlike(text)
        if not it.Next(level):
            break
    return out


def tesseract_words(img: Image.Image) -> list[Word]:
    return tesseract_reading(img).words


def _rapidocr():
    global _rapid
    if _rapid is None:
        from rapidocr import RapidOCR

        # no line-orientation classifier: pages are deskewed already, and it flips some
        # upright English lines by 180° (they then read as gibberish)
        # boxes grown a little more than its default (1.6) around each detected line: the small
        # detector's tight boxes cut a line's first or last character off on receipts
        _rapid = RapidOCR(params={"Global.log_level": "error", "Global.use_cls": False, "Det.unclip_ratio": 2.0})
    return _rapid


_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _latin_forms(text: str) -> str:
    """A line without Chinese, Japanese or Korean characters with the full-width punctuation and
    letters that rapidocr's Chinese-trained model reads ("Date ：07/05/2024", "（M）") as ASCII."""
    if _CJK.search(text):
        return text
    return "".join(chr(ord(ch) - 0xFEE0) if "\uff01" <= ch <= "\uff5e" else ch for ch in text)


def rapidocr_words(img: Image.Image) -> list[Word]:
    """Lines from rapidocr, split into words in proportion to their characters. A line comes as
    a quadrilateral along its baseline; each word's box is the strip of it over the word (a
    skewed line's upright bounding box would cover the lines above and below it)."""
    with _rapid_lock:
        res = _rapidocr()(np.asarray(img.convert("RGB")))
    boxes = getattr(res, "boxes", None)
    txts = getattr(res, "txts", None)
    words: list[Word] = []
    if boxes is None or txts is None:
        return words
    for n, (quad, text) in enumerate(zip(boxes, txts)):
        tl, tr, br, bl = np.asarray(quad, dtype=float)[:4]
        text = " ".join(_latin_forms(str(text)).split())
        if not text:
            continue
        pos = 0
        for tok in text.split(" "):
            a, b = pos / len(text), (pos + len(tok)) / len(text)  # the word's share of the line
            top = [tl + (tr - tl) * f for f in (a, b)]
            bottom = [bl + (br - bl) * f for f in (a, b)]
            xs = [p[0] for p in top + bottom]
            y1, y2 = min(p[1] for p in top), max(p[1] for p in bottom)
            words.append(Word(tok, float(min(xs)), float(y1), float(max(xs)), float(y2), float(y2 - y1), line=n))
            pos += len(tok) + 1
    return words


# Below this mean confidence Tesseract's reading of a page is weak (small print in light ink,
# receipts from thermal printers, photographed pages): clean scans read at 90-96, the SROIE
# receipts at 52-87. Such a page is read again by rapidocr, which is 3-4 CPU-s a page where
# Tesseract takes 0.3-0.6 but finds far more words (the receipts' key words: 0.87 → 0.97).
WEAK_READING = 80.0


def weak(reading: Reading) -> bool:
    return reading.confidence < WEAK_READING and len(reading.words) > 0


# An amount OCR split at its decimal point: "73." and "00" a space apart, as dot-matrix and
# thermal printers' wide points read. Only where an amount stands: after a currency, or last on
# its line (a street's "Lot 38. 39 Boulevard" is no amount).
_UNITS = re.compile(r"(?:=?(?:RM|S?\$|[€£]))?-?\d{1,3}(?:,\d{3})*\d*\.")
_CENTS = re.compile(r"\d{2}(?![\d.,])\)?")
_CURRENCY = re.compile(r"=?(?:RM|S?\$|[€£]|EUR|USD|GBP|MYR|SGD)")


def _same_line(a: Word, b: Word) -> bool:
    return a.line == b.line if a.line >= 0 else min(a.y2, b.y2) - max(a.y1, b.y1) > 0.5 * a.h


def joined_decimals(words: list[Word]) -> list[Word]:
    """``words`` (in the engine's order) with "73." + "00" on one line, at most a character
    cell apart, after a currency or last on the line, read as the one amount "73.00"."""
    out: list[Word] = []
    for k, w in enumerate(words):
        a = out[-1] if out else None
        if (a is not None and _UNITS.fullmatch(a.text) and _CENTS.fullmatch(w.text) and _same_line(a, w)
                and -0.2 * a.h <= w.x1 - a.x2 <= 0.8 * max(a.h, w.h)
                and (not a.text[0].isdigit() or len(out) > 1 and _CURRENCY.fullmatch(out[-2].text)
                     or k + 1 == len(words) or not _same_line(w, words[k + 1]))):
            out[-1] = Word(a.text + w.text, min(a.x1, w.x1), min(a.y1, w.y1), max(a.x2, w.x2), max(a.y2, w.y2),
                           a.size, a.bold, a.line)
        else:
            out.append(w)
    return out


def read_words(img: Image.Image, ocr_model: str | None) -> list[Word]:
    if engine_for(ocr_model) == "rapidocr":
        return rapidocr_words(img)
    return tesseract_words(img)
