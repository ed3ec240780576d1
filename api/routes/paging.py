"""Cursor paging as the ``/documents/v2`` listings (jobs, a dataset's data, datasets, files) share
it: one place for its query parameters and for how a page is fetched and answered, so that
every listing pages alike.

``paging(default_limit)`` is the dependency that reads ``cursor``, ``direction`` and ``limit``
(it is ``async``: resolving it costs no thread hop); ``listing`` fetches the page in a worker
thread and answers it as ``{"items", "has_more", "next_cursor", ...}``.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, Query
from fastapi.concurrency import run_in_threadpool

from api.wire.common import JSON, paginated
from pipelines.core.records import MAX_LIMIT, Page


@dataclass(frozen=True)
class Paging:
    cursor: str | None
    direction: Literal["next", "prev"]
    limit: int


def paging(default_limit: int) -> Callable[..., Coroutine[Any, Any, Paging]]:
    """The dependency reading a listing's paging parameters, ``limit`` defaulting to ``default_limit``."""

    async def paging_params(
        cursor: str | None = None,
        direction: Literal["next", "prev"] = "next",
        limit: Annotated[int, Query(ge=0, le=MAX_LIMIT)] = default_limit,
    ) -> Paging:
        return Paging(cursor=cursor, direction=direction, limit=limit)

    return paging_params


PagingDep = Annotated[Paging, Depends(paging(100))]


async def listing(fetch: Callable[..., Page], page: Paging, render: Callable[[Any], dict[str, Any]]) -> JSON:
    """The answer of a listing: ``fetch(cursor=, direction=, limit=)`` run in a worker thread, each
    of its rows rendered by ``render``."""

    def run() -> dict[str, Any]:
        got = fetch(cursor=page.cursor, direction=page.direction, limit=page.limit)
        return paginated(got, [render(row) for row in got.rows])

    return JSON(await run_in_threadpool(run))
