"""``POST /documents/v2/query``: SQL (DuckDB) over the caller's own results (a docklake extension)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from api.deps import PrincipalDep, RuntimeDep
from api.wire import query as wire
from api.wire.common import JSON, responses
from api.wire.query import QueryAnswer, QueryRequest
from pipelines.usecases import query

router = APIRouter(prefix="/documents/v2", tags=["sql"])


@router.post("/query", response_model=QueryAnswer, response_class=JSON, responses=responses(400, 404, body=True))
async def run_sql(req: QueryRequest, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Tables: `jobs` (the catalog's rows), `documents`, `pages`, `fragments` and `chunks` (the
    stored results), all of the caller's organization and project only. Files cannot be named."""
    answer = await run_in_threadpool(query.query, rt, principal, req.sql, dataset_id=req.dataset_id)
    return JSON(wire.answer(answer.columns, answer.rows, answer.truncated))
