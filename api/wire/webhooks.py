"""Webhooks on the wire (a docklake extension): the registration, the webhook as listed (its
secret only when it is created), and each delivery with its attempts."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from api.wire.common import Paginated
from pipelines.core.records import Delivery, Webhook, rfc3339


class WebhookCreate(BaseModel):
    url: str = Field(description="Where to POST the events (http or https; loopback and private addresses only "
                     "with DOCKLAKE_LIMITS__ALLOW_PRIVATE_URLS).")
    events: list[str] | None = Field(None, description="parse.completed and/or parse.failed (default: both).")
    dataset_id: str | None = Field(None, description="Only this dataset's jobs.")


class WebhookInfo(BaseModel):
    webhook_id: str
    url: str
    events: list[str]
    dataset_id: str | None
    created_at: str
    secret: str | None = Field(None, description="Shown when the webhook is created: the key of its signatures.")


class WebhookList(BaseModel):
    items: list[WebhookInfo]


class DeliveryAttempt(BaseModel):
    attempt: int
    at: str
    status_code: int | None
    error: str | None
    duration_ms: int


class DeliveryInfo(BaseModel):
    delivery_id: str
    event: str
    parse_id: str
    status: str = Field(description="pending, delivered or failed.")
    attempts: int
    created_at: str
    next_attempt_at: str | None
    delivered_at: str | None
    last_error: str | None
    history: list[DeliveryAttempt]


class DeliveryList(Paginated):
    items: list[DeliveryInfo]


def webhook(h: Webhook, with_secret: bool = False) -> dict[str, Any]:
    return WebhookInfo(webhook_id=h.id, url=h.url, events=h.events, dataset_id=h.dataset_id,
                       created_at=rfc3339(h.created_us), secret=h.secret if with_secret else None).model_dump()


def delivery(d: Delivery) -> dict[str, Any]:
    return DeliveryInfo(
        delivery_id=d.id, event=d.event, parse_id=d.job_id, status=d.status.value, attempts=d.attempts,
        created_at=rfc3339(d.created_us), next_attempt_at=rfc3339(d.next_attempt_us),
        delivered_at=rfc3339(d.delivered_us), last_error=d.last_error,
        history=[DeliveryAttempt(attempt=a["attempt"], at=rfc3339(a["at_us"]), status_code=a["status_code"],
                                 error=a["error"], duration_ms=a["duration_ms"]) for a in d.history],
    ).model_dump()
