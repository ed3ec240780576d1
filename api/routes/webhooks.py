"""``/documents/v2/webhooks``: where a project's job events go, and what became of each delivery
(a docklake extension; the payload and signing are described in ``pipelines.usecases.webhooks``)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response
from fastapi.concurrency import run_in_threadpool

from api.deps import PrincipalDep, RuntimeDep
from api.wire import webhooks as wire
from api.wire.common import JSON, paginated, responses
from api.wire.webhooks import DeliveryList, WebhookCreate, WebhookInfo, WebhookList
from pipelines.core.records import MAX_LIMIT
from pipelines.usecases import webhooks

router = APIRouter(prefix="/documents/v2/webhooks", tags=["webhooks"])


@router.post("", response_model=WebhookInfo, response_class=JSON, responses=responses(400, 404, body=True))
async def create_webhook(req: WebhookCreate, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    hook = await run_in_threadpool(webhooks.register, rt, principal, req.url, req.events, req.dataset_id)
    return JSON(wire.webhook(hook, with_secret=True))


@router.get("", response_model=WebhookList, response_class=JSON, responses=responses())
async def list_webhooks(principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    hooks = await run_in_threadpool(webhooks.list_webhooks, rt, principal)
    return JSON({"items": [wire.webhook(h) for h in hooks]})


@router.get("/{webhook_id}", response_model=WebhookInfo, response_class=JSON, responses=responses(404))
async def get_webhook(webhook_id: str, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    return JSON(wire.webhook(await run_in_threadpool(webhooks.get, rt, principal, webhook_id)))


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
        return paginated(page, [wire.delivery(d) for d in page.rows])

    return JSON(await run_in_threadpool(run))
