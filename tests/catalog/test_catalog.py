"""The SQL catalog on both backends (SQLite WAL and PostgreSQL): migrations, the job lease
protocol workers rely on, keyset pagination and filters, tenant scoping, files and API keys.

Every test gets its own empty database: a new SQLite file, or a new PostgreSQL database on the
session's cluster (``tests/support/postgres.py``).
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, inspect, select, text, update

from assets.catalog import files as files_repo
from assets.catalog import jobs as jobs_repo
from assets.catalog import keys as keys_repo
from assets.catalog.db import api_keys, jobs, make_engine, migrate, now_us
from pipelines.core.errors import InvalidQuery
from pipelines.core.records import FileRecord, Job, JobFilter, JobKind, JobSource, Page, Principal
from pipelines.core.requests import ParseRequest
from tests.support.postgres import admin_execute

P = Principal("org-a", "proj-a", "key_a")
SAME_ORG_OTHER_PROJECT = Principal("org-a", "proj-b", "key_a2")
OTHER_ORG_SAME_PROJECT = Principal("org-b", "proj-a", "key_b")
ROOT = Path(__file__).resolve().parents[2]
T0 = 1_790_000_000_000_000  # a fixed epoch-µs base for rows whose times the tests set


# ------------------------------------------------------------------------------------ fixtures


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An engine on a brand-new, empty database of each backend (not migrated)."""
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path}/catalog.db")
        yield engine
        engine.dispose()
        return
    base: str = request.getfixturevalue("postgres_url")
    db = "t_" + secrets.token_hex(8)
    admin_execute(base, f"CREATE DATABASE {db}")
    engine = make_engine(base.rsplit("/", 1)[0] + "/" + db)
    try:
        yield engine
    finally:
        engine.dispose()
        admin_execute(base, f"DROP DATABASE {db} WITH (FORCE)")


@pytest.fixture
def catalog_engine(empty_engine: Engine) -> Engine:
    migrate(empty_engine)
    return empty_engine


# ------------------------------------------------------------------------------------- helpers


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


def wait_lease_expired(engine: Engine, job_id: str) -> None:
    """Sleep just past the job's lease expiry (the worker 'died' and stopped renewing)."""
    expires = row(engine, job_id).lease_expires_us
    time.sleep(max(0.0, (expires - now_us()) / 1e6) + 0.02)


def newest_first(rows: list[dict[str, Any]]) -> list[str]:
    return [r.id for r in sorted(rows, key=lambda r: (r.created_us, r.id), reverse=True)]


def ids(page: Page) -> list[str]:
    return [r.id if isinstance(r, dict) else r.id for r in page.rows]


def run_concurrently(n: int, fn: Callable[[int], Any]) -> list[Any]:
    """Run ``fn(i)`` for i in range(n) on n threads released together; re-raise any error."""
    results: list[Any] = [None] * n
    errors: list[BaseException] = []
    start = threading.Barrier(n)

    def target(i: int) -> None:
        try:
            start.wait()
            results[i] = fn(i)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return results


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


# ---------------------------------------------------------------------------------- migrations


def test_migrations_create_the_schema_on_an_empty_database_and_are_idempotent(
        empty_engine: Engine) -> None:
    assert inspect(empty_engine).get_table_names() == []
    migrate(empty_engine)
    insp = inspect(empty_engine)
    assert {"api_keys", "files", "jobs", "alembic_version"} <= set(insp.get_table_names())
    assert {"ix_jobs_claim", "ix_jobs_scope_created", "ix_jobs_scope_status_created",
            "ix_jobs_scope_dataset_created"} <= {i["name"] for i in insp.get_indexes("jobs")}
    assert "ix_files_scope_created" in {i["name"] for i in insp.get_indexes("files")}

    job = make_job(empty_engine)
    migrate(empty_engine)  # a second run changes nothing and keeps the data
    assert row(empty_engine, job.id).status == "pending"
    with empty_engine.connect() as conn:
        versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    from alembic.script import ScriptDirectory

    from assets.catalog.db import alembic_config

    head = ScriptDirectory.from_config(alembic_config(str(empty_engine.url))).get_current_head()
    assert versions == [head]


def test_processes_starting_together_can_all_migrate_an_empty_database(
        empty_engine: Engine) -> None:
    # API, dispatcher and workers each migrate at start-up, possibly at the same moment. Real
    # processes: alembic keeps per-run state in module globals, so threads would not be faithful.
    url = empty_engine.url.render_as_string(hide_password=False)
    code = ("import sys; from assets.catalog.db import make_engine, migrate; "
            "e = make_engine(sys.argv[1]); print('ready', flush=True); sys.stdin.read(); migrate(e)")
    procs = [subprocess.Popen([sys.executable, "-c", code, url], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
             for _ in range(4)]
    for pr in procs:
        assert pr.stdout.readline().strip() == "ready", pr.stderr.read()  # type: ignore[union-attr]
    for pr in procs:  # all imported and waiting: release them together
        pr.stdin.close()  # type: ignore[union-attr]
    failures = []
    for pr in procs:
        try:
            pr.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pr.kill()
            pr.wait()
        if pr.returncode != 0:
            failures.append(pr.stderr.read()[-3000:])  # type: ignore[union-attr]
    assert not failures, failures[0]
    assert {"api_keys", "files", "jobs"} <= set(inspect(empty_engine).get_table_names())
    make_job(empty_engine)


# ------------------------------------------------------------------------------ claim / leases


def test_concurrent_claims_hand_each_job_to_exactly_one_worker(catalog_engine: Engine) -> None:
    n_jobs, n_workers = 60, 6
    all_ids = {make_job(catalog_engine).id for _ in range(n_jobs)}
    got: dict[str, list[str]] = {f"worker-{i}": [] for i in range(n_workers)}
    errors: list[BaseException] = []
    start = threading.Barrier(n_workers)

    def work(owner: str) -> None:
        try:
            start.wait()
            while batch := jobs_repo.claim(catalog_engine, owner, limit=3, lease_s=60):
                got[owner].extend(j.id for j in batch)
                assert all(j.lease_owner == owner and j.status == "processing"
                           for j in batch)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(o,)) for o in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    claimed = [i for lst in got.values() for i in lst]
    assert len(claimed) == len(set(claimed)), "a job was handed to two workers"
    assert set(claimed) == all_ids
    for owner, lst in got.items():
        for job_id in lst:
            r = row(catalog_engine, job_id)
            assert (r.lease_owner, r.status, r.attempts) == (owner, "processing", 1)
    assert jobs_repo.claim(catalog_engine, "late", limit=10, lease_s=60) == []


def test_claim_takes_oldest_pending_first_and_respects_limit(catalog_engine: Engine) -> None:
    made = [make_job(catalog_engine, created_us=T0 + i).id for i in range(5)]
    first = jobs_repo.claim(catalog_engine, "w1", limit=2, lease_s=60)
    assert [j.id for j in first] == made[:2]
    assert all(j.attempts == 1 and j.started_us for j in first)
    done = jobs_repo.finish(catalog_engine, "w1", made[0], 1, status="successful", error=None,
                            result_key="results/x", total_pages=3, parsed_pages_count=3)
    assert done
    r = row(catalog_engine, made[0])
    assert (r.status, r.lease_owner, r.result_key, r.total_pages) == (
        "successful", None, "results/x", 3)
    assert r.finished_us >= r.started_us
    # A finished job is never claimed again, nor finished twice.
    rest = jobs_repo.claim(catalog_engine, "w2", limit=10, lease_s=60)
    assert [j.id for j in rest] == made[2:]
    assert not jobs_repo.finish(catalog_engine, "w1", made[0], 1, status="failure", error="x",
                                result_key=None, total_pages=None, parsed_pages_count=0)
    assert row(catalog_engine, made[0]).status == "successful"


def test_expired_lease_is_reclaimed_and_the_old_owner_cannot_finish(catalog_engine: Engine) -> None:
    job = make_job(catalog_engine)
    [a] = jobs_repo.claim(catalog_engine, "worker-a", limit=5, lease_s=0.2)
    assert a.attempts == 1
    # While the lease runs nobody else gets the job.
    assert jobs_repo.claim(catalog_engine, "worker-b", limit=5, lease_s=0.2) == []
    wait_lease_expired(catalog_engine, job.id)  # worker-a died

    [b] = jobs_repo.claim(catalog_engine, "worker-b", limit=5, lease_s=60)
    assert (b.id, b.lease_owner, b.attempts, b.status) == (
        job.id, "worker-b", 2, "processing")

    # worker-a comes back and tries to close the job: refused, the row stays worker-b's.
    assert not jobs_repo.finish(catalog_engine, "worker-a", job.id, 1, status="failure",
                                error="stale", result_key=None, total_pages=None,
                                parsed_pages_count=0)
    r = row(catalog_engine, job.id)
    assert (r.status, r.lease_owner, r.attempts, r.error, r.finished_us) == (
        "processing", "worker-b", 2, None, None)
    assert jobs_repo.finish(catalog_engine, "worker-b", job.id, 2, status="successful",
                            error=None, result_key="results/y", total_pages=1,
                            parsed_pages_count=1)
    assert row(catalog_engine, job.id).status == "successful"


def test_job_abandoned_max_attempts_times_ends_in_failure(catalog_engine: Engine) -> None:
    job = make_job(catalog_engine)
    for attempt in range(1, 3 + 1):
        [c] = jobs_repo.claim(catalog_engine, f"worker-{attempt}", limit=1, lease_s=0.2)
        assert c.attempts == attempt
        wait_lease_expired(catalog_engine, job.id)
    assert jobs_repo.claim(catalog_engine, "worker-last", limit=1, lease_s=0.2) == []
    r = row(catalog_engine, job.id)
    assert r.status == "failure"
    assert r.error and "abandoned" in r.error
    assert r.finished_us is not None and r.lease_owner is None
    # It stays failed.
    time.sleep(0.05)
    assert jobs_repo.claim(catalog_engine, "worker-later", limit=1, lease_s=0.2) == []
    assert row(catalog_engine, job.id).status == "failure"


def test_renew_extends_only_the_callers_leases(catalog_engine: Engine) -> None:
    j1 = make_job(catalog_engine, created_us=T0 + 1).id
    j2 = make_job(catalog_engine, created_us=T0 + 2).id
    assert [j.id for j in jobs_repo.claim(catalog_engine, "a", limit=1, lease_s=0.2)] == [j1]
    assert [j.id for j in jobs_repo.claim(catalog_engine, "b", limit=1, lease_s=0.2)] == [j2]
    b_expiry = row(catalog_engine, j2).lease_expires_us

    assert jobs_repo.renew(catalog_engine, "a", [j1, j2], lease_s=60) == 1
    assert row(catalog_engine, j1).lease_expires_us > now_us() + 50e6
    assert row(catalog_engine, j2).lease_expires_us == b_expiry
    assert jobs_repo.renew(catalog_engine, "a", [], lease_s=60) == 0

    # After both old leases would have expired, only b's job can be taken over.
    wait_lease_expired(catalog_engine, j2)
    taken = jobs_repo.claim(catalog_engine, "c", limit=5, lease_s=60)
    assert [j.id for j in taken] == [j2]
    assert row(catalog_engine, j1).lease_owner == "a"
    # b lost its job: renewing it no longer works.
    assert jobs_repo.renew(catalog_engine, "b", [j2], lease_s=60) == 0
    assert row(catalog_engine, j2).lease_owner == "c"


def test_release_returns_only_the_owners_jobs_to_pending(catalog_engine: Engine) -> None:
    made = [make_job(catalog_engine, created_us=T0 + i).id for i in range(4)]
    a = [j.id for j in jobs_repo.claim(catalog_engine, "a", limit=2, lease_s=60)]
    b = [j.id for j in jobs_repo.claim(catalog_engine, "b", limit=1, lease_s=60)]
    assert a == made[:2] and b == made[2:3]

    assert jobs_repo.release(catalog_engine, "a") == 2
    for job_id in a:
        r = row(catalog_engine, job_id)
        assert (r.status, r.lease_owner, r.lease_expires_us, r.attempts) == (
            "pending", None, None, 0)
    r = row(catalog_engine, b[0])
    assert (r.status, r.lease_owner) == ("processing", "b")
    assert jobs_repo.release(catalog_engine, "a") == 0
    # Released jobs are claimable again at once.
    again = {j.id for j in jobs_repo.claim(catalog_engine, "c", limit=10, lease_s=60)}
    assert again == set(a) | {made[3]}


# ----------------------------------------------------------------------- job listing / filters


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


# ------------------------------------------------------------------------------------- files


def make_file(engine: Engine, p: Principal = P, *, name: str | None = "doc.pdf",
              created_us: int = 0, labels: dict[str, Any] | None = None) -> FileRecord:
    fid = files_repo.new_file_id()
    rec = FileRecord(fid, name, "application/pdf", 1234, "ab" * 32, created_us,
                     files_repo.storage_key(p, fid), labels or {})
    files_repo.insert_file(engine, p, rec)
    return rec


def test_files_insert_get_delete_scoped(catalog_engine: Engine) -> None:
    rec = make_file(catalog_engine, labels={"team": "ops", "n": 1})
    got = files_repo.get_file(catalog_engine, P, rec.id)
    assert got is not None
    assert (got.file_name, got.mime_type, got.file_size, got.checksum_sha256, got.labels,
            got.storage_key) == ("doc.pdf", "application/pdf", 1234, "ab" * 32,
                                 {"team": "ops", "n": 1}, f"files/org-a/proj-a/{rec.id}")
    assert got.created_us > 0  # stamped at insert when not given
    for other in (SAME_ORG_OTHER_PROJECT, OTHER_ORG_SAME_PROJECT):
        assert files_repo.get_file(catalog_engine, other, rec.id) is None
        assert files_repo.delete_file(catalog_engine, other, rec.id) is None
        assert files_repo.list_files(catalog_engine, other, cursor=None, direction="next",
                                     limit=10, file_name=None, created_after=None,
                                     created_before=None).rows == []
    assert files_repo.get_file(catalog_engine, P, rec.id) is not None
    deleted = files_repo.delete_file(catalog_engine, P, rec.id)
    assert deleted is not None and deleted.id == rec.id
    assert files_repo.get_file(catalog_engine, P, rec.id) is None
    assert files_repo.delete_file(catalog_engine, P, rec.id) is None


@pytest.mark.parametrize("limit", [1, 2, 5, 7])
def test_list_files_pages_and_filters(catalog_engine: Engine, limit: int) -> None:
    names = ["report.pdf", "Report-Q1.pdf", "notes.txt", "REPORT.md", "a_b.txt", "x.bin", None]
    made = [make_file(catalog_engine, name=n, created_us=T0 + (i // 2) * 10)
            for i, n in enumerate(names)]
    for other in (SAME_ORG_OTHER_PROJECT, OTHER_ORG_SAME_PROJECT):
        make_file(catalog_engine, other, name="report.pdf", created_us=T0 + 5)

    def list_page(file_name: str | None = None, created_after: int | None = None,
                  created_before: int | None = None, **kw: Any) -> Page:
        return files_repo.list_files(catalog_engine, P, file_name=file_name,
                                     created_after=created_after, created_before=created_before,
                                     **kw)

    check_walk(list_page, newest_first(made), limit)

    def names_of(**kw: Any) -> set[str | None]:
        page = list_page(cursor=None, direction="next", limit=100, **kw)
        assert all(isinstance(r, FileRecord) for r in page.rows)
        return {r.file_name for r in page.rows}

    assert names_of(file_name="Report") == {"Report-Q1.pdf"}
    assert names_of(file_name="report") == {"report.pdf"}
    assert names_of(file_name="REPORT") == {"REPORT.md"}
    assert names_of(file_name="_") == {"a_b.txt"}
    assert names_of(created_after=T0 + 10, created_before=T0 + 30) == {"a_b.txt", "x.bin"}
    zero = list_page(cursor=None, direction="next", limit=0)
    assert zero.rows == [] and not zero.has_more


# -------------------------------------------------------------------------------------- keys


def test_api_keys_are_idempotent_hashed_and_looked_up(catalog_engine: Engine) -> None:
    token = keys_repo.new_token()
    key_id = keys_repo.add_key(catalog_engine, token, "org-a", "proj-a")
    assert keys_repo.add_key(catalog_engine, token, "org-a", "proj-a") == key_id
    assert keys_repo.count_keys(catalog_engine) == 1
    assert keys_repo.lookup(catalog_engine, token) == Principal("org-a", "proj-a", key_id)
    assert keys_repo.lookup(catalog_engine, "dl_unknown") is None
    assert keys_repo.lookup(catalog_engine, "") is None

    other = keys_repo.create_key(catalog_engine, "org-b", "proj-b")
    assert other != token and keys_repo.count_keys(catalog_engine) == 2
    found = keys_repo.lookup(catalog_engine, other)
    assert found is not None and (found.organization_id, found.project_id) == ("org-b", "proj-b")

    with catalog_engine.connect() as conn:
        stored = [dict(r) for r in conn.execute(select(api_keys)).mappings()]
    for r in stored:
        for value in r.values():
            assert token not in str(value) and other not in str(value)
    assert {r["key_hash"] for r in stored} == {keys_repo.hash_key(token), keys_repo.hash_key(other)}


def test_add_key_is_idempotent_under_concurrent_start_up(catalog_engine: Engine) -> None:
    # Every process registers the configured keys at start-up, possibly at the same moment.
    for n in range(1, 6):
        token = keys_repo.new_token()
        got = run_concurrently(
            6, lambda _i: keys_repo.add_key(catalog_engine, token, "org-a", "proj-a"))  # noqa: B023
        assert len(set(got)) == 1
        assert keys_repo.count_keys(catalog_engine) == n
        assert keys_repo.lookup(catalog_engine, token) == Principal("org-a", "proj-a", got[0])


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


def test_configured_keys_follow_the_configuration_and_keys_can_be_revoked(catalog_engine: Engine) -> None:
    keys_repo.sync_configured(catalog_engine, [("tok1", "org-a", "p"), ("tok2", "org-b", "p")])
    made = keys_repo.create_key(catalog_engine, "org-c", "p")
    assert keys_repo.lookup(catalog_engine, "tok1").organization_id == "org-a"
    # the configuration moves tok1 to org-b and drops tok2; a key made with the CLI stays
    keys_repo.sync_configured(catalog_engine, [("tok1", "org-b", "p2")])
    moved = keys_repo.lookup(catalog_engine, "tok1")
    assert (moved.organization_id, moved.project_id) == ("org-b", "p2")
    assert keys_repo.lookup(catalog_engine, "tok2") is None
    assert keys_repo.lookup(catalog_engine, made).organization_id == "org-c"
    assert keys_repo.revoke(catalog_engine, made) and keys_repo.lookup(catalog_engine, made) is None
    assert not keys_repo.revoke(catalog_engine, made)


def test_claims_take_organizations_in_turn(catalog_engine: Engine) -> None:
    """One tenant's backlog does not hold another tenant's jobs back: each claim takes the oldest
    job of each organization in turn, and an organization gets at most ``per_org`` in flight."""
    big, small, third = Principal("org-big", "p", ""), Principal("org-small", "p", ""), Principal("org-z", "p", "")
    backlog = [make_job(catalog_engine, big, created_us=T0 + i).id for i in range(10)]
    late = [make_job(catalog_engine, small, created_us=T0 + 100 + i).id for i in range(2)]
    z = make_job(catalog_engine, third, created_us=T0 + 200).id
    first = jobs_repo.claim(catalog_engine, "w", limit=4, lease_s=60)
    assert [j.id for j in first] == [backlog[0], late[0], z, backlog[1]]
    # the next claim starts after the organization served last, and skips one that is full
    nxt = jobs_repo.claim(catalog_engine, "w", limit=4, lease_s=60, after_org="org-big",
                          busy={"org-big": 2, "org-small": 1, "org-z": 1}, per_org=2)
    assert [j.id for j in nxt] == [late[1]]
    rest = jobs_repo.claim(catalog_engine, "w", limit=20, lease_s=60)
    assert [j.id for j in rest] == backlog[2:]


def test_pending_organizations_are_found_by_index_probes(catalog_engine: Engine) -> None:
    for org in ("b", "a", "d", "c"):
        make_job(catalog_engine, Principal(org, "p", ""))
    with catalog_engine.connect() as conn:
        assert jobs_repo._pending_orgs(conn, "", 10) == ["a", "b", "c", "d"]
        assert jobs_repo._pending_orgs(conn, "b", 10) == ["c", "d", "a", "b"]
        assert jobs_repo._pending_orgs(conn, "b", 2) == ["c", "d"]
