"""Webhooks: a project registers URLs; each finished job's event (``parse.completed`` or
``parse.failed``) is sent to them, signed the Standard Webhooks way, and retried with exponential
backoff until the receiver answers 2xx or the attempts run out. Every attempt is recorded.

Signature: headers ``webhook-id`` (the delivery's id, the same on every retry), ``webhook-timestamp``
(Unix seconds) and ``webhook-signature: v1,<base64 HMAC-SHA256>`` of ``"{id}.{timestamp}.{body}"``
keyed with the base64-decoded part of the secret after ``whsec_``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from types import SimpleNamespace

import httpx
import structlog
from tenacity import wait_exponential_jitter

from assets.catalog import webhooks as webhooks_repo
from assets.catalog.db import now_us
from pipelines.core.errors import DocklakeError, InvalidRequest, NotFound
from pipelines.core.records import WEBHOOK_EVENTS, Delivery, DeliveryStatus, Page, Principal, Webhook
from pipelines.core.requests import text_problem
from pipelines.engine.fetch import check_url
from pipelines.usecases import datasets
from pipelines.usecases.runtime import Runtime

log = structlog.get_logger("docklake.webhooks")
MAX_ERROR = 500


def register(rt: Runtime, p: Principal, url: str, events: list[str] | None = None,
             dataset_id: str | None = None) -> Webhook:
    if (problem := text_problem(url)) is not None or len(url) > 2048:
        raise InvalidRequest(f"url {problem or 'is longer than 2048 characters'}")
    check_url(url, rt.settings.limits.allow_private_urls)
    wanted = list(dict.fromkeys(events or WEBHOOK_EVENTS))
    if unknown := [e for e in wanted if e not in WEBHOOK_EVENTS]:
        raise InvalidRequest(f"unknown webhook events {unknown}; known: {', '.join(WEBHOOK_EVENTS)}")
    if dataset_id is not None:
        datasets.get(rt, p, dataset_id)
    return webhooks_repo.create(rt.engine, p, url, wanted, dataset_id)


def get(rt: Runtime, p: Principal, webhook_id: str) -> Webhook:
    hook = webhooks_repo.get(rt.engine, p, webhook_id)
    if hook is None:
        raise NotFound(f"webhook {webhook_id} not found")
    return hook


def list_webhooks(rt: Runtime, p: Principal) -> list[Webhook]:
    return webhooks_repo.list_webhooks(rt.engine, p)


def delete(rt: Runtime, p: Principal, webhook_id: str) -> None:
    if not webhooks_repo.delete_webhook(rt.engine, p, webhook_id):
        raise NotFound(f"webhook {webhook_id} not found")


def deliveries(rt: Runtime, p: Principal, webhook_id: str, *, cursor: str | None, direction: str,
               limit: int) -> Page:
    get(rt, p, webhook_id)
    return webhooks_repo.list_deliveries(rt.engine, p, webhook_id, cursor=cursor, direction=direction, limit=limit)


def sign(secret: str, msg_id: str, timestamp: int, body: str) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def _next_attempt_us(rt: Runtime, attempts_done: int) -> int | None:
    """When to try again after ``attempts_done`` failed attempts (None: no attempt left)."""
    s = rt.settings.webhooks
    if attempts_done >= s.max_attempts:
        return None
    wait = wait_exponential_jitter(multiplier=s.backoff_s, max=s.max_backoff_s, jitter=s.backoff_s / 4)
    delay = wait(SimpleNamespace(attempt_number=attempts_done))  # type: ignore[arg-type]
    return now_us() + int(delay * 1e6)


def _send(rt: Runtime, client: httpx.Client, d: Delivery) -> DeliveryStatus:
    ts = int(time.time())
    headers = {"content-type": "application/json", "webhook-id": d.id, "webhook-timestamp": str(ts),
               "webhook-signature": sign(d.secret, d.id, ts, d.payload), "user-agent": "docklake-webhooks"}
    started = time.monotonic()
    code, error = None, None
    try:
        check_url(d.url, rt.settings.limits.allow_private_urls)  # its address may have changed since
        resp = client.post(d.url, content=d.payload.encode(), headers=headers)
        code = resp.status_code
        if not 200 <= code < 300:
            error = f"HTTP {code}: {resp.text[:200]}"
    except DocklakeError as exc:
        error = exc.message
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"
    ms = int((time.monotonic() - started) * 1000)
    status = webhooks_repo.record_attempt(
        rt.engine, d, status_code=code, error=error[:MAX_ERROR] if error else None, duration_ms=ms,
        next_attempt_us=None if error is None else _next_attempt_us(rt, d.attempts + 1))
    log.info("webhook_attempt", delivery=d.id, webhook=d.webhook_id, webhook_event=d.event, job_id=d.job_id,
             attempt=d.attempts + 1, status_code=code, error=error, outcome=status.value)
    return status


def deliver_due(rt: Runtime, owner: str, limit: int = 50) -> int:
    """Send the deliveries whose time has come; how many were attempted."""
    s = rt.settings.webhooks
    due = webhooks_repo.claim_due(rt.engine, owner, limit, lease_s=s.timeout_s * 3 + 30)
    if not due:
        return 0
    with httpx.Client(timeout=s.timeout_s, follow_redirects=False) as client:
        for d in due:
            _send(rt, client, d)
    return len(due)
