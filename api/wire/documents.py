"""Parse jobs and their results on the wire: the Tensorlake ``ParseResult`` (the job's fields, its
pages with their fragments, chunks, structured data and page classes, and an edit job's filled PDF),
declared once by the models below and written by the functions after them.

A result is written as plain JSON rather than validated model by model (a big document has
thousands of fragments, and ``stream_parse_result`` writes it a page at a time);
``tests/unit/test_wire_shapes.py`` holds what they write to these models, key for key.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from api.wire.common import Paginated, dumps
from pipelines.core import models as domain
from pipelines.core.records import Job, JobSummary, rfc3339
from pipelines.stages.pagerange import PageRange

if TYPE_CHECKING:  # the use case hands the reader in; the wire only reads from it
    from assets.results import ResultReader


class ParseCreated(BaseModel):
    parse_id: str
    created_at: str


class EditCreated(ParseCreated):
    edit_id: str = Field(description="The same id as parse_id (the SDK reads parse_id).")


class Fragment(BaseModel):
    fragment_type: str
    content: dict[str, Any]
    reading_order: int | None
    bbox: dict[str, float] | None


class Page(BaseModel):
    page_number: int
    page_fragments: list[Fragment]
    dimensions: list[int] | None
    page_dimensions: dict[str, int] | None
    skew_angle: float | None = None
    page_image: str | None = None
    warnings: list[str] | None = Field(None, description="What reading the page met: e.g. words the layout "
                                                      "missed, kept as plain text.")


class Chunk(BaseModel):
    page_number: int
    content: str


class Citation(BaseModel):
    page_number: int
    bbox: dict[str, float] | None = Field(None, description="x1, y1, x2, y2 in PDF points, top-left origin")
    text: str = Field("", description="the words the value was read from")


class StructuredData(BaseModel):
    schema_name: str
    data: dict[str, Any] = Field(description="In the shape of the request's json_schema; null for what was "
                                             "not found")
    page_numbers: list[int]
    citations: dict[str, Citation] | None = Field(None, description="With provide_citations: field path "
                                                                     "(total, buyer.name, items[0]) → where it was read")


class PageClass(BaseModel):
    page_class: str
    page_numbers: list[int]
    classification_reasons: dict[str, str] = Field(default_factory=dict)


class ParseResult(BaseModel):
    parse_id: str
    status: str = Field(description="pending, processing, successful or failure")
    created_at: str
    finished_at: str | None
    error: str | None
    labels: dict[str, Any]
    dataset_id: str | None
    total_pages: int | None
    parsed_pages_count: int
    message_update: str | None
    pages: list[Page] | None
    chunks: list[Chunk]
    page_classes: list[PageClass] | None
    structured_data: list[StructuredData] | None
    merged_tables: list[dict[str, Any]]
    usage: dict[str, int]
    options: dict[str, Any] | None = Field(None, description="With ?with_options=true.")
    filled_pdf_base64: str | None = Field(None, description="An edit job's filled PDF; null for other jobs.")
    form_filling_metadata: dict[str, Any] | None = Field(
        None, description="An edit job's report: fields_found, blanks_found, filled and kept "
                          "[{key, value, target, kind, page_number, score, matched}], unmatched keys, warnings.")
    filled_file_id: str | None = Field(
        None, description="docklake extension: the file the filled PDF is kept as (files API); null once "
                          "that file is deleted, and for other jobs.")


class ParseList(Paginated):
    items: list[ParseResult]


SSE_200 = {200: {"description": "The job (JSON), or with `Accept: text/event-stream` its progress: "
                                "parse_queued, parse_update, then parse_done or parse_failed.",
                 "content": {"text/event-stream": {"schema": {"type": "string"}}}}}


def page_json(p: domain.PageResult) -> dict[str, Any]:
    w, h = p.width, p.height
    out: dict[str, Any] = {
        "page_number": p.page_number,
        "page_fragments": [
            {"fragment_type": f.fragment_type, "content": f.content, "reading_order": f.reading_order,
             "bbox": f.bbox}
            for f in p.fragments
        ],
        "dimensions": [w, h] if w is not None and h is not None else None,
        "page_dimensions": {"width": w, "height": h} if w is not None and h is not None else None,
    }
    if p.skew_angle is not None:
        out["skew_angle"] = p.skew_angle
    if p.page_image:
        out["page_image"] = p.page_image
    if p.warnings:  # e.g. words the layout missed, kept as plain text
        out["warnings"] = p.warnings
    return out


def structured_data_json(items: list[domain.StructuredData] | None) -> list[dict[str, Any]] | None:
    """Tensorlake ``StructuredData``: ``{schema_name, data, page_numbers}``, and ``citations``
    (field path → ``{page_number, bbox: {x1, y1, x2, y2}, text}``) when they were asked for."""
    if items is None:
        return None
    out = []
    for sd in items:
        one: dict[str, Any] = {"schema_name": sd.schema_name, "data": sd.data, "page_numbers": sd.page_numbers}
        if sd.citations is not None:
            one["citations"] = {k: c.model_dump() for k, c in sd.citations.items()}
        out.append(one)
    return out


def page_classes_json(items: list[domain.PageClass] | None) -> list[dict[str, Any]] | None:
    """Tensorlake ``PageClass``: ``{page_class, page_numbers, classification_reasons}``."""
    if items is None:
        return None
    return [{"page_class": pc.page_class, "page_numbers": pc.page_numbers,
             "classification_reasons": {str(n): r for n, r in pc.reasons.items()}} for pc in items]


def stream_parse_result(job: Job, reader: ResultReader, wanted: PageRange | None,
                        with_options: bool, edit: domain.EditOutput | None = None) -> Iterator[bytes]:
    """``parse_result`` of a stored result, written a page at a time (never the whole result in
    memory): the job's fields, then the pages, then the chunks."""
    head = parse_result(job, None, with_options, edit)
    head["merged_tables"] = reader.merged_tables or []
    head["structured_data"] = structured_data_json(reader.structured_data())
    head["page_classes"] = page_classes_json(reader.page_classes())
    del head["pages"], head["chunks"]
    yield dumps(head)[:-1] + b',"pages":['
    for i, page in enumerate(reader.pages(wanted)):
        yield (b"," if i else b"") + dumps(page_json(page))
    yield b'],"chunks":['
    for i, chunk in enumerate(reader.chunks(wanted)):
        yield (b"," if i else b"") + dumps(chunk.model_dump())
    yield b"]}"


def parse_result(job: JobSummary, result: domain.DocumentResult | None = None,
                 with_options: bool = False, edit: domain.EditOutput | None = None) -> dict[str, Any]:
    """A job (and its result, once there is one; an edit job's ``edit`` output) as the
    Tensorlake ``ParseResult``."""
    out: dict[str, Any] = {
        "parse_id": job.id,
        "status": job.status.value,
        "created_at": rfc3339(job.created_us),
        "finished_at": rfc3339(job.finished_us),
        "error": job.error,
        "labels": job.labels,
        "dataset_id": job.dataset_id,
        "total_pages": job.total_pages,
        "parsed_pages_count": job.parsed_pages_count,
        "message_update": None,
        "pages": None,
        "chunks": [],
        "page_classes": None,
        "structured_data": None,
        "merged_tables": [],
        "usage": {"pages_parsed": job.parsed_pages_count},
        "filled_pdf_base64": None,
        "form_filling_metadata": None,
        "filled_file_id": None,
    }
    if edit is not None:
        out["filled_pdf_base64"] = base64.b64encode(edit.filled_pdf).decode("ascii")
        out["form_filling_metadata"] = {"filled_file_id": edit.filled_file_id, **edit.report.model_dump()}
        out["filled_file_id"] = edit.filled_file_id
    if result is not None:
        out["pages"] = [page_json(p) for p in result.pages]
        out["chunks"] = [c.model_dump() for c in result.chunks]
        if result.merged_tables is not None:
            out["merged_tables"] = result.merged_tables
        out["structured_data"] = structured_data_json(result.structured_data)
        out["page_classes"] = page_classes_json(result.page_classes)
    if with_options and isinstance(job, Job):
        out["options"] = job.options.options_dump()
    return out
