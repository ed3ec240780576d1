"""The catalog's webhooks and their outbox.

When a job finishes, ``enqueue`` writes one delivery per matching webhook in the same transaction
that closes the job, so an event is never lost to a crash between the two; workers then claim due
deliveries (``claim_due``), send them, and record every attempt (``record_attempt``).
"""

from __future__ import annotations

import base64
import json
import secrets
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, insert, or_, select, update

from assets.catalog.db import jobs, now_us, webhook_attempts, webhook_deliveries, webhooks, write_txn
from assets.catalog.pagination import paginate
from pipelines.core.records import Delivery, DeliveryStatus, JobStatus, Page, Principal, Webhook, rfc3339

EVENT_OF = {JobStatus.successful.value: "parse.completed", JobStatus.failure.value: "parse.failed"}


def _scoped(p: Principal) -> Any:
    return and_(webhooks.c.organization_id == p.organization_id, webhooks.c.project_id == p.project_id)


def create(engine: Engine, p: Principal, url: str, events: list[str], dataset_id: str | None) -> Webhook:
    hook = Webhook(id="webhook_" + secrets.token_hex(12), organization_id=p.organization_id,
                   project_id=p.project_id, url=url, secret="whsec_" + base64.b64encode(secrets.token_bytes(24)).decode(),
                   events=events, created_us=now_us(), dataset_id=dataset_id)
    with write_txn(engine) as conn:
        conn.execute(insert(webhooks).values(
            id=hook.id, organization_id=hook.organization_id, project_id=hook.project_id, url=url,
            secret=hook.secret, events=events, dataset_id=dataset_id, created_us=hook.created_us))
    return hook


def get(engine: Engine, p: Principal, webhook_id: str) -> Webhook | None:
    with engine.connect() as conn:
        row = conn.execute(select(webhooks).where(_scoped(p), webhooks.c.id == webhook_id)).mappings().first()
    return Webhook.from_row(row) if row else None


def list_webhooks(engine: Engine, p: Principal) -> list[Webhook]:
    with engine.connect() as conn:
        rows = conn.execute(select(webhooks).where(_scoped(p)).order_by(webhooks.c.created_us.desc())).mappings()
        return [Webhook.from_row(r) for r in rows]


def delete_webhook(engine: Engine, p: Principal, webhook_id: str) -> bool:
    """Delete the webhook; its deliveries not yet sent are dropped, the record of the others kept."""
    with write_txn(engine) as conn:
        gone = conn.execute(delete(webhooks).where(_scoped(p), webhooks.c.id == webhook_id)).rowcount
        if gone:
            conn.execute(update(webhook_deliveries)
                         .where(webhook_deliveries.c.webhook_id == webhook_id,
                                webhook_deliveries.c.status == DeliveryStatus.pending.value)
                         .values(status=DeliveryStatus.failed.value, next_attempt_us=None,
                                 last_error="the webhook was deleted"))
    return bool(gone)


enqueued = [0]  # deliveries written by this process so far (the dispatcher wakes its sender on news)


def enqueue(conn: Connection, job_id: str, org: str | None = None, project: str | None = None) -> int:
    """Deliveries of a just-finished job's event to every webhook that wants it (call inside the
    transaction that finished the job); how many."""
    if org is not None and project is not None and conn.execute(select(webhooks.c.id).where(
            webhooks.c.organization_id == org, webhooks.c.project_id == project).limit(1)).first() is None:
        return 0  # no webhook in the project: nothing to read
    job = conn.execute(select(jobs).where(jobs.c.id == job_id)).mappings().first()
    event = EVENT_OF.get(job["status"]) if job else None
    if event is None:
        return 0
    wanted = conn.execute(select(webhooks).where(
        webhooks.c.organization_id == job["organization_id"], webhooks.c.project_id == job["project_id"],
        or_(webhooks.c.dataset_id.is_(None), webhooks.c.dataset_id == job["dataset_id"]))).mappings().all()
    hooks = [h for h in wanted if event in (h["events"] or [])]
    if not hooks:
        return 0
    now = now_us()
    payload = json.dumps({
        "type": event,
        "timestamp": rfc3339(now),
        "data": {
            "parse_id": job["id"], "status": job["status"], "error": job["error"],
            "dataset_id": job["dataset_id"], "dataset_name": job["dataset_name"], "file_id": job["file_id"],
            "file_name": job["file_name"], "labels": job["labels"], "total_pages": job["total_pages"],
            "parsed_pages_count": job["parsed_pages_count"], "created_at": rfc3339(job["created_us"]),
            "finished_at": rfc3339(job["finished_us"]),
        },
    }, ensure_ascii=False, separators=(",", ":"))
    conn.execute(insert(webhook_deliveries), [
        dict(id="msg_" + secrets.token_hex(12), webhook_id=h["id"], organization_id=h["organization_id"],
             project_id=h["project_id"], event=event, job_id=job["id"], payload=payload,
             status=DeliveryStatus.pending.value, attempts=0, next_attempt_us=now, created_us=now)
        for h in hooks])
    enqueued[0] += len(hooks)
    return len(hooks)


def claim_due(engine: Engine, owner: str, limit: int, lease_s: float) -> list[Delivery]:
    """Up to ``limit`` deliveries whose time has come, held by ``owner`` for ``lease_s`` (their
    next attempt moves past the lease, so a worker that dies mid-send only delays them)."""
    now = now_us()
    with write_txn(engine) as conn:
        rows = conn.execute(
            select(webhook_deliveries, webhooks.c.url, webhooks.c.secret)
            .join(webhooks, webhooks.c.id == webhook_deliveries.c.webhook_id)
            .where(webhook_deliveries.c.status == DeliveryStatus.pending.value,
                   webhook_deliveries.c.next_attempt_us <= now)
            .order_by(webhook_deliveries.c.next_attempt_us).limit(limit)).mappings().all()
        if rows:
            conn.execute(update(webhook_deliveries)
                         .where(webhook_deliveries.c.id.in_([r["id"] for r in rows]))
                         .values(lease_owner=owner, next_attempt_us=now + int(lease_s * 1e6)))
    out = []
    for r in rows:
        d = Delivery.from_row(r)
        d.url, d.secret = r["url"], r["secret"]
        out.append(d)
    return out


def record_attempt(engine: Engine, d: Delivery, *, status_code: int | None, error: str | None,
                   duration_ms: int, next_attempt_us: int | None) -> DeliveryStatus:
    """Record one attempt; the delivery is then delivered (2xx), failed (``next_attempt_us`` is
    None: no attempt left) or pending until ``next_attempt_us``."""
    now = now_us()
    ok = status_code is not None and 200 <= status_code < 300
    status = DeliveryStatus.delivered if ok else (
        DeliveryStatus.pending if next_attempt_us is not None else DeliveryStatus.failed)
    with write_txn(engine) as conn:
        conn.execute(insert(webhook_attempts).values(delivery_id=d.id, attempt=d.attempts + 1, at_us=now,
                                                     status_code=status_code, error=error, duration_ms=duration_ms))
        conn.execute(update(webhook_deliveries).where(webhook_deliveries.c.id == d.id).values(
            attempts=d.attempts + 1, status=status.value, lease_owner=None,
            next_attempt_us=None if status != DeliveryStatus.pending else next_attempt_us,
            last_error=None if ok else error, delivered_us=now if ok else None))
    return status


def list_deliveries(engine: Engine, p: Principal, webhook_id: str, *, cursor: str | None, direction: str,
                    limit: int) -> Page:
    """A page of the webhook's deliveries, newest first, each with its attempts."""
    q = select(webhook_deliveries).where(
        webhook_deliveries.c.webhook_id == webhook_id,
        webhook_deliveries.c.organization_id == p.organization_id,
        webhook_deliveries.c.project_id == p.project_id)
    with engine.connect() as conn:
        page = paginate(conn, q, webhook_deliveries.c.created_us, webhook_deliveries.c.id, cursor=cursor,
                        direction=direction, limit=limit)  # type: ignore[arg-type]
        found = [Delivery.from_row(r) for r in page.rows]
        if found:
            for a in conn.execute(select(webhook_attempts)
                                  .where(webhook_attempts.c.delivery_id.in_([d.id for d in found]))
                                  .order_by(webhook_attempts.c.attempt)).mappings():
                next(d for d in found if d.id == a["delivery_id"]).history.append(
                    {k: a[k] for k in ("attempt", "at_us", "status_code", "error", "duration_ms")})
    page.rows = found
    return page
