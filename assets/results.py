"""Job results as Parquet: one row per document with nested pages, fragments and chunks.

Written with pyarrow to a temporary key and moved into place (atomic). DuckDB can query the
files directly (``unnest(pages)``); the API reads one file back into the wire shape.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from assets.storage import Storage
from pipelines.models import DocumentResult

BBOX = pa.struct([("x1", pa.float64()), ("y1", pa.float64()), ("x2", pa.float64()), ("y2", pa.float64())])
FRAGMENT = pa.struct([
    ("fragment_type", pa.string()),
    ("reading_order", pa.int32()),
    ("content", pa.string()),  # JSON object: its shape depends on the fragment type
    ("bbox", BBOX),
])
PAGE = pa.struct([
    ("page_number", pa.int32()),
    ("width", pa.int32()),
    ("height", pa.int32()),
    ("fragments", pa.list_(FRAGMENT)),
    ("skew_angle", pa.float64()),  # degrees, when skew_detection measured it
    ("page_image", pa.string()),  # base64 PNG, with include_full_page_image
])
CHUNK = pa.struct([("page_number", pa.int32()), ("content", pa.string())])
ERROR = pa.struct([("stage", pa.string()), ("page_number", pa.int32()), ("message", pa.string())])

SCHEMA = pa.schema([
    ("parse_id", pa.string()),
    ("mime_type", pa.string()),
    ("total_pages", pa.int32()),
    ("parsed_pages_count", pa.int32()),
    ("status", pa.string()),
    ("pages", pa.list_(PAGE)),
    ("chunks", pa.list_(CHUNK)),
    ("errors", pa.list_(ERROR)),
    ("extras", pa.string()),  # JSON: merged_tables, page_classes, structured_data, …
])


def result_key(org: str, project: str, dataset_id: str | None, job_id: str, attempt: int) -> str:
    return f"results/{org}/{project}/{dataset_id or '_'}/{job_id}/{attempt}.parquet"


def _bbox(b: dict[str, float] | None) -> dict[str, float] | None:
    if not b or not all(k in b for k in ("x1", "y1", "x2", "y2")):
        return None
    return {k: float(b[k]) for k in ("x1", "y1", "x2", "y2")}


def to_table(job_id: str, result: DocumentResult, extras: dict[str, Any] | None = None) -> pa.Table:
    row = {
        "parse_id": job_id,
        "mime_type": result.input.mime_type,
        "total_pages": result.total_pages,
        "parsed_pages_count": result.parsed_pages_count,
        "status": result.status.value,
        "pages": [
            {
                "page_number": p.page_number,
                "width": p.width,
                "height": p.height,
                "fragments": [
                    {"fragment_type": f.fragment_type, "reading_order": f.reading_order,
                     "content": json.dumps(f.content, ensure_ascii=False), "bbox": _bbox(f.bbox)}
                    for f in p.fragments
                ],
                "skew_angle": p.skew_angle,
                "page_image": p.page_image,
            }
            for p in result.pages
        ],
        "chunks": [c.model_dump() for c in result.chunks],
        "errors": [e.model_dump() for e in result.errors],
        "extras": json.dumps(
            ({"merged_tables": result.merged_tables} if result.merged_tables is not None else {})
            | (extras or {}), ensure_ascii=False),
    }
    return pa.Table.from_pylist([row], schema=SCHEMA)


def write_result(storage: Storage, key: str, job_id: str, result: DocumentResult,
                 extras: dict[str, Any] | None = None) -> None:
    buf = io.BytesIO()
    pq.write_table(to_table(job_id, result, extras), buf, compression="zstd")
    storage.put_bytes(key, buf.getvalue())


def read_result(storage: Storage, key: str) -> dict[str, Any]:
    """The stored result in the wire shape of ParseResult's content fields."""
    with storage.open(key) as fh:
        table = pq.read_table(fh)
    row = table.to_pylist()[0]
    pages = []
    for p in row["pages"] or []:
        w, h = p.get("width"), p.get("height")
        pages.append({
            "page_number": p["page_number"],
            "page_fragments": [
                {"fragment_type": f["fragment_type"], "content": json.loads(f["content"]),
                 "reading_order": f["reading_order"], "bbox": f["bbox"]}
                for f in p["fragments"] or []
            ],
            "dimensions": [w, h] if w is not None and h is not None else None,
            "page_dimensions": {"width": w, "height": h} if w is not None and h is not None else None,
        })
        if p.get("skew_angle") is not None:
            pages[-1]["skew_angle"] = p["skew_angle"]
        if p.get("page_image"):
            pages[-1]["page_image"] = p["page_image"]
    out: dict[str, Any] = {
        "pages": pages,
        "chunks": row["chunks"] or [],
        "total_pages": row["total_pages"],
        "parsed_pages_count": row["parsed_pages_count"],
        "mime_type": row["mime_type"],
    }
    out.update(json.loads(row["extras"] or "{}"))
    return out
