"""Marks on a page image: strike-through lines and handwritten signatures (OpenCV heuristics).

Both work on a grayscale page image at about 200 dpi; thresholds scale with ``dpi``.

* Strike-through: long thin horizontal strokes (morphological opening with a wide flat kernel)
  that have glyph ink hugging *both* sides over much of their length — an underline or a table
  rule has ink on one side at most. ``erase`` inpaints them away so OCR reads the struck words
  cleanly; callers then flag those words.
* Signature: after removing ruling lines and masking known text, ink components that are wide,
  not too tall, sparse (a pen stroke fills little of its box) and wavy. Tuned on synthetic
  signatures; treat a hit as "probably a signature".
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image

from pipelines.stages.geometry import Box


def _ink(gray: np.ndarray) -> np.ndarray:
    _, bw = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return bw


def strike_lines(img: Image.Image, dpi: float = 200, exclude: list[Box] | None = None) -> list[Box]:
    """Boxes (pixels) of strike-through strokes."""
    gray = np.asarray(img.convert("L"))
    bw = _ink(gray)
    k = max(20, int(60 * dpi / 200))
    horiz = cv2.morphologyEx(bw, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, 1)))
    contours, _ = cv2.findContours(horiz, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    reach = max(3, int(6 * dpi / 200))
    out: list[Box] = []
    for c in contours:
        x, y, w, h = cv2.boundingRect(c)
        if h > max(4, 6 * dpi / 200) or w < k:
            continue
        if exclude and any(ex[0] <= x + w / 2 <= ex[2] and ex[1] <= y + h / 2 <= ex[3] for ex in exclude):
            continue
        above = bw[max(0, y - reach):y, x:x + w]
        below = bw[y + h:y + h + reach, x:x + w]
        if above.size == 0 or below.size == 0:
            continue
        both = (above.max(axis=0) > 0) & (below.max(axis=0) > 0)
        if both.mean() > 0.35:
            out.append((float(x), float(y), float(x + w), float(y + h)))
    return out


def erase(img: Image.Image, lines: list[Box]) -> Image.Image:
    """Inpaint the given strokes (so the words under them read cleanly)."""
    if not lines:
        return img
    gray = np.asarray(img.convert("L")).copy()
    mask = np.zeros(gray.shape, np.uint8)
    for x1, y1, x2, y2 in lines:
        mask[int(y1) - 1:int(y2) + 2, int(x1):int(x2) + 1] = 255
    return Image.fromarray(cv2.inpaint(gray, mask, 3, cv2.INPAINT_TELEA))


def signatures(img: Image.Image, dpi: float = 200, text_boxes: list[Box] | None = None,
               exclude: list[Box] | None = None, work_dpi: float | None = None) -> list[Box]:
    """Boxes (pixels) of probable handwritten signatures; ``text_boxes`` and ``exclude`` (e.g.
    barcodes) are blanked out first. ``work_dpi`` runs the search on a reduced copy: 100 dpi is
    5× cheaper than 200 and finds the same signatures once the text is masked (digital pages);
    unmasked scans need the full 200 dpi to tell text lines from pen strokes."""
    if work_dpi and dpi > 1.2 * work_dpi:
        f = work_dpi / dpi
        small = img.convert("L").resize((max(1, round(img.width * f)), max(1, round(img.height * f))),
                                        Image.BILINEAR)
        scale = [tuple(v * f for v in b) for b in (text_boxes or [])]
        ex = [tuple(v * f for v in b) for b in (exclude or [])]
        found = signatures(small, work_dpi, scale, ex)  # type: ignore[arg-type]
        return [tuple(v / f for v in b) for b in found]  # type: ignore[misc]
    gray = np.asarray(img.convert("L")).copy()
    for x1, y1, x2, y2 in [*(text_boxes or []), *(exclude or [])]:
        gray[max(0, int(y1) - 1):int(y2) + 2, max(0, int(x1) - 1):int(x2) + 2] = 255
    bw = _ink(gray)
    s = dpi / 200
    long = max(20, int(60 * s))
    for kernel in ((long, 1), (1, long)):
        rules = cv2.morphologyEx(bw, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, kernel))
        bw = cv2.subtract(bw, cv2.dilate(rules, np.ones((3, 3), np.uint8)))
    closed = cv2.morphologyEx(bw, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    out: list[Box] = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if w <= 120 * s or not (25 * s < h < 250 * s) or w / max(h, 1) >= 12:
            continue
        comp = labels[y:y + h, x:x + w] == i
        ink = (bw[y:y + h, x:x + w] > 0) & comp
        fill = ink.sum() / float(w * h)
        if fill >= 0.2 or fill < 0.005:
            continue
        cols = np.where(ink.any(axis=0))[0]
        if len(cols) < w * 0.5:
            continue
        # a pen stroke wanders: the ink's centre line moves up and down along the component
        centres = np.array([np.nonzero(ink[:, c])[0].mean() for c in cols[:: max(1, len(cols) // 40)]])
        if centres.std() <= 5 * s:
            continue
        # text is many small glyphs side by side; a signature is a few long connected strokes
        sub_n, _, sub_stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        big = sum(1 for j in range(1, sub_n) if sub_stats[j][2] > 30 * s)
        if big == 0 or sub_n - 1 > 25:
            continue
        out.append((float(x), float(y), float(x + w), float(y + h)))
    return out


def figures(img: Image.Image, dpi: float = 200, text_boxes: list[Box] | None = None,
            exclude: list[Box] | None = None) -> list[Box]:
    """Boxes (pixels) of pictures on a scanned page: large ink regions that are not text (masked
    with ``text_boxes``), not ruling lines (removed) and not in ``exclude`` (barcodes, …)."""
    s = dpi / 200
    f = min(1.0, 100 / dpi)  # work at 100 dpi
    gray = img.convert("L")
    if f < 1:
        gray = gray.resize((max(1, round(gray.width * f)), max(1, round(gray.height * f))), Image.BILINEAR)
    arr = np.asarray(gray).copy()
    for x1, y1, x2, y2 in [*(text_boxes or []), *(exclude or [])]:
        arr[max(0, int(y1 * f) - 1):int(y2 * f) + 2, max(0, int(x1 * f) - 1):int(x2 * f) + 2] = 255
    bw = ((arr < 128) * 255).astype(np.uint8)  # fixed: Otsu on a nearly blank page picks noise
    long = max(15, int(60 * s * f))
    for kernel, thick in (((long, 1), (1, 5)), ((1, long), (5, 1))):
        rules = cv2.morphologyEx(bw, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, kernel))
        # only thin strokes are rules; a filled area (a bar, a photo) survives a thick opening
        solid = cv2.morphologyEx(rules, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, thick))
        bw = cv2.subtract(bw, cv2.dilate(cv2.subtract(rules, solid), np.ones((3, 3), np.uint8)))
    bw = cv2.morphologyEx(bw, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))  # leftover speckle
    closed = cv2.morphologyEx(bw, cv2.MORPH_CLOSE, np.ones((35, 35), np.uint8))  # bars → one chart
    n, labels, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    page = arr.shape[0] * arr.shape[1]
    out: list[Box] = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if w * h < 0.015 * page or h < 100 * s * f or w < 100 * s * f:
            continue
        ink = (bw[y:y + h, x:x + w] > 0).mean()
        if ink < 0.03:
            continue
        out.append((x / f, y / f, (x + w) / f, (y + h) / f))
    return out
