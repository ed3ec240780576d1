"""``/documents/v2/webhooks``: where a project's job events go, and what became of each delivery
(a docklake extension; the payload and signing are described in ``pipelines.usecases.webhooks``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response
from fastapi.concurrency import run_in_threadpool

from api.deps import PrincipalDep, RuntimeDep
from api.wire.documents import JSON, paginated, rfc3339
from api.wire.schemas import DeliveryList, WebhookCreate, WebhookInfo, WebhookList, responses
from pipelines.core.records import MAX_LIMIT, Delivery, Webhook
from pipelines.usecases import webhooks

router = APIRouter(prefix="/documents/v2/webhooks", tags=["webhooks"])


def _webhook(h: Webhook, with_secret: bool = False) -> dict[str, Any]:
    return {"webhook_id": h.id, "url": h.url, "events": h.events, "dataset_id": h.dataset_id,
            "created_at": rfc3339(h.created_us), "secret": h.secret if with_secret else None}


def _delivery(d: Delivery) -> dict[str, Any]:
    return {"delivery_id": d.id, "event": d.event, "parse_id": d.job_id, "status": d.status.value,
            "attempts": d.attempts, "created_at": rfc3339(d.created_us), "next_attempt_at": rfc3339(d.next_attempt_us),
            "delivered_at": rfc3339(d.delivered_us), "last_error": d.last_error,
            "history": [{"attempt": a["attempt"], "at": rfc3339(a["at_us"]), "status_code": a["status_code"],
                         "error": a["error"], "duration_ms": a["duration_ms"]} for a in d.history]}


@router.post("", response_model=WebhookInfo, response_class=JSON, responses=responses(400, 404, body=True))
async def create_webhook(req: WebhookCreate, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    hook = await run_in_threadpool(webhooks.register, rt, principal, req.url, req.events, req.dataset_id)
    return JSON(_webhook(hook, with_secret=True))


@router.get("", response_model=WebhookList, response_class=JSON, responses=responses())
async def list_webhooks(principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    hooks = await run_in_threadpool(webhooks.list_webhooks, rt, principal)
    return JSON({"items": [_webhook(h) for h in hooks]})


@router.get("/{webhook_id}", response_model=WebhookInfo, response_class=JSON, responses=responses(404))
async def get_webhook(webhook_id: str, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    return JSON(_webhook(await run_in_threadpool(webhooks.get, rt, principal, webhook_id)))


@router.delete("/{webhook_id}", status_code=204, response_class=Response, responses=responses(404))
async def delete_webhook(webhook_id: str, principal: PrincipalDep, rt: RuntimeDep) -> Response:
    await run_in_threadpool(webhooks.delete, rt, principal, webhook_id)
    return Response(status_code=204)


@router.get("/{webhook_id}/deliveries", response_model=DeliveryList, response_class=JSON,
            responses=responses(404, query=True))
async def list_deliveries(webhook_id: str, principal: PrincipalDep, rt: RuntimeDep, cursor: str | None = None,
                          direction: Literal["next", "prev"] = "next",
                          limit: Annotated[int, Query(ge=0, le=MAX_LIMIT)] = 100) -> JSON:
    def run() -> dict:
        page = webhooks.deliveries(rt, principal, webhook_id, cursor=cursor, direction=direction, limit=limit)
        return paginated(page, [_delivery(d) for d in page.rows])

    return JSON(await run_in_threadpool(run))
