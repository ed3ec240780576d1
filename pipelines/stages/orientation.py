"""Pages scanned sideways or upside down: the quarter turn that makes the text upright.

Why: Tesseract reads only upright text. A page fed into the scanner turned by 90°, 180° or 270°
comes back as a few letters of garbage, and nothing says that anything went wrong.

How (``bench/orientation.py`` measures it on real and generated pages, every quarter turn):

1. **Tesseract's orientation detector** (OSD, ``ocr.osd``: 0.12 s a page at 200 dpi) names a
   turn, sure or not. The page is turned that way, deskewed (the small remaining angle, as on
   any scan) and read; that reading is the page's, so the OCR is not done twice.
2. **The reading checks the turn.** Upright text reads mostly as sure, dictionary-like words
   (``ocr.Reading.sure``: a quarter of the words or more on every benchmark page); text turned
   the wrong way almost never does (at most one word in seven). When OSD was sure, or the page
   reads as upright text, that is the answer: one OSD and one reading, the normal case.
3. **When neither is**, the other turns are read too, as scanned first, stopping at the first
   that reads as upright text, and the turn with the most sure words is kept — only when it
   clearly beats the page as scanned, so a page without text (a photo, a blank page) is never
   turned at random. A turn OSD was sure of but that reads badly (a page of numbers) is kept
   unless the page as scanned reads better.

The turn is found with Tesseract whichever engine reads the page. rapidocr's own text-line
classifier (``use_cls``) is no substitute: it turns lines, not pages, knows 0° and 180° only,
and on the benchmark's first three pages lifted its recall at 90° and 180° from 0.26 to
0.71–0.79 (upright: 0.97) while costing upright lines a little (see ``ocr``).
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from pipelines.stages import deskew, ocr

TURNS = (0, 90, 180, 270)
OSD_SURE = 2.0  # OSD confidence from which its turn is taken without trying the others
SURE_SHARE = 0.25  # share of sure words from which a reading is upright text
SURE_MIN = 5  # ... and at least this many (a label or two prove nothing)
# the text turned counter-clockwise by the key is made upright by this (lossless) transpose
_BACK = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}


@dataclass
class Upright:
    image: Image.Image  # the page turned upright and deskewed
    turn: int  # how far the text was turned counter-clockwise (0, 90, 180, 270); undone in ``image``
    skew: float  # the small skew corrected after the turn (degrees, counter-clockwise positive)
    reading: ocr.Reading  # Tesseract's reading of ``image``
    how: str  # what decided: "osd" (sure), "read" (the page read as upright text), "tried" (turns)


def reads_upright(r: ocr.Reading) -> bool:
    return r.sure >= SURE_MIN and r.sure >= SURE_SHARE * len(r.words)


def turned(gray: Image.Image, turn: int) -> Image.Image:
    """``gray`` with text turned counter-clockwise by ``turn`` made upright."""
    return gray.transpose(_BACK[turn]) if turn else gray


def same_way(img: Image.Image, up: Upright) -> Image.Image:
    """``img`` (the page as ``up`` was made from it, e.g. before denoising) turned and levelled
    as ``up.image`` is: the same pixels' places, so boxes read on either fit both."""
    return deskew.rotate(turned(img, up.turn), -up.skew)


def _read(gray: Image.Image, turn: int, how: str) -> Upright:
    level, skew = deskew.deskew(turned(gray, turn))
    return Upright(level, turn, skew, ocr.tesseract_reading(level), how)


def upright(gray: Image.Image, raw: Image.Image | None = None) -> Upright:
    """The page made upright and level, with its reading. ``gray`` is what OCR reads (denoised);
    ``raw`` the page before denoising, for OSD (see ``ocr.osd``), when it differs."""
    guess = ocr.osd(raw if raw is not None else gray)
    turn = guess[0] if guess is not None else 0
    sure = guess is not None and guess[1] >= OSD_SURE
    first = _read(gray, turn, "osd" if sure else "read")
    if reads_upright(first.reading) or (sure and turn == 0):
        return first
    if sure:
        scanned = _read(gray, 0, "osd")
        return scanned if scanned.reading.sure > first.reading.sure else first
    seen = {turn: first}
    best = first
    for t in TURNS:
        if t in seen:
            continue
        seen[t] = cand = _read(gray, t, "tried")
        if cand.reading.sure > best.reading.sure:
            best = cand
        if reads_upright(cand.reading):
            break
    scanned = seen[0]
    if best is not scanned and best.reading.sure < 2 * scanned.reading.sure + 3:
        best = scanned  # no turn clearly reads better: the page stays as it came
    best.how = "tried"
    return best
