"""Large documents in parts: a PDF with many selected pages is cut into page ranges that are
converted in parallel (each in its own child process), then merged into one result.

Whole-document passes run per part: running headers and footers are recognised by repetition
within a part (parts hold ``part_pages`` pages, enough for that), header levels with
``cross_page_header_detection`` are ranked within a part, and tables split across two parts are
joined again after the merge. Chunks, page classes and structured data are made once, over the
merged pages.
"""

from __future__ import annotations

from collections.abc import Callable

from pipelines.core.errors import describe
from pipelines.core.models import DocumentInput, DocumentResult, ErrorItem
from pipelines.engine.document import (
    convert,
    key_values_stage,
    merge_tables_stage,
    status_of,
    structure_stage,
)
from pipelines.stages import chunk as chunk_stage
from pipelines.stages import detect
from pipelines.stages.pagerange import PageRange


def is_pdf(inp: DocumentInput) -> bool:
    """Cheap (the header only): whether ``plan`` could split this document."""
    mime = detect.normalize_mime(inp.declared_mime_type)
    if mime in (None, detect.OCTET):
        mime = detect.detect_mime(inp.data[:8192])
    return mime == detect.PDF


def page_count(inp: DocumentInput) -> int | None:
    """Pages of a PDF (``None`` for other formats or a PDF that does not open: the conversion
    itself reports why). Opens the document: run it where a hostile file can do no harm."""
    if not is_pdf(inp):
        return None
    from pipelines.stages import pdf_text

    try:
        doc = pdf_text.open_pdf(inp.data)
    except Exception:  # noqa: BLE001 - encrypted, corrupt: convert() says so
        return None
    with pdf_text.PDFIUM_LOCK:
        try:
            return len(doc)
        finally:
            doc.close()


def plan(inp: DocumentInput, part_pages: int) -> list[str]:
    """Page ranges (``"a-b,c-d"``) of about ``part_pages`` selected pages each; ``[]`` when the
    document is small enough to convert in one piece."""
    inp = inp.loaded()
    total = page_count(inp)
    if total is None or part_pages <= 0:
        return []
    pr = PageRange.parse(inp.page_range) or PageRange(((1, total),))
    spans = pr.within(total)
    selected = sum(hi - lo + 1 for lo, hi in spans)
    if selected > inp.limits.max_pages:
        return []  # not worth splitting: the conversion fails at once and says why
    if selected <= part_pages * 3 // 2:
        return []
    parts: list[str] = []
    current: list[str] = []
    room = part_pages
    for lo, hi in spans:
        while lo <= hi:
            take = min(room, hi - lo + 1)
            current.append(f"{lo}-{lo + take - 1}" if take > 1 else str(lo))
            lo += take
            room -= take
            if room == 0:
                parts.append(",".join(current))
                current, room = [], part_pages
    if current:
        parts.append(",".join(current))
    return parts


def convert_unless_large(inp: DocumentInput, part_pages: int) -> DocumentResult:
    """``convert(inp)``, or, for a PDF with enough selected pages to be worth splitting, no
    conversion but the page ranges to convert in parallel (``split_into``): one process opens the
    document once either way."""
    ranges = plan(inp, part_pages) if part_pages > 0 else []
    if ranges:
        return DocumentResult(input=inp, split_into=ranges)
    return convert(inp)


def part_input(inp: DocumentInput, page_range: str) -> DocumentInput:
    """A part's input: its pages, and no classification, extraction or key/value pairs (they run
    once, over the merged document, so chunks never repeat the pairs' text)."""
    return inp.model_copy(update={"page_range": page_range, "extraction": [], "classification": [],
                                  "enrichment": inp.enrichment.model_copy(update={"key_value_extraction": False})})


def merge_stored(inp: DocumentInput, parts: list[DocumentResult],
                 readers: list[Callable[[], DocumentResult] | None],
                 sink: Callable[[DocumentResult], None]) -> DocumentResult:
    """``merge`` of parts that were stored as they were converted: each part's summary and the
    reader of its stored result (``None`` for a part that stored nothing). The merged result goes
    to ``sink``; its summary comes back. Run in a limited process: it holds the whole document."""
    full = [read() if read is not None else part for part, read in zip(parts, readers, strict=True)]
    result = merge(inp, full)
    result.input = result.input.without_data()
    return result.store(sink)


def merge(inp: DocumentInput, parts: list[DocumentResult]) -> DocumentResult:
    """One result from the parts' results (in any order)."""
    result = DocumentResult(input=inp)
    seen: set[tuple[str, str, int | None]] = set()
    for part in parts:
        result.total_pages = max(result.total_pages, part.total_pages)
        result.pages += part.pages
        for e in part.errors:
            key = (e.stage, e.message, e.page_number)
            if key not in seen:  # a document-level error is reported by every part
                seen.add(key)
                result.errors.append(ErrorItem.model_validate(e.model_dump()))
        for k, v in part.timings.items():
            result.timings[k] = result.timings.get(k, 0.0) + v
    result.pages.sort(key=lambda p: p.page_number)
    if inp.mime_type is None and parts:
        inp.mime_type = parts[0].input.mime_type
    result = merge_tables_stage(result)
    result = chunk_stage.chunk(result)
    try:
        result = structure_stage(result)
    except Exception as exc:  # noqa: BLE001 - the parsed pages are still worth keeping
        result.errors.append(ErrorItem(stage="structure", message=describe(exc)))
    result = key_values_stage(result)
    result.status = status_of(result)
    return result
