"""Skew estimation and correction for scanned pages (OpenCV only).

Tesseract's layout analysis breaks down on pages rotated by even 2–3° (whole paragraphs go
missing), so every page is deskewed before OCR. The angle comes from ``minAreaRect`` on text
lines smeared into blobs (about 10 ms a page), refined by a projection-profile search in a
±0.6° window (text rows give the sharpest horizontal profile when level).

Angles are in degrees, counter-clockwise positive (the way ``PIL.Image.rotate`` turns): a page
scanned at +2.5° is corrected by rotating it by −2.5°.
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image

MAX_ANGLE = 15.0


def _binary(gray: np.ndarray) -> np.ndarray:
    _, bw = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return cv2.morphologyEx(bw, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))  # drop speckle noise


def _coarse(bw: np.ndarray) -> float | None:
    h, w = bw.shape
    kx = max(9, w // 40)
    blobs = cv2.dilate(bw, cv2.getStructuringElement(cv2.MORPH_RECT, (kx, 3)))
    blobs = cv2.erode(blobs, cv2.getStructuringElement(cv2.MORPH_RECT, (kx // 2, 5)))
    contours, _ = cv2.findContours(blobs, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    angles, weights = [], []
    for c in contours:
        (_, _), (rw, rh), a = cv2.minAreaRect(c)
        if rw < rh:
            rw, rh = rh, rw
            a -= 90
        if rw < w * 0.08 or rw < 4 * rh:
            continue
        a = ((a + 45) % 90) - 45  # OpenCV reports (0, 90]; fold onto (-45, 45]
        angles.append(-a)  # image y points down: flip to counter-clockwise positive
        weights.append(rw)
    if not angles:
        return None
    order = np.argsort(angles)
    cum = np.cumsum(np.asarray(weights)[order])
    return float(np.asarray(angles)[order][np.searchsorted(cum, cum[-1] / 2)])


def _profile_score(bw: np.ndarray, angle: float) -> float:
    h, w = bw.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    rot = cv2.warpAffine(bw, m, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    rows = rot.sum(axis=1, dtype=np.float64)
    return float(np.square(np.diff(rows)).sum())


def estimate(gray: np.ndarray) -> float:
    """The page's skew in degrees (counter-clockwise positive); 0.0 when it cannot be told."""
    scale = min(1.0, 1400 / max(gray.shape))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    bw = _binary(small)
    if bw.mean() < 0.5:  # blank page
        return 0.0
    coarse = _coarse(bw)
    if coarse is None or abs(coarse) > MAX_ANGLE:
        coarse = 0.0
    best, best_score = coarse, _profile_score(bw, -coarse)
    for step in (0.3, 0.1):
        for cand in (best - step, best + step, best - 2 * step, best + 2 * step):
            s = _profile_score(bw, -cand)
            if s > best_score:
                best, best_score = cand, s
    return round(best, 2)


def rotate(img: Image.Image, angle: float) -> Image.Image:
    """Rotate by ``angle`` degrees counter-clockwise, keeping the page size, white fill."""
    if abs(angle) < 0.05:
        return img
    arr = np.asarray(img)
    h, w = arr.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)  # OpenCV: positive = counter-clockwise
    fill = 255 if arr.ndim == 2 else (255,) * arr.shape[2]
    out = cv2.warpAffine(arr, m, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=fill)  # about 10× faster than PIL's bicubic rotate
    return Image.fromarray(out)


def deskew(img: Image.Image) -> tuple[Image.Image, float]:
    """``(level image, measured skew)``; the image is only rotated when the skew is real."""
    gray = np.asarray(img.convert("L"))
    angle = estimate(gray)
    return rotate(img, -angle), angle
