"""Scanned pages and images: denoise → deskew → (strike-through removal) → OCR → layout.

Works in pixels and converts to page units at the end (``units_per_px``: 72/dpi for a scanned
PDF page, whose page units are points; 1 for an image file, whose page units are pixels).
Boxes refer to the deskewed page.

* Isolated scanner specks are removed first (``images.despeckle``; a plain median would erase thin
  strokes).
* The skew is always measured and corrected (OCR quality depends on it), and pages scanned
  sideways or upside down are always turned upright (``orientation``: the page's own reading,
  then Tesseract's orientation detector, then trying every quarter turn). ``skew_detection``
  reports the total angle on the page: the quarter turn plus the skew, e.g. 92.5 for a page
  scanned a quarter turn counter-clockwise and 2.5° more. Boxes, width and height refer to the
  page turned upright (a sideways A4 scan comes back as a portrait page).
* Barcodes (``barcode_detection``), signatures (``signature_detection``) and pictures (always)
  become fixed regions in the reading order; whitespace tables come from the XY-cut and are
  read from its columns.
"""

from __future__ import annotations

import statistics

from PIL import Image

from pipelines.core.requests import ParsingOptions
from pipelines.stages import barcodes, marks, ocr, orientation, tables
from pipelines.stages.drafts import (
    PageDraft,
    drop_inside,
    mark_regions,
    scale_box,
    scale_words,
    strike_blocks,
)
from pipelines.stages.geometry import Word, inside, overlap
from pipelines.stages.images import despeckle, to_gray
from pipelines.stages.layout import Block, Region, layout_page


def _struck(words: list[Word], lines: list[tuple[float, float, float, float]]) -> set[int]:
    hit = set()
    for k, w in enumerate(words):
        for x1, y1, x2, y2 in lines:
            ly = (y1 + y2) / 2
            if w.y1 + 0.25 * w.h <= ly <= w.y2 - 0.15 * w.h and overlap(
                    (w.x1, w.y1, w.x2, w.y2), (x1, w.y1, x2, w.y2)) > 0.5 * (w.x2 - w.x1) * w.h:
                hit.add(k)
    return hit


def raster_page(img: Image.Image, number: int, units_per_px: float, dpi: float,
                opts: ParsingOptions, keep_image: bool) -> PageDraft:
    raw = to_gray(img)
    # Scanner speckle makes Tesseract read "." as ":" and split lines; isolated specks are
    # removed (images.despeckle), strokes a pixel wide are kept.
    gray = despeckle(raw)
    # pages scanned sideways or upside down are turned upright, whatever the options: a user who
    # sends a page turned over expects it read (skew_detection only reports the angle)
    up = orientation.upright(gray, raw)
    gray, turned, skew = up.image, up.turn, up.skew
    read = up.reading.words if ocr.engine_for(opts.ocr_model) == "tesseract" else None
    angle = round((skew + turned + 180) % 360 - 180, 2)  # in (-180, 180]
    found_codes = barcodes.find(gray) if opts.barcode_detection else []
    code_boxes = [c["box"] for c in found_codes]
    strikes = marks.strike_lines(gray, dpi, exclude=code_boxes) if opts.remove_strikethrough_lines else []
    # a weak Tesseract reading (ocr.weak) is read again by rapidocr unless the caller chose a model
    model = "model02" if opts.ocr_model in (None, "") and ocr.weak(up.reading) else opts.ocr_model
    if strikes or read is None or model != opts.ocr_model:  # else the orientation's reading is the page's
        # rapidocr reads the page as scanned (turned and levelled): the speckle filter that helps
        # Tesseract takes dots and thin strokes from its recogniser ("NO.5:" for "NO.53")
        page = orientation.same_way(raw, up) if ocr.engine_for(model) == "rapidocr" else gray
        words = ocr.read_words(marks.erase(page, strikes) if strikes else page, model)
    else:
        words = read
    words = drop_inside(ocr.joined_decimals(words), code_boxes)  # QR modules read as letters

    regions: list[Region] = mark_regions(found_codes, "barcode")
    if strikes:  # struck lines keep their place in the reading order
        hit = _struck(words, strikes)
        regions += [Region("strikethrough", *b.box, data={"text": b.text})
                    for b in strike_blocks([w for k, w in enumerate(words) if k in hit])]
        words = [w for k, w in enumerate(words) if k not in hit]
    if opts.signature_detection:
        # no text mask here: OCR reads a signature as a word or two, which would hide it
        sig = marks.signatures(gray, dpi, exclude=code_boxes)
        regions += [Region("signature", *b) for b in sig]
        words = drop_inside(words, sig)
    regions += _figures(gray, dpi, words, [*code_boxes, *[(r.x1, r.y1, r.x2, r.y2) for r in regions]])
    words = drop_inside(words, [(r.x1, r.y1, r.x2, r.y2) for r in regions if r.kind == "figure"])
    s = units_per_px
    words = scale_words(words, s)
    for r in regions:
        r.x1, r.y1, r.x2, r.y2 = scale_box((r.x1, r.y1, r.x2, r.y2), s)
    width, height = gray.size[0] * s, gray.size[1] * s
    draft = PageDraft(number, width, height, skew_angle=angle,
                      image=gray if keep_image else None, px_per_unit=1 / s, ocr=True)
    if opts.disable_layout_detection:
        draft.blocks = _text_only(words) + [Block(r.kind, (r.x1, r.y1, r.x2, r.y2), data=r.data)
                                            for r in regions]
    else:
        blocks = layout_page(words, regions, height)
        unit = statistics.median([w.h for w in words]) if words else 10.0
        for b in blocks:
            if b.kind == "text_table":
                cols = b.data.pop("columns", [])
                b.data["rows"] = tables.grid_from_columns(
                    [[w for w in c if isinstance(w, Word)] for c in cols], unit)
        draft.blocks = blocks
    return draft


def _figures(gray: Image.Image, dpi: float, words: list[Word], taken: list) -> list[Region]:
    """Pictures on the scan. OCR reads a solid area (a bar, a photo) as one giant "word": such
    words neither mask the picture nor stay in the text; words of normal height inside a
    picture are its labels."""
    if not words:
        return []
    unit = statistics.median(w.h for w in words)
    normal = [w for w in words if w.h <= 2.5 * unit]
    out = []
    width, height = gray.size
    for box in marks.figures(gray, dpi, [(w.x1, w.y1, w.x2, w.y2) for w in normal], exclude=taken):
        if any(overlap(box, t) > 0 for t in taken):
            continue
        edge = 0.01 * max(width, height)
        if box[1] <= edge and box[3] >= height - edge or box[0] <= edge and box[2] >= width - edge:
            continue  # from edge to edge of the image: the table or scanner lid around the page, not a picture
        g = 1.5 * unit  # small print just around it (axis labels) belongs to it too
        grown = (box[0] - g, box[1] - g, box[2] + g, box[3] + g)
        labels = [w for w in normal if inside((w.x1, w.y1, w.x2, w.y2), box)
                  or (w.h < 0.9 * unit and inside((w.x1, w.y1, w.x2, w.y2), grown))]
        if len(labels) > 0.5 * len(normal) and len(labels) >= 20:
            continue  # most of the page's text inside it: the table or scanner lid around a photographed page
        mine = {id(w) for w in labels}
        lines_out = {w.line for w in normal if id(w) not in mine and w.line >= 0}
        if sum(1 for w in labels if w.line in lines_out) >= 2:
            continue  # text lines run on out of it: the table's wood beside a photographed slip, not a picture
        text = " ".join(w.text for w in sorted(labels, key=lambda w: (round(w.cy / unit), w.x1)))
        if labels:
            box = (min(box[0], *(w.x1 for w in labels)), min(box[1], *(w.y1 for w in labels)),
                   max(box[2], *(w.x2 for w in labels)), max(box[3], *(w.y2 for w in labels)))
        out.append(Region("figure", *box, data={"text": text} if text else {}))
    return out


def _text_only(words: list[Word]) -> list[Block]:
    """``disable_layout_detection``: the OCR words as one text block, top to bottom."""
    from pipelines.stages.layout import group_lines, line_text

    if not words:
        return []
    lines = group_lines(words)
    box = (min(w.x1 for w in words), min(w.y1 for w in words),
           max(w.x2 for w in words), max(w.y2 for w in words))
    return [Block("text", box, "\n".join(line_text(line) for line in lines))]
