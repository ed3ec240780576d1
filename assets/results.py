"""Job results as typed Parquet tables, written and read as the domain ``DocumentResult``.

One job's result is a folder of six small tables, each a real-column table DuckDB can query
without parsing JSON (and the same shapes the per-dataset tables are compacted into):

* ``document.parquet``: one row: type, status, errors, timings, merged tables (the page counts
  live in the job's catalog row, their one home);
* ``pages.parquet``: one row per page (number, size, skew angle, page image);
* ``fragments.parquet``: one row per fragment: page, reading order, type, its ``text``, the box as
  ``x1 y1 x2 y2`` columns, and ``extra``: the rest of the type-specific content as JSON (table
  HTML and cells, barcode format, …), null when there is none;
* ``chunks.parquet``: one row per chunk;
* ``structured_data.parquet``: one row per extraction answer (schema and partition): schema
  name, pages, ``data`` as JSON (its shape is the caller's schema) and the citations as a list
  of ``(field, page_number, x1, y1, x2, y2, text)``;
* ``page_classes.parquet``: one row per requested page class: its name and pages, with the
  reason for each page.

The last two are empty when the job asked for no extraction or classification. Every table is
written to a temporary key and moved into place, and the job row points at the folder only once
all of them are there, so a reader never sees half a result. Only ``api.wire.documents``
knows the Tensorlake wire shape.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from assets.storage import Storage
from pipelines.core.models import (
    Chunk,
    Citation,
    DocumentInput,
    DocumentResult,
    ErrorItem,
    Fragment,
    PageClass,
    PageResult,
    StructuredData,
)

DOCUMENT = pa.schema([
    ("parse_id", pa.string()),
    ("mime_type", pa.string()),
    ("status", pa.string()),
    ("errors", pa.list_(pa.struct([("stage", pa.string()), ("page_number", pa.int32()),
                                   ("message", pa.string())]))),
    ("timings", pa.list_(pa.struct([("stage", pa.string()), ("seconds", pa.float64())]))),
    ("merged_tables", pa.string()),  # JSON list (``table_merging``), null when not asked for
])
PAGES = pa.schema([
    ("parse_id", pa.string()),
    ("page_number", pa.int32()),
    ("width", pa.int32()),
    ("height", pa.int32()),
    ("skew_angle", pa.float64()),  # degrees, when skew_detection measured it
    ("page_image", pa.string()),  # base64 PNG, with include_full_page_image
    ("warnings", pa.list_(pa.string())),  # what the parser met and recovered from on the page
])
FRAGMENTS = pa.schema([
    ("parse_id", pa.string()),
    ("page_number", pa.int32()),
    ("reading_order", pa.int32()),
    ("fragment_type", pa.string()),
    ("text", pa.string()),
    ("x1", pa.float64()), ("y1", pa.float64()), ("x2", pa.float64()), ("y2", pa.float64()),
    ("extra", pa.string()),
])
CHUNKS = pa.schema([
    ("parse_id", pa.string()),
    ("chunk_index", pa.int32()),
    ("page_number", pa.int32()),
    ("content", pa.string()),
])
STRUCTURED_DATA = pa.schema([
    ("parse_id", pa.string()),
    ("answer_index", pa.int32()),
    ("schema_name", pa.string()),
    ("page_numbers", pa.list_(pa.int32())),
    ("data", pa.string()),  # JSON in the shape of the request's json_schema
    ("citations", pa.list_(pa.struct([
        ("field", pa.string()), ("page_number", pa.int32()),
        ("x1", pa.float64()), ("y1", pa.float64()), ("x2", pa.float64()), ("y2", pa.float64()),
        ("text", pa.string()),
    ]))),  # null without provide_citations
])
PAGE_CLASSES = pa.schema([
    ("parse_id", pa.string()),
    ("class_index", pa.int32()),
    ("page_class", pa.string()),
    ("page_numbers", pa.list_(pa.int32())),
    ("reasons", pa.list_(pa.struct([("page_number", pa.int32()), ("reason", pa.string())]))),
])
TABLES = {"document": DOCUMENT, "pages": PAGES, "fragments": FRAGMENTS, "chunks": CHUNKS,
          "structured_data": STRUCTURED_DATA, "page_classes": PAGE_CLASSES}
# tables a result written before extraction and classification existed does not have
OPTIONAL_TABLES = ("structured_data", "page_classes")
BOX = ("x1", "y1", "x2", "y2")


def result_key(org: str, project: str, dataset_id: str | None, job_id: str, attempt: int) -> str:
    """The folder of one attempt's result."""
    return f"results/{org}/{project}/{dataset_id or '_'}/{job_id}/{attempt}"


def work_key(org: str, project: str, dataset_id: str | None, job_id: str, attempt: int) -> str:
    """The folder of one attempt's intermediate objects (a downloaded input, the parts of a split
    document), deleted when the job closes."""
    return f"{job_results_prefix(org, project, dataset_id, job_id)}/work-{attempt}"


def job_results_prefix(org: str, project: str, dataset_id: str | None, job_id: str) -> str:
    """The folder holding every attempt's result of a job."""
    return f"results/{org}/{project}/{dataset_id or '_'}/{job_id}"


def table_key(key: str, table: str) -> str:
    return f"{key}/{table}.parquet"


def _fragment_row(job_id: str, page_number: int, f: Fragment) -> dict[str, Any]:
    extra = dict(f.content)
    text = extra.pop("content") if isinstance(extra.get("content"), str) else None
    box = f.bbox if f.bbox and all(k in f.bbox for k in BOX) else None
    return {
        "parse_id": job_id, "page_number": page_number, "reading_order": f.reading_order,
        "fragment_type": f.fragment_type, "text": text,
        **{k: float(box[k]) if box else None for k in BOX},
        "extra": json.dumps(extra, ensure_ascii=False) if extra else None,
    }


def _structured_row(job_id: str, index: int, sd: StructuredData) -> dict[str, Any]:
    cites = None
    if sd.citations is not None:
        cites = [{"field": name, "page_number": c.page_number, "text": c.text,
                  **{k: (c.bbox or {}).get(k) for k in BOX}} for name, c in sd.citations.items()]
    return {"parse_id": job_id, "answer_index": index, "schema_name": sd.schema_name,
            "page_numbers": sd.page_numbers, "data": json.dumps(sd.data, ensure_ascii=False), "citations": cites}


def _structured(row: dict[str, Any]) -> StructuredData:
    cites = None
    if row["citations"] is not None:
        cites = {c["field"]: Citation(page_number=c["page_number"], text=c["text"] or "",
                                      bbox={k: c[k] for k in BOX} if c["x1"] is not None else None)
                 for c in row["citations"]}
    return StructuredData(schema_name=row["schema_name"], data=json.loads(row["data"]),
                          page_numbers=row["page_numbers"] or [], citations=cites)


def to_tables(job_id: str, result: DocumentResult) -> dict[str, pa.Table]:
    document = {
        "parse_id": job_id, "mime_type": result.input.mime_type, "status": result.status.value,
        "errors": [e.model_dump() for e in result.errors],
        "timings": [{"stage": k, "seconds": v} for k, v in result.timings.items()],
        "merged_tables": None if result.merged_tables is None
        else json.dumps(result.merged_tables, ensure_ascii=False),
    }
    pages = [{"parse_id": job_id, "page_number": p.page_number, "width": p.width, "height": p.height,
              "skew_angle": p.skew_angle, "page_image": p.page_image, "warnings": p.warnings or None}
             for p in result.pages]
    fragments = [_fragment_row(job_id, p.page_number, f) for p in result.pages for f in p.fragments]
    chunks = [{"parse_id": job_id, "chunk_index": i, "page_number": c.page_number, "content": c.content}
              for i, c in enumerate(result.chunks)]
    rows = {"document": [document], "pages": pages, "fragments": fragments, "chunks": chunks,
            "structured_data": [_structured_row(job_id, i, sd) for i, sd in enumerate(result.structured_data or [])],
            "page_classes": [{"parse_id": job_id, "class_index": i, "page_class": pc.page_class,
                              "page_numbers": pc.page_numbers,
                              "reasons": [{"page_number": n, "reason": r} for n, r in sorted(pc.reasons.items())]}
                             for i, pc in enumerate(result.page_classes or [])]}
    return {name: pa.Table.from_pylist(rows[name], schema=schema) for name, schema in TABLES.items()}


def _statistics(schema: pa.Schema) -> list[str]:
    """The columns worth min/max statistics: numbers, not text (the statistics of a text column
    copy its smallest and largest values into the file's footer)."""
    return [f.name for f in schema if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)]


# A job's tables are small and read whole: no dictionary pages (they cost more than they save on
# a few hundred rows), statistics only where a reader could skip by them, and snappy: zstd's
# set-up for each column took a small document's four tables from 0.7 to 1.5 ms of CPU, for
# files 5-15 % smaller (a dataset's compacted tables, large ones, keep zstd).
WRITE_OPTIONS = {name: {"compression": "snappy", "use_dictionary": False, "write_statistics": _statistics(schema)}
                 for name, schema in TABLES.items()}


def write_result(storage: Storage, key: str, job_id: str, result: DocumentResult) -> None:
    """The result's tables, one Parquet file each; an optional table without rows (no
    extraction or classification asked for) is not written: its readers take it as empty."""
    for name, table in to_tables(job_id, result).items():
        if name in OPTIONAL_TABLES and table.num_rows == 0:
            continue
        buf = io.BytesIO()
        pq.write_table(table, buf, **WRITE_OPTIONS[name])
        storage.put_bytes(table_key(key, name), buf.getvalue())


@dataclass(frozen=True)
class ResultSink:
    """Writes a result to ``key`` of the storage at ``storage_url``; picklable, so the process
    that converted the document can write what it made."""

    storage_url: str
    key: str
    job_id: str
    wait_s: float = 0.0  # see Storage

    def __call__(self, result: DocumentResult) -> None:
        write_result(Storage(self.storage_url, self.wait_s), self.key, self.job_id, result)


@dataclass(frozen=True)
class StoredResult:
    """Reads back the result a ``ResultSink`` wrote; picklable, so a limited process can merge
    the parts of a split document without the worker holding any of them."""

    storage_url: str
    key: str
    total_pages: int
    wait_s: float = 0.0  # see Storage

    def __call__(self) -> DocumentResult:
        storage = Storage(self.storage_url, self.wait_s)
        return storage.patiently(lambda: read_result(storage, self.key, self.total_pages))


def _read(storage: Storage, key: str, table: str, columns: list[str] | None = None) -> pa.Table:
    with storage.open(table_key(key, table)) as fh:
        return pq.read_table(fh, columns=columns)


def read_chunks(storage: Storage, key: str) -> list[Chunk]:
    return list(ResultReader(storage, key, 0).chunks())


def read_result(storage: Storage, key: str, total_pages: int) -> DocumentResult:
    """The stored result of one attempt (the document's bytes are not part of it);
    ``total_pages`` comes from the job's catalog row."""
    if key.endswith(".parquet"):
        return _read_nested(storage, key)
    reader = ResultReader(storage, key, total_pages)
    doc = reader.document
    return DocumentResult(
        input=DocumentInput(data=b"", mime_type=doc["mime_type"]), status=doc["status"],
        total_pages=total_pages, pages=list(reader.pages()), chunks=list(reader.chunks()),
        errors=[ErrorItem(**e) for e in doc["errors"] or []],
        timings={t["stage"]: t["seconds"] for t in doc["timings"] or []},
        merged_tables=reader.merged_tables, structured_data=reader.structured_data(),
        page_classes=reader.page_classes(),
    )


class ResultReader:
    """One stored result read a page at a time, for answers too big to hold: the small tables
    (document, pages) at once, fragments in record batches as the pages are asked for."""

    BATCH_ROWS = 2048

    def __init__(self, storage: Storage, key: str, total_pages: int) -> None:
        self.storage, self.key = storage, key
        if key.endswith(".parquet"):  # an old single-file result: small enough to read whole
            self._whole: DocumentResult | None = _read_nested(storage, key)
            self.document = {"mime_type": self._whole.input.mime_type, "status": self._whole.status.value,
                             "merged_tables": None}
            self.merged_tables = self._whole.merged_tables
            return
        self._whole = None
        self.document = _read(storage, key, "document").to_pylist()[0]
        mt = self.document.get("merged_tables")
        self.merged_tables = json.loads(mt) if mt else None
        self.total_pages = total_pages

    def _optional(self, table: str) -> list[dict[str, Any]]:
        """The rows of a table results written before it existed do not have (then none)."""
        if self._whole is not None:
            return []
        try:
            return _read(self.storage, self.key, table).to_pylist()
        except FileNotFoundError:
            return []

    def structured_data(self) -> list[StructuredData] | None:
        """The extraction answers, in the request's order (``None``: none asked for)."""
        rows = sorted(self._optional("structured_data"), key=lambda r: r["answer_index"])
        return [_structured(r) for r in rows] or None

    def page_classes(self) -> list[PageClass] | None:
        """The page classes, in the request's order (``None``: no classification asked for)."""
        rows = sorted(self._optional("page_classes"), key=lambda r: r["class_index"])
        return [PageClass(page_class=r["page_class"], page_numbers=r["page_numbers"] or [],
                          reasons={x["page_number"]: x["reason"] for x in r["reasons"] or []})
                for r in rows] or None

    def size_bytes(self) -> int:
        """About how many bytes the result takes uncompressed (from the files' metadata)."""
        if self._whole is not None:
            return sum(len(json.dumps(f.content)) for p in self._whole.pages for f in p.fragments)
        total = 0
        for table in ("pages", "fragments", "chunks"):
            with self.storage.open(table_key(self.key, table)) as fh:
                meta = pq.ParquetFile(fh).metadata
                total += sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        return total

    def pages(self, wanted: Any = None) -> Iterator[PageResult]:
        """The pages in order (only those ``in wanted`` when given), each with its fragments."""
        if self._whole is not None:
            yield from (p for p in self._whole.pages if wanted is None or p.page_number in wanted)
            return
        page_rows = [r for r in _read(self.storage, self.key, "pages").to_pylist()
                     if wanted is None or r["page_number"] in wanted]
        frags = self._fragments(wanted)
        pending = next(frags, None)
        for r in page_rows:
            page = PageResult(page_number=r["page_number"], width=r["width"], height=r["height"],
                              skew_angle=r["skew_angle"], page_image=r["page_image"],
                              warnings=r.get("warnings") or [])
            while pending is not None and pending[0] < page.page_number:
                pending = next(frags, None)
            while pending is not None and pending[0] == page.page_number:
                page.fragments.append(pending[1])
                pending = next(frags, None)
            yield page

    def _fragments(self, wanted: Any) -> Iterator[tuple[int, Fragment]]:
        with self.storage.open(table_key(self.key, "fragments")) as fh:
            for batch in pq.ParquetFile(fh).iter_batches(batch_size=self.BATCH_ROWS):
                for r in batch.to_pylist():
                    if wanted is not None and r["page_number"] not in wanted:
                        continue
                    content: dict[str, Any] = {} if r["text"] is None else {"content": r["text"]}
                    if r["extra"]:
                        content.update(json.loads(r["extra"]))
                    bbox = {k: r[k] for k in BOX} if r["x1"] is not None else None
                    yield r["page_number"], Fragment(fragment_type=r["fragment_type"], content=content,
                                                     reading_order=r["reading_order"], bbox=bbox)

    def chunks(self, wanted: Any = None) -> Iterator[Chunk]:
        if self._whole is not None:
            yield from (c for c in self._whole.chunks if wanted is None or c.page_number in wanted)
            return
        with self.storage.open(table_key(self.key, "chunks")) as fh:
            for batch in pq.ParquetFile(fh).iter_batches(batch_size=self.BATCH_ROWS,
                                                         columns=["page_number", "content"]):
                for r in batch.to_pylist():
                    if wanted is None or r["page_number"] in wanted:
                        yield Chunk(page_number=r["page_number"], content=r["content"])


def _read_nested(storage: Storage, key: str) -> DocumentResult:
    """A result written before results were split into tables: one file, one row with nested
    pages (fragment content as JSON), chunks, errors and ``extras``."""
    with storage.open(key) as fh:
        row = pq.read_table(fh).to_pylist()[0]
    extras = json.loads(row.get("extras") or "{}")
    pages = [PageResult(
        page_number=p["page_number"], width=p.get("width"), height=p.get("height"),
        skew_angle=p.get("skew_angle"), page_image=p.get("page_image"),
        fragments=[Fragment(fragment_type=f["fragment_type"], content=json.loads(f["content"]),
                            reading_order=f["reading_order"], bbox=f["bbox"]) for f in p["fragments"] or []],
    ) for p in row["pages"] or []]
    return DocumentResult(
        input=DocumentInput(data=b"", mime_type=row["mime_type"]), status=row["status"],
        total_pages=row["total_pages"] or 0, pages=pages,
        chunks=[Chunk(**c) for c in row["chunks"] or []],
        errors=[ErrorItem(**e) for e in row["errors"] or []],
        merged_tables=extras.get("merged_tables"),
    )
