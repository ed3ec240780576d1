"""Job listings on both catalog backends: keyset pagination forward and back, the filters (exact
and substring, time ranges), tenant scoping, reads during an open write, and a rare file name
among many jobs. Apart from test_catalog.py because the API's job listing pages are built on
these queries."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from sqlalchemy import Engine, update

from assets.catalog import jobs as jobs_repo
from assets.catalog.db import jobs
from pipelines.core.errors import InvalidQuery
from pipelines.core.records import JobFilter, JobSource, Page
from tests.support.catalog_rows import (
    OTHER_ORG_SAME_PROJECT,
    SAME_ORG_OTHER_PROJECT,
    T0,
    P,
    check_walk,
    ids,
    make_job,
    newest_first,
)


def _jobs_with_ties(engine: Engine, n: int = 11) -> list[dict[str, Any]]:
    # Several rows share a creation time so the id tie-break is exercised across page edges.
    return [make_job(engine, created_us=T0 + (i // 3) * 10) for i in range(n)]


@pytest.mark.parametrize("limit", [1, 3, 4, 11, 50])
def test_list_jobs_pages_forward_and_back_without_gaps_or_duplicates(
        catalog_engine: Engine, limit: int) -> None:
    made = _jobs_with_ties(catalog_engine)
    make_job(catalog_engine, SAME_ORG_OTHER_PROJECT, created_us=T0 + 5)
    make_job(catalog_engine, OTHER_ORG_SAME_PROJECT, created_us=T0 + 5)

    def list_page(**kw: Any) -> Page:
        return jobs_repo.list_jobs(catalog_engine, P, JobFilter(), **kw)

    check_walk(list_page, newest_first(made), limit)


def test_list_jobs_limit_zero_and_empty_and_bad_cursor(catalog_engine: Engine) -> None:
    f = JobFilter()
    empty = jobs_repo.list_jobs(catalog_engine, P, f, cursor=None, direction="next", limit=10)
    assert (empty.rows, empty.has_more, empty.next_cursor, empty.prev_cursor) == (
        [], False, None, None)
    made = _jobs_with_ties(catalog_engine, 4)
    zero = jobs_repo.list_jobs(catalog_engine, P, f, cursor=None, direction="next", limit=0)
    assert (zero.rows, zero.has_more, zero.next_cursor) == ([], False, None)  # nothing to page on
    first = jobs_repo.list_jobs(catalog_engine, P, f, cursor=None, direction="next", limit=4)
    assert ids(first) == newest_first(made) and not first.has_more
    with pytest.raises(InvalidQuery):
        jobs_repo.list_jobs(catalog_engine, P, f, cursor="%%not-a-cursor", direction="next",
                            limit=10)


def test_list_jobs_filters(catalog_engine: Engine) -> None:
    report = make_job(catalog_engine, file_name="report.pdf", dataset_name="invoices",
                      created_us=T0 + 100, status="successful", finished_us=T0 + 1000)
    upper = make_job(catalog_engine, file_name="Annual Report 2025.PDF", dataset_name="Invoices",
                     created_us=T0 + 200, status="failure", finished_us=T0 + 2000)
    under = make_job(catalog_engine, file_name="a_b.txt", dataset_name="invoices",
                     created_us=T0 + 300)
    plain = make_job(catalog_engine, file_name="axb.txt", created_us=T0 + 400)
    nameless = make_job(catalog_engine, file_name=None, created_us=T0 + 500)
    # Rows of other tenants that match every filter below must never show up.
    for other in (SAME_ORG_OTHER_PROJECT, OTHER_ORG_SAME_PROJECT):
        make_job(catalog_engine, other, file_name="report.pdf", dataset_name="invoices",
                 created_us=T0 + 150, status="successful", finished_us=T0 + 1500)

    def q(**kw: Any) -> list[str]:
        page = jobs_repo.list_jobs(catalog_engine, P, JobFilter(**kw), cursor=None,
                                   direction="next", limit=100)
        return ids(page)

    everything = [nameless.id, plain.id, under.id, upper.id, report.id]
    assert q() == everything
    assert q(status="successful") == [report.id]
    assert q(status="pending") == [nameless.id, plain.id, under.id]
    assert q(dataset_name="invoices") == [under.id, report.id]  # exact, case-sensitive
    assert q(file_name="Report") == [upper.id], "case-sensitive: 'Report' ≠ 'report.pdf'"
    assert q(file_name="report") == [report.id]
    assert q(file_name=".PDF") == [upper.id]
    assert q(file_name="_") == [under.id], "'_' is a literal, not a wildcard"
    assert q(file_name="%") == []
    assert q(file_name="txt") == [plain.id, under.id]
    assert q(job_id=upper.id) == [upper.id]
    assert q(job_id="parse_doesnotexist") == []
    # Time ranges are exclusive bounds.
    assert q(created_after=T0 + 200) == [nameless.id, plain.id, under.id]
    assert q(created_before=T0 + 200) == [report.id]
    assert q(created_after=T0 + 100, created_before=T0 + 400) == [under.id, upper.id]
    assert q(finished_after=T0 + 1000) == [upper.id]
    assert q(finished_before=T0 + 2000) == [report.id]
    assert q(finished_after=T0) == [upper.id, report.id]  # unfinished jobs excluded
    assert q(status="successful", dataset_name="invoices", file_name="report") == [report.id]
    # A filtered listing still pages correctly.
    check_walk(lambda **kw: jobs_repo.list_jobs(
        catalog_engine, P, JobFilter(file_name="t"), **kw),
        [plain.id, under.id, upper.id, report.id], 1)


def test_jobs_are_scoped_to_their_organization_and_project(catalog_engine: Engine) -> None:
    mine = make_job(catalog_engine)
    theirs = [make_job(catalog_engine, other)
              for other in (SAME_ORG_OTHER_PROJECT, OTHER_ORG_SAME_PROJECT)]
    page = jobs_repo.list_jobs(catalog_engine, P, JobFilter(), cursor=None,
                               direction="next", limit=100)
    assert ids(page) == [mine.id]
    for t in theirs:
        assert jobs_repo.get_job(catalog_engine, P, t.id) is None
        assert jobs_repo.list_jobs(catalog_engine, P, JobFilter(job_id=t.id),
                                   cursor=None, direction="next", limit=10).rows == []
        assert jobs_repo.delete_job(catalog_engine, P, t.id) is None
        assert jobs_repo.get_job_by_id(catalog_engine, t.id) is not None  # not deleted
    got = jobs_repo.get_job(catalog_engine, P, mine.id)
    assert got is not None and got.source == JobSource.file("file_x") and got.labels == {"k": "v"}
    assert jobs_repo.delete_job(catalog_engine, P, mine.id).id == mine.id  # type: ignore[union-attr]
    assert jobs_repo.get_job(catalog_engine, P, mine.id) is None
    assert jobs_repo.delete_job(catalog_engine, P, mine.id) is None


def test_reads_are_not_blocked_by_an_open_write(catalog_engine: Engine) -> None:
    from assets.catalog.db import write_txn

    job_id = make_job(catalog_engine).id
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with write_txn(catalog_engine) as conn:
            conn.execute(update(jobs).where(jobs.c.id == job_id).values(error="busy"))
            holding.set()
            release.wait(5)

    t = threading.Thread(target=writer)
    t.start()
    try:
        assert holding.wait(5)
        t0 = time.monotonic()
        page = jobs_repo.list_jobs(catalog_engine, P, JobFilter(), cursor=None,
                                   direction="next", limit=10)
        assert time.monotonic() - t0 < 0.5
        assert ids(page) == [job_id] and page.rows[0].error is None  # sees the committed state
    finally:
        release.set()
        t.join()


def test_rare_file_name_filter_over_many_jobs(catalog_engine: Engine) -> None:
    """More jobs than the probe window: a rare substring is found through the trigram index on
    SQLite (LIKE on Postgres), a common one by the ordered scan; both give the same rows."""
    n = jobs_repo.PROBE_ROWS + 500
    rows = [dict(id=f"parse_{i:08d}", organization_id=P.organization_id, project_id=P.project_id,
                 kind="parse", status="successful" if i % 2 else "failure",
                 file_name=f"Needle-{i}.pdf" if i % 2000 == 7 else f"doc_{i}.pdf",
                 request={}, labels={}, created_us=1_000_000 + i, attempts=1, parsed_pages_count=1)
            for i in range(n)]
    rows.append({**rows[0], "id": "parse_other", "organization_id": "other-org", "file_name": "Needle-x.pdf"})
    from assets.catalog.db import write_txn

    with write_txn(catalog_engine) as conn:
        conn.execute(jobs.insert(), rows)
        conn.execute(update(jobs).where(jobs.c.id == "parse_00004007").values(file_name="renamed.pdf"))
        conn.execute(jobs.delete().where(jobs.c.id == "parse_00002007"))
    expected = ["parse_00000007"]

    def listing(**kw: Any) -> list[str]:
        out, cursor = [], None
        while True:
            page = jobs_repo.list_jobs(catalog_engine, P, JobFilter(**kw), cursor=cursor,
                                       direction="next", limit=1)
            out += ids(page)
            if not page.next_cursor:
                return out
            cursor = page.next_cursor

    assert listing(file_name="Needle") == expected  # renamed and deleted rows are gone
    assert listing(file_name="Needle", status="failure") == []
    assert listing(file_name="renamed") == ["parse_00004007"]
    assert listing(file_name="needle") == []  # case-sensitive
    common = jobs_repo.list_jobs(catalog_engine, P, JobFilter(file_name="doc_"), cursor=None,
                                 direction="next", limit=3)
    assert ids(common) == [f"parse_{i:08d}" for i in (n - 1, n - 2, n - 3)] and common.has_more
