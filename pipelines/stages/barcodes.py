"""Barcodes and QR codes on a page image (zxing-cpp): value, format and box.

zxing-cpp reads 1-D codes (Code128, Code39, EAN/UPC, ITF, …) and 2-D codes (QR, DataMatrix,
PDF417, Aztec, …). Boxes are returned in page units (``scale`` = page units per pixel).
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from pipelines.stages.geometry import Box


def find(img: Image.Image, scale: float = 1.0) -> list[dict[str, Any]]:
    """``[{"value", "format", "box"}]`` for every valid code on the image."""
    import zxingcpp

    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for r in zxingcpp.read_barcodes(img.convert("L")):
        if not r.valid or not r.text:
            continue
        fmt = str(r.format).split(".")[-1]
        if (r.text, fmt) in seen:
            continue
        seen.add((r.text, fmt))
        p = r.position
        xs = [p.top_left.x, p.top_right.x, p.bottom_left.x, p.bottom_right.x]
        ys = [p.top_left.y, p.top_right.y, p.bottom_left.y, p.bottom_right.y]
        box: Box = (min(xs) * scale, min(ys) * scale, max(xs) * scale, max(ys) * scale)
        out.append({"value": r.text, "format": fmt, "box": box})
    return out
