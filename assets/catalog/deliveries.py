"""Job rows as ``prefect`` delivery (``DOCKLAKE_WORKER__DELIVERY=prefect``) moves them.

A feeder marks pending jobs as handed to Prefect (a lease held by ``DELIVERY`` on a row that stays
``pending``), Prefect's task workers *take* them by id (``pending → processing`` under their own
lease), and a delivery nobody took is made again once its lease runs out. Finishing, renewing and
handing back are ``assets.catalog.jobs``'s, as in the catalog mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, and_, func, select, update

from assets.catalog import webhooks
from assets.catalog.db import jobs, waits_out_outages, write_txn
from assets.catalog.jobs import FAILURE, PENDING, PROCESSING, _db_now_us
from assets.catalog.turns import in_turn
from pipelines.core.records import Job

DELIVERY = "prefect-delivery"


def _undelivered(now: int) -> Any:
    return and_(jobs.c.status == PENDING, (jobs.c.lease_expires_us.is_(None)) | (jobs.c.lease_expires_us < now))


@waits_out_outages
def mark_for_delivery(engine: Engine, limit: int, lease_s: float, *, after_org: str = "",
                      busy: dict[str, int] | None = None, per_org: int | None = None) -> list[Job]:
    """Mark up to ``limit`` pending jobs as delivered, one organization at a time in turn (the
    order of ``claim``): jobs never delivered, and deliveries whose lease ran out (made but never
    taken: the task run was lost). ``busy[org]``: the organization's deliveries waiting to be
    taken; it gets at most ``per_org`` of them."""
    marked: list[Job] = []
    busy = dict(busy or {})
    with write_txn(engine) as conn:
        now = _db_now_us(conn)

        def mark(rows: list[Any], runnable: Any) -> bool:
            got = {r["id"]: Job.from_row(r) for r in conn.execute(
                update(jobs).where(jobs.c.id.in_([r.id for r in rows]), runnable)
                .values(lease_owner=DELIVERY, lease_expires_us=now + int(lease_s * 1e6))
                .returning(*jobs.c)).mappings()}
            for row in rows:
                if (job := got.get(row.id)) is not None:
                    marked.append(job)
                    busy[job.organization_id] = busy.get(job.organization_id, 0) + 1
            return bool(got)

        in_turn(conn, _undelivered(now), (jobs.c.id,), mark,
                after_org=after_org, limit=limit, taken=marked, busy=busy, per_org=per_org)
    return marked


@waits_out_outages
def delivered_waiting(engine: Engine) -> dict[str, int]:
    """Deliveries not yet taken (lease still running), per organization."""
    with engine.connect() as conn:
        now = _db_now_us(conn)
        rows = conn.execute(select(jobs.c.organization_id, func.count()).where(
            jobs.c.status == PENDING, jobs.c.lease_owner == DELIVERY, jobs.c.lease_expires_us >= now)
            .group_by(jobs.c.organization_id))
        return {org: n for org, n in rows}


@waits_out_outages
def undeliver(engine: Engine, job_ids: list[str]) -> int:
    """Take back deliveries that could not be made (the Prefect API away): pending, unmarked."""
    if not job_ids:
        return 0
    with write_txn(engine) as conn:
        return conn.execute(update(jobs).where(jobs.c.id.in_(job_ids), jobs.c.status == PENDING,
                                               jobs.c.lease_owner == DELIVERY)
                            .values(lease_owner=None, lease_expires_us=None)).rowcount


@waits_out_outages
def take(engine: Engine, owner: str, job_ids: list[str], lease_s: float) -> list[Job]:
    """A worker takes delivered jobs: ``pending → processing`` under ``owner``'s lease, counting
    the attempt. Those not pending any more (taken through another delivery, finished, deleted)
    are left out: each job runs once however often it was delivered."""
    taken: list[Job] = []
    with write_txn(engine) as conn:
        now = _db_now_us(conn)
        for job_id in job_ids:
            if conn.execute(update(jobs).where(jobs.c.id == job_id, jobs.c.status == PENDING).values(
                    status=PROCESSING, lease_owner=owner, lease_expires_us=now + int(lease_s * 1e6),
                    attempts=jobs.c.attempts + 1, started_us=now)).rowcount:
                taken.append(Job.from_row(conn.execute(select(jobs).where(jobs.c.id == job_id)).mappings().one()))
    return taken


@dataclass
class Requeued:
    job_id: str
    owner: str | None  # the worker that died holding it


@waits_out_outages
def requeue_expired(engine: Engine, max_attempts: int, grace_s: float = 0.0, limit: int = 500) -> list[Requeued]:
    """Jobs whose worker died (lease expired while ``processing``, ``grace_s`` ago or more) become
    pending again, to be delivered anew; those already taken ``max_attempts`` times end
    ``failure`` instead. The grace lets a live worker whose renewals the catalog missed (it was
    away) renew first once it is back."""
    out: list[Requeued] = []
    with write_txn(engine) as conn:
        now = _db_now_us(conn)
        expired = and_(jobs.c.status == PROCESSING, jobs.c.lease_expires_us < now - int(grace_s * 1e6))
        q = select(jobs.c.id, jobs.c.attempts, jobs.c.lease_owner).where(expired).limit(limit)
        if engine.dialect.name == "postgresql":
            q = q.with_for_update(skip_locked=True)
        for row in list(conn.execute(q)):
            if row.attempts >= max_attempts:
                values: dict[str, Any] = dict(
                    status=FAILURE, finished_us=now, lease_owner=None, lease_expires_us=None,
                    error=f"the job was abandoned by its worker {row.attempts} times; giving up")
            else:
                values = dict(status=PENDING, lease_owner=None, lease_expires_us=None)
            if conn.execute(update(jobs).where(jobs.c.id == row.id, expired).values(**values)).rowcount:
                if values["status"] == FAILURE:
                    webhooks.enqueue(conn, row.id)
                out.append(Requeued(row.id, row.lease_owner))
    return out
