"""Catalog rows and stored results → the Tensorlake wire shapes (see the wire notes §2)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import orjson
from fastapi.responses import JSONResponse

from assets.results import ResultReader
from pipelines.core.errors import InvalidQuery
from pipelines.core.models import DocumentResult, PageClass, PageResult, StructuredData
from pipelines.core.records import Dataset, FileRecord, Job, JobStatus, JobSummary, Page, rfc3339
from pipelines.stages.pagerange import PageRange


def dumps(content: Any) -> bytes:
    """JSON bytes, with orjson (several times faster than the standard library). What orjson
    refuses (a lone surrogate or very deep nesting in a row stored before such input was refused)
    is written by the standard library instead, escaped: a stored value never makes a 500."""
    try:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, ValueError):
        return json.dumps(content, ensure_ascii=True, default=str, allow_nan=False).encode()


class JSON(JSONResponse):
    """A JSON response written by ``dumps`` (a ``JSONResponse``, so the OpenAPI document shows the
    route's response model rather than a string)."""

    def render(self, content: Any) -> bytes:
        return dumps(content)


def parse_rfc3339(value: str | None, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidQuery(f"{name} must be an RFC 3339 timestamp, got {value!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1_000_000)


def file_metadata(rec: FileRecord) -> dict[str, Any]:
    created = rfc3339(rec.created_us)
    return {
        "file_id": rec.id,
        "file_name": rec.file_name,
        "mime_type": rec.mime_type,
        "file_size": rec.file_size,
        "checksum_sha256": rec.checksum_sha256,
        "created_at": created,
        "labels": rec.labels,
        # The SDK's (older) camelCase model of the same record.
        "id": rec.id,
        "name": rec.file_name or "",
        "fileSize": rec.file_size,
        "mimeType": rec.mime_type,
        "createdAt": created,
        "updatedAt": created,
    }


def dataset(ds: Dataset, *, analytics: bool = False, configuration: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": ds.name,
        "dataset_id": ds.id,
        "description": ds.description,
        "status": ds.status.value,
        "created_at": rfc3339(ds.created_us),
        "updated_at": rfc3339(ds.updated_us),
    }
    if analytics:
        n = ds.job_counts or {}
        out["analytics"] = {
            "total_processing_parse_jobs": n.get(JobStatus.processing.value, 0),
            "total_pending_parse_jobs": n.get(JobStatus.pending.value, 0),
            "total_error_parse_jobs": n.get(JobStatus.failure.value, 0),
            "total_successful_parse_jobs": n.get(JobStatus.successful.value, 0),
            "total_jobs": sum(n.values()),
        }
    if configuration:
        out["configuration"] = ds.configuration.model_dump(mode="json", exclude_none=True)
    return out


def paginated(page: Page, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "items": items,
        "has_more": page.has_more,
        "next_cursor": page.next_cursor,
        "prev_cursor": page.prev_cursor,
        "hasMore": page.has_more,
        "nextCursor": page.next_cursor,
        "prevCursor": page.prev_cursor,
    }


def page_json(p: PageResult) -> dict[str, Any]:
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


def structured_data_json(items: list[StructuredData] | None) -> list[dict[str, Any]] | None:
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


def page_classes_json(items: list[PageClass] | None) -> list[dict[str, Any]] | None:
    """Tensorlake ``PageClass``: ``{page_class, page_numbers, classification_reasons}``."""
    if items is None:
        return None
    return [{"page_class": pc.page_class, "page_numbers": pc.page_numbers,
             "classification_reasons": {str(n): r for n, r in pc.reasons.items()}} for pc in items]


def stream_parse_result(job: Job, reader: ResultReader, wanted: PageRange | None,
                        with_options: bool) -> Iterator[bytes]:
    """``parse_result`` of a stored result, written a page at a time (never the whole result in
    memory): the job's fields, then the pages, then the chunks."""
    head = parse_result(job, None, with_options)
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


def parse_result(job: JobSummary, result: DocumentResult | None = None,
                 with_options: bool = False) -> dict[str, Any]:
    """A job (and its result, once there is one) as the Tensorlake ``ParseResult``."""
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
    }
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
