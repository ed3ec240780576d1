"""SQL over one tenant's results with DuckDB.

The caller's tables are Arrow datasets over exactly the result files the catalog lists for its
organization and project (read lazily, through the storage's fsspec filesystem), registered in
an in-memory DuckDB whose access to files is then switched off and locked: a query sees
``jobs``, ``documents``, ``pages``, ``fragments``, ``chunks``, ``structured_data`` and
``page_classes`` of its own tenant and can name
no path, read no other file, install nothing and change no setting.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.dataset as pads
from sqlalchemy import Engine, select

from assets.catalog.db import jobs
from assets.results import OPTIONAL_TABLES, TABLES, table_key
from assets.storage import Storage
from pipelines.core.errors import InvalidRequest
from pipelines.core.records import Principal

RESULT_TABLES = {"document": "documents", "pages": "pages", "fragments": "fragments", "chunks": "chunks",
                 "structured_data": "structured_data", "page_classes": "page_classes"}
JOB_COLUMNS = ("id", "status", "kind", "dataset_id", "dataset_name", "file_id", "file_name", "error",
               "total_pages", "parsed_pages_count", "created_us", "finished_us")


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


def _tenant_jobs(engine: Engine, p: Principal, dataset_id: str | None) -> pa.Table:
    q = select(*(jobs.c[c] for c in JOB_COLUMNS), jobs.c.result_key).where(
        jobs.c.organization_id == p.organization_id, jobs.c.project_id == p.project_id)
    if dataset_id is not None:
        q = q.where(jobs.c.dataset_id == dataset_id)
    with engine.connect() as conn:
        rows = [dict(r) for r in conn.execute(q).mappings()]
    return pa.Table.from_pylist(rows, schema=pa.schema(
        [(c, pa.int64() if c in ("total_pages", "parsed_pages_count", "created_us", "finished_us") else pa.string())
         for c in JOB_COLUMNS] + [("result_key", pa.string())]))


def tenant_tables(engine: Engine, storage: Storage, p: Principal, dataset_id: str | None = None
                  ) -> dict[str, Any]:
    """The tables a query of ``p`` may read (only ``dataset_id``'s jobs, if given)."""
    listed = _tenant_jobs(engine, p, dataset_id)
    keys = [k for k in listed.column("result_key").to_pylist() if k and not k.endswith(".parquet")]
    out: dict[str, Any] = {"jobs": listed.drop_columns(["result_key"])}
    for table, name in RESULT_TABLES.items():
        found = [k for k in keys if table not in OPTIONAL_TABLES or storage.exists(table_key(k, table))]
        paths = [storage.path(table_key(k, table)) for k in found]
        out[name] = (pads.dataset(paths, format="parquet", filesystem=storage.fs, schema=TABLES[table])
                     if paths else TABLES[table].empty_table())
    return out


def run_query(tables: dict[str, Any], sql: str, *, max_rows: int, timeout_s: float,
              memory_mb: int = 1024) -> QueryResult:
    """``sql`` over ``tables`` only; at most ``max_rows`` rows come back (``truncated`` says if
    there were more); a query running longer than ``timeout_s`` is stopped."""
    con = duckdb.connect(":memory:")
    try:
        for name, table in tables.items():
            con.register(name, table)
        con.execute(f"SET memory_limit='{int(memory_mb)}MB'")
        con.execute("SET threads=2")
        con.execute("SET enable_external_access=false")
        con.execute("SET lock_configuration=true")
        timer = threading.Timer(timeout_s, con.interrupt)
        timer.start()
        try:
            cur = con.execute(sql)
            if cur.description is None:
                return QueryResult([], [], False)
            columns = [d[0] for d in cur.description]
            rows = cur.fetchmany(max_rows + 1)
        except duckdb.InterruptException:
            raise InvalidRequest(f"the query ran longer than {timeout_s:g} s (DOCKLAKE_API__QUERY_TIMEOUT_S)",
                                 code="INVALID_QUERY_PARAMS") from None
        except duckdb.Error as exc:
            raise InvalidRequest(f"the query failed: {str(exc).splitlines()[0]}", code="INVALID_QUERY_PARAMS") from None
        finally:
            timer.cancel()
        return QueryResult(columns, [list(r) for r in rows[:max_rows]], len(rows) > max_rows)
    finally:
        con.close()
