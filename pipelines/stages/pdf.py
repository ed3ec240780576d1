"""PDF documents: each selected page is read as digital text, or OCR'd when it is a scan.

Only pages inside ``page_range`` are opened, read or rendered (``PageRange.pages`` walks the
spans; nothing is expanded). A page whose text layer is (nearly) empty and that is covered by a
picture is a scan, and so is a page whose text has no usable Unicode mapping (``garbled``): it
is rendered at 200 dpi and goes through ``scan.raster_page``.

Digital pages: words (``pdf_text``) → strike-through marks → form fields, ruled tables,
pictures and vector drawings, barcodes and signatures as fixed regions → ``layout`` (XY-cut
reading order, block types) → table cells, from the page's own rules and words (``grid``) →
the coverage check: every word of the text layer is in some block, whole, or is added back as
text with a warning (``coverage``). A page turned by ``/Rotate`` whose text then runs sideways is
laid out in the text's own orientation. ``disable_layout_detection`` skips all of that and returns the page text in
content-stream order as one text fragment.
A page that fails records an ``ErrorItem`` for that page; the others go on.
"""

from __future__ import annotations

import bisect
import statistics

from pipelines.core.models import DocumentResult
from pipelines.core.requests import ParsingOptions
from pipelines.stages import (
    barcodes,
    coverage,
    layout,
    marks,
    pdf_marks,
    pdf_text,
    scan,
    table_regions,
    tables,
)
from pipelines.stages.band_rules import TABLE_CAPTION
from pipelines.stages.drafts import (
    PageDraft,
    drop_inside,
    finish,
    mark_regions,
    page_failed,
    seal,
    strike_blocks,
)
from pipelines.stages.geometry import PageContent, Word, inside, overlap
from pipelines.stages.images import OCR_DPI, render_pdf_page
from pipelines.stages.layout import Block, Region, layout_page
from pipelines.stages.pagerange import selected_pages

RASTER_DPI = 200  # digital pages, rendered only when an option needs pixels (1-D codes need 200)


def load(result: DocumentResult) -> None:
    inp = result.input
    opts = inp.parsing
    doc = pdf_text.open_pdf(inp.data)
    try:
        with pdf_text.PDFIUM_LOCK:
            total = len(doc)
        result.total_pages = total
        numbers = selected_pages(inp.page_range, total)
        drafts: list[PageDraft] = []
        for n in numbers:
            try:
                full = inp.enrichment.include_full_page_image
                drafts.append(seal(_page(doc, n - 1, opts, full), opts.include_images, full))
            except coverage.TextLost:
                raise  # strict mode (the test suite): a lost word fails the whole conversion
            except Exception as exc:  # noqa: BLE001 - one bad page must not sink the document
                page_failed(result, n, exc)
        finish(result, drafts, opts)
    finally:
        with pdf_text.PDFIUM_LOCK:
            doc.close()


def garbled(words: list[Word]) -> bool:
    """Text without a usable Unicode mapping (Type 3 or subset fonts lacking ToUnicode): most
    characters come out as replacement, private-use or control code points."""
    chars = "".join(w.text for w in words)
    if len(chars) < 20:
        return False
    bad = sum(1 for ch in chars if ch in "\ufffd\ufffe" or "\ue000" <= ch <= "\uf8ff" or ch < " ")
    return bad > 0.3 * len(chars)


def _is_scan(pc: PageContent) -> bool:
    if garbled(pc.words):
        return True  # unreadable text layer: read the page as an image instead
    if len(pc.words) >= 3:
        return False
    area = pc.width * pc.height
    return any(overlap(p, (0, 0, pc.width, pc.height)) > 0.5 * area for p in pc.pictures)


def _page(doc, index: int, opts: ParsingOptions, full_image: bool) -> PageDraft:
    if opts.disable_layout_detection and not (opts.barcode_detection or opts.signature_detection):
        return _fast_page(doc, index, opts, full_image)
    pc = pdf_text.read_page(doc, index)
    turned = None
    if pc.meta["rotation"][0] and pdf_text.sideways(pc.words):
        # a page turned for display (/Rotate) whose text runs sideways on screen: lay it out in
        # the text's own orientation, and turn the boxes to the displayed page at the end
        own = pdf_text.read_page(doc, index, turn=False)
        if not pdf_text.sideways(own.words):
            turned, display = own.meta["rotation"], (pc.width, pc.height)
            pc = own
    elif pdf_text.sideways(pc.words) and (quarter := pdf_text.text_turn(doc, index)):
        # content set sideways on an upright page (a landscape table): the same, turning the
        # page by the angle of its characters
        display = (pc.width, pc.height)
        pdf_text.turn_content(pc, quarter)
        turned = ((360 - quarter) % 360, pc.width, pc.height)
    if _is_scan(pc):
        img = render_pdf_page(doc, index, OCR_DPI)
        return scan.raster_page(img, index + 1, pc.width / img.width, 72 * img.width / pc.width,
                                opts, keep_image=full_image or opts.include_images)
    # A barcode or a signature on a digital page is drawn (paths) or placed (an image): a page
    # with neither cannot hold one, and skips the raster search.
    drawn = bool(pc.curves or pc.pictures)
    want_codes = opts.barcode_detection and (drawn or bool(pc.rules))
    want_sigs = opts.signature_detection and drawn
    needs_pixels = want_codes or want_sigs or (opts.include_images and bool(pc.pictures or pc.curves)) \
        or full_image
    color = opts.include_images or full_image  # images handed back keep their colours
    image = render_pdf_page(doc, index, RASTER_DPI, grayscale=not color) if needs_pixels else None
    px = image.width / (display[0] if turned else pc.width) if image is not None else RASTER_DPI / 72
    draft = PageDraft(index + 1, pc.width, pc.height, image=image, px_per_unit=px)

    pdf_marks.mark_strikethrough(pc)
    struck = set(pc.meta.get("struck", []))
    words = pc.words
    regions: list[Region] = []
    if opts.remove_strikethrough_lines and struck:
        # struck lines keep their place in the reading order, as strikethrough fragments
        regions += [Region("strikethrough", *b.box, data={"text": b.text})
                    for b in strike_blocks([w for k, w in enumerate(words) if k in struck])]
        words = [w for k, w in enumerate(words) if k not in struck]
    if image is not None and want_codes:
        codes = barcodes.find(image, scale=1 / px)
        regions += mark_regions(codes, "barcode")
    if image is not None and want_sigs:
        boxes = [(w.x1 * px, w.y1 * px, w.x2 * px, w.y2 * px) for w in pc.words]
        for b in marks.signatures(image, 72 * px, text_boxes=boxes, work_dpi=100):
            regions.append(Region("signature", *(v / px for v in b)))
    if opts.disable_layout_detection:
        draft.blocks = _stream_blocks(doc, index) + [
            Block(r.kind, (r.x1, r.y1, r.x2, r.y2), data=r.data) for r in regions]
        return draft

    # a filled box with words on it is a background (a shaded table row, a code listing on a
    # tint, a slide's block): the words are read as they would be without it, never as a figure
    fills = pc.meta.get("fills", [])
    if fills:
        shaded = _shades(fills, words)
        pc.curves = [c for c in pc.curves if c not in shaded]
    # form fields: their values are not in the page text; they read as key/value regions
    regions += [Region("key_value_region", *f["box"], data={"key": f["key"], "value": f["value"]})
                for f in pc.meta.get("fields", [])]
    for box in table_regions.ruled_regions(pc.rules, words):
        mine = [r for r in pc.rules if inside((r.x1, r.y1, r.x2, r.y2), box, 3)]
        regions.append(Region("table", *box, data={"ruled": True, "rules": mine}))
    fixed = [(r.x1, r.y1, r.x2, r.y2) for r in regions]
    page_area = pc.width * pc.height
    body = layout.body_size(words)
    drawings = pdf_text.drawing_regions(pc)
    for pic in [*pc.pictures, *drawings]:
        if (pic[2] - pic[0]) * (pic[3] - pic[1]) > 0.6 * page_area:
            continue  # a page-sized picture is a background (a scan under its OCR text layer)
        if _mostly_text(pic, words, body) or pic in drawings and _boxed_text(pic, words, pc.curves):
            # running text over it: drawn shapes strung together across prose, or a picture
            # whose bounds run far past what its clip shows: the words are body text
            continue
        if not any(overlap(pic, f) > 0 for f in fixed):
            regions.append(Region("figure", *pic))
            fixed.append(pic)
    # words inside a figure, or small print just around it (axis labels, legends), belong to
    # the figure, not to the body text
    taken: set[int] = set()
    for r in regions:
        if r.kind != "figure":
            continue
        grown = (r.x1 - 14, r.y1 - 14, r.x2 + 14, r.y2 + 14)
        mine = [w for w in words if id(w) not in taken and (
                inside((w.x1, w.y1, w.x2, w.y2), (r.x1, r.y1, r.x2, r.y2))
                or (w.size < body * 0.9 and inside((w.x1, w.y1, w.x2, w.y2), grown)))]
        taken.update(id(w) for w in mine)
        if mine:
            r.data["text"] = " ".join(w.text for w in sorted(mine, key=lambda w: (round(w.cy), w.x1)))
            r.x1, r.y1 = min(r.x1, *(w.x1 for w in mine)), min(r.y1, *(w.y1 for w in mine))
            r.x2, r.y2 = max(r.x2, *(w.x2 for w in mine)), max(r.y2, *(w.y2 for w in mine))
    kept = words
    # a figure holds exactly the words it took (its box then grew around them: a word of the
    # text next to it may now lie inside the box, and stays text); other regions hold theirs
    words = [w for w in drop_inside(words, [(r.x1, r.y1, r.x2, r.y2) for r in regions if r.kind != "figure"])
             if id(w) not in taken]
    blocks = layout_page(words, regions, pc.height, text_layer=True)
    unit = statistics.median([w.h for w in kept]) if kept else 10.0
    _read_tables(blocks, kept, unit)
    # the invariant: every word of the text layer is in some block, whole, or is added back as text
    draft.warnings += coverage.claim(pc.words, blocks, unit, where=f"page {index + 1}",
                                     text_layer=pc.meta.get("text_layer"),
                                     split_words=pc.meta.get("split_words", ()))
    if turned is not None:
        _turn_blocks(blocks, *turned)
        draft.width, draft.height = display
    draft.blocks = blocks
    return draft


def _turn_blocks(blocks: list[Block], rotation: int, w0: float, h0: float) -> None:
    """Boxes laid out in the page's own space → the page as displayed."""
    for b in blocks:
        b.box = pdf_text.turn_box(b.box, rotation, w0, h0)
        for row in b.data.get("rows") or []:
            row[:] = [(t, pdf_text.turn_box(box, rotation, w0, h0) if box else None) for t, box in row]


def _mostly_text(box, words: list[Word], body: float) -> bool:
    """Whether running text (body-size words) fills more than a tenth of ``box``: a figure
    region that large over prose is decoration strung together (margin marks, frames, a
    subfigure's drawings chained to another's) or a clipped picture's full bounds, and its
    words are body text."""
    area = (box[2] - box[0]) * (box[3] - box[1])
    ink = sum((w.x2 - w.x1) * (w.y2 - w.y1) for w in words
              if w.size >= 0.9 * body and inside((w.x1, w.y1, w.x2, w.y2), box))
    return area > 0 and ink > area / 10


def _boxed_text(box, words: list[Word], curves: list) -> bool:
    """Whether the drawn shapes of ``box`` are boxes around its words: most of its words (at
    least two) each lie in a shape no taller than five times their height: a table or a form drawn
    as cell boxes (an HTML table printed by a browser engine), not a figure. A chart's bars and
    legend keys sit beside their labels, not around them."""
    mine = [w for w in words if inside((w.x1, w.y1, w.x2, w.y2), box)]
    if len(mine) < 2:
        return False
    cells = [c for c in curves if inside(c, box, 1)]
    held = sum(1 for w in mine if any(c[0] - 1 <= w.x1 and w.x2 <= c[2] + 1 and c[1] - 1 <= w.y1 and w.y2 <= c[3] + 1
                                      and c[3] - c[1] <= 5 * (w.y2 - w.y1) for c in cells))
    return held >= 0.6 * len(mine)


def _shades(fills: list, words: list[Word]) -> set:
    """Filled boxes under words, and the strips that continue them (a listing's tinted
    margins above and below its lines)."""
    centres = sorted(((w.y1 + w.y2) / 2, (w.x1 + w.x2) / 2) for w in words)
    ys = [c[0] for c in centres]
    shaded = {b for b in fills
              if any(b[0] <= x <= b[2] for _, x in centres[bisect.bisect_left(ys, b[1]):bisect.bisect_right(ys, b[3])])}
    grew = True
    while grew:
        grew = False
        for b in fills:
            if b in shaded:
                continue
            for s in shaded:
                ov = min(b[2], s[2]) - max(b[0], s[0])
                if ov > 0.5 * min(b[2] - b[0], s[2] - s[0]) and b[1] <= s[3] + 1.5 and s[1] <= b[3] + 1.5:
                    shaded.add(b)
                    grew = True
                    break
    return shaded


def _read_tables(blocks: list[Block], words: list[Word], unit: float) -> None:
    """Cells for every table block. A reader that leaves words of the region out of its cells
    (rows merged into one cell, or no cells at all) does not get the last word: the next reader
    is tried, and when none holds every word the region is read as text blocks instead."""
    out: list[Block] = []
    for b in blocks:
        if b.kind not in ("table", "text_table"):
            out.append(b)
            continue
        ruled = b.kind == "table"
        cols = b.data.pop("columns", None)
        mine = [w for w in words if inside((w.x1, w.y1, w.x2, w.y2), b.box)] if ruled else \
            [w for c in cols or [] for w in c if isinstance(w, Word)]
        lines = layout.group_lines(mine)
        if not ruled and len(lines) > 2 and TABLE_CAPTION.match(layout.line_text(lines[0])):
            # the table's caption, set close above it, came into the region: it stays a caption
            top = {id(w) for w in lines[0]}
            out += layout.leaf_blocks(lines[0], layout.body_size(words))
            mine = [w for w in mine if id(w) not in top]
            cols = [[w for w in c if id(w) not in top] for c in cols or []]
            cols = [c for c in cols if c]
        rows = tables.read_region(b, mine, cols, unit)
        if rows is None:
            # no reader accounted for every word: the region is text, not a table (laid out
            # like any text: its own reading order, blocks at changes of style)
            body = layout.body_size(words)
            for leaf in layout.reading_order(list(mine), unit):
                ws = [w for w in leaf if isinstance(w, Word)]
                ws += [w for r in leaf if isinstance(r, Region)  # a table the cut saw in it
                       for c in r.data.get("columns", []) for w in c if isinstance(w, Word)]
                out += layout.leaf_blocks(ws, body)
            continue
        b.data["rows"] = rows
        b.kind = "table"
        out.append(b)
    blocks[:] = out


def _stream_blocks(doc, index: int) -> list[Block]:
    with pdf_text.PDFIUM_LOCK:
        return _stream_blocks_locked(doc, index)


def _stream_blocks_locked(doc, index: int) -> list[Block]:
    page = doc[index]
    try:
        width, height = page.get_size()
        tp = page.get_textpage()
        text = tp.get_text_range().replace("\r\n", "\n").replace("\r", "\n").strip()
        tp.close()
    finally:
        page.close()
    return [Block("text", (0, 0, width, height), text)] if text else []


def _fast_page(doc, index: int, opts: ParsingOptions, full_image: bool) -> PageDraft:
    """``disable_layout_detection``: content-stream text, no layout, no tables."""
    with pdf_text.PDFIUM_LOCK:
        page = doc[index]
        try:
            width, height = page.get_size()
        finally:
            page.close()
    draft = PageDraft(index + 1, width, height)
    draft.blocks = _stream_blocks(doc, index)
    if full_image:
        draft.image = render_pdf_page(doc, index, RASTER_DPI, grayscale=False)
        draft.px_per_unit = draft.image.width / width
    if not draft.blocks:  # a scan: OCR it, still without layout
        pc = pdf_text.read_page(doc, index)
        if _is_scan(pc):
            img = render_pdf_page(doc, index, OCR_DPI)
            return scan.raster_page(img, index + 1, pc.width / img.width,
                                    72 * img.width / pc.width, opts, keep_image=full_image)
    return draft

