"""Image documents (PNG, JPEG, TIFF, WebP, BMP, GIF): one page per frame, OCR'd.

Page units are the image's pixels. An image with a known resolution above 300 dpi is reduced to
200 dpi before OCR (boxes are mapped back to the original pixels); one without a resolution is
read as it is.
"""

from __future__ import annotations

from PIL import Image

from pipelines.core.models import DocumentResult
from pipelines.stages import scan
from pipelines.stages.drafts import PageDraft, finish, page_failed, seal
from pipelines.stages.images import OCR_DPI, dpi_of, frame_count, frames, open_image
from pipelines.stages.pagerange import selected_pages


def load(result: DocumentResult) -> None:
    inp = result.input
    opts = inp.parsing
    img = open_image(inp.data, inp.limits.max_page_pixels)
    total = frame_count(img)
    result.total_pages = total
    numbers = list(selected_pages(inp.page_range, total))
    drafts: list[PageDraft] = []
    keep = opts.include_images or inp.enrichment.include_full_page_image
    for n, frame in frames(img, numbers, inp.limits.max_page_pixels):
        try:
            if isinstance(frame, Exception):
                raise frame
            dpi = dpi_of(frame)
            scale = 1.0
            if dpi > 300:
                scale = OCR_DPI / dpi
                frame = frame.resize((max(1, round(frame.width * scale)),
                                      max(1, round(frame.height * scale))), Image.LANCZOS)
            draft = scan.raster_page(frame, n, 1 / scale, dpi * scale or OCR_DPI, opts, keep)
            drafts.append(seal(draft, opts.include_images, inp.enrichment.include_full_page_image))
        except Exception as exc:  # noqa: BLE001 - a broken frame must not sink the document
            page_failed(result, n, exc)
    finish(result, drafts, opts)
