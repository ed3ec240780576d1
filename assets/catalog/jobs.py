"""Job rows: the source of truth for job state.

A job moves ``pending → processing → successful | failure``. Workers *claim* jobs with a lease
(``lease_owner``, ``lease_expires_us``) that a heartbeat renews; a job whose lease expired (its
worker died) is claimed again. Finishing is conditional on still holding the lease, so a job is
never finished twice even if two workers ran it.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from typing import Any

from sqlalchemy import (
    Engine,
    and_,
    case,
    column,
    delete,
    func,
    insert,
    literal_column,
    not_,
    select,
    table,
    text,
    update,
)

from assets.catalog import webhooks
from assets.catalog.db import jobs, now_us, waits_out_outages, write_txn
from assets.catalog.files import substring_match
from assets.catalog.pagination import in_page_order, paginate
from assets.catalog.turns import in_turn, pending_orgs
from pipelines.core.records import Job, JobFilter, JobKind, JobSource, JobStatus, JobSummary, Page, Principal
from pipelines.core.requests import ParseRequest

PENDING, PROCESSING = JobStatus.pending.value, JobStatus.processing.value
SUCCESSFUL, FAILURE = JobStatus.successful.value, JobStatus.failure.value


def new_job_id() -> str:
    return "parse_" + secrets.token_hex(12)


def raw_text_key(p: Principal, job_id: str) -> str:
    """Where a job's ``raw_text`` is kept (in storage, not in the catalog row)."""
    return f"texts/{p.organization_id}/{p.project_id}/{job_id}.txt"


def _scoped(p: Principal) -> Any:
    return and_(*_conditions(p, JobFilter()))


def _file_name_contains(engine: Engine, needle: str) -> Any:
    """Case-sensitive substring test on ``file_name``. PostgreSQL gets ``LIKE '%needle%'`` (case-
    sensitive there, and served by the pg_trgm index ix_jobs_file_name_trgm); SQLite, whose LIKE
    folds case, keeps ``instr``."""
    if engine.dialect.name == "postgresql":
        escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return jobs.c.file_name.like(f"%{escaped}%")
    return substring_match(engine, jobs.c.file_name, needle)


def create_job(engine: Engine, p: Principal, *, kind: JobKind, source: JobSource, options: ParseRequest,
               labels: dict[str, Any], file_id: str | None, file_name: str | None,
               dataset_id: str | None = None, dataset_name: str | None = None,
               job_id: str | None = None) -> Job:
    job = Job(id=job_id or new_job_id(), organization_id=p.organization_id, project_id=p.project_id,
              kind=kind, status=JobStatus.pending, created_us=now_us(), labels=labels,
              dataset_id=dataset_id, dataset_name=dataset_name, file_id=file_id, file_name=file_name,
              source=source, options=options)
    with write_txn(engine) as conn:
        conn.execute(insert(jobs).values(
            id=job.id, organization_id=job.organization_id, project_id=job.project_id, kind=kind.value,
            status=PENDING, dataset_id=dataset_id, dataset_name=dataset_name, file_id=file_id,
            file_name=file_name, request=Job.stored_request(source, options), labels=labels,
            created_us=job.created_us, attempts=0, parsed_pages_count=0))
    return job


def get_job(engine: Engine, p: Principal, job_id: str) -> Job | None:
    with engine.connect() as conn:
        row = conn.execute(select(jobs).where(_scoped(p), jobs.c.id == job_id)).mappings().first()
    return Job.from_row(row) if row else None


def get_status(engine: Engine, p: Principal, job_id: str) -> JobStatus | None:
    """Just the status: what a progress stream polls."""
    with engine.connect() as conn:
        status = conn.execute(select(jobs.c.status).where(_scoped(p), jobs.c.id == job_id)).scalar()
    return JobStatus(status) if status else None


@waits_out_outages  # the worker's read: a catalog outage must not fail the job
def get_job_by_id(engine: Engine, job_id: str) -> Job | None:
    with engine.connect() as conn:
        row = conn.execute(select(jobs).where(jobs.c.id == job_id)).mappings().first()
    return Job.from_row(row) if row else None


def delete_job(engine: Engine, p: Principal, job_id: str) -> Job | None:
    with write_txn(engine) as conn:
        row = conn.execute(select(jobs).where(_scoped(p), jobs.c.id == job_id)).mappings().first()
        if row is None:
            return None
        conn.execute(delete(jobs).where(jobs.c.id == job_id))
    return Job.from_row(row)


def _conditions(p: Principal, f: JobFilter, *, indexed: bool = True) -> list[Any]:
    """The WHERE clauses of a listing, file name aside. ``indexed=False`` writes the equality
    tests as ``col || '' = value``, which keeps SQLite from driving the query by an index on
    those columns (used when the trigram index should drive it instead)."""

    def eq(col: Any, value: str) -> Any:
        return (col if indexed else col.concat("")) == value

    conds = [eq(jobs.c.organization_id, p.organization_id), eq(jobs.c.project_id, p.project_id)]
    for col, value in ((jobs.c.status, JobStatus(f.status).value if f.status else None), (jobs.c.dataset_name, f.dataset_name),
                       (jobs.c.dataset_id, f.dataset_id), (jobs.c.id, f.job_id), (jobs.c.file_id, f.file_id)):
        if value:
            conds.append(eq(col, value))
    for col, after, before in ((jobs.c.created_us, f.created_after, f.created_before),
                               (jobs.c.finished_us, f.finished_after, f.finished_before)):
        if after is not None:
            conds.append(col > after)
        if before is not None:
            conds.append(col < before)
    return conds


LISTED = [c for c in jobs.c if c.name != "request"]  # listings never need the request body


def list_jobs(engine: Engine, p: Principal, f: JobFilter, *, cursor: str | None, direction: str,
              limit: int) -> Page:
    q = select(*LISTED).where(*_conditions(p, f))
    with engine.connect() as conn:
        if f.file_name:
            if _rare_on_sqlite(conn, q, f.file_name, cursor, direction, limit):
                q = select(*LISTED).where(*_conditions(p, f, indexed=False),
                                       literal_column("jobs.rowid").in_(_fts_rowids(f.file_name)))
            q = q.where(_file_name_contains(engine, f.file_name))
        page = paginate(conn, q, jobs.c.created_us, jobs.c.id, cursor=cursor,
                        direction=direction, limit=limit)  # type: ignore[arg-type]
    page.rows = [JobSummary.from_row(r) for r in page.rows]
    return page


PROBE_ROWS = 5000


def _rare_on_sqlite(conn: Any, q: Any, needle: str, cursor: str | None, direction: str, limit: int) -> bool:
    """Whether a substring filter should go through the trigram index (SQLite, migration 0004).

    The ordered scan finds a common substring within a few rows; a rare one makes it read every
    row of the project. Probe the next ``PROBE_ROWS`` rows in page order: if they hold a full
    page of matches (or are all there is), the scan is cheap; otherwise use the index.
    """
    if conn.dialect.name != "sqlite" or len(needle) < 3:
        return False
    window = max(PROBE_ROWS, 20 * (limit + 1))
    ordered = in_page_order(q.with_only_columns(jobs.c.file_name), jobs.c.created_us, jobs.c.id,
                            cursor=cursor, direction=direction)  # type: ignore[arg-type]
    win = ordered.limit(window).subquery()
    seen, hits = conn.execute(
        select(func.count(), func.coalesce(func.sum(case((func.instr(win.c.file_name, needle) > 0, 1),
                                                         else_=0)), 0))
    ).one()
    return seen == window and hits <= limit


def _fts_rowids(needle: str) -> Any:
    """Rowids of jobs whose file name contains ``needle`` (SQLite trigram index, ≥ 3 chars)."""
    phrase = '"' + needle.replace('"', '""') + '"'
    fts = table("jobs_file_name_fts", column("rowid"))
    return select(fts.c.rowid).where(text("jobs_file_name_fts MATCH :phrase").bindparams(phrase=phrase))


# ---------------------------------------------------------------- worker side


@waits_out_outages
def claim(engine: Engine, owner: str, limit: int, lease_s: float, max_attempts: int = 3, *,
          after_org: str = "", busy: dict[str, int] | None = None, per_org: int | None = None,
          holding: Collection[str] = ()) -> list[Job]:
    """Claim up to ``limit`` runnable jobs, sharing them fairly between organizations.

    Processing jobs whose lease expired (their worker died) come first. Then pending jobs, one
    organization at a time in turn: the organizations with pending work are taken in name order
    starting after ``after_org`` (the last one served), each giving its oldest jobs, an equal
    share of the room left, round after round (``turns.in_turn``). An organization already
    holding ``busy[org]`` of this worker's jobs gets at most ``per_org`` in all, so one tenant's
    backlog never fills a worker.

    Jobs that already failed ``max_attempts`` claims (they keep killing their worker) are closed
    as ``failure`` instead of being run again. ``holding``: the jobs ``owner`` is running; their
    leases may have run out while the catalog was away, but they are not abandoned.
    """
    claimed: list[Job] = []
    busy = dict(busy or {})
    with write_txn(engine) as conn:
        now = _db_now_us(conn)
        expired = and_(jobs.c.status == PROCESSING, jobs.c.lease_expires_us < now)
        if holding:
            expired = and_(expired, not_(and_(jobs.c.lease_owner == owner, jobs.c.id.in_(list(holding)))))
        pending = and_(jobs.c.status == PENDING, jobs.c.lease_expires_us.is_(None))
        lock = engine.dialect.name == "postgresql"

        def take(rows: list[Any], runnable: Any) -> None:
            """Claim ``rows`` (up to the room left) that are still ``runnable``: one statement
            for all of them, in their order."""
            fresh: dict[bool, list[Any]] = {False: [], True: []}
            for row in rows[:max(0, limit - len(claimed))]:
                # This owner's own expired job that it is not running: a claim whose commit it
                # never heard of (the catalog dropped the connection just then). It never ran, so
                # the attempt is not counted again; a worker that died comes back as a new owner.
                mine = getattr(row, "lease_owner", None) == owner
                if row.attempts >= max_attempts and not mine:
                    conn.execute(update(jobs).where(jobs.c.id == row.id).values(
                        status=FAILURE, finished_us=now, lease_owner=None, lease_expires_us=None,
                        error=f"the job was abandoned by its worker {row.attempts} times; giving up"))
                    webhooks.enqueue(conn, row.id)
                    continue
                fresh[mine].append(row)
            got: dict[str, Job] = {}
            for mine, some in fresh.items():
                if some:
                    got.update((r["id"], Job.from_row(r)) for r in conn.execute(
                        update(jobs).where(jobs.c.id.in_([r.id for r in some]), runnable).values(
                            status=PROCESSING, lease_owner=owner, lease_expires_us=now + int(lease_s * 1e6),
                            attempts=jobs.c.attempts + (0 if mine else 1), started_us=now)
                        .returning(*jobs.c)).mappings())
            for row in rows:
                if (job := got.get(row.id)) is not None:
                    job.reclaimed_from = getattr(row, "lease_owner", None)
                    claimed.append(job)
                    busy[job.organization_id] = busy.get(job.organization_id, 0) + 1

        q = select(jobs.c.id, jobs.c.attempts, jobs.c.organization_id, jobs.c.lease_owner).where(expired)
        q = q.order_by(jobs.c.created_us).limit(limit)
        take(list(conn.execute(q.with_for_update(skip_locked=True) if lock else q)), expired)

        def take_oldest(rows: list[Any], _of_org: Any) -> bool:  # updates under `pending`, as ever
            before = len(claimed)
            take(rows, pending)
            return len(claimed) > before or any(r.attempts >= max_attempts for r in rows)

        # Pending jobs have no lease: ix_jobs_claim_org (status, organization_id, created_us)
        # hands out each organization's oldest without sorting its backlog.
        in_turn(conn, pending, (jobs.c.id, jobs.c.attempts, jobs.c.organization_id), take_oldest,
                after_org=after_org, limit=limit, taken=claimed, busy=busy, per_org=per_org)
    return claimed


@waits_out_outages
def others_waiting(engine: Engine, orgs: Collection[str]) -> bool:
    """Whether an organization outside ``orgs`` has a pending job (a loose index scan: one probe
    per organization, whatever their backlogs)."""
    with engine.connect() as conn:
        return any(o not in orgs for o in pending_orgs(conn, "", len(orgs) + 1))


def _db_now_us(conn: Any) -> int:
    """Lease time from one clock: the database server's on PostgreSQL (workers on several hosts
    may disagree), this host's on SQLite (every process shares it)."""
    if conn.dialect.name == "postgresql":
        return int(conn.execute(text("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")).scalar())
    return now_us()


@waits_out_outages
def renew(engine: Engine, owner: str, job_ids: list[str], lease_s: float) -> int:
    if not job_ids:
        return 0
    with write_txn(engine) as conn:
        return conn.execute(
            update(jobs)
            .where(jobs.c.id.in_(job_ids), jobs.c.lease_owner == owner, jobs.c.status == PROCESSING)
            .values(lease_expires_us=_db_now_us(conn) + int(lease_s * 1e6))
        ).rowcount


@waits_out_outages  # a chunk's jobs, read at once
def get_jobs_by_ids(engine: Engine, job_ids: list[str]) -> dict[str, Job]:
    with engine.connect() as conn:
        rows = conn.execute(select(jobs).where(jobs.c.id.in_(job_ids))).mappings().all()
    return {r["id"]: Job.from_row(r) for r in rows}


@waits_out_outages
def leases(engine: Engine, job_ids: list[str]) -> dict[str, tuple[str | None, str, int]]:
    """(lease owner, status, attempts) of each of ``job_ids`` still in the catalog."""
    with engine.connect() as conn:
        rows = conn.execute(select(jobs.c.id, jobs.c.lease_owner, jobs.c.status, jobs.c.attempts)
                            .where(jobs.c.id.in_(job_ids))).all()
    return {r.id: (r.lease_owner, r.status, r.attempts) for r in rows}


@waits_out_outages
def set_flow_run(engine: Engine, owner: str, job_ids: list[str], flow_run_id: str) -> None:
    with write_txn(engine) as conn:
        conn.execute(update(jobs).where(jobs.c.id.in_(job_ids), jobs.c.lease_owner == owner)
                     .values(flow_run_id=flow_run_id))


@waits_out_outages
def finish(engine: Engine, owner: str, job_id: str, attempt: int, *, status: JobStatus | str,
           error: str | None, result_key: str | None, total_pages: int | None,
           parsed_pages_count: int, org: str | None = None, project: str | None = None) -> bool:
    """Close a claimed job (and queue its webhook events); False if this worker no longer holds it
    (someone else took over). A retry after an outage whose first commit went through finds the
    row saying what it would write: True, no second event (else ``complete`` deletes the result)."""
    with write_txn(engine) as conn:
        done = bool(conn.execute(
            update(jobs)
            .where(jobs.c.id == job_id, jobs.c.lease_owner == owner, jobs.c.attempts == attempt,
                   jobs.c.status == PROCESSING)
            .values(status=JobStatus(status).value, error=error, result_key=result_key, total_pages=total_pages,
                    parsed_pages_count=parsed_pages_count, finished_us=_db_now_us(conn),
                    lease_owner=None, lease_expires_us=None)
        ).rowcount)
        if done:  # the job's webhook events, in the same transaction: never one without the other
            webhooks.enqueue(conn, job_id, org, project)
            return True
        now = conn.execute(select(jobs.c.status, jobs.c.result_key, jobs.c.attempts, jobs.c.lease_owner)
                           .where(jobs.c.id == job_id)).first()
        # (an attempt number is one claim's: no other worker closes the job under the same one)
        return now is not None and now.lease_owner is None and now.attempts == attempt \
            and now.status == JobStatus(status).value and now.result_key == result_key


@waits_out_outages
def release(engine: Engine, owner: str) -> int:
    """Hand back every job ``owner`` holds (graceful shutdown): they become pending again."""
    with write_txn(engine) as conn:
        return conn.execute(
            update(jobs).where(jobs.c.lease_owner == owner, jobs.c.status == PROCESSING)
            .values(status=PENDING, lease_owner=None, lease_expires_us=None,
                    attempts=jobs.c.attempts - 1)
        ).rowcount


@waits_out_outages
def release_jobs(engine: Engine, owner: str, job_ids: list[str]) -> int:
    """Hand back those of ``job_ids`` that ``owner`` still holds, without counting the attempt:
    they could not run because something around them (the orchestrator) was away."""
    if not job_ids:
        return 0
    with write_txn(engine) as conn:
        return conn.execute(
            update(jobs).where(jobs.c.id.in_(job_ids), jobs.c.lease_owner == owner, jobs.c.status == PROCESSING)
            .values(status=PENDING, lease_owner=None, lease_expires_us=None, attempts=jobs.c.attempts - 1)
        ).rowcount

