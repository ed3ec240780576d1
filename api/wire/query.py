"""SQL over a project's results on the wire (a docklake extension): the question and the answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class QueryRequest(BaseModel):
    sql: str = Field(description="DuckDB SQL over the tables jobs, documents, pages, fragments and chunks "
                     "(the caller's own).")
    dataset_id: str | None = Field(None, description="Only this dataset's jobs and results.")


class QueryAnswer(BaseModel):
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool = Field(description="More rows matched than DOCKLAKE_API__QUERY_MAX_ROWS.")


def answer(columns: list[str], rows: list[list[Any]], truncated: bool) -> dict[str, Any]:
    # rows hold whatever DuckDB returned (dates, decimals): written by ``dumps``, not validated
    return {"columns": columns, "rows": rows, "row_count": len(rows), "truncated": truncated}
