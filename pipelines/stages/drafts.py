"""Page drafts: the blocks of one page before the whole-document passes turn them into
``PageResult``s, and the helpers the digital and the scanned paths share."""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image

from pipelines.core.errors import describe
from pipelines.core.models import DocumentResult, ErrorItem, PageResult
from pipelines.core.requests import ParsingOptions
from pipelines.stages import fragments as frag_mod
from pipelines.stages.geometry import Box, Word, inside, union
from pipelines.stages.images import png_base64
from pipelines.stages.layout import Block, Region, assign_levels, group_lines, line_text


@dataclass
class PageDraft:
    number: int
    width: float
    height: float
    blocks: list[Block] = field(default_factory=list)
    image: Image.Image | None = None  # the page raster, when an option needed one
    px_per_unit: float = 1.0  # raster pixels per page unit
    skew_angle: float | None = None
    page_image: str | None = None  # base64 PNG, once sealed
    ocr: bool = False  # text from OCR: fragments keep their word boxes
    warnings: list[str] = field(default_factory=list)  # e.g. words the layout had to rescue


def seal(draft: PageDraft, include_images: bool, full_page: bool) -> PageDraft:
    """Encode what the options ask for from the page raster (figure crops, the whole page) and
    drop the raster, so a long document never holds more than one page image."""
    img = draft.image
    if img is None:
        return draft
    if include_images:
        for b in draft.blocks:
            if b.kind == "figure":
                x1, y1, x2, y2 = (v * draft.px_per_unit for v in b.box)
                b.data["image_base64"] = png_base64(img.crop((int(x1), int(y1), int(x2) + 1, int(y2) + 1)))
    if full_page:
        draft.page_image = png_base64(img)
    draft.image = None
    return draft


def strike_blocks(words: list[Word]) -> list[Block]:
    """Struck words → one ``strikethrough`` block per line."""
    out = []
    for line in group_lines(words):
        out.append(Block("strikethrough", union([(w.x1, w.y1, w.x2, w.y2) for w in line]),
                         line_text(line), words=line))
    return out


def drop_inside(words: list[Word], boxes: list[Box]) -> list[Word]:
    return [w for w in words if not any(inside((w.x1, w.y1, w.x2, w.y2), b) for b in boxes)]


def mark_regions(found: list[dict], kind: str) -> list[Region]:
    return [Region(kind, *f["box"], data={k: v for k, v in f.items() if k != "box"}) for f in found]


def scale_words(words: list[Word], s: float) -> list[Word]:
    if s == 1.0:
        return words
    return [Word(w.text, w.x1 * s, w.y1 * s, w.x2 * s, w.y2 * s, w.size * s, w.bold, w.line) for w in words]


def scale_box(b: Box, s: float) -> Box:
    return (b[0] * s, b[1] * s, b[2] * s, b[3] * s)


def finish(result: DocumentResult, drafts: list[PageDraft], opts: ParsingOptions) -> None:
    """Whole-document passes, then fragments: fills ``result.pages`` (in page order)."""
    drafts.sort(key=lambda d: d.number)
    block_lists = [d.blocks for d in drafts]
    if not opts.disable_layout_detection:
        frag_mod.repeated_margins(block_lists)
        assign_levels(block_lists, document_wide=opts.cross_page_header_detection)
        for blocks in block_lists:
            frag_mod.attach_captions(blocks)
    full = result.input.enrichment.include_full_page_image
    for d in drafts:
        page = PageResult(page_number=d.number, width=round(d.width), height=round(d.height))
        page.fragments = frag_mod.to_fragments(d.blocks, opts.table_output_mode, with_words=d.ocr)
        page.warnings = list(d.warnings)
        if opts.skew_detection and d.skew_angle is not None:
            page.skew_angle = d.skew_angle
        if full:
            page.page_image = d.page_image
        result.pages.append(page)
    for e in result.errors:  # failed pages still appear, empty, so the page count adds up
        if e.page_number is not None and all(p.page_number != e.page_number for p in result.pages):
            result.pages.append(PageResult(page_number=e.page_number))
    result.pages.sort(key=lambda p: p.page_number)


def page_failed(result: DocumentResult, page_number: int, exc: Exception) -> None:
    """Record that one page could not be read; the other pages go on."""
    message = describe(exc)
    result.errors.append(ErrorItem(stage="load", message=message, page_number=page_number))
