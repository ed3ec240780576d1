"""The jobs the catalog tests make, the tenants they make them for, and the page walk every
listing is held to. Shared by the tests/catalog/test_catalog*.py modules, so each builds its rows
the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine, update

from assets.catalog import jobs as jobs_repo
from assets.catalog.db import jobs
from pipelines.core.records import Job, JobKind, JobSource, Page, Principal
from pipelines.core.requests import ParseRequest

P = Principal("org-a", "proj-a", "key_a")
SAME_ORG_OTHER_PROJECT = Principal("org-a", "proj-b", "key_a2")
OTHER_ORG_SAME_PROJECT = Principal("org-b", "proj-a", "key_b")
T0 = 1_790_000_000_000_000  # a fixed epoch-µs base for rows whose times the tests set


def make_job(engine: Engine, p: Principal = P, *, file_name: str | None = "doc.pdf",
             dataset_name: str | None = None, created_us: int | None = None,
             **values: Any) -> Job:
    job = jobs_repo.create_job(engine, p, kind=JobKind.parse, source=JobSource.file("file_x"),
                               options=ParseRequest(file_id="file_x"), labels={"k": "v"}, file_id="file_x",
                               file_name=file_name, dataset_name=dataset_name)
    if created_us is not None:
        values["created_us"] = created_us
    if values:
        with engine.begin() as conn:
            conn.execute(update(jobs).where(jobs.c.id == job.id).values(**values))
    return jobs_repo.get_job_by_id(engine, job.id)  # type: ignore[return-value]


def row(engine: Engine, job_id: str) -> Job:
    r = jobs_repo.get_job_by_id(engine, job_id)
    assert r is not None
    return r


def newest_first(rows: list[dict[str, Any]]) -> list[str]:
    return [r.id for r in sorted(rows, key=lambda r: (r.created_us, r.id), reverse=True)]


def ids(page: Page) -> list[str]:
    return [r.id if isinstance(r, dict) else r.id for r in page.rows]


def check_walk(list_page: Callable[..., Page], expected: list[str], limit: int) -> None:
    """Walk every page forward with ``next``, then all the way back with ``prev``."""
    pages: list[Page] = []
    cursor = None
    for _ in range(len(expected) + 2):
        page = list_page(cursor=cursor, direction="next", limit=limit)
        pages.append(page)
        assert (page.next_cursor is not None) == page.has_more
        if not page.has_more:
            break
        cursor = page.next_cursor
    else:
        pytest.fail("forward walk did not end")
    walked = [i for pg in pages for i in ids(pg)]
    assert walked == expected, "forward walk: every row once, newest first"
    assert all(len(pg.rows) == limit for pg in pages[:-1])
    assert pages[0].prev_cursor is None
    assert all(pg.prev_cursor is not None for pg in pages[1:])
    assert not pages[-1].has_more and pages[-1].next_cursor is None

    # Back from the last page: each `prev` page is exactly the forward page before it.
    k = len(pages) - 1
    cursor = pages[-1].prev_cursor
    while k > 0:
        page = list_page(cursor=cursor, direction="prev", limit=limit)
        k -= 1
        assert ids(page) == ids(pages[k]), f"prev page {k}"
        assert page.has_more == (k > 0)
        assert (page.prev_cursor is not None) == (k > 0)
        assert page.next_cursor is not None
        # ...and `next` from it lands on the page after it again.
        again = list_page(cursor=page.next_cursor, direction="next", limit=limit)
        assert ids(again) == ids(pages[k + 1])
        cursor = page.prev_cursor
