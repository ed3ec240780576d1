"""SQL over the caller's own results (``assets.query``): ``jobs``, ``documents``, ``pages``,
``fragments``, ``chunks``, ``structured_data`` and ``page_classes`` of its organization and
project, or of one of its datasets."""

from __future__ import annotations

from assets.query import QueryResult, run_query, tenant_tables
from pipelines.core.errors import InvalidRequest
from pipelines.core.records import Principal
from pipelines.core.requests import text_problem
from pipelines.usecases import datasets
from pipelines.usecases.runtime import Runtime

MAX_SQL = 100_000


def query(rt: Runtime, p: Principal, sql: str, *, dataset_id: str | None = None) -> QueryResult:
    if not sql.strip():
        raise InvalidRequest("sql is empty", code="INVALID_QUERY_PARAMS")
    if (problem := text_problem(sql)) is not None:
        raise InvalidRequest(f"sql {problem}", code="INVALID_QUERY_PARAMS")
    if len(sql) > MAX_SQL:
        raise InvalidRequest(f"sql is longer than {MAX_SQL} characters", code="INVALID_QUERY_PARAMS")
    if dataset_id is not None:
        datasets.get(rt, p, dataset_id)  # 404 unless it is the caller's
    api = rt.settings.api
    return run_query(tenant_tables(rt.engine, rt.storage, p, dataset_id), sql, max_rows=api.query_max_rows,
                     timeout_s=api.query_timeout_s)
