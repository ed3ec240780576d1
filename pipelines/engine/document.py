"""Run a document through the stages: detect → load → select pages → filter → chunk.

``load`` picks the reader by MIME type: PDF (``stages.pdf``: digital text and layout, OCR for
scanned pages), images (``stages.raster``: OCR), DOCX/PPTX/XLSX (``stages.office``) and the
text-like formats (``stages.text``, CSV included). Readers only open the pages inside
``page_range``; per-page failures are recorded as ``ErrorItem(page_number=...)``.

``convert`` never raises for a bad document: failures become ``ErrorItem``s and the status says
whether anything usable came out (docling's ``BasePipeline.execute`` contract).

``fill_and_convert`` runs an edit job: the PDF's form is filled (``stages.form_fill``), then the
filled PDF goes through the same stages, so the result's pages show what the form now says.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from pipelines.core.errors import (
    CorruptDocument,
    DocklakeError,
    DocumentTooLarge,
    UnsupportedFormat,
    describe,
)
from pipelines.core.models import ConversionStatus, DocumentInput, DocumentResult, ErrorItem
from pipelines.core.requests import FormFillingOptions
from pipelines.stages import chunk as chunk_stage
from pipelines.stages import (
    detect,
    form_fill,
    key_values,
    limits,
    llm_extract,
    llm_summaries,
    ocr,
    office,
    pdf,
    raster,
    tables,
    text,
)
from pipelines.stages.pagerange import PageRange

Stage = Callable[[DocumentResult], DocumentResult]


def detect_stage(result: DocumentResult) -> DocumentResult:
    inp = result.input
    declared = detect.normalize_mime(inp.declared_mime_type)
    if declared == detect.OCTET:  # says nothing: look at the bytes
        declared = None
    inp.mime_type = declared or detect.detect_mime(inp.data, inp.file_name)
    return result


def load_stage(result: DocumentResult) -> DocumentResult:
    inp = result.input
    mime = inp.mime_type or detect.OCTET
    if mime == detect.PDF:
        pdf.load(result)
        return result
    if mime.startswith("image/"):
        raster.load(result)
        return result
    office_reader = _OFFICE.get(mime)
    if office_reader is not None:
        office_reader(result)
        return result
    if mime in detect.TEXT_TYPES:
        if not inp.data.strip():
            raise UnsupportedFormat("the document is empty")
        pages = text.load_text_pages(inp.data, mime, inp.parsing.table_output_mode)
    else:
        named = detect.named_format(inp.file_name)
        if named and mime == detect.OCTET:
            # the name promises a format the content does not have: damaged, cut short, or misnamed
            raise CorruptDocument(f"not a valid {named}: {inp.file_name!r} does not start like a {named} file "
                                  "(it may be damaged, cut short, or another format renamed)")
        raise UnsupportedFormat(f"unsupported document type {mime}")
    result.total_pages = len(pages)
    result.pages = pages
    return result


_OFFICE = {detect.DOCX: office.load_docx, detect.PPTX: office.load_pptx, detect.XLSX: office.load_xlsx}


def select_pages_stage(result: DocumentResult) -> DocumentResult:
    pr = PageRange.parse(result.input.page_range)
    if pr is not None:
        result.pages = [p for p in result.pages if p.page_number in pr]
    return result


def merge_tables_stage(result: DocumentResult) -> DocumentResult:
    """Join tables continued across pages (``table_merging``), over the whole document."""
    opts = result.input.parsing
    if opts.table_merging:
        result.merged_tables = tables.merge_tables([(p.page_number, p.fragments) for p in result.pages],
                                                   opts.table_output_mode)
    return result


def filter_stage(result: DocumentResult) -> DocumentResult:
    ignore = set(result.input.parsing.ignore_sections)
    if ignore:
        for page in result.pages:
            page.fragments = [f for f in page.fragments if f.fragment_type not in ignore]
            for order, f in enumerate(page.fragments):
                f.reading_order = order
    return result


def structure_stage(result: DocumentResult) -> DocumentResult:
    """Page classification, then structured extraction (which may keep only pages of some
    classes), over the whole selected document."""
    return llm_extract.structure(result, result.input.llm)


def summaries_stage(result: DocumentResult) -> DocumentResult:
    """``enrichment_options.table_summarization``: each table's summary, written by the
    operator's LLM (``stages.llm_summaries``; the request is refused when none is configured)."""
    return llm_summaries.summarize_tables(result, result.input.llm)


def key_values_stage(result: DocumentResult) -> DocumentResult:
    """``enrichment_options.key_value_extraction``: the label/value pairs printed on each page, as
    ``key_value_region`` fragments after the page's others (``stages.key_values``). After the
    chunks and extraction, which keep reading each printed word once."""
    inp = result.input
    if inp.enrichment.key_value_extraction and "key_value_region" not in inp.parsing.ignore_sections:
        key_values.apply(result)
    return result


def size_stage(result: DocumentResult) -> DocumentResult:
    """Refuse a result larger than ``max_result_bytes`` (text, tables, images, as JSON would
    carry them) while it is still in the converting process: nothing of it is kept."""
    limit = result.input.limits.max_result_bytes
    size = 0
    for page in result.pages:
        size += len(page.page_image or "") + sum(len(json.dumps(f.content)) + 64 for f in page.fragments)
        if size > limit:
            break
    size += sum(len(c.content) for c in result.chunks)
    if size > limit:
        result.pages, result.chunks, result.merged_tables = [], [], None
        raise DocumentTooLarge(f"the result would be over {size / 2**20:,.0f} MiB; the limit is "
                               f"{limit / 2**20:,.0f} MiB (DOCKLAKE_LIMITS__MAX_RESULT_BYTES; a page_range "
                               "can select fewer pages)")
    return result


STAGES: tuple[tuple[str, Stage], ...] = (
    ("detect", detect_stage),
    ("load", load_stage),
    ("pages", select_pages_stage),
    ("tables", merge_tables_stage),
    ("filter", filter_stage),
    ("chunk", chunk_stage.chunk),
    ("structure", structure_stage),
    ("summaries", summaries_stage),
    ("key_values", key_values_stage),
    ("size", size_stage),
)


def convert(inp: DocumentInput) -> DocumentResult:
    ocr.use_tessdata(inp.limits.tessdata_dir)
    with limits.applied(inp.limits):
        return _run(inp)


def fill_and_convert(inp: DocumentInput) -> DocumentResult:
    """An edit job's conversion: the form of the PDF ``inp`` filled as ``inp.form_filling`` asks,
    then the filled PDF converted (the filled bytes and the report ride on the result). Any
    other document type, or a PDF that cannot be filled, ends ``failure`` saying why."""
    ocr.use_tessdata(inp.limits.tessdata_dir)
    with limits.applied(inp.limits):
        t0 = time.perf_counter()
        result = DocumentResult(input=inp)
        try:
            detect_stage(result)
            if inp.mime_type != detect.PDF:
                raise UnsupportedFormat(f"form filling needs a PDF; this document is {inp.mime_type}")
            filled, report = form_fill.fill(inp.data, inp.form_filling or FormFillingOptions())
        except Exception as exc:  # noqa: BLE001 - a broken document must not crash the worker
            message = exc.message if isinstance(exc, DocklakeError) else describe(exc)
            result.errors.append(ErrorItem(stage="form_fill", message=message))
            result.timings["form_fill"] = time.perf_counter() - t0
            result.status = ConversionStatus.failure
            return result
        spent = time.perf_counter() - t0
        result = _run(inp.model_copy(update={"data": filled}))
    result.filled_pdf, result.form_filling = filled, report
    result.timings = {"form_fill": spent, **result.timings}
    return result


def _run(inp: DocumentInput) -> DocumentResult:
    result = DocumentResult(input=inp)
    for name, stage in STAGES:
        t0 = time.perf_counter()
        try:
            result = stage(result)
        except DocklakeError as exc:
            result.errors.append(ErrorItem(stage=name, message=exc.message))
            break
        except Exception as exc:  # noqa: BLE001 - a broken document must not crash the worker
            result.errors.append(ErrorItem(stage=name, message=describe(exc)))
            break
        finally:
            result.timings[name] = time.perf_counter() - t0
    result.status = status_of(result)
    return result


def status_of(result: DocumentResult) -> ConversionStatus:
    if not result.pages or any(e.page_number is None for e in result.errors):
        return ConversionStatus.failure
    if result.errors:
        return ConversionStatus.partial_success if result.parsed_pages_count else ConversionStatus.failure
    return ConversionStatus.success
