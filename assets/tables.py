"""Per-dataset tables compacted from job results (no orchestrator code here).

A *dataset key* is ``(organization, project, dataset)``; jobs submitted without a dataset belong to
the dataset ``_``. Compaction reads every finished job's result Parquet and writes six typed
tables, ``documents`` (one row per job), ``pages``, ``fragments`` (text, type, reading order and
box as columns), ``chunks``, ``structured_data`` (schema name, pages, ``data`` as JSON,
citations) and ``page_classes`` (class, pages, reasons), each one Parquet file under ``datasets/<org>/<project>/<dataset>/``
written atomically. DuckDB queries them in place.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from sqlalchemy import Engine, func, inspect, select

from assets import results
from assets.catalog.db import jobs
from assets.storage import Storage
from pipelines.core.records import TERMINAL, JobStatus, JobSummary

NO_DATASET = "_"
TABLE_NAMES = ("documents", "pages", "fragments", "chunks", "structured_data", "page_classes")

DOCUMENTS = pa.schema([
    ("parse_id", pa.string()), ("status", pa.string()), ("file_id", pa.string()),
    ("file_name", pa.string()), ("kind", pa.string()), ("total_pages", pa.int32()),
    ("parsed_pages_count", pa.int32()), ("error", pa.string()), ("labels", pa.string()),
    ("created_us", pa.int64()), ("finished_us", pa.int64()),
])


@dataclass(frozen=True)
class DatasetKey:
    organization_id: str
    project_id: str
    dataset: str = NO_DATASET

    @property
    def partition(self) -> str:
        return f"{self.organization_id}/{self.project_id}/{self.dataset}"

    @classmethod
    def from_partition(cls, key: str) -> DatasetKey:
        org, project, dataset = key.split("/", 2)
        return cls(org, project, dataset)

    def table_key(self, table: str) -> str:
        return f"datasets/{self.partition}/{table}.parquet"


OVERLAP_US = 10 * 60 * 1_000_000


def catalog_ready(engine: Engine) -> bool:
    """Whether the catalog has its tables: ``docklake serve`` (or ``docklake worker``) creates
    them at start, so Dagster started first finds an empty database."""
    return inspect(engine).has_table(jobs.name)


def dataset_keys_finished_since(engine: Engine, since_us: int) -> tuple[list[tuple[DatasetKey, str]], int]:
    """Datasets with jobs finished after ``since_us`` (looking ``OVERLAP_US`` further back, for
    jobs that committed late with an earlier finish time), each with a version string that
    changes whenever a job of it finishes; and the newest finish time seen."""
    ds = func.coalesce(jobs.c.dataset_id, NO_DATASET)
    q = (select(jobs.c.organization_id, jobs.c.project_id, ds.label("ds"), func.max(jobs.c.finished_us),
                func.count())
         .where(jobs.c.finished_us > since_us - OVERLAP_US)
         .group_by(jobs.c.organization_id, jobs.c.project_id, ds))
    with engine.connect() as conn:
        rows = conn.execute(q).all()
    newest = max((r[3] for r in rows), default=since_us)
    return [(DatasetKey(r[0], r[1], r[2]), f"{r[3]}.{r[4]}") for r in rows], max(newest, since_us)


def _finished(key: DatasetKey):  # type: ignore[no-untyped-def]
    q = select(jobs).where(
        jobs.c.organization_id == key.organization_id, jobs.c.project_id == key.project_id,
        jobs.c.status.in_([s.value for s in TERMINAL]),
    )
    return q.where(jobs.c.dataset_id.is_(None) if key.dataset == NO_DATASET else jobs.c.dataset_id == key.dataset)


def finished_count(engine: Engine, key: DatasetKey) -> int:
    """Finished jobs of the dataset in the catalog: what its documents table should hold."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(_finished(key).subquery())).scalar() or 0)


@dataclass(frozen=True)
class Compaction:
    """What one compaction wrote: the tables' row counts and what a person monitoring the dataset
    asks first (how many jobs failed, how many pages were read, which documents failed)."""

    dataset_name: str | None  # the partition names the dataset by id; people know it by name
    documents: int
    chunks: int
    pages: int
    fragments: int
    structured_data: int
    page_classes: int
    successful_jobs: int
    failed_jobs: int
    pages_parsed: int
    pages_total: int
    failures: list[tuple[str, str]]  # (file name or job id, error), oldest first


def compact(engine: Engine, storage: Storage, key: DatasetKey) -> Compaction:
    """Rebuild the dataset's tables from its finished jobs; returns what was written."""
    q = _finished(key).order_by(jobs.c.created_us, jobs.c.id)
    with engine.connect() as conn:
        finished = [JobSummary.from_row(r) for r in conn.execute(q).mappings()]
    docs: list[dict] = []
    parts: dict[str, list[pa.Table]] = {name: [] for name in TABLE_NAMES if name != "documents"}
    for job in finished:
        docs.append({
            "parse_id": job.id, "status": job.status.value, "file_id": job.file_id,
            "file_name": job.file_name, "kind": job.kind.value, "total_pages": job.total_pages,
            "parsed_pages_count": job.parsed_pages_count, "error": job.error,
            "labels": json.dumps(job.labels), "created_us": job.created_us,
            "finished_us": job.finished_us,
        })
        if job.result_key and not job.result_key.endswith(".parquet"):  # results before 0.1 are skipped
            found: dict[str, pa.Table] = {}
            try:
                for name in parts:
                    try:
                        with storage.open(results.table_key(job.result_key, name)) as fh:
                            found[name] = pq.read_table(fh, schema=results.TABLES[name])
                    except FileNotFoundError:
                        if name not in results.OPTIONAL_TABLES:
                            raise
            except FileNotFoundError:
                continue
            for name, table in found.items():
                parts[name].append(table)
    tables = {"documents": pa.Table.from_pylist(docs, schema=DOCUMENTS)}
    for name, found in parts.items():
        tables[name] = pa.concat_tables(found) if found else results.TABLES[name].empty_table()
    for name, table in tables.items():
        buf = io.BytesIO()
        pq.write_table(table, buf, compression="zstd")
        storage.put_bytes(key.table_key(name), buf.getvalue())
    chunks = tables["chunks"]
    failed = [j for j in finished if j.status == JobStatus.failure]
    return Compaction(
        dataset_name=next((j.dataset_name for j in reversed(finished) if j.dataset_name), None),
        documents=len(docs), chunks=chunks.num_rows, pages=tables["pages"].num_rows,
        fragments=tables["fragments"].num_rows, structured_data=tables["structured_data"].num_rows,
        page_classes=tables["page_classes"].num_rows,
        successful_jobs=len(finished) - len(failed), failed_jobs=len(failed),
        pages_parsed=sum(j.parsed_pages_count for j in finished),
        pages_total=sum(j.total_pages or 0 for j in finished),
        failures=[(j.file_name or j.id, j.error or "") for j in failed],
    )


def query(storage: Storage, key: DatasetKey, sql: str) -> list[tuple]:
    """Run ``sql`` over the dataset's tables (views ``documents``, ``pages``, ``fragments``,
    ``chunks``, ``structured_data`` and ``page_classes``) in DuckDB.

    DuckDB is opened in memory per query and reads the Parquet through fsspec, so any storage
    backend works and no DuckDB file is ever shared between processes.
    """
    con = duckdb.connect()
    try:
        con.register_filesystem(storage.fs)
        proto = storage.fs.protocol if isinstance(storage.fs.protocol, str) else storage.fs.protocol[0]
        for table in TABLE_NAMES:
            if table in results.OPTIONAL_TABLES and not storage.exists(key.table_key(table)):
                continue  # compacted before these tables existed
            path = storage.path(key.table_key(table))
            url = path if proto == "file" else f"{proto}://{path.lstrip('/')}"
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{url}')")
        return con.execute(sql).fetchall()
    finally:
        con.close()
